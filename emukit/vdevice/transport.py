"""The device side of the ADB transport protocol over TCP (what adbd speaks to the adb server).

Packets have a 24-byte header (command, arg0, arg1, payload length, payload checksum, magic), all u32
little-endian. A connection starts with CNXN; the host then OPENs streams by service name, and data flows in
WRTE packets, each acknowledged by OKAY before the next is sent (we do not advertise ``delayed_ack``).
Every stream's service runs in its own thread and sees the stream as a blocking byte pipe.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import socket
import struct
import threading
import time
from collections.abc import Callable

from emukit.vdevice.faults import Faults

log = logging.getLogger(__name__)

A_CNXN = 0x4E584E43
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_AUTH = 0x48545541
A_STLS = 0x534C5453

A_VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
HEADER = struct.Struct("<6I")

FEATURES = ("shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "fixed_push_symlink_timestamp")


class StreamClosed(Exception):
    """The peer closed the stream (or the whole connection went away)."""


class Stream:
    """One ADB stream as a blocking byte pipe for a service thread."""

    def __init__(self, conn: Connection, local_id: int, remote_id: int) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self._inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._buffer = bytearray()
        self._acked = threading.Event()
        self.closed = threading.Event()
        self._eof = False

    # ---------------------------------------------------------------- reading
    def _feed(self, data: bytes) -> None:
        self._inbox.put(data)

    def recv(self) -> bytes:
        """Next chunk from the host; ``b""`` once the host closed the stream."""
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            return data
        if self._eof:
            return b""
        data = self._inbox.get()
        if not data:
            self._eof = True
        return data

    def recv_exact(self, n: int) -> bytes:
        """Exactly ``n`` bytes, or :class:`StreamClosed`."""
        while len(self._buffer) < n:
            if self._eof:
                raise StreamClosed()
            data = self._inbox.get()
            if not data:
                self._eof = True
                raise StreamClosed()
            self._buffer.extend(data)
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def recv_available(self, timeout: float) -> bytes | None:
        """Data if some arrives within ``timeout`` seconds, ``b""`` on close, ``None`` on time-out."""
        if self._buffer:
            return self.recv()
        if self._eof:
            return b""
        try:
            data = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return None
        if not data:
            self._eof = True
        return data

    # ---------------------------------------------------------------- writing
    def send(self, data: bytes) -> None:
        """Write ``data`` in WRTE packets of at most maxdata, waiting for each OKAY."""
        view = memoryview(data)
        step = self.conn.max_payload
        for start in range(0, len(view), step):
            if self.closed.is_set():
                raise StreamClosed()
            self._acked.clear()
            self.conn.send_packet(A_WRTE, self.local_id, self.remote_id, view[start:start + step])
            while not self._acked.wait(0.5):
                if self.closed.is_set() or self.conn.dead.is_set():
                    raise StreamClosed()

    def _ack(self) -> None:
        self._acked.set()

    def close(self) -> None:
        """Close from the device side (idempotent)."""
        if not self.closed.is_set():
            self.closed.set()
            self.conn.send_packet(A_CLSE, self.local_id, self.remote_id, b"", best_effort=True)
            self.conn.forget(self.local_id)

    def _closed_by_peer(self) -> None:
        self.closed.set()
        self._acked.set()
        self._inbox.put(b"")


ServiceHandler = Callable[[Stream, str], None]
ServiceResolver = Callable[[str], "ServiceHandler | None"]


class Connection:
    """One TCP connection from the adb server: packet reader, writer and stream table."""

    def __init__(self, sock: socket.socket, banner: str, resolve: ServiceResolver, faults: Faults) -> None:
        self.sock = sock
        self.banner = banner
        self.resolve = resolve
        self.faults = faults
        self.max_payload = MAX_PAYLOAD
        self.streams: dict[int, Stream] = {}
        self._next_id = 1
        self._wlock = threading.Lock()
        self._slock = threading.Lock()
        self.dead = threading.Event()
        self.fd = sock.fileno()  # adbd names a TCP transport "host-<fd>" (daemon/transport_local.cpp)
        # ``adb reverse`` listeners, device side -> host side; like adbd's they belong to this transport and
        # go away with it (adb_listeners.cpp: a listener's disconnect callback removes it)
        self.reverse_forwards: dict[str, str] = {}
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # ---------------------------------------------------------------- low level
    def _read_exact(self, n: int) -> bytes:
        chunks = []
        while n:
            chunk = self.sock.recv(n)
            if not chunk:
                raise ConnectionError("peer closed")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def send_packet(self, cmd: int, arg0: int, arg1: int, data: bytes | memoryview = b"",
                    best_effort: bool = False) -> None:
        if self.faults.delay_ms and cmd == A_WRTE:
            time.sleep(self.faults.delay_ms / 1000)
        header = HEADER.pack(cmd, arg0, arg1, len(data), 0, cmd ^ 0xFFFFFFFF)
        try:
            with self._wlock:
                if len(data) and len(data) < 65536:
                    self.sock.sendall(header + bytes(data))
                else:
                    self.sock.sendall(header)
                    if len(data):
                        self.sock.sendall(data)
        except OSError:
            self.dead.set()
            if not best_effort:
                raise StreamClosed() from None

    def forget(self, local_id: int) -> None:
        with self._slock:
            self.streams.pop(local_id, None)

    # ---------------------------------------------------------------- main loop
    def serve(self) -> None:
        """Read packets until the host goes away, then close every stream."""
        try:
            while not self.dead.is_set():
                cmd, arg0, arg1, length, _check, magic = HEADER.unpack(self._read_exact(HEADER.size))
                if magic != cmd ^ 0xFFFFFFFF:
                    raise ConnectionError(f"bad packet magic {magic:#x} for command {cmd:#x}")
                data = self._read_exact(length) if length else b""
                self._dispatch(cmd, arg0, arg1, data)
        except (ConnectionError, OSError) as exc:
            log.debug("transport closed: %s", exc)
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        self.dead.set()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        with self._slock:
            streams = list(self.streams.values())
            self.streams.clear()
        for stream in streams:
            stream._closed_by_peer()

    def _dispatch(self, cmd: int, arg0: int, arg1: int, data: bytes) -> None:
        if cmd == A_CNXN:
            self.max_payload = max(4096, min(arg1, MAX_PAYLOAD))
            self.send_packet(A_CNXN, A_VERSION, MAX_PAYLOAD, self.banner.encode())
        elif cmd == A_OPEN:
            self._open(arg0, data.rstrip(b"\x00").decode("utf-8", "replace"))
        elif cmd == A_WRTE:
            stream = self.streams.get(arg1)
            if stream is None:
                self.send_packet(A_CLSE, 0, arg0, best_effort=True)
                return
            stream._feed(data)
            self.send_packet(A_OKAY, stream.local_id, stream.remote_id, best_effort=True)
        elif cmd == A_OKAY:
            stream = self.streams.get(arg1)
            if stream is not None:
                stream._ack()
        elif cmd == A_CLSE:
            with self._slock:
                stream = self.streams.pop(arg1, None)
            if stream is not None:
                stream._closed_by_peer()
        elif cmd in (A_AUTH, A_STLS):
            # Over TCP an emulator's adbd may skip authentication: answer with our CNXN.
            self.send_packet(A_CNXN, A_VERSION, MAX_PAYLOAD, self.banner.encode())

    def _open(self, remote_id: int, service: str) -> None:
        handler = self.resolve(service)
        if handler is None:
            log.debug("refusing service %r", service)
            self.send_packet(A_CLSE, 0, remote_id, best_effort=True)
            return
        with self._slock:
            local_id = self._next_id
            self._next_id += 1
            stream = Stream(self, local_id, remote_id)
            self.streams[local_id] = stream
        self.send_packet(A_OKAY, local_id, remote_id, best_effort=True)
        threading.Thread(target=self._run_service, args=(handler, stream, service),
                         name=f"svc-{service[:24]}", daemon=True).start()

    def _run_service(self, handler: ServiceHandler, stream: Stream, service: str) -> None:
        try:
            handler(stream, service)
        except StreamClosed:
            pass
        except Exception:  # a service bug must not take the device down
            log.exception("service %r failed", service)
        finally:
            stream.close()


def banner_for(props: dict[str, str]) -> str:
    """The CNXN banner: ``device::ro.product.name=...;ro.product.model=...;...;features=...``."""
    return ("device::" + ";".join(f"{k}={props.get(k, '')}" for k in
                                  ("ro.product.name", "ro.product.model", "ro.product.device"))
            + ";features=" + ",".join(FEATURES))
