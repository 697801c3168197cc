"""Snapshots: the state model plus a full copy of the device root, under ``<state-dir>/snapshots/NAME``.

A snapshot captures everything the device holds (files, services, app state, clocks, the back stack and the
current screen), so after a load the screenshot, the hierarchy and every file are byte-identical to the
moment of the save. In hardware mode the clocks follow an emulator instead: elapsed-realtime runs on from the
snapshot's value and the wall clock stays with the host (``VirtualDevice.after_snapshot_load``). Snapshots live in the state dir and survive device restarts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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


class SnapshotStore:
    """Save, load, list and delete snapshots of one virtual device."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.root = device.state_dir / "snapshots"

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
            dev.state = state
            dev.after_snapshot_load(wall_before)  # the clocks' rule after a load (see the device)
            dev.persist()

    def delete(self, name: str) -> None:
        path = self._dir(name)
        if not path.exists():
            raise SnapshotError(f"snapshot '{name}' does not exist")
        shutil.rmtree(path)

    def _info(self, name: str) -> SnapshotInfo:
        path = self.root / name
        meta = json.loads((path / "meta.json").read_text())
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
        return SnapshotInfo(name, size, meta["saved_wall_ms"], meta["vm_clock_ms"])

    def list(self) -> list[SnapshotInfo]:
        if not self.root.exists():
            return []
        return [self._info(p.name) for p in sorted(self.root.iterdir())
                if p.is_dir() and not p.name.startswith(".") and (p / "meta.json").exists()]
