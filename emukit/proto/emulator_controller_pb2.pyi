from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ClipData(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class EmulatorStatus(_message.Message):
    __slots__ = ("version", "uptime", "booted")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    UPTIME_FIELD_NUMBER: _ClassVar[int]
    BOOTED_FIELD_NUMBER: _ClassVar[int]
    version: str
    uptime: int
    booted: bool
    def __init__(self, version: _Optional[str] = ..., uptime: _Optional[int] = ..., booted: _Optional[bool] = ...) -> None: ...
