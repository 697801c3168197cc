"""The virtual device's gRPC controller: the subset of the emulator's
``android.emulation.control.EmulatorController`` that emukit uses (``emukit/proto/emulator_controller.proto``).

Like an emulator started with ``-grpc PORT -grpc-use-token``:

* it listens on 127.0.0.1 only;
* with a token (the default: 64 random bytes, base64, made at start) every call must carry
  ``authorization: Bearer <token>``, otherwise it fails with ``UNAUTHENTICATED``;
* it advertises itself in ``pid_<pid>.ini`` in the emulator discovery directory
  (:func:`emukit.device.emulator_grpc.discovery_dir`), with ``port.serial``, ``port.adb``, ``avd.name``,
  ``grpc.port`` and ``grpc.token``, and removes that file when it stops.

Calls: ``getClipboard`` (the primary clip's text, "" when none; reads only), ``setClipboard`` (replaces the
clip, empty label), ``streamClipboard`` (the current clip, then each clip the guest sets; clips set through
``setClipboard`` are not echoed, as with the emulator) and ``getStatus`` (uptime = the device's
elapsed-realtime, booted = ``sys.boot_completed``).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hmac
import logging
import os
import secrets
import threading
from concurrent import futures
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from google.protobuf.empty_pb2 import Empty

from emukit import __version__
from emukit.device.emulator_grpc import (
    DISCOVERY_GLOB,
    discovery_dir,
    pid_alive,
    read_discovery_file,
)
from emukit.proto import emulator_controller_pb2 as pb2
from emukit.proto import emulator_controller_pb2_grpc as pb2_grpc

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
VERSION = f"emukit-vdevice {__version__}"
GENERATE = "generate"  # token argument: make a fresh token at start
STREAM_POLL_S = 0.05
MAX_WORKERS = 16  # each open streamClipboard holds one


def generate_token() -> str:
    """A bearer token like the emulator's: 64 random bytes, base64."""
    return base64.b64encode(secrets.token_bytes(64)).decode("ascii")


# ---------------------------------------------------------------------------------------------- servicer
class EmulatorControllerServicer(pb2_grpc.EmulatorControllerServicer):
    """The calls, on top of a :class:`VirtualDevice` (every access under ``device.lock``)."""

    def __init__(self, device: VirtualDevice, stopping: threading.Event | None = None) -> None:
        self.device = device
        self.stopping = stopping or threading.Event()
        self._host_clip: object | None = None  # the clip object setClipboard made (not echoed by streams)

    def getClipboard(self, request: Empty, context: grpc.ServicerContext) -> pb2.ClipData:
        with self.device.lock:
            clip = self.device.get_clip()
            return pb2.ClipData(text=clip.text if clip is not None else "")

    def setClipboard(self, request: pb2.ClipData, context: grpc.ServicerContext) -> Empty:
        with self.device.ui_changing(), self.device.lock:
            self.device.set_clip(request.text, label="")
            self._host_clip = self.device.get_clip()
        return Empty()

    def streamClipboard(self, request: Empty, context: grpc.ServicerContext):
        with self.device.lock:
            last = self.device.get_clip()
        yield pb2.ClipData(text=last.text if last is not None else "")
        # The device has no change callback to hook (snapshot loads replace the whole state), so watch the
        # clip object: every set makes a new one.
        while context.is_active() and not self.stopping.wait(STREAM_POLL_S):
            with self.device.lock:
                clip = self.device.get_clip()
                host_clip = self._host_clip
            if clip is last:
                continue
            last = clip
            if clip is None or clip is host_clip:
                continue
            yield pb2.ClipData(text=clip.text)

    def getStatus(self, request: Empty, context: grpc.ServicerContext) -> pb2.EmulatorStatus:
        with self.device.lock:
            uptime = self.device.elapsed_ms()
            booted = self.device.state.props.get("sys.boot_completed") == "1"
        return pb2.EmulatorStatus(version=VERSION, uptime=max(0, int(uptime)), booted=booted)


# ---------------------------------------------------------------------------------------------- auth
class TokenAuthInterceptor(grpc.ServerInterceptor):
    """Lets a call through only with ``authorization: Bearer <token>`` (compared in constant time)."""

    def __init__(self, token: str) -> None:
        self._expected = f"Bearer {token}".encode()

    def intercept_service(self, continuation, handler_call_details):
        for key, value in handler_call_details.invocation_metadata or ():
            if key.lower() == "authorization":
                given = value.encode() if isinstance(value, str) else bytes(value)
                if hmac.compare_digest(given, self._expected):
                    return continuation(handler_call_details)
        # Unknown methods are refused the same way: nothing is revealed before authentication.
        return _denying_handler(continuation(handler_call_details))


def _denying_handler(handler: grpc.RpcMethodHandler | None) -> grpc.RpcMethodHandler:
    """A handler of the same shape as ``handler`` that fails with UNAUTHENTICATED."""

    def deny(_request, context: grpc.ServicerContext):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or invalid authorization token")

    if handler is None:
        return grpc.unary_unary_rpc_method_handler(deny)
    kwargs = {"request_deserializer": handler.request_deserializer,
              "response_serializer": handler.response_serializer}
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(deny, **kwargs)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(deny, **kwargs)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(deny, **kwargs)
    return grpc.unary_unary_rpc_method_handler(deny, **kwargs)


# ---------------------------------------------------------------------------------------------- discovery
def discovery_properties(*, serial_port: int, adb_port: int, grpc_port: int, token: str | None,
                         avd_name: str, avd_dir: Path | None = None) -> dict[str, str]:
    """The keys an emulator writes (those emukit has), plus ``emukit.vdevice=1``."""
    props = {"port.serial": str(serial_port), "port.adb": str(adb_port), "avd.name": avd_name,
             "avd.id": avd_name}
    if avd_dir is not None:
        props["avd.dir"] = str(avd_dir)
    props["grpc.port"] = str(grpc_port)
    if token:
        props["grpc.token"] = token
    props["emukit.vdevice"] = "1"
    return props


def write_discovery_file(directory: Path, props: dict[str, str], pid: int | None = None) -> Path:
    """Write ``pid_<pid>.ini`` atomically (owner-only: it holds the token); the directory is made 0700, as
    the emulator makes it."""
    pid = os.getpid() if pid is None else pid
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / f"pid_{pid}.ini"
    tmp = directory / f".pid_{pid}.ini.tmp"
    for key, value in props.items():
        if "\n" in key or "\n" in value or "\r" in value or "=" in key:
            raise ValueError(f"discovery entry {key!r}={value!r} cannot be written as one ini line")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("".join(f"{key}={value}\n" for key, value in props.items()))
    os.replace(tmp, path)
    return path


def remove_stale_discovery_files(directory: Path) -> int:
    """Delete the ``pid_<pid>.ini`` files of processes that no longer exist (what the emulator does at
    start); returns how many."""
    removed = 0
    try:
        paths = list(Path(directory).glob(DISCOVERY_GLOB))
    except OSError:
        return 0
    for path in paths:
        try:
            entry = read_discovery_file(path)
        except OSError:
            continue
        if entry.pid is not None and entry.pid != os.getpid() and not pid_alive(entry.pid):
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
    return removed


# ---------------------------------------------------------------------------------------------- server
class GrpcService:
    """The gRPC server of one virtual device: listener on 127.0.0.1, token check, discovery file.

    ``token``: :data:`GENERATE` (default) makes one at :meth:`start`; a string uses it; None or "" serves
    without authentication (like ``-grpc`` without ``-grpc-use-token``).
    """

    def __init__(self, device: VirtualDevice, port: int, *, serial_port: int, adb_port: int,
                 token: str | None = GENERATE, directory: Path | None = None) -> None:
        self.device = device
        self.requested_port = port
        self.port = 0
        self.serial_port = serial_port
        self.adb_port = adb_port
        self._token_arg = token
        self.token: str | None = None
        self.directory = directory
        self.discovery_file: Path | None = None
        self.stopping = threading.Event()
        self._server: grpc.Server | None = None

    def start(self) -> int:
        """Bind, serve and advertise; returns the port. Raises OSError when the port is not free."""
        self.token = generate_token() if self._token_arg == GENERATE else (self._token_arg or None)
        interceptors = [TokenAuthInterceptor(self.token)] if self.token else []
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="grpc"),
            interceptors=interceptors,
            # gRPC sets SO_REUSEPORT by default: a second device could then share the port silently
            options=[("grpc.so_reuseport", 0)],
        )
        pb2_grpc.add_EmulatorControllerServicer_to_server(
            EmulatorControllerServicer(self.device, self.stopping), server)
        address = f"{LOOPBACK}:{self.requested_port}"
        try:
            bound = server.add_insecure_port(address)
        except RuntimeError:
            bound = 0
        if not bound:
            server.stop(None)
            raise OSError(errno.EADDRINUSE, f"gRPC port {self.requested_port} on {LOOPBACK} is not free")
        server.start()
        self._server = server
        self.port = bound
        self._advertise()
        return bound

    def _advertise(self) -> None:
        directory = self.directory or discovery_dir()
        try:
            remove_stale_discovery_files(directory)
            props = discovery_properties(serial_port=self.serial_port, adb_port=self.adb_port,
                                         grpc_port=self.port, token=self.token,
                                         avd_name=self.device.avd_name, avd_dir=self.device.state_dir)
            self.discovery_file = write_discovery_file(directory, props)
        except OSError as exc:
            log.warning("could not write the emulator discovery file in %s: %s", directory, exc)

    def stop(self, grace: float = 0.5) -> None:
        """Remove the discovery file first (nobody should find a stopping device), then stop serving."""
        self.stopping.set()
        if self.discovery_file is not None:
            try:
                self.discovery_file.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("could not remove %s: %s", self.discovery_file, exc)
            self.discovery_file = None
        if self._server is not None:
            self._server.stop(grace).wait(grace + 2)
            self._server = None
