"""Who holds a device: a lock and an owner record per embedded virtual device, a lock per attached device.

* An embedded virtual device's state dir holds ``owner.lock``, locked (``flock``) by the emukit command that
  started the device for as long as it runs, and ``owner.json`` (owner pid and command, device pid, ports).
  The kernel drops the lock when the owner dies, however it dies, so "is the lock free?" is the liveness
  test: no pid files to trust, no pid reuse to fear. ``$EMUKIT_HOME/embedded/<serial>.json`` points at the
  state dir so that ``emukit devices`` can find every embedded device on the machine.
* An attached device (one emukit did not start) is claimed with ``$EMUKIT_HOME/locks/adb<port>-<serial>.lock``
  by the command using it; a second command is refused with the holder's pid and command line.

:func:`leftovers` lists embedded devices whose owner is gone; :func:`reap` stops them. A device whose owner
lives is never reaped.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from emukit.errors import DeviceError
from emukit.settings import home_dir

OWNER_LOCK = "owner.lock"
OWNER_RECORD = "owner.json"


class DeviceInUse(DeviceError):
    """The device is held by another live emukit command (the message names it)."""


def registry_dir() -> Path:
    return home_dir() / "embedded"


def _command_line() -> str:
    return " ".join(["emukit" if i == 0 and a.endswith(("emukit", "__main__.py")) else a
                     for i, a in enumerate(sys.argv)])[:300]


def _try_lock(path: Path) -> int | None:
    """An fd holding an exclusive lock on ``path``, or None when another open file holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def lock_is_held(path: Path) -> bool:
    """True while some live process holds ``path``'s lock."""
    if not path.exists():
        return False
    fd = _try_lock(path)
    if fd is None:
        return True
    os.close(fd)
    return False


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _holder(path: Path) -> str:
    data = _read_json(path)
    return f"pid {data.get('owner_pid', '?')} ({data.get('command', 'unknown command')})"


@dataclass
class DeviceClaim:
    """The owner's hold on one embedded device: the lock, the owner record and the registry entry."""

    serial: str
    state_dir: Path
    fd: int

    @classmethod
    def acquire(cls, serial: str, state_dir: Path, *, adb_port: int, adb_server_port: int) -> Self:
        """Lock ``state_dir`` for this process; DeviceInUse when a live command holds it."""
        state_dir = Path(state_dir)
        fd = _try_lock(state_dir / OWNER_LOCK)
        if fd is None:
            raise DeviceInUse(f"{serial}: its state dir {state_dir} is held by a live emukit command: "
                              f"{_holder(state_dir / OWNER_RECORD)}")
        claim = cls(serial, state_dir, fd)
        claim.update(adb_port=adb_port, adb_server_port=adb_server_port, device_pid=None)
        return claim

    def update(self, **fields: Any) -> None:
        """Write the owner record and the registry entry (``device_pid`` once the device runs)."""
        record = {**_read_json(self.state_dir / OWNER_RECORD), "serial": self.serial,
                  "state_dir": str(self.state_dir.resolve()), "owner_pid": os.getpid(),
                  "command": _command_line(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **fields}
        (self.state_dir / OWNER_RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        registry_dir().mkdir(parents=True, exist_ok=True)
        (registry_dir() / f"{self.serial}-{_key(self.state_dir)}.json").write_text(
            json.dumps({"serial": self.serial, "state_dir": record["state_dir"]}) + "\n", encoding="utf-8")

    def release(self) -> None:
        """Drop the registry entry and the owner record, then the lock (idempotent)."""
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            (registry_dir() / f"{self.serial}-{_key(self.state_dir)}.json").unlink()
        with contextlib.suppress(OSError):
            (self.state_dir / OWNER_RECORD).unlink()
        os.close(self.fd)
        self.fd = -1


def _key(state_dir: Path) -> str:
    import hashlib

    return hashlib.sha256(str(Path(state_dir).resolve()).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Leftover:
    """An embedded device found through the registry."""

    serial: str
    state_dir: Path
    owner_alive: bool
    owner: str
    device_pid: int | None
    device_running: bool
    entry: Path

    def describe(self) -> str:
        run = f"device pid {self.device_pid} running" if self.device_running else "device not running"
        who = f"owner {self.owner} alive" if self.owner_alive else f"owner {self.owner} gone"
        return f"{self.serial} ({self.state_dir}): {run}; {who}"


def _is_device_process(pid: int, state_dir: Path) -> bool:
    """True when ``pid`` is a live ``emukit vdevice serve`` of ``state_dir`` (guards against pid reuse)."""
    if not _pid_running(pid):
        return False
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return False
    return "vdevice" in args and "serve" in args and str(state_dir) in args


def embedded_devices() -> list[Leftover]:
    """Every embedded device in the registry, with whether its owner and its process live."""
    out: list[Leftover] = []
    folder = registry_dir()
    for entry in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        data = _read_json(entry)
        state_dir = Path(str(data.get("state_dir", "")))
        record = _read_json(state_dir / OWNER_RECORD)
        pid = record.get("device_pid")
        pid = pid if isinstance(pid, int) else None
        running = pid is not None and _is_device_process(pid, state_dir)
        out.append(Leftover(str(data.get("serial", entry.stem)), state_dir,
                            lock_is_held(state_dir / OWNER_LOCK), _holder(state_dir / OWNER_RECORD), pid, running,
                            entry))
    return out


def leftovers() -> list[Leftover]:
    """Embedded devices whose owner is gone (their process may still run)."""
    return [d for d in embedded_devices() if not d.owner_alive]


def leftover_note() -> str | None:
    """One line about the leftovers for a command to print, None when there are none."""
    stale = leftovers()
    if not stale:
        return None
    return (f"{len(stale)} leftover embedded device(s) of emukit commands that are gone "
            f"({', '.join(d.serial for d in stale)}): 'emukit devices --reap' stops them")


def reap(item: Leftover, grace_s: float = 3.0) -> bool:
    """Stop a leftover device (SIGTERM, then SIGKILL) and drop its records; refuses one whose owner lives.
    Returns True when a process was stopped."""
    if lock_is_held(item.state_dir / OWNER_LOCK):
        raise DeviceInUse(f"{item.serial}: held by a live emukit command ({item.owner}); not reaped")
    stopped = False
    if item.device_running and item.device_pid is not None:
        stopped = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(item.device_pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and _pid_running(item.device_pid):
            time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(item.device_pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        item.entry.unlink()
    with contextlib.suppress(OSError):
        (item.state_dir / OWNER_RECORD).unlink()
    return stopped


def _pid_running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


@dataclass
class SerialClaim:
    """This command's hold on an attached device (one adb server port + serial)."""

    serial: str
    path: Path
    fd: int

    @classmethod
    def acquire(cls, adb_server_port: int, serial: str) -> Self:
        path = home_dir() / "locks" / f"adb{adb_server_port}-{serial}.lock"
        fd = _try_lock(path)
        if fd is None:
            raise DeviceInUse(f"{serial} is in use by another emukit command: {_holder(path.with_suffix('.json'))}; "
                              "wait for it to finish, or choose another device with --device")
        path.with_suffix(".json").write_text(json.dumps({"owner_pid": os.getpid(), "command": _command_line()})
                                             + "\n", encoding="utf-8")
        return cls(serial, path, fd)

    def release(self) -> None:
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            self.path.with_suffix(".json").unlink()
        os.close(self.fd)
        self.fd = -1


@dataclass
class PortClaim:
    """This command's hold on one embedded device's adb port (and so its console and gRPC ports), so that
    two emukit commands on one machine never pick the same free ports in the moment between checking them
    and the device binding them. ``$EMUKIT_HOME/locks/port<adb port>.lock``, dropped by the kernel if the
    command dies."""

    port: int
    path: Path
    fd: int

    @classmethod
    def try_acquire(cls, adb_port: int) -> Self | None:
        """The claim, or None while another live command holds it."""
        path = home_dir() / "locks" / f"port{adb_port}.lock"
        fd = _try_lock(path)
        return None if fd is None else cls(adb_port, path, fd)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
