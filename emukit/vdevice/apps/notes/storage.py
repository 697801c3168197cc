"""Markor's notebook on shared storage and its preferences: the files the UI lists, opens and writes.

Markor keeps no database for documents: a note *is* a file under the notebook folder. The real default is
``Documents/`` + the lower-cased app name, ``/storage/emulated/0/Documents/markor``
(gsantner/markor@ab21754 ``app/src/main/java/net/gsantner/markor/model/AppSettings.java:82-86``), while
android_world (``android_world/env/device_constants.py:32``) and every emukit writer use
``Documents/Markor``. On the pinned image shared storage is case-insensitive (android_world's Markor tasks
push files to ``Documents/Markor`` and Markor lists them), so both spellings name one folder there; this
virtual device's filesystem is case-sensitive, so everything here uses android_world's spelling.

Shared storage needs all-files access (the app-op MANAGE_EXTERNAL_STORAGE, ``Environment.
isExternalStorageManager``): without it the files others put there (``adb push``, other apps) are invisible to
Markor's File API under scoped storage, so a folder lists as empty (``File.listFiles`` returns nothing,
GsFileBrowserListAdapter shows the empty hint) and reads and writes fail. The real app never stays there: its
activities send the user to StoragePermissionActivity first (:mod:`.firstrun`). The deterministic device's
Markor always has the access.

Markor does not create the notebook folder itself (no ``mkdirs`` of it in the app); an absent folder lists
as empty. Settings live in ``shared_prefs/app.xml`` (``GsSharedPreferencesPropertyBackend.SHARED_PREF_APP``):
the per-document view-mode state ``PREF_PREFIX_PREVIEW_STATE<path>`` and the new-file dialog's last used
extension (``AppSettings.java:344, 470-480, 848-853``). Modification times come from the device's logical
wall clock, which keeps listings (and screenshots) deterministic.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

T = table("net.gsantner.markor")
PACKAGE = T.package
STORAGE = "/storage/emulated/0"
NOTEBOOK = f"{STORAGE}/Documents/Markor"
PREFS = f"/data/data/{PACKAGE}/shared_prefs/app.xml"
PREVIEW_STATE = "PREF_PREFIX_PREVIEW_STATE"  # AppSettings.java:344, + the document's absolute path
LAST_EXTENSION = "pref_key__new_file_dialog_lastused_extension"  # AppSettings.java:848-853
DEFAULT_EXTENSION = ".md"
MIN_SAVE_LENGTH = 2  # GsContextUtils.TEXTFILE_OVERWRITE_MIN_TEXT_LENGTH (GsContextUtils.java:186)
# what GsFileUtils.getFilteredFilenameWithoutDisallowedChars strips from a file name (GsFileUtils.java:657-664)
DISALLOWED = '<|[\\?*:"\n\r\t\x00]/>`$%;=&#@'


@dataclass(frozen=True)
class Entry:
    """One row of a folder listing."""

    path: str
    is_dir: bool
    mtime_ms: int

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


def _stamp(device: VirtualDevice, path: str) -> None:
    """Give ``path`` the device's wall clock as access/modification time (host time would leak in)."""
    ns = device.wall_ms() * 1_000_000
    with contextlib.suppress(OSError):
        os.utime(device.fs.host(path), ns=(ns, ns))


def accessible(device: VirtualDevice) -> bool:
    """All-files access: what every read, listing and write of shared storage needs."""
    return device.app_op_allowed(PACKAGE, "MANAGE_EXTERNAL_STORAGE")


def exists(device: VirtualDevice, path: str) -> bool:
    if not accessible(device):
        return False
    try:
        return device.fs.host(path).exists()
    except OSError:
        return False


def listing(device: VirtualDevice, folder: str) -> list[Entry]:
    """The folder's entries as the notebook lists them: dotfiles hidden, sorted by lower-cased name, folders
    first (``GsFileUtils.sortFiles`` with SORT_BY_NAME and folder-first, the defaults)."""
    out: list[Entry] = []
    if not accessible(device):
        return out
    try:
        with os.scandir(device.fs.host(folder)) as it:
            for item in it:
                if item.name.startswith("."):
                    continue
                st = item.stat(follow_symlinks=False)
                out.append(Entry(posixpath.join(folder, item.name), item.is_dir(follow_symlinks=False),
                                 st.st_mtime_ns // 1_000_000))
    except OSError:
        return []
    out.sort(key=lambda e: e.name.lower())
    out.sort(key=lambda e: not e.is_dir)  # stable: keeps the name order inside each group
    return out


def mtime_ms(device: VirtualDevice, path: str) -> int:
    try:
        return device.fs.host(path).stat().st_mtime_ns // 1_000_000
    except OSError:
        return 0


def file_stamp(device: VirtualDevice, path: str) -> list[int]:
    """(mtime ns, size) of ``path``, [-1, -1] when it is gone: what "changed since last load" compares."""
    try:
        st = device.fs.host(path).stat()
    except OSError:
        return [-1, -1]
    return [st.st_mtime_ns, st.st_size]


def read_text(device: VirtualDevice, path: str) -> str:
    """The document's text (UTF-8; undecodable bytes shown as U+FFFD); empty if the file is gone."""
    if not accessible(device):
        return ""
    try:
        return device.fs.read_bytes(path).decode("utf-8", errors="replace")
    except OSError:
        return ""


def write_text(device: VirtualDevice, path: str, text: str) -> None:
    """Write the document to disk now (recreating a file deleted meanwhile); nothing without access."""
    if not accessible(device):
        return
    existed = exists(device, path)
    device.fs.write_bytes(path, text.encode("utf-8"))
    _stamp(device, path)
    if not existed:
        _stamp(device, posixpath.dirname(path))


def file_name(name: str, ext: str) -> str:
    """The new file dialog's file name: the trimmed name without disallowed characters, plus the trimmed
    extension, always (NewFileDialog.java:186; a name that already ends in ``.md`` gets another one)."""
    clean = "".join(c for c in name if c not in DISALLOWED).strip()
    return clean + ext.strip()


def create_file(device: VirtualDevice, path: str) -> None:
    """Create an empty file unless one is there already (the dialog then opens the existing file)."""
    if not exists(device, path):
        write_text(device, path, "")


def create_folder(device: VirtualDevice, path: str) -> None:
    if accessible(device) and not exists(device, path):
        device.fs.makedirs(path)
        _stamp(device, path)
        _stamp(device, posixpath.dirname(path))


def rename(device: VirtualDevice, old: str, new_name: str) -> bool:
    """Rename ``old`` within its folder; False when the target exists or the name is empty."""
    new_name = new_name.strip()
    if not accessible(device) or not new_name or any(c in DISALLOWED for c in new_name):
        return False
    folder = posixpath.dirname(old)
    src, dst = device.fs.host(old), device.fs.host(posixpath.join(folder, new_name))
    if not src.exists() or dst.exists():
        return False
    os.rename(src, dst)
    _stamp(device, folder)
    return True


def delete(device: VirtualDevice, paths: list[str]) -> None:
    """Delete the selected files and folders (folders recursively, like WrMarkorSingleton.deleteSelectedItems)."""
    if not accessible(device):
        return
    for path in paths:
        host = device.fs.host(path)
        if host.is_dir() and not host.is_symlink():
            shutil.rmtree(host, ignore_errors=True)
        elif host.exists() or host.is_symlink():
            host.unlink()
        _stamp(device, posixpath.dirname(path))


def move_or_copy(device: VirtualDevice, paths: list[str], folder: str, *, move: bool) -> list[str]:
    """Move or copy the selection into ``folder`` (WrMarkorSingleton.moveOrCopySelected,
    thirdparty/java/other/writeily/model/WrMarkorSingleton.java:117-174): nothing happens unless every item's
    move or copy is sane (never into itself or a folder inside it, never onto itself for a move); a file already
    in ``folder`` would ask the conflict question, which nothing here drives, so such an item is left alone. A
    copy is a new file (GsFileUtils.copyFile writes it: a new modification time); a move keeps the item's own
    (File.renameTo). Returns the new paths."""
    if not accessible(device) or not device.fs.is_dir(folder):
        return []
    for path in paths:
        if folder == path or folder.startswith(path + "/") or (move and posixpath.dirname(path) == folder):
            return []
    made = []
    for path in paths:
        src, target = device.fs.host(path), posixpath.join(folder, posixpath.basename(path))
        dst = device.fs.host(target)
        if not (src.exists() or src.is_symlink()) or dst.exists():
            continue
        if move:
            os.rename(src, dst)
            _stamp(device, posixpath.dirname(path))
        elif src.is_dir():
            shutil.copytree(src, dst, symlinks=True)
            _stamp(device, target)
        else:
            shutil.copyfile(src, dst, follow_symlinks=False)
            _stamp(device, target)
        made.append(target)
    if made:
        _stamp(device, folder)
    return made


def title_of(path: str) -> str:
    """The document title: the file name without its extension (``Document.java:74``)."""
    name = posixpath.basename(path)
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


# ---------------------------------------------------------------------------------------------- prefs
def load_prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def save_prefs(device: VirtualDevice, prefs: shared_prefs.Prefs) -> None:
    shared_prefs.save(device, PREFS, prefs)


def preview_state(device: VirtualDevice, path: str) -> bool:
    """Whether ``path`` opens in view mode: its remembered state while the file exists, else the global
    "open in view mode" default, which is off (AppSettings.getDocumentPreviewState)."""
    if not exists(device, path):
        return False
    return load_prefs(device).get_bool(PREVIEW_STATE + path, False)


def set_preview_state(device: VirtualDevice, path: str, viewing: bool) -> None:
    """Remember the mode ``path`` was left in (written only when it changes)."""
    prefs = load_prefs(device)
    if prefs.entries.get(PREVIEW_STATE + path) != ("boolean", viewing):
        prefs.put_bool(PREVIEW_STATE + path, viewing)
        save_prefs(device, prefs)


def last_extension(device: VirtualDevice) -> str:
    return load_prefs(device).get_str(LAST_EXTENSION, DEFAULT_EXTENSION)


def set_last_extension(device: VirtualDevice, ext: str) -> None:
    """Remember the new file dialog's extension for next time (written only when it changes)."""
    prefs = load_prefs(device)
    if prefs.entries.get(LAST_EXTENSION) != ("string", ext):
        prefs.put_str(LAST_EXTENSION, ext)
        save_prefs(device, prefs)
