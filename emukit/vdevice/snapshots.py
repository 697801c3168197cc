"""Snapshots: the state model plus a full copy of the device root, under ``<state-dir>/snapshots/NAME``.

A snapshot captures everything the device holds (files, services, app state, clocks, the back stack and the
current screen), so after a load the screenshot, the hierarchy and every file are byte-identical to the
moment of the save. In hardware mode the clocks follow an emulator instead: elapsed-realtime runs on from the
snapshot's value and the wall clock stays with the host (``VirtualDevice.after_snapshot_load``). Snapshots live in the state dir and survive device restarts.

A saved snapshot's files are never written to: a save writes a new folder and renames it into place, a load
copies out of it, a delete removes the folder. So a device seeded from a template holds hard links to the
template's files (:func:`emukit.device.virtual.install_snapshot`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from emukit.vdevice.memory import HARDWARE_RESIDENT_SLACK, RESIDENT_SLACK, release_free_memory
from emukit.vdevice.state import DeviceState

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class SnapshotError(Exception):
    """A snapshot operation that cannot be done; the message is what the console prints after ``KO:``."""


@dataclass(frozen=True)
class SnapshotInfo:
    name: str
    size: int
    saved_wall_ms: int
    vm_clock_ms: int


# the kernel stamps inode change times from its coarse clock on filesystems without fine-grained timestamps
_CLOCK_REALTIME_COARSE = getattr(time, "CLOCK_REALTIME_COARSE", 5)


def _coarse_now_ns() -> int:
    try:
        return time.clock_gettime_ns(_CLOCK_REALTIME_COARSE)
    except OSError:  # no coarse clock: the fine one is never earlier
        return time.time_ns()


def _changes_show_at_once(folder: Path) -> bool:
    """Whether a write right after its file's change time was read gets a later change time on this
    filesystem (fine-grained or multigrain timestamps); where it does not, a load waits for the next clock
    tick before it trusts the change times it recorded."""
    probe = folder / ".ctime-probe"
    try:
        for _ in range(5):
            probe.write_bytes(b"a")
            before = os.lstat(probe).st_ctime_ns
            probe.write_bytes(b"b")
            if os.lstat(probe).st_ctime_ns == before:
                return False
        return True
    finally:
        probe.unlink(missing_ok=True)


@dataclass
class _Restored:
    """What the device's root held right after the last load: the snapshot (its name and the identity of its
    ``meta.json``, new at every save) and, per entry (path relative to the root, "" for the root), the inode
    and inode-change time it had then."""

    name: str
    stamp: tuple[int, int]
    entries: dict[str, tuple[int, int]]


class SnapshotStore:
    """Save, load, list and delete snapshots of one virtual device.

    A load puts back the snapshot's files exactly. The first load of a snapshot copies its whole tree; a later
    load of the same snapshot copies only what changed since the previous load: an entry whose inode and
    inode-change time (``st_ctime_ns``, which every write, chmod, utime, rename and unlink updates and which no
    call can set back) are those recorded right after that load is untouched, anything else is removed, copied
    or re-stamped from the snapshot. On a filesystem whose change times only move with the kernel's clock
    tick, a load waits for the next tick before it records them, so a later write cannot share a change time
    with the copy it replaces.
    """

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.root = device.state_dir / "snapshots"
        self._restored: _Restored | None = None
        self._wait_tick: bool | None = None  # measured at the first load

    def _dir(self, name: str) -> Path:
        if not NAME_RE.match(name or ""):
            raise SnapshotError(f"invalid snapshot name {name!r}")
        return self.root / name

    def save(self, name: str) -> SnapshotInfo:
        dev = self.device
        target = self._dir(name)
        with dev.lock:
            tmp = self.root / f".{name}.saving"
            if tmp.exists():
                shutil.rmtree(tmp)
            tmp.mkdir(parents=True)
            shutil.copytree(dev.fs.root, tmp / "fs", symlinks=True, copy_function=shutil.copy2)
            meta = {"name": name, "saved_wall_ms": dev.wall_ms(), "vm_clock_ms": dev.elapsed_ms()}
            (tmp / "state.json").write_text(dev.state.model_dump_json())  # the clocks just read, as in meta
            meta["size"] = _tree_size(tmp)  # a snapshot never changes once saved: listing reads this
            (tmp / "meta.json").write_text(json.dumps(meta))
            old = self.root / f".{name}.old"
            if target.exists():
                os.replace(target, old)
            os.replace(tmp, target)
            if old.exists():
                shutil.rmtree(old)
        return self._info(name)

    def load(self, name: str) -> None:
        dev = self.device
        source = self._dir(name)
        if not (source / "state.json").exists():
            raise SnapshotError(f"snapshot '{name}' does not exist")
        with dev.lock:
            wall_before = dev.wall_ms()
            state = DeviceState.model_validate_json((source / "state.json").read_text())
            fs_root = dev.fs.root
            meta = os.stat(source / "meta.json")
            stamp = (meta.st_ino, meta.st_mtime_ns)
            last = self._restored
            self._restored = None  # until this load has finished
            if self._wait_tick is None:
                self._wait_tick = not _changes_show_at_once(dev.state_dir)
            if last is not None and last.name == name and last.stamp == stamp and fs_root.is_dir():
                entries = _restore_changed(source / "fs", fs_root, last.entries, self._wait_tick)
            else:
                incoming = fs_root.with_name(fs_root.name + ".loading")
                if incoming.exists():
                    shutil.rmtree(incoming)
                shutil.copytree(source / "fs", incoming, symlinks=True, copy_function=shutil.copy2)
                outgoing = fs_root.with_name(fs_root.name + ".old")
                if outgoing.exists():
                    shutil.rmtree(outgoing)
                os.replace(fs_root, outgoing)
                os.replace(incoming, fs_root)
                shutil.rmtree(outgoing)
                found = _walk(fs_root)
                if self._wait_tick:
                    _settle(max(st.st_ctime_ns for st in found.values()))
                entries = {rel: (st.st_ino, st.st_ctime_ns) for rel, st in found.items()}
            self._restored = _Restored(name, stamp, entries)
            dev.state = state
            dev.after_snapshot_load(wall_before)  # the clocks' rule after a load (see the device)
            dev.persist()
        # what the last attempt freed goes back to the system, once per branch
        release_free_memory(HARDWARE_RESIDENT_SLACK if dev.hardware else RESIDENT_SLACK)

    def delete(self, name: str) -> None:
        path = self._dir(name)
        if not path.exists():
            raise SnapshotError(f"snapshot '{name}' does not exist")
        shutil.rmtree(path)

    def _info(self, name: str) -> SnapshotInfo:
        path = self.root / name
        meta = json.loads((path / "meta.json").read_text())
        size = meta.get("size")
        if not isinstance(size, int):  # saved before the size was recorded
            size = _tree_size(path)
        return SnapshotInfo(name, size, meta["saved_wall_ms"], meta["vm_clock_ms"])

    def list(self) -> list[SnapshotInfo]:
        if not self.root.exists():
            return []
        return [self._info(p.name) for p in sorted(self.root.iterdir())
                if p.is_dir() and not p.name.startswith(".") and (p / "meta.json").exists()]


def _tree_size(path: Path) -> int:
    """Bytes in the regular files of snapshot folder ``path`` but its ``meta.json`` (which records this size;
    links not followed)."""
    return sum(st.st_size for rel, st in _walk(path).items() if stat.S_ISREG(st.st_mode) and rel != "meta.json")


# ---------------------------------------------------------------------------------------------- restore
def _walk(root: Path) -> dict[str, os.stat_result]:
    """Every entry under ``root`` (not following links) by its path relative to ``root`` ("" for the root)."""
    out = {"": os.lstat(root)}
    stack = [("", str(root))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as it:
            for entry in it:
                sub = f"{rel}/{entry.name}" if rel else entry.name
                st = entry.stat(follow_symlinks=False)
                out[sub] = st
                if stat.S_ISDIR(st.st_mode):
                    stack.append((sub, entry.path))
    return out


def _settle(latest_ctime_ns: int) -> None:
    """Wait until the kernel's coarse clock has passed ``latest_ctime_ns`` (at most one tick)."""
    while _coarse_now_ns() <= latest_ctime_ns:
        time.sleep(0.0005)


def _parent(rel: str) -> str:
    return rel.rpartition("/")[0]


def _remove(path: Path, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _restore_changed(src: Path, root: Path, recorded: dict[str, tuple[int, int]],
                     wait_tick: bool) -> dict[str, tuple[int, int]]:
    """Make ``root`` equal to ``src`` again, touching only what changed since ``recorded`` was taken (see
    :class:`SnapshotStore`); returns the new record."""
    live = _walk(root)
    touched_dirs: set[str] = set()
    changed: set[str] = set()
    gone: list[str] = []
    # what the device added since: removed (a new folder with all it holds)
    for rel in sorted(live):
        if rel in recorded or any(rel.startswith(g + "/") for g in gone):
            continue
        _remove(root / rel, live[rel])
        gone.append(rel)
        touched_dirs.add(_parent(rel))
    # what it changed or removed: put back from the snapshot, parents before children
    for rel in sorted(recorded):
        st = live.get(rel)
        if st is not None and (st.st_ino, st.st_ctime_ns) == recorded[rel]:
            continue
        target, origin = root / rel, src / rel
        sst = os.lstat(origin)
        if stat.S_ISDIR(sst.st_mode):
            if st is not None and not stat.S_ISDIR(st.st_mode):
                os.unlink(target)
                st = None
            if st is None:
                os.mkdir(target)
                touched_dirs.add(_parent(rel))
            touched_dirs.add(rel)
        else:
            if st is not None and os.path.lexists(target):
                _remove(target, st)
            if stat.S_ISLNK(sst.st_mode):
                os.symlink(os.readlink(origin), target)
                os.utime(target, ns=(sst.st_atime_ns, sst.st_mtime_ns), follow_symlinks=False)
            else:
                shutil.copy2(origin, target)
            touched_dirs.add(_parent(rel))
        changed.add(rel)
    # folders whose entries changed get their own stamps back last, deepest first
    for rel in sorted((d for d in touched_dirs if d in recorded), key=lambda d: d.count("/"), reverse=True):
        shutil.copystat(src / rel, root / rel)
        changed.add(rel)
    out = dict(recorded)
    if changed:
        now = {rel: os.lstat(root / rel) for rel in changed}
        if wait_tick:
            _settle(max(st.st_ctime_ns for st in now.values()))
        out.update({rel: (st.st_ino, st.st_ctime_ns) for rel, st in now.items()})
    return out
