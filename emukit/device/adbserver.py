"""The adb server emukit talks through: the real ``adb`` binary (by default the one in the adbutils wheel),
on a chosen port, optionally with its own ``HOME`` (adb keys and the console token live there)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from emukit.errors import DeviceError


def adb_binary() -> str:
    """``$ADBUTILS_ADB_PATH``, ``adb`` on PATH, or the adb shipped in the adbutils wheel."""
    from adbutils import adb_path

    return adb_path()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class AdbServer:
    """An adb server on ``port``; ``env`` is the environment every child process should get."""

    def __init__(self, port: int = 5037, home: Path | None = None) -> None:
        self.port = port
        self.home = Path(home) if home else None
        env = dict(os.environ)
        env["ANDROID_ADB_SERVER_PORT"] = str(port)
        if self.home:
            self.home.mkdir(parents=True, exist_ok=True)
            env["HOME"] = str(self.home)
        self.env = env

    def adb(self, *args: str, timeout: float = 30.0, check: bool = True) -> str:
        """Run the adb client against this server; returns stdout."""
        proc = subprocess.run([adb_binary(), "-P", str(self.port), *args], env=self.env, timeout=timeout,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise DeviceError(f"adb {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
        return proc.stdout

    def running(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def start(self, timeout: float = 30.0) -> None:
        if self.running():
            return
        self.adb("start-server", timeout=timeout)
        deadline = time.monotonic() + timeout
        while not self.running():
            if time.monotonic() > deadline:
                raise DeviceError(f"adb server did not start on port {self.port}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.running():
            self.adb("kill-server", check=False, timeout=10)

    def devices(self) -> dict[str, str]:
        """serial -> state, from the server's device list (``host:devices``)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
                sock.sendall(b"000chost:devices")
                status = _read_exact(sock, 4)
                if status != b"OKAY":
                    return {}
                length = int(_read_exact(sock, 4), 16)
                body = _read_exact(sock, length).decode()
        except (OSError, ValueError):
            return {}
        out = {}
        for line in body.splitlines():
            if "\t" in line:
                serial, state = line.split("\t", 1)
                out[serial] = state
        return out

    def state(self, serial: str) -> str | None:
        return self.devices().get(serial)


def _read_exact(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise OSError("adb server closed the connection")
        data += chunk
    return data
