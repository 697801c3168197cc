"""Shared storage as the Files app sees it: listings, search, formatting and the file operations.

Everything goes through ``device.fs`` with device paths under ``/storage/emulated/0``; host paths are only
obtained from it (``fs.host``), symlinks are never followed on the host, and every operation changes the
device filesystem at once (copies get the device clock as mtime, moves keep theirs, parents are stamped),
so ``adb shell ls/stat/find`` sees the result immediately.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import stat as stat_mod
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from emukit.vdevice.ui.clockfmt import MONTHS, device_tz, format_time, local_now

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SHARED = "/storage/emulated/0"
DOWNLOADS = SHARED + "/Download"
ROOTS = {"downloads": DOWNLOADS, "storage": SHARED}  # the drawer's roots and their top folders
LARGE_FILE = 10_000_000
WEEK_MS = 7 * 24 * 3600 * 1000

KINDS: dict[str, tuple[str, ...]] = {
    "image": ("jpg", "jpeg", "png", "gif", "webp", "bmp", "heic", "heif", "svg"),
    "audio": ("mp3", "m4a", "aac", "flac", "ogg", "oga", "opus", "wav", "mid", "amr"),
    "video": ("mp4", "mkv", "webm", "3gp", "mov", "avi"),
    "document": ("pdf", "doc", "docx", "odt", "rtf", "xls", "xlsx", "ods", "ppt", "pptx", "odp", "csv", "txt",
                 "md", "html", "htm", "json", "xml", "log", "epub"),
    "archive": ("zip", "rar", "7z", "tar", "gz", "tgz", "apk"),
}
TEXT_EXTENSIONS = ("txt", "md", "csv", "json", "xml", "log", "html", "htm", "ini", "conf", "yaml", "yml")


@dataclass(frozen=True)
class Entry:
    """One file or folder shown in a listing."""

    path: str
    name: str
    is_dir: bool
    size: int
    mtime_ms: int

    @property
    def kind(self) -> str:
        return "folder" if self.is_dir else kind_of(self.name)


def kind_of(name: str) -> str:
    """``image`` / ``audio`` / ``video`` / ``document`` / ``archive`` / ``other`` from the extension."""
    ext = name.rsplit(".", 1)[1].lower() if "." in name.lstrip(".") else ""
    for kind, exts in KINDS.items():
        if ext in exts:
            return kind
    return "other"


def is_text(name: str) -> bool:
    return "." in name and name.rsplit(".", 1)[1].lower() in TEXT_EXTENSIONS


def parent(path: str) -> str:
    return posixpath.dirname(path.rstrip("/")) or "/"


def inside(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or below it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# ------------------------------------------------------------------ reading
def _entry(device: VirtualDevice, path: str, name: str) -> Entry | None:
    """Stat one device path (symlinks resolved inside the device root); None when it vanished."""
    try:
        st = device.fs.stat(path)
    except OSError:
        return None
    is_dir = stat_mod.S_ISDIR(st.st_mode)
    return Entry(path, name, is_dir, 0 if is_dir else st.st_size, st.st_mtime_ns // 1_000_000)


def exists(device: VirtualDevice, path: str) -> bool:
    try:
        return device.fs.resolve(path, follow=False).exists()
    except OSError:
        return False


def is_dir(device: VirtualDevice, path: str) -> bool:
    return device.fs.is_dir(path)


def list_dir(device: VirtualDevice, path: str) -> list[Entry]:
    """Visible entries of a folder (hidden dot-files left out, like the app's default); [] if unreadable."""
    try:
        host = device.fs.host(path)
        names = sorted(os.listdir(host)) if host.is_dir() else []
    except OSError:
        return []
    out = []
    for name in names:
        if name.startswith("."):
            continue
        entry = _entry(device, posixpath.join(path, name), name)
        if entry is not None:
            out.append(entry)
    return out


def sort_entries(entries: Iterable[Entry], order: str) -> list[Entry]:
    """Folders first, then by ``order``: ``name``/``name_desc``/``date``/``date_asc``/``size``/``size_asc``."""
    def by_name(e: Entry) -> tuple[str, str]:
        return e.name.casefold(), e.name

    items = sorted(entries, key=by_name)
    if order == "name_desc":
        items.reverse()
    elif order in ("date", "date_asc"):
        items.sort(key=lambda e: e.mtime_ms, reverse=order == "date")
    elif order in ("size", "size_asc"):
        items.sort(key=lambda e: e.size, reverse=order == "size")
    return [e for e in items if e.is_dir] + [e for e in items if not e.is_dir]


def search(device: VirtualDevice, scope: str, query: str, chips: Iterable[str]) -> list[Entry]:
    """Files (and folders) below ``scope`` whose name contains ``query`` (case-insensitive), filtered by the
    search chips: kinds are alternatives, ``large`` and ``week`` narrow further. Folders only match on a
    query with no kind chip. Walks the tree (no symlinked folders) in a fixed order."""
    needle = query.strip().casefold()
    chips = set(chips)
    kinds = chips & {"image", "audio", "video", "document"}
    now = device.wall_ms()
    found: list[Entry] = []
    pending = [scope]
    while pending:
        folder = pending.pop()
        try:
            host = device.fs.host(folder)
            with os.scandir(host) as it:
                items = sorted((e.name, e.is_dir(follow_symlinks=False)) for e in it)
        except OSError:
            continue
        for name, real_dir in items:
            if name.startswith("."):
                continue
            path = posixpath.join(folder, name)
            if real_dir:
                pending.append(path)
            if needle not in name.casefold():
                continue
            entry = _entry(device, path, name)
            if entry is None:
                continue
            if entry.is_dir and (kinds or "large" in chips or "week" in chips or not needle):
                continue
            if not entry.is_dir and kinds and entry.kind not in kinds:
                continue
            if "large" in chips and entry.size <= LARGE_FILE:
                continue
            if "week" in chips and entry.mtime_ms < now - WEEK_MS:
                continue
            found.append(entry)
    return found


def read_text(device: VirtualDevice, path: str, limit: int = 6000) -> str:
    try:
        data = device.fs.read_bytes(path)[:limit]
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


# ------------------------------------------------------------------ formatting
def format_size(size: int) -> str:
    """``Formatter.formatFileSize`` (SI units, 2 decimals below 100): ``12 B``, ``1.23 kB``, ``123 kB``."""
    value = float(size)
    units = ["B", "kB", "MB", "GB", "TB", "PB"]
    unit = 0
    while value > 900 and unit < len(units) - 1:
        value /= 1000
        unit += 1
    value = struct.unpack("f", struct.pack("f", value))[0]  # Android computes in float
    if unit == 0 or value >= 100:
        digits = "1"
    else:
        digits = "0.01"
    text = Decimal(repr(value)).quantize(Decimal(digits), rounding=ROUND_HALF_UP)
    return f"{text} {units[unit]}"


def format_date(device: VirtualDevice, mtime_ms: int) -> str:
    """The list's modified column: the time today, ``Jan 5`` this year, ``Jan 5, 2024`` before."""
    then = datetime.fromtimestamp(mtime_ms / 1000, UTC).astimezone(device_tz(device))
    now = local_now(device)
    if then.year != now.year:
        return f"{MONTHS[then.month - 1][:3]} {then.day}, {then.year}"
    if then.date() != now.date():
        return f"{MONTHS[then.month - 1][:3]} {then.day}"
    return format_time(device, then)


# ------------------------------------------------------------------ writing
def _stamp(device: VirtualDevice, path: str, follow: bool = True) -> None:
    ns = device.wall_ms() * 1_000_000
    with contextlib.suppress(OSError, NotImplementedError):
        host = device.fs.host(path, follow=follow)
        os.utime(host, ns=(ns, ns), follow_symlinks=follow or not os.path.islink(host))


def unique_name(device: VirtualDevice, folder: str, name: str, is_folder: bool = False) -> str:
    """``name``, or ``name (1).ext``, ``name (2).ext``... when taken (``FileUtils.buildUniqueFile``)."""
    if not exists(device, posixpath.join(folder, name)):
        return name
    base, ext = name, ""
    if not is_folder and "." in name.lstrip("."):
        base, ext = name.rsplit(".", 1)
        ext = "." + ext
    n = 1
    while exists(device, posixpath.join(folder, f"{base} ({n}){ext}")):
        n += 1
    return f"{base} ({n}){ext}"


def transfer_allowed(sources: list[str], dest: str, op: str) -> bool:
    """Whether ``dest`` may receive ``sources``: never into a source folder itself, and a move needs a new
    parent for at least one source."""
    if not sources or any(inside(dest, src) for src in sources):
        return False
    return not (op == "move" and all(parent(src) == dest for src in sources))


def _copy_tree(device: VirtualDevice, src: str, dst: str) -> None:
    src_host = device.fs.host(src, follow=False)
    dst_host = device.fs.host(dst, follow=False)
    if os.path.islink(src_host):
        os.symlink(os.readlink(src_host), dst_host)  # links are copied as links (device-path targets)
        return
    if src_host.is_dir():
        dst_host.mkdir()
        with os.scandir(src_host) as it:
            names = sorted(e.name for e in it)
        for name in names:
            _copy_tree(device, posixpath.join(src, name), posixpath.join(dst, name))
    else:
        shutil.copyfile(src_host, dst_host, follow_symlinks=False)
    _stamp(device, dst, follow=False)


def copy_into(device: VirtualDevice, sources: list[str], dest: str) -> list[str]:
    """Copy files/folders (recursively) into ``dest``; returns the new paths."""
    made = []
    for src in sources:
        if not exists(device, src) or inside(dest, src):
            continue
        name = unique_name(device, dest, posixpath.basename(src), is_dir(device, src))
        target = posixpath.join(dest, name)
        _copy_tree(device, src, target)
        made.append(target)
    if made:
        _stamp(device, dest)
    return made


def move_into(device: VirtualDevice, sources: list[str], dest: str) -> list[str]:
    """Move files/folders into ``dest`` (a rename: contents and mtimes kept); returns the new paths."""
    made = []
    for src in sources:
        if not exists(device, src) or inside(dest, src) or parent(src) == dest:
            continue
        name = unique_name(device, dest, posixpath.basename(src), is_dir(device, src))
        target = posixpath.join(dest, name)
        os.rename(device.fs.host(src, follow=False), device.fs.host(target, follow=False))
        _stamp(device, parent(src))
        made.append(target)
    if made:
        _stamp(device, dest)
    return made


def delete_paths(device: VirtualDevice, paths: list[str]) -> int:
    """Delete files and folders (recursively, links not followed); returns how many were removed."""
    done = 0
    for path in paths:
        if not inside(path, SHARED) or path == SHARED or not exists(device, path):
            continue
        host = device.fs.host(path, follow=False)
        if host.is_dir() and not os.path.islink(host):
            shutil.rmtree(host)
        else:
            os.unlink(host)
        _stamp(device, parent(path))
        done += 1
    return done


def valid_name(name: str) -> bool:
    return bool(name.strip()) and "/" not in name and name not in (".", "..") and "\x00" not in name


def make_folder(device: VirtualDevice, folder: str, name: str) -> str | None:
    """Create ``folder/name``; None when the name is invalid or taken."""
    path = posixpath.join(folder, name.strip())
    if not valid_name(name) or exists(device, path):
        return None
    device.fs.host(path, follow=False).mkdir()
    _stamp(device, path)
    _stamp(device, folder)
    return path


def rename(device: VirtualDevice, path: str, name: str) -> str | None:
    """Rename in place (mtime kept); None when the name is invalid or taken."""
    target = posixpath.join(parent(path), name.strip())
    if not valid_name(name) or target == path or exists(device, target) or not exists(device, path):
        return None
    os.rename(device.fs.host(path, follow=False), device.fs.host(target, follow=False))
    _stamp(device, parent(path))
    return target
