"""A lean client for the adb server's smart-socket protocol, for emukit's hot paths.

``adbutils`` is the general client; two of its habits cost ~10-50 ms a call on loopback (a sleep in
connection close, and small writes without TCP_NODELAY that meet delayed ACKs, see the design notes). The hot
paths of a pair build (shell commands, screenshots, hierarchy dumps, uiautomator2 JSON-RPC) use this module
instead: one connection per request to the same adb server, ``host:transport:<serial>``, then the device
service, with TCP_NODELAY and every request sent in a single write.
"""

from __future__ import annotations

import json
import socket
import struct
from dataclasses import dataclass

from emukit.errors import DeviceError

_SHELL_PACKET = struct.Struct("<BI")


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

    # ------------------------------------------------------------------ connection
    def _connect(self, service: str, timeout: float | None = None) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=timeout or self.timeout)
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
                   b"Accept-Encoding: \r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body)) + body
        try:
            with self._connect(f"tcp:{port}", timeout) as sock:
                sock.sendall(request)
                raw = _recv_all(sock)
        except OSError as exc:
            raise DeviceError(f"{self.serial}: jsonrpc {method}: {exc}") from exc
        head, _, payload = raw.partition(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0]
        if b" 200 " not in status_line + b" ":
            raise DeviceError(f"{self.serial}: jsonrpc {method}: HTTP {status_line.decode(errors='replace')}")
        reply = json.loads(payload)
        if "error" in reply:
            err = reply["error"]
            raise JsonRpcError(f"{self.serial}: jsonrpc {method}: {err.get('message', err)}", err)
        return reply.get("result")


class JsonRpcError(DeviceError):
    """The uiautomator2 server answered with a JSON-RPC error (``error`` holds code, message, data)."""

    def __init__(self, message: str, error: dict) -> None:
        super().__init__(message)
        self.error = error

    @property
    def not_found(self) -> bool:
        return "UiObjectNotFoundException" in str(self.error.get("message", ""))


def _recv_exact(sock: socket.socket, n: int, allow_eof: bool = False) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            if allow_eof and not buf:
                return b""
            raise DeviceError("adb connection closed early")
        buf += chunk
    return bytes(buf)


def _recv_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)
