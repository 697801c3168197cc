"""The adb server emukit talks through: the real ``adb`` binary (by default the one in the adbutils wheel),
on a chosen port, optionally with its own ``HOME`` (adb keys and the console token live there).

Who stops the server (the rule):

* a server that already runs when emukit needs it belongs to someone else (you, Android Studio, another
  emukit command) and is **never stopped** by emukit;
* a server emukit has to start is started in the foreground (``adb -P PORT nodaemon server``) as a child of
  the command, under :mod:`emukit.device.lifeline`; it is **owned** by that command. When the command is done
  (:meth:`AdbServer.release`), the owned server is stopped unless something else still uses it: another
  emukit command that registered as a user of the port (a shared ``flock`` on
  ``$EMUKIT_HOME/adb/<port>.users``, taken by every :meth:`AdbServer.start`), or a device the command did not
  start. In those cases it is left running (and handed over: the watchdog forgets it). If the command dies,
  the watchdog applies the same test to the users lock before it stops the server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import time
from collections.abc import Iterable
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
        self.proc: subprocess.Popen[bytes] | None = None  # the server process when this command started it
        self._users_fd: int | None = None

    @property
    def owned(self) -> bool:
        """True when this command started the server (and it still runs)."""
        return self.proc is not None and self.proc.poll() is None

    def users_path(self) -> Path:
        from emukit.settings import home_dir

        return home_dir() / "adb" / f"{self.port}.users"

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
        """Use the server on the port, starting (and owning) one when none runs."""
        from emukit.device import lifeline
        from emukit.settings import home_dir

        self._register_user()
        if self.proc is not None and self.proc.poll() is not None:  # ours, stopped (kill-server, a crash)
            lifeline.forget(self.proc)
            self.proc = None
        if self.running():
            return

        log_dir = home_dir() / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        with open(log_dir / f"adb-server-{self.port}.log", "ab") as log:
            self.proc = lifeline.popen([adb_binary(), "-P", str(self.port), "nodaemon", "server"],
                                       what=f"adb server {self.port} users={self.users_path()}", env=self.env,
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while not self.running():
            if self.proc.poll() is not None:  # lost a race for the port: whoever won serves it
                lifeline.forget(self.proc)
                self.proc = None
                if self.running():
                    return
                raise DeviceError(f"adb server on port {self.port} exited at start; see "
                                  f"{log_dir / f'adb-server-{self.port}.log'}")
            if time.monotonic() > deadline:
                raise DeviceError(f"adb server did not start on port {self.port}")
            time.sleep(0.05)

    def _register_user(self) -> None:
        """Hold a shared lock on the port's users file while this command uses the server."""
        if self._users_fd is not None:
            return
        path = self.users_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        fcntl.flock(fd, fcntl.LOCK_SH)
        self._users_fd = fd

    def _others_use_it(self) -> bool:
        """True when another live emukit command holds the port's users lock."""
        if self._users_fd is None:
            return False
        try:
            fcntl.flock(self._users_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # upgrade: only when we are alone
        except BlockingIOError:
            return True
        fcntl.flock(self._users_fd, fcntl.LOCK_SH)
        return False

    def release(self, own_serials: Iterable[str] = ()) -> str:
        """The command is done with the server: stop it when this command started it and nothing else uses
        it (see the module docstring); returns what was done, for a log line."""
        from emukit.device import lifeline

        try:
            if not self.owned:
                return "not started by this command: left running"
            assert self.proc is not None
            foreign = sorted(set(self.devices()) - set(own_serials))
            if self._others_use_it() or foreign:
                lifeline.forget(self.proc)
                why = f"devices {', '.join(foreign)} attached" if foreign else "another emukit command uses it"
                self.proc = None
                return f"left running ({why})"
            self.kill()
            return "stopped"
        finally:
            if self._users_fd is not None:
                os.close(self._users_fd)
                self._users_fd = None

    def kill(self) -> None:
        """Stop the server on the port (whoever started it)."""
        if self.running():
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.adb("kill-server", check=False, timeout=10)
        if self.proc is not None:
            from emukit.device import lifeline

            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            lifeline.forget(self.proc)
            self.proc = None

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
