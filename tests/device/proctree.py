"""Process-tree helpers for the lifeline tests, read from ``/proc`` (Linux)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) of ``pid``, None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1]), int(fields[2])


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def descendants(root: int) -> dict[int, str]:
    """Every live descendant of ``root`` (children, their children...) -> its command line."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            st = _stat(int(entry))
            if st is not None and st[0] != "Z":
                parent[int(entry)] = st[1]
    out: dict[int, str] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for child, ppid in parent.items():
            if ppid == pid and child not in out:
                out[child] = cmdline(child)
                frontier.append(child)
    return out


def wait_for(predicate: Callable[[], object], timeout: float, what: str, proc: subprocess.Popen | None = None,
             interval: float = 0.1) -> object:
    """Poll until ``predicate()`` is truthy; AssertionError naming ``what`` (and the process output)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            raise AssertionError(f"the command exited ({proc.returncode}) before {what}:\n{out[-3000:]}")
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def sigkill_and_check(proc: subprocess.Popen, within_s: float = 10.0) -> dict[int, str]:
    """SIGKILL ``proc`` (the emukit command only, not its group), then assert that every process it had
    started is gone ``within_s`` seconds later; returns the descendants seen just before the kill."""
    children = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + within_s
    left = dict(children)
    while time.monotonic() < deadline:
        left = {pid: cmd for pid, cmd in children.items() if alive(pid)}
        if not left:
            return children
        time.sleep(0.1)
    for pid in left:  # do not leak them into the rest of the test session
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"still running {within_s} s after SIGKILL of the command: {left}")
