"""Helpers shared by the file commands: device-clock mtimes, Android-like owners and modes, safe walks.

Everything here works on host paths that ``device.fs`` resolved inside the device root; walks use
``lstat`` and never follow host symlinks, so nothing outside the root is ever read, listed or removed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import stat as stat_mod
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SHARED_PREFIX = "/storage/emulated/"
NAMED_IDS = {0: "root", 1000: "system", 1015: "sdcard_rw", 1023: "media_rw", 2000: "shell"}


def now_ns(device: VirtualDevice) -> int:
    return device.wall_ms() * 1_000_000


def stamp(device: VirtualDevice, host: Path, follow: bool = True, ns: int | None = None) -> None:
    """Set a file's atime/mtime from the device wall clock (so listings follow the logical clock)."""
    value = now_ns(device) if ns is None else ns
    with contextlib.suppress(OSError, NotImplementedError):
        if not follow and os.path.islink(host):
            os.utime(host, ns=(value, value), follow_symlinks=False)
        else:
            os.utime(host, ns=(value, value))


def stamp_new(device: VirtualDevice, host: Path, follow: bool = True) -> None:
    """Stamp a newly created entry and its parent folder."""
    stamp(device, host, follow)
    if inside_root(device, host.parent):
        stamp(device, host.parent)


def inside_root(device: VirtualDevice, host: Path) -> bool:
    root = device.fs.root
    host = Path(os.path.abspath(host))
    return host == root or root in host.parents


def device_tz(device: VirtualDevice) -> dt.tzinfo:
    name = device.state.clock.timezone or "UTC"
    if name in ("UTC", "GMT", "Etc/UTC"):
        return dt.timezone.utc
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:  # unknown zone or no tz database: fall back like bionic does
        return dt.timezone.utc


def fmt_time(device: VirtualDevice, secs: float, fmt: str) -> str:
    return dt.datetime.fromtimestamp(secs, device_tz(device)).strftime(fmt)


def app_uid(device: VirtualDevice, package: str) -> int:
    """The package's app uid: numbered over every app the device knows, installed or not, so installing
    one app never renumbers the others."""
    known = getattr(device, "known_apps", device.apps)
    names = sorted(known)
    return 10100 + names.index(package) if package in known else 10099


def id_name(device: VirtualDevice, uid: int) -> str:
    if uid in NAMED_IDS:
        return NAMED_IDS[uid]
    if uid >= 10000:
        return f"u0_a{uid - 10000}"
    return str(uid)


def owner(device: VirtualDevice, device_path: str) -> tuple[int, int]:
    """(uid, gid) a real device would show for a path."""
    if device_path.startswith(SHARED_PREFIX) or device_path.rstrip("/") == "/storage/emulated":
        return 0, 1015
    if device_path == "/data/local/tmp" or device_path.startswith("/data/local/tmp/"):
        return 2000, 2000
    if device_path.startswith("/data/data/"):
        pkg = device_path.split("/")[3]
        if pkg in device.apps:
            uid = app_uid(device, pkg)
            return uid, uid
    return 0, 0


def mode_of(device_path: str, st: os.stat_result) -> int:
    """st_mode as shown on the device (shared storage has fixed FUSE permissions)."""
    mode = st.st_mode
    if device_path.startswith(SHARED_PREFIX):
        if stat_mod.S_ISDIR(mode):
            return stat_mod.S_IFDIR | 0o2770
        if stat_mod.S_ISREG(mode):
            return stat_mod.S_IFREG | 0o660
    return mode


def file_type(mode: int) -> str:
    if stat_mod.S_ISDIR(mode):
        return "directory"
    if stat_mod.S_ISLNK(mode):
        return "symbolic link"
    if stat_mod.S_ISCHR(mode):
        return "character special file"
    if stat_mod.S_ISBLK(mode):
        return "block special file"
    if stat_mod.S_ISFIFO(mode):
        return "fifo"
    if stat_mod.S_ISSOCK(mode):
        return "socket"
    return "regular file"


def shown_size(st: os.stat_result) -> int:
    """Directories report 4096 like ext4/f2fs, whatever the host filesystem says."""
    return 4096 if stat_mod.S_ISDIR(st.st_mode) else st.st_size


def kblocks(st: os.stat_result) -> int:
    """1K blocks in use, computed from the size with 4K blocks (deterministic across hosts)."""
    if stat_mod.S_ISLNK(st.st_mode):
        return 0
    return -(-shown_size(st) // 4096) * 4


def nlink(host: Path, st: os.stat_result) -> int:
    if not stat_mod.S_ISDIR(st.st_mode):
        return st.st_nlink
    count = 2
    with contextlib.suppress(OSError):
        with os.scandir(host) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    count += 1
    return count


def remove_tree(host: Path) -> None:
    """Delete a directory tree without following any symlink (links themselves are unlinked)."""
    with os.scandir(host) as it:
        entries = list(it)
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            remove_tree(path)
        else:
            os.unlink(path)
    os.rmdir(host)


def walk(host: Path) -> list[tuple[Path, os.stat_result]]:
    """Every entry below ``host`` (sorted, depth first, no symlink following)."""
    out: list[tuple[Path, os.stat_result]] = []
    try:
        names = sorted(os.listdir(host))
    except OSError:
        return out
    for name in names:
        path = host / name
        try:
            st = os.lstat(path)
        except OSError:
            continue
        out.append((path, st))
        if stat_mod.S_ISDIR(st.st_mode):
            out.extend(walk(path))
    return out
