"""A lean client for the adb server's smart-socket protocol, for emukit's hot paths.

``adbutils`` is the general client; two of its habits cost ~10-50 ms a call on loopback (a sleep in
connection close, and small writes without TCP_NODELAY that meet delayed ACKs, see the design notes). The hot
paths of a pair build (shell commands, screenshots, hierarchy dumps, uiautomator2 JSON-RPC) use this module
instead: one connection per request to the same adb server, ``host:transport:<serial>``, then the device
service, with TCP_NODELAY and every request sent in a single write.

uiautomator2 JSON-RPC calls are HTTP/1.1 with keep-alive: a ``tcp:9008`` stream is kept open after a call
and reused by the next one (the server frames every answer with Content-Length), so a call costs one round
trip instead of a new adb connection and device stream. A kept stream found closed when it is used (the
server restarted or the transport dropped while it sat idle: no byte of an answer arrives) is replaced by a
fresh one once.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass

from emukit.errors import DeviceError

_SHELL_PACKET = struct.Struct("<BI")
_MAX_IDLE_RPC_STREAMS = 2


@dataclass(frozen=True)
class ShellResult:
    """Exit status and output of one shell command (shell protocol v2 keeps the streams apart)."""

    exit_code: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class AdbWire:
    """Requests to one device through the adb server on ``port``."""

    def __init__(self, serial: str, port: int = 5037, host: str = "127.0.0.1", timeout: float = 30.0) -> None:
        self.serial = serial
        self.port = port
        self.host = host
        self.timeout = timeout
        self._idle: dict[int, list[socket.socket]] = {}  # kept-alive uiautomator2 streams by device port
        self._idle_lock = threading.Lock()
        self.deadline: float | None = None  # time.monotonic() by which the current attempt must be over
        self.deadline_what = ""

    def budget(self, timeout: float | None, what: str) -> float:
        """The timeout for one operation: ``timeout`` (else the wire's), cut to what is left before
        :attr:`deadline`; DeadlinePassed when nothing is left."""
        t = timeout or self.timeout
        if self.deadline is None:
            return t
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed(f"{self.serial}: {self.deadline_what or 'the attempt'} ran out of time before "
                                 f"{what} (device not answering?)")
        return min(t, left)

    def close(self) -> None:
        """Close the kept-alive JSON-RPC streams."""
        with self._idle_lock:
            socks = [s for group in self._idle.values() for s in group]
            self._idle.clear()
        for sock in socks:
            sock.close()

    # ------------------------------------------------------------------ connection
    def _connect(self, service: str, timeout: float | None = None) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=self.budget(timeout, service[:60]))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            transport = f"host:transport:{self.serial}".encode()
            request = service.encode()
            sock.sendall(b"%04x" % len(transport) + transport)
            self._expect_okay(sock, "transport")
            sock.sendall(b"%04x" % len(request) + request)
            self._expect_okay(sock, service)
        except BaseException:
            sock.close()
            raise
        return sock

    def _expect_okay(self, sock: socket.socket, what: str) -> None:
        status = _recv_exact(sock, 4)
        if status == b"OKAY":
            return
        if status == b"FAIL":
            length = int(_recv_exact(sock, 4), 16)
            message = _recv_exact(sock, length).decode("utf-8", "replace")
            raise DeviceError(f"{self.serial}: {what}: {message}")
        raise DeviceError(f"{self.serial}: {what}: unexpected adb reply {status!r}")

    # ------------------------------------------------------------------ services
    def shell(self, command: str, timeout: float | None = None) -> ShellResult:
        """Run ``command`` with the shell v2 protocol; returns exit code, stdout and stderr."""
        try:
            return self._shell(command, timeout)
        except OSError as exc:  # refused, reset, timed out: the device or the server went away
            raise DeviceError(f"{self.serial}: shell {command[:60]!r}: {exc}") from exc

    def _shell(self, command: str, timeout: float | None) -> ShellResult:
        with self._connect(f"shell,v2,raw:{command}", timeout) as sock:
            out, err = bytearray(), bytearray()
            while True:
                header = _recv_exact(sock, 5, allow_eof=True)
                if not header:
                    raise DeviceError(f"{self.serial}: shell closed without an exit status: {command!r}")
                ident, length = _SHELL_PACKET.unpack(header)
                data = _recv_exact(sock, length) if length else b""
                if ident == 1:
                    out += data
                elif ident == 2:
                    err += data
                elif ident == 3:
                    return ShellResult(data[0] if data else 0, bytes(out), bytes(err))

    def exec_out(self, command: str, timeout: float | None = None) -> bytes:
        """``exec:`` (binary-safe stdout, like ``adb exec-out``)."""
        try:
            with self._connect(f"exec:{command}", timeout) as sock:
                return _recv_all(sock)
        except OSError as exc:
            raise DeviceError(f"{self.serial}: exec {command[:60]!r}: {exc}") from exc

    def jsonrpc(self, method: str, params: object = None, port: int = 9008, timeout: float | None = None,
                ) -> object:
        """One uiautomator2 JSON-RPC call over ``tcp:PORT``; returns ``result`` or raises DeviceError."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                           "params": [] if params is None else params}).encode()
        request = (b"POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                   b"Accept-Encoding: \r\nConnection: keep-alive\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
        sock = self._take_idle(port)
        try:
            answer = None
            if sock is not None:
                try:
                    answer = self._exchange(sock, request, timeout)
                except _NoAnswer:  # the kept stream had been closed while idle: the request never ran
                    sock.close()
            if answer is None:
                sock = self._connect(f"tcp:{port}", timeout)
                try:
                    answer = self._exchange(sock, request, timeout)
                except _NoAnswer as exc:
                    raise ConnectionError("the server closed the stream without answering") from exc
        except BaseException as exc:
            if sock is not None:
                sock.close()
            if isinstance(exc, OSError):
                raise DeviceError(f"{self.serial}: jsonrpc {method}: {exc}") from exc
            raise
        status_line, payload, reusable = answer
        if not (reusable and self._keep_idle(port, sock)):
            sock.close()
        if b" 200 " not in status_line + b" ":
            raise DeviceError(f"{self.serial}: jsonrpc {method}: HTTP {status_line.decode(errors='replace')}")
        reply = json.loads(payload)
        if "error" in reply:
            err = reply["error"]
            raise JsonRpcError(f"{self.serial}: jsonrpc {method}: {err.get('message', err)}", err)
        return reply.get("result")

    def _take_idle(self, port: int) -> socket.socket | None:
        with self._idle_lock:
            kept = self._idle.get(port)
            return kept.pop() if kept else None

    def _keep_idle(self, port: int, sock: socket.socket) -> bool:
        """Keep ``sock`` for the next call to ``port``; False when enough streams are kept already."""
        with self._idle_lock:
            group = self._idle.setdefault(port, [])
            if len(group) >= _MAX_IDLE_RPC_STREAMS:
                return False
            group.append(sock)
            return True

    def _exchange(self, sock: socket.socket, request: bytes, timeout: float | None) -> tuple[bytes, bytes, bool]:
        """Send one HTTP request, read its response: (status line, body, connection reusable)."""
        sock.settimeout(self.budget(timeout, "a uiautomator2 call"))
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError) as exc:  # the peer had closed the stream
            raise _NoAnswer() from exc
        head = bytearray()
        while b"\r\n\r\n" not in head:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                if head:
                    raise
                raise _NoAnswer() from None
            if not chunk:
                if not head:
                    raise _NoAnswer()
                raise ConnectionError("HTTP response ended inside its header")
            head += chunk
        header, _, rest = bytes(head).partition(b"\r\n\r\n")
        lines = header.split(b"\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines[1:])}
        length = fields.get(b"content-length")
        if length is None:  # delimited by the end of the stream
            return lines[0], rest + _recv_all(sock), False
        n = int(length)
        body = rest + (_recv_exact(sock, n - len(rest)) if n > len(rest) else b"")
        return lines[0], body[:n], fields.get(b"connection", b"").lower() != b"close" and len(body) == n


class DeadlinePassed(DeviceError):
    """The attempt's deadline (:meth:`emukit.device.driver.Driver.deadline`) passed: the device is not
    answering in time; the message names the step that was about to run."""


class _NoAnswer(Exception):
    """The stream closed before a single byte of the answer (the request was not served)."""


class JsonRpcError(DeviceError):
    """The uiautomator2 server answered with a JSON-RPC error (``error`` holds code, message, data)."""

    def __init__(self, message: str, error: dict) -> None:
        super().__init__(message)
        self.error = error

    @property
    def not_found(self) -> bool:
        return "UiObjectNotFoundException" in str(self.error.get("message", ""))


def _recv_exact(sock: socket.socket, n: int, allow_eof: bool = False) -> bytes:
    """Exactly ``n`` bytes from ``sock``, read into one buffer (``recv(n)`` would allocate ``n`` bytes per
    call whatever arrives); ``b""`` at a clean end of stream when ``allow_eof``."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        count = sock.recv_into(view[got:])
        if not count:
            if allow_eof and not got:
                return b""
            raise DeviceError("adb connection closed early")
        got += count
    return bytes(buf)


_RECV_CHUNK = 1 << 18


def _recv_all(sock: socket.socket) -> bytes:
    """Everything ``sock`` sends until it closes."""
    out = bytearray()
    chunk = bytearray(_RECV_CHUNK)
    view = memoryview(chunk)
    while count := sock.recv_into(chunk):
        out += view[:count]
    return bytes(out)
