"""Markor's notebook on shared storage: the folder, its documents and the file operations the UI performs.

Markor keeps no database for documents: a note *is* a file in the notebook folder
(``/storage/emulated/0/Documents/Markor`` by default). Every operation here goes through the device
filesystem at once, so ``adb shell ls``/``cat`` see the result of a user action immediately. Modification
times come from the device's logical wall clock, which keeps listings (and screenshots) deterministic.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "net.gsantner.markor"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
TEXT_EXTENSIONS = (".md", ".txt", ".markdown", ".text", ".todo.txt", ".csv", ".json", ".html", ".org")
INVALID_CHARS = '/\\:*?"<>|\x00'


def rid(name: str) -> str:
    """A resource id in Markor's namespace."""
    return f"{PACKAGE}:id/{name}"


@dataclass(frozen=True)
class Entry:
    """One document of the notebook listing."""

    name: str
    size: int
    mtime_ms: int

    @property
    def path(self) -> str:
        return f"{NOTEBOOK}/{self.name}"


def _stamp(device: VirtualDevice, path: str) -> None:
    """Give ``path`` the device's wall clock as access/modification time (host time would leak in)."""
    ns = device.wall_ms() * 1_000_000
    with contextlib.suppress(OSError):
        os.utime(device.fs.host(path), ns=(ns, ns))


def ensure_notebook(device: VirtualDevice) -> None:
    """Create the notebook folder on first launch, like Markor does."""
    host = device.fs.host(NOTEBOOK)
    if not host.is_dir():
        device.fs.makedirs(NOTEBOOK)
        _stamp(device, NOTEBOOK)


def list_entries(device: VirtualDevice) -> list[Entry]:
    """The notebook's documents (regular files, dotfiles hidden), sorted by name like Markor's default."""
    out: list[Entry] = []
    try:
        with os.scandir(device.fs.host(NOTEBOOK)) as it:
            for item in it:
                if item.name.startswith(".") or not item.is_file(follow_symlinks=False):
                    continue
                st = item.stat(follow_symlinks=False)
                out.append(Entry(item.name, st.st_size, st.st_mtime_ns // 1_000_000))
    except OSError:
        return []
    return sorted(out, key=lambda e: (e.name.lower(), e.name))


def exists(device: VirtualDevice, path: str) -> bool:
    try:
        return device.fs.host(path).exists()
    except OSError:
        return False


def read_text(device: VirtualDevice, path: str) -> str:
    """The document's text (UTF-8; undecodable bytes shown as U+FFFD); empty if the file is gone."""
    try:
        return device.fs.read_bytes(path).decode("utf-8", errors="replace")
    except OSError:
        return ""


def write_text(device: VirtualDevice, path: str, text: str) -> None:
    """Save the document now (Markor's editor saves as you type); recreates a file deleted meanwhile."""
    existed = exists(device, path)
    if path.startswith(NOTEBOOK + "/"):
        ensure_notebook(device)
    device.fs.write_bytes(path, text.encode("utf-8"))
    _stamp(device, path)
    if not existed:
        _stamp(device, posixpath.dirname(path))


def name_error(device: VirtualDevice, name: str, current: str | None = None) -> str:
    """Why ``name`` cannot be used for a document in the notebook ("" when it can)."""
    if not name.strip():
        return "Enter a name"
    if name != name.strip() or any(c in INVALID_CHARS for c in name) or name in (".", ".."):
        return "This name is not allowed"
    if name != current and exists(device, f"{NOTEBOOK}/{name}"):
        return "A file with this name already exists"
    return ""


def with_extension(title: str, ext: str) -> str:
    """``title`` plus ``ext`` unless the title already ends with a text-file extension."""
    title = title.strip()
    if title.lower().endswith(TEXT_EXTENSIONS):
        return title
    ext = ext.strip()
    if ext and not ext.startswith("."):
        ext = "." + ext
    return title + ext


def create(device: VirtualDevice, name: str) -> str:
    """Create an empty document; returns its path."""
    ensure_notebook(device)
    path = f"{NOTEBOOK}/{name}"
    write_text(device, path, "")
    return path


def rename(device: VirtualDevice, old: str, new: str) -> None:
    src, dst = device.fs.host(f"{NOTEBOOK}/{old}"), device.fs.host(f"{NOTEBOOK}/{new}")
    if src.exists() and not dst.exists():
        os.rename(src, dst)
        _stamp(device, NOTEBOOK)


def delete(device: VirtualDevice, names: list[str]) -> None:
    for name in names:
        host = device.fs.host(f"{NOTEBOOK}/{name}")
        if host.is_file() or host.is_symlink():
            host.unlink()
    _stamp(device, NOTEBOOK)


def title_of(path: str) -> str:
    """The editor's title: the file name without its extension (``notes.md`` -> ``notes``)."""
    name = posixpath.basename(path)
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def human_size(size: int) -> str:
    """``0 B``, ``12 B``, ``1.5 KB``, ``3.0 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
