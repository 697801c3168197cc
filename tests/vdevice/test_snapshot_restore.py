"""Snapshot loads put back exactly what was saved whatever the device changed in between: the incremental load
(only what changed since the previous load of the same snapshot is copied) leaves the same tree, bytes, modes,
modification times and links as a full copy, over random sequences of writes, same-size rewrites with the old
modification time put back, deletions, renames, new files and folders, chmods and symlink changes. In-process
devices; both the filesystem's fine-grained change times and the coarse-tick wait are exercised."""

from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path

import pytest

from emukit.vdevice import snapshots as S
from emukit.vdevice.device import VirtualDevice


def tree(root: Path) -> dict[str, tuple]:
    """Every entry: kind, mode, mtime (ns) and content or link target."""
    out = {}
    for rel, st in S._walk(root).items():
        path = root / rel
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(path), st.st_mtime_ns)
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", stat.S_IMODE(st.st_mode), st.st_mtime_ns)
        else:
            out[rel] = ("file", stat.S_IMODE(st.st_mode), st.st_mtime_ns, path.read_bytes())
    return out


def mutate(root: Path, rng: random.Random) -> None:
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    dirs = [p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()] or [root]
    for _ in range(rng.randint(1, 6)):
        op = rng.choice(["write", "same_size", "delete", "new", "mkdir", "rmdir", "chmod", "rename", "link"])
        if op == "write" and files:
            rng.choice(files).write_bytes(os.urandom(rng.randint(0, 64)))
        elif op == "same_size" and files:  # same size, old mtime put back: only the change time tells
            f = rng.choice(files)
            st = os.stat(f)
            data = f.read_bytes()
            f.write_bytes(bytes((b + 1) % 256 for b in data) if data else b"")
            os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
        elif op == "delete" and files:
            f = rng.choice(files)
            if f.exists():
                f.unlink()
        elif op == "new":
            (rng.choice(dirs) / f"new_{rng.randint(0, 999)}.txt").write_bytes(b"new")
        elif op == "mkdir":
            d = rng.choice(dirs) / f"newdir_{rng.randint(0, 999)}"
            d.mkdir(exist_ok=True)
            (d / "inside.txt").write_bytes(b"x")
        elif op == "rmdir":
            candidates = [d for d in dirs if d != root and d.exists()]
            if candidates:
                import shutil

                shutil.rmtree(rng.choice(candidates))
        elif op == "chmod" and files:
            f = rng.choice(files)
            if f.exists():
                os.chmod(f, 0o600)
        elif op == "rename" and len(files) > 1:
            a, b = rng.sample(files, 2)
            if a.exists() and b.exists():
                os.replace(a, b)
        elif op == "link":
            target = rng.choice(dirs) / "a_link"
            if target.is_symlink() or target.exists():
                if target.is_symlink() or not target.is_dir():
                    target.unlink()
            else:
                target.symlink_to(f"/elsewhere/{rng.randint(0, 9)}")
        files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
        dirs = [p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()] or [root]


@pytest.mark.parametrize("wait_tick", [False, True])
def test_incremental_loads_equal_the_saved_tree(tmp_path, monkeypatch, wait_tick):
    monkeypatch.setattr(S, "_changes_show_at_once", lambda folder: not wait_tick)
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    fs = dev.fs.root
    (fs / "sdcard_data").mkdir()
    for i in range(12):
        (fs / "sdcard_data" / f"f{i}.txt").write_bytes(f"file {i}".encode())
    (fs / "sdcard_data" / "sub").mkdir()
    (fs / "sdcard_data" / "sub" / "deep.bin").write_bytes(b"\x00\x01" * 5)
    (fs / "sdcard_data" / "link").symlink_to("/storage/emulated/0")
    dev.snapshots.save("base")
    saved = tree(fs)
    rng = random.Random(7)
    for round_ in range(40):
        mutate(fs, rng)
        dev.snapshots.load("base")
        assert tree(fs) == saved, f"round {round_}"
    assert dev.snapshots._restored is not None and dev.snapshots._restored.name == "base"


def test_another_snapshot_or_a_resave_is_a_full_copy(tmp_path):
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    fs = dev.fs.root
    (fs / "a.txt").write_bytes(b"one")
    dev.snapshots.save("one")
    (fs / "a.txt").write_bytes(b"two!")
    dev.snapshots.save("two")
    dev.snapshots.load("one")
    assert (fs / "a.txt").read_bytes() == b"one"
    dev.snapshots.load("two")
    assert (fs / "a.txt").read_bytes() == b"two!"
    (fs / "a.txt").write_bytes(b"three")
    dev.snapshots.save("one")  # re-saved under the same name: its new content, not the recorded one
    (fs / "a.txt").write_bytes(b"four")
    dev.snapshots.load("one")
    assert (fs / "a.txt").read_bytes() == b"three"


def test_an_untouched_device_loads_without_copying(tmp_path, monkeypatch):
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.snapshots.save("s")
    dev.snapshots.load("s")
    copied = []
    real = S.shutil.copy2
    monkeypatch.setattr(S.shutil, "copy2", lambda *a, **k: copied.append(a[0]) or real(*a, **k))
    dev.snapshots.load("s")
    assert copied == []
    (dev.fs.root / "data" / "local" / "tmp").mkdir(parents=True, exist_ok=True)
    (dev.fs.root / "data" / "local" / "tmp" / "x").write_bytes(b"x")
    dev.snapshots.load("s")
    assert not (dev.fs.root / "data" / "local" / "tmp" / "x").exists() and copied == []


def test_listing_reads_the_size_recorded_at_save(tmp_path, monkeypatch):
    """``snapshot list`` (asked before every base load) reads each snapshot's size from its meta.json instead of
    walking its tree; a snapshot saved before sizes were recorded is walked, with the same result. An in-process
    device of its own (no adb, no process): the snapshot store writes real files, and this test rewrites one."""
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    (dev.fs.root / "big.bin").write_bytes(b"x" * 5000)
    info = dev.snapshots.save("s")
    folder = dev.snapshots.root / "s"
    walked = S._tree_size(folder)
    assert info.size == walked >= 5000
    monkeypatch.setattr(S, "_walk", lambda root: pytest.fail(f"listing walked {root}"))
    assert [(i.name, i.size) for i in dev.snapshots.list()] == [("s", walked)]
    monkeypatch.undo()
    meta = json.loads((folder / "meta.json").read_text())
    del meta["size"]
    (folder / "meta.json").write_text(json.dumps(meta))
    assert [(i.name, i.size) for i in dev.snapshots.list()] == [("s", walked)]
