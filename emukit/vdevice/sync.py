"""The ``sync:`` service: STAT/STA2/LST2, LIST/LIS2, SEND, RECV and QUIT over one stream.

Requests are a 4-byte id, a u32 length and a payload. Paths go through the device filesystem, so pushes and
pulls can never touch a host file outside the device root. A pushed regular file is reported to ``on_write``
(the device passes its media provider: adbd creates the file through the FUSE mount of shared storage).
"""

from __future__ import annotations

import errno
import os
import stat as st
import struct
from collections.abc import Callable

from emukit.vdevice.fs import DeviceFS
from emukit.vdevice.transport import Stream, StreamClosed

MAX_CHUNK = 64 * 1024
_U32 = struct.Struct("<I")
_STAT_V1 = struct.Struct("<4sIII")
_STAT_V2 = struct.Struct("<4sIQQIIIIQqqq")  # 72 bytes
_DENT_V1 = struct.Struct("<4sIIII")
_DENT_V2 = struct.Struct("<4sIQQIIIIQqqqI")  # 76 bytes + name


def _v2_fields(s: os.stat_result) -> tuple[int, ...]:
    return (s.st_dev, s.st_ino, s.st_mode, s.st_nlink, 0, 0, s.st_size,
            int(s.st_atime), int(s.st_mtime), int(s.st_ctime))


class SyncSession:
    """Serves one ``sync:`` stream until QUIT or close."""

    def __init__(self, stream: Stream, fs: DeviceFS, on_write: Callable[[str], None] | None = None) -> None:
        self.stream = stream
        self.fs = fs
        self.on_write = on_write  # called with the device path of each regular file a SEND wrote

    def serve(self) -> None:
        try:
            while True:
                header = self.stream.recv_exact(8)
                ident, length = header[:4], _U32.unpack(header[4:])[0]
                payload = self.stream.recv_exact(length) if length else b""
                path = payload.decode("utf-8", "surrogateescape")
                if ident == b"QUIT":
                    return
                handler = {b"STAT": self._stat_v1, b"STA2": self._stat_v2, b"LST2": self._lstat_v2,
                           b"LIST": self._list_v1, b"LIS2": self._list_v2, b"SEND": self._send,
                           b"RECV": self._recv}.get(ident)
                if handler is None:
                    self._fail(f"unknown sync request {ident!r}")
                    return
                handler(path)
        except StreamClosed:
            return

    # ---------------------------------------------------------------- replies
    def _fail(self, message: str) -> None:
        data = message.encode()
        self.stream.send(b"FAIL" + _U32.pack(len(data)) + data)

    def _stat_v1(self, path: str) -> None:
        try:
            s = self.fs.lstat(path) if not self.fs.is_virtual(path) else self.fs.stat(path)
            reply = _STAT_V1.pack(b"STAT", s.st_mode, s.st_size & 0xFFFFFFFF, int(s.st_mtime))
        except OSError:
            reply = _STAT_V1.pack(b"STAT", 0, 0, 0)
        self.stream.send(reply)

    def _stat_any_v2(self, ident: bytes, path: str, follow: bool) -> None:
        try:
            if self.fs.is_virtual(path):
                s = self.fs.stat(path)
            else:
                s = os.stat(self.fs.host(path)) if follow else self.fs.lstat(path)
            reply = _STAT_V2.pack(ident, 0, *_v2_fields(s))
        except OSError as exc:
            reply = _STAT_V2.pack(ident, exc.errno or errno.ENOENT, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        self.stream.send(reply)

    def _stat_v2(self, path: str) -> None:
        self._stat_any_v2(b"STA2", path, follow=True)

    def _lstat_v2(self, path: str) -> None:
        self._stat_any_v2(b"LST2", path, follow=False)

    def _entries(self, path: str) -> list[tuple[str, os.stat_result]]:
        try:
            host = self.fs.host(path)
            names = [".", ".."] + self.fs.listdir(path)
        except OSError:
            return []
        out = []
        for name in names:
            try:
                target = host if name == "." else host.parent if name == ".." else host / name
                out.append((name, os.lstat(target)))
            except OSError:
                continue
        return out

    def _list_v1(self, path: str) -> None:
        chunks = []
        for name, s in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            chunks.append(_DENT_V1.pack(b"DENT", s.st_mode, s.st_size & 0xFFFFFFFF, int(s.st_mtime),
                                        len(raw)) + raw)
        chunks.append(_DENT_V1.pack(b"DONE", 0, 0, 0, 0))
        self.stream.send(b"".join(chunks))

    def _list_v2(self, path: str) -> None:
        chunks = []
        for name, s in self._entries(path):
            raw = name.encode("utf-8", "surrogateescape")
            chunks.append(_DENT_V2.pack(b"DNT2", 0, *_v2_fields(s), len(raw)) + raw)
        chunks.append(_DENT_V2.pack(b"DONE", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        self.stream.send(b"".join(chunks))

    def _recv(self, path: str) -> None:
        try:
            if self.fs.is_virtual(path):
                data = self.fs.read_bytes(path)
                chunks = [data[i:i + MAX_CHUNK] for i in range(0, len(data), MAX_CHUNK)]
            else:
                host = self.fs.host(path)
                if host.is_dir():
                    raise IsADirectoryError(errno.EISDIR, "Is a directory")
                fh = open(host, "rb")
                chunks = iter(lambda: fh.read(MAX_CHUNK), b"")
        except OSError as exc:
            self._fail(f"open failed: {exc.strerror or 'No such file or directory'}")
            return
        out = bytearray()
        for chunk in chunks:
            out += b"DATA" + _U32.pack(len(chunk)) + chunk
            if len(out) >= 4 * MAX_CHUNK:
                self.stream.send(bytes(out))
                out.clear()
        out += b"DONE" + _U32.pack(0)
        self.stream.send(bytes(out))

    def _send(self, spec: str) -> None:
        path, _, mode_text = spec.rpartition(",")
        if not path:
            path, mode_text = spec, str(0o100644)
        try:
            mode = int(mode_text)
        except ValueError:
            mode = 0o100644
        data = bytearray()
        mtime = 0
        while True:
            header = self.stream.recv_exact(8)
            ident, length = header[:4], _U32.unpack(header[4:])[0]
            if ident == b"DATA":
                if length > MAX_CHUNK:
                    self._fail(f"DATA chunk too large: {length}")
                    return
                data += self.stream.recv_exact(length)
            elif ident == b"DONE":
                mtime = length
                break
            else:
                self._fail(f"unexpected sync id {ident!r} during SEND")
                return
        try:
            self._write(path, mode, bytes(data), mtime)
        except OSError as exc:
            self._fail(f"couldn't create file: {exc.strerror or exc}")
            return
        if self.on_write is not None and not st.S_ISLNK(mode):
            self.on_write(self.fs.normalize(path))
        self.stream.send(b"OKAY" + _U32.pack(0))

    def _write(self, path: str, mode: int, data: bytes, mtime: int) -> None:
        norm = self.fs.normalize(path)
        parent = norm.rsplit("/", 1)[0] or "/"
        self.fs.makedirs(parent)  # fixed_push_mkdir
        host = self.fs.host(norm, follow=False)
        if host.is_dir() and not host.is_symlink():
            raise IsADirectoryError(errno.EISDIR, "Is a directory")
        if st.S_ISLNK(mode):
            if os.path.lexists(host):
                os.unlink(host)
            os.symlink(data.decode("utf-8", "surrogateescape"), host)
            return
        host = self.fs.host(norm)  # a push onto an existing device symlink writes its target
        tmp = host.with_name(f".{host.name}.push")
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, (mode & 0o777) | 0o600)
        os.replace(tmp, host)
        if mtime:
            os.utime(host, (mtime, mtime))
