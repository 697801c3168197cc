"""The lifeline watchdog: ``python -m emukit.device.watchdog FD OWNER_PID [LOG]`` (started by
:mod:`emukit.device.lifeline`, never by hand; what it stops is appended to ``LOG``).

Reads ``+ PGID what`` / ``- PGID`` lines from the register pipe ``FD``. At end of file (the owning command
exited or was killed), every process group still registered gets SIGTERM, then SIGKILL after
:data:`emukit.device.lifeline.GRACE_S`; then the watchdog exits. It imports nothing heavy (the standard library and
emukit.device.ownership), so it costs a few MB and starts in a few tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

GRACE_S = 3.0  # the same grace as emukit.device.lifeline.GRACE_S (not imported: keep this process tiny)


def _alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _all_zombies(pgid)


def _all_zombies(pgid: int) -> bool:
    """True when every process of the group is a zombie (dead, waiting to be reaped by init)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return False
    found = False
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            found = True
            if fields[0] != b"Z":
                return False
    return found


def _wait_gone(pid: int, timeout_s: float = 5.0) -> None:
    """Wait until ``pid`` has exited with all its threads: its files (and the locks on them) are only released
    when the last thread is gone, which can be after the group leader shows as a zombie."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
            threads = len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            return
        if state in (b"Z", b"X") and threads <= 1:
            return
        time.sleep(0.02)


def _signal(pgids: set[int], sig: int) -> None:
    for pgid in pgids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def stop_groups(pgids: set[int], grace_s: float = GRACE_S) -> None:
    """SIGTERM every group, SIGKILL whatever is left after ``grace_s``."""
    _signal(pgids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        pgids = {p for p in pgids if _alive(p)}
        if not pgids:
            return
        time.sleep(0.05)
    _signal(pgids, signal.SIGKILL)


def in_use(users: str | None) -> bool:
    """True when a live process holds a lock on the ``users`` file (an adb server another emukit command
    still uses; see emukit.device.adbserver)."""
    from pathlib import Path

    from emukit.device.ownership import lock_is_held

    return bool(users) and lock_is_held(Path(users))


def main(argv: list[str]) -> int:
    fd = int(argv[0])
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)  # only the end of the pipe stops the watchdog
    groups: dict[int, str | None] = {}  # pgid -> users file that keeps it alive, if any
    names: dict[int, str] = {}
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            parts = line.decode(errors="replace").split(maxsplit=2)
            if len(parts) < 2 or not parts[1].isdigit():
                continue
            if parts[0] == "+":
                what = parts[2] if len(parts) > 2 else ""
                users = next((w[6:] for w in what.split() if w.startswith("users=")), None)
                groups[int(parts[1])] = users
                names[int(parts[1])] = what
            else:
                groups.pop(int(parts[1]), None)
    if len(argv) > 1 and argv[1].isdigit():  # a dying process closes its files one by one: wait until the
        _wait_gone(int(argv[1]))            # owner is gone, so that its own hold on a users lock is released
    doomed = {pgid for pgid, users in groups.items() if not in_use(users)}
    log = argv[2] if len(argv) > 2 else None
    if log and groups:
        with contextlib.suppress(OSError), open(log, "a", encoding="utf-8") as fh:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            for pgid in sorted(groups):
                verdict = "stopping" if pgid in doomed else "leaving (another emukit command uses it)"
                fh.write(f"{stamp} owner {argv[1]} gone: {verdict} process group {pgid}: {names.get(pgid, '')}\n")
    if doomed:
        stop_groups(doomed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
