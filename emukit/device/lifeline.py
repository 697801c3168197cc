"""Children die with the emukit command that started them, whatever kills it (SIGKILL included).

The mechanism is two *lifeline pipes*. The first time a command starts a child process, it opens them and
keeps their only write ends (not inheritable, so no child holds one):

* the register pipe goes to a small watchdog process (``python -m emukit.device.watchdog FD``, in a session
  of its own so that a terminal's Ctrl-C or a process-group kill aimed at the command does not take it
  first); the command writes one line per child it starts (``+ PGID what``) and per child it stops itself
  (``- PGID``);
* the death pipe's read end goes to every child, as ``$EMUKIT_LIFELINE_FD``; nothing is ever written to it.
  emukit's own Python children (``emukit vdevice serve``) watch it, so that a device also stops when the
  watchdog itself was killed.

When the command dies, the kernel closes its descriptors, and both read ends see end-of-file. The watchdog
sends SIGTERM to every process group still registered, SIGKILL after :data:`GRACE_S` to those left, and
exits; each virtual device shuts down on its own as soon as it sees the end of file. Every child is started
in its own session (``start_new_session``), so a process group is exactly one child and what it forked
(the emulator binary's helpers, ``adb nodaemon server``...). Chromium is started by Playwright's driver,
which exits when its pipe from emukit closes and takes the browser with it (tests/device/test_lifeline.py
kills commands that render and checks that).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

from emukit.device.watchdog import GRACE_S

ENV_FD = "EMUKIT_LIFELINE_FD"
__all__ = ["ENV_FD", "GRACE_S", "Lifeline", "forget", "lifeline", "popen", "watch_parent"]


class Lifeline:
    """The process-wide lifeline (use :func:`lifeline`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._register: int | None = None  # write end of the register pipe (to the watchdog)
        self._death: tuple[int, int] | None = None  # (read, write) of the death pipe
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()

    def _ensure(self) -> None:
        if self._pid != os.getpid():  # a forked copy of this process: its lifeline is its own
            self.__init__()  # type: ignore[misc]
        if self._register is not None:
            return
        reg_read, reg_write = os.pipe()  # non-inheritable; a child gets a read end only through pass_fds
        self._death = os.pipe()
        from emukit.settings import home_dir

        log = home_dir() / "logs" / "watchdog.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        self._watchdog = subprocess.Popen(
            [sys.executable, "-m", "emukit.device.watchdog", str(reg_read), str(os.getpid()), str(log)],
            pass_fds=(reg_read,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(reg_read)
        self._register = reg_write

    @property
    def read_fd(self) -> int:
        """The death pipe's read end, for :func:`popen` to hand to children."""
        with self._lock:
            self._ensure()
            assert self._death is not None
            return self._death[0]

    def _send(self, line: str) -> None:
        with self._lock:
            self._ensure()
            assert self._register is not None
            with contextlib.suppress(OSError):  # the watchdog is gone: children still watch the pipe themselves
                os.write(self._register, line.encode() + b"\n")

    def register(self, pgid: int, what: str) -> None:
        """The watchdog will stop process group ``pgid`` if this process dies."""
        self._send(f"+ {pgid} {' '.join(what.split())[:2000]}")

    def unregister(self, pgid: int) -> None:
        """The child was stopped normally; forget it."""
        self._send(f"- {pgid}")


_LIFELINE = Lifeline()


def lifeline() -> Lifeline:
    """This process's lifeline."""
    return _LIFELINE


def popen(cmd: Sequence[str], *, what: str = "", env: dict[str, str] | None = None,
          **kwargs: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen`` for a child that must not outlive this process: its own session, the lifeline's
    read end passed as ``$EMUKIT_LIFELINE_FD``, registered with the watchdog. Stop it with :func:`stop`."""
    line = lifeline()
    fd = line.read_fd
    child_env = dict(os.environ if env is None else env)
    child_env[ENV_FD] = str(fd)
    pass_fds = tuple(kwargs.pop("pass_fds", ())) + (fd,)
    proc = subprocess.Popen(list(cmd), env=child_env, pass_fds=pass_fds, start_new_session=True, **kwargs)
    line.register(proc.pid, what or " ".join(cmd[:4]))
    return proc


def forget(proc: subprocess.Popen[Any]) -> None:
    """Tell the watchdog that ``proc`` (started by :func:`popen`) has been stopped."""
    lifeline().unregister(proc.pid)


def watch_parent(on_parent_death: Any, *, hard_exit_after_s: float = 10.0) -> bool:
    """In a child started by :func:`popen`: call ``on_parent_death()`` when the death pipe's read end sees the
    end of file (the parent died or exited), and ``os._exit(3)`` if the process is still alive
    ``hard_exit_after_s`` later. Returns False when this process has no lifeline."""
    raw = os.environ.get(ENV_FD)
    if not raw:
        return False
    try:
        fd = int(raw)
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):  # inherited variable, but not our pipe: ignore it
            return False
    except (ValueError, OSError):
        return False

    def wait() -> None:
        with contextlib.suppress(OSError):
            while os.read(fd, 4096):
                continue  # nothing is ever written; only the end of file matters
        timer = threading.Timer(hard_exit_after_s, os._exit, args=(3,))
        timer.daemon = True
        timer.start()
        on_parent_death()

    threading.Thread(target=wait, name="lifeline", daemon=True).start()
    return True
