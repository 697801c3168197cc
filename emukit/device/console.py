"""A client of the emulator console (the text protocol on 127.0.0.1:<console port>), used for snapshots on
real emulators and virtual devices alike.

Protocol: a banner ending in ``OK``; when it asks for authentication, ``auth <token>`` with the token from
``$HOME/.emulator_console_auth_token``; then one command per line, answered by text lines and a final
``OK`` (or ``OK: ...``) or ``KO: <message>``. Lines end in CRLF.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Self

from emukit.device import boot
from emukit.device.adbserver import AdbServer
from emukit.errors import DeviceError

TOKEN_FILE = ".emulator_console_auth_token"


def console_port(serial: str) -> int:
    """The console port of an ``emulator-N`` serial (N); raises DeviceError for other serials."""
    prefix = "emulator-"
    if not serial.startswith(prefix) or not serial[len(prefix):].isdigit():
        raise DeviceError(f"{serial!r} is not an emulator serial (emulator-N); no console port known")
    return int(serial[len(prefix):])


def default_token_path() -> Path:
    """``$HOME/.emulator_console_auth_token`` (where the emulator and the virtual device keep it)."""
    return Path(os.environ.get("HOME") or Path.home()) / TOKEN_FILE


def parse_snapshot_list(text: str) -> list[str]:
    """Snapshot names (the TAG column) from the ``avd snapshot list`` table."""
    names: list[str] = []
    in_table = False
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "ID" and words[1] == "TAG":
            in_table = True
        elif in_table and len(words) >= 2:
            names.append(words[1])
    return names


class ConsoleClient:
    """One persistent console connection; thread-safe; reconnects once when the connection broke."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", token_path: Path | None = None,
                 timeout: float = 30.0, name: str | None = None) -> None:
        self.host = host
        self.port = port
        self.token_path = Path(token_path) if token_path else default_token_path()
        self.timeout = timeout
        self.name = name or f"emulator-{port}"
        self._sock: socket.socket | None = None
        self._buf = b""
        self._lock = threading.Lock()

    @classmethod
    def for_serial(cls, serial: str, **kwargs: object) -> ConsoleClient:
        """A client for the console of ``emulator-N`` (port N)."""
        return cls(console_port(serial), name=serial, **kwargs)  # type: ignore[arg-type]

    # --- connection ---------------------------------------------------------------------------------

    def connect(self) -> str:
        """Open the connection, read the banner and authenticate when asked; returns the banner text."""
        with self._lock:
            return self._connect()

    def _connect(self) -> str:
        self._close()
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise DeviceError(f"{self.name}: cannot connect to the console at {self.host}:{self.port}: "
                              f"{exc}") from exc
        banner = self._read_reply("the console banner")
        if "auth" in banner.lower() and "required" in banner.lower():
            self._send(f"auth {self._token()}")
            self._read_reply("console authentication")
        return banner

    def _token(self) -> str:
        try:
            return self.token_path.read_text().strip()
        except OSError as exc:
            raise DeviceError(f"{self.name}: the console asks for a token but {self.token_path} cannot be "
                              f"read: {exc}") from exc

    def close(self) -> None:
        """Close the connection (a later command reconnects)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        self._sock = None
        self._buf = b""

    def __enter__(self) -> Self:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- protocol -----------------------------------------------------------------------------------

    def _send(self, line: str) -> None:
        assert self._sock is not None
        self._sock.sendall(line.encode() + b"\r\n")

    def _read_line(self, what: str) -> str | None:
        """One line without its line ending; None when the console closed the connection."""
        assert self._sock is not None
        while b"\n" not in self._buf:
            try:
                chunk = self._sock.recv(4096)
            except TimeoutError as exc:
                self._close()  # a late reply would be read as the answer to the next command
                raise DeviceError(f"{self.name}: no console reply within {self.timeout:.0f} s to {what}") \
                    from exc
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode("utf-8", "replace").rstrip("\r")

    def _read_reply(self, what: str) -> str:
        """Lines up to the final ``OK``; returns them (without it). ``KO:`` raises DeviceError."""
        lines: list[str] = []
        while True:
            line = self._read_line(what)
            if line is None:
                raise ConnectionError(f"{self.name}: console closed the connection during {what}")
            if line == "OK" or line.startswith("OK:"):
                if line.startswith("OK:"):
                    lines.append(line[3:].strip())
                return "\n".join(lines)
            if line.startswith("KO"):
                raise DeviceError(f"{self.name}: console refused {what}: {line[3:].strip() or line}")
            lines.append(line)

    def command(self, line: str, *, retry: bool = True) -> str:
        """Send one command line; returns the reply text before ``OK``. Raises DeviceError on ``KO:``
        (with the console's message) or when the console cannot be reached. A broken connection is
        reopened and the command resent once when ``retry``."""
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._sock is None:
                        self._connect()
                    self._send(line)
                    return self._read_reply(f"'{line}'")
                except (ConnectionError, OSError) as exc:
                    self._close()
                    if not retry or attempt == 2:
                        raise DeviceError(f"{self.name}: console command '{line}' failed: {exc}") from exc
            raise AssertionError("unreachable")

    # --- commands -----------------------------------------------------------------------------------

    def ping(self) -> bool:
        """True when the console answers ``ping``."""
        try:
            self.command("ping")
        except DeviceError:
            return False
        return True

    def avd_name(self) -> str:
        """The AVD name (``avd name``)."""
        return self.command("avd name").strip()

    def snapshot_save(self, name: str) -> None:
        """Save the whole device state as snapshot ``name``."""
        self.command(f"avd snapshot save {_snapshot_name(name)}")

    def snapshot_load(self, name: str) -> None:
        """Load snapshot ``name``; follow with :meth:`wait_ready` before using adb."""
        self.command(f"avd snapshot load {_snapshot_name(name)}")

    def snapshot_delete(self, name: str) -> None:
        """Delete snapshot ``name``."""
        self.command(f"avd snapshot delete {_snapshot_name(name)}")

    def snapshot_list(self) -> list[str]:
        """Names of the saved snapshots."""
        return parse_snapshot_list(self.command("avd snapshot list"))

    def kill(self) -> None:
        """Ask the emulator to exit (``kill``); the console closes the connection."""
        with self._lock:
            try:
                if self._sock is None:
                    self._connect()
                self._send("kill")
                self._read_reply("'kill'")
            except (ConnectionError, OSError):
                pass  # the emulator may close before the reply is read
            finally:
                self._close()

    def wait_ready(self, adb_server: AdbServer, serial: str, timeout: float = 60.0,
                   post_load: Callable[[], object] | None = None, interval: float = 0.1) -> float:
        """After a snapshot load: poll until adb lists ``serial`` as ``device`` again and ``shell echo ok``
        works (real emulators go ``offline`` briefly), then call ``post_load`` (e.g. a launcher's
        ``after_snapshot_load``, which re-roots and re-pins the clock). Returns the seconds waited."""
        waited = boot.wait_usable(adb_server, serial, timeout, interval)
        if post_load is not None:
            post_load()
        return waited


def _snapshot_name(name: str) -> str:
    if not name or any(c.isspace() for c in name):
        raise DeviceError(f"snapshot name {name!r} must be non-empty and contain no whitespace")
    return name
