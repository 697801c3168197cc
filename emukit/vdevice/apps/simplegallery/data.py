"""Simple Gallery Pro's data, where the real app keeps it (facts: the pinned table's repos ``gal``
SimpleMobileTools/Simple-Gallery 3cb12cc4 (tag 6.28.1) and ``commons`` Simple-Commons 9e60e247).

* **The media are the files in shared storage.** The app lists every folder holding images or videos (with
  all-files access it walks the file system itself, MediaFetcher) and every operation (copy to, move to,
  delete, rename) acts on the files; the file system is authoritative, which is how android_world checks the
  app (``file_utils.check_file_or_folder_exists``: ``find`` under a folder, simple_gallery_pro.py:59-69).
  Media are the names ending in commons' photo/video extensions (commons helpers/Constants.kt:373-374), hidden
  (dot) entries and ``Android/`` left out.
* ``databases/gallery.db``: Room ``GalleryDatabase`` version 10 (gal:.../databases/GalleryDatabase.kt:12, 32),
  entities Directory ``directories``, Medium ``media``, Widget ``widgets``, DateTaken ``date_takens``, Favorite
  ``favorites`` (models/*.kt). It is a CACHE for a fast start: the folders screen stores the folders it found
  (DirectoryDao), a folder's screen its media (MediaDao); deleting into the recycle bin marks the row
  (``deleted_ts``, ``full_path`` "recycle_bin<path>", Activity.kt:359, 375), renaming updates it. What is shown
  is re-read from the files on every load, so a row may outlive its file until the next load.
* the recycle bin is the app's ``files`` folder (commons Context-storage.kt:34: recycleBinPath = filesDir): a
  binned file is copied to ``files/<its absolute path>`` and deleted from shared storage.
* ``shared_prefs/Prefs.xml`` (commons Constants.kt:72 PREFS_KEY "Prefs"): ``last_copy_path`` (commons
  Constants.kt:125, BaseConfig.kt:206-208), where the "Other folder" picker starts; ``display_file_names``
  (Constants.kt:25, Config.kt:203-205), whether a folder's grid shows names under its thumbnails.
"""

from __future__ import annotations

import functools
import hashlib
import os
import posixpath
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.apps.simplegallery.roomhash import identity_hash
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.simplemobiletools.gallery.pro"
T = table(PACKAGE)
STORAGE = "/storage/emulated/0"
PREFS = f"/data/data/{PACKAGE}/shared_prefs/Prefs.xml"
FILES_DIR = f"/data/data/{PACKAGE}/files"  # filesDir: the recycle bin (commons Context-storage.kt:34)
RECYCLE_BIN = "recycle_bin"  # Constants.kt:120, the bin's pseudo path in the database
TYPE_IMAGES, TYPE_VIDEOS, TYPE_GIFS = 1, 2, 4  # Constants.kt:178-180
LOCATION_INTERNAL = 1  # Constants.kt:187
PHOTO_EXTENSIONS = (".jpg", ".png", ".jpeg", ".bmp", ".webp", ".heic", ".heif", ".apng", ".avif")
VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".avi", ".3gp", ".mov", ".m4v", ".3gpp")
ALL_FILES_OP = "MANAGE_EXTERNAL_STORAGE"

_CREATE = (
    ("CREATE TABLE IF NOT EXISTS `directories` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `path` TEXT NOT NULL, "
     "`thumbnail` TEXT NOT NULL, `filename` TEXT NOT NULL, `media_count` INTEGER NOT NULL, "
     "`last_modified` INTEGER NOT NULL, `date_taken` INTEGER NOT NULL, `size` INTEGER NOT NULL, "
     "`location` INTEGER NOT NULL, `media_types` INTEGER NOT NULL, `sort_value` TEXT NOT NULL)"),
    "CREATE UNIQUE INDEX IF NOT EXISTS `index_directories_path` ON `directories` (`path`)",
    ("CREATE TABLE IF NOT EXISTS `media` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `filename` TEXT NOT NULL, "
     "`full_path` TEXT NOT NULL, `parent_path` TEXT NOT NULL, `last_modified` INTEGER NOT NULL, "
     "`date_taken` INTEGER NOT NULL, `size` INTEGER NOT NULL, `type` INTEGER NOT NULL, "
     "`video_duration` INTEGER NOT NULL, `is_favorite` INTEGER NOT NULL, `deleted_ts` INTEGER NOT NULL, "
     "`media_store_id` INTEGER NOT NULL)"),
    "CREATE UNIQUE INDEX IF NOT EXISTS `index_media_full_path` ON `media` (`full_path`)",
    ("CREATE TABLE IF NOT EXISTS `widgets` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `widget_id` INTEGER NOT NULL, "
     "`folder_path` TEXT NOT NULL)"),
    "CREATE UNIQUE INDEX IF NOT EXISTS `index_widgets_widget_id` ON `widgets` (`widget_id`)",
    ("CREATE TABLE IF NOT EXISTS `date_takens` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `full_path` TEXT NOT NULL, "
     "`filename` TEXT NOT NULL, `parent_path` TEXT NOT NULL, `date_taken` INTEGER NOT NULL, "
     "`last_fixed` INTEGER NOT NULL, `last_modified` INTEGER NOT NULL)"),
    "CREATE UNIQUE INDEX IF NOT EXISTS `index_date_takens_full_path` ON `date_takens` (`full_path`)",
    ("CREATE TABLE IF NOT EXISTS `favorites` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `full_path` TEXT NOT NULL, "
     "`filename` TEXT NOT NULL, `parent_path` TEXT NOT NULL)"),
    "CREATE UNIQUE INDEX IF NOT EXISTS `index_favorites_full_path` ON `favorites` (`full_path`)",
)
# Room's statements for the entities of GalleryDatabase.kt:12 (models/Directory.kt:11-23, Medium.kt:15-28,
# Widget.kt:8-12, DateTaken.kt:10-18, Favorite.kt:8-13; the migrations at GalleryDatabase.kt:54-93 write the same
# column definitions); the identity hash is Room's over them
SCHEMA = RoomSchema(package=PACKAGE, name="gallery.db", version=10, identity_hash=identity_hash(_CREATE),
                    create=_CREATE)
STORE = RoomStore(SCHEMA)


@dataclass(frozen=True)
class MediaFile:
    """One image or video file in shared storage."""

    path: str
    size: int
    modified_ms: int

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def parent(self) -> str:
        return posixpath.dirname(self.path)

    @property
    def type(self) -> int:
        return media_type(self.name)


@dataclass(frozen=True)
class Folder:
    """A folder holding media, as the folders screen shows it (or the recycle bin)."""

    path: str
    name: str
    media: tuple[MediaFile, ...]

    @property
    def modified_ms(self) -> int:
        return max((m.modified_ms for m in self.media), default=0)


def media_type(name: str) -> int:
    """TYPE_GIFS, TYPE_IMAGES, TYPE_VIDEOS or 0 (not a medium) by the name's extension."""
    low = name.lower()
    if low.endswith(".gif"):
        return TYPE_GIFS
    if low.endswith(PHOTO_EXTENSIONS):
        return TYPE_IMAGES
    if low.endswith(VIDEO_EXTENSIONS):
        return TYPE_VIDEOS
    return 0


def has_all_files_access(device: VirtualDevice) -> bool:
    return device.app_op_allowed(PACKAGE, ALL_FILES_OP)


# ---------------------------------------------------------------------------------------------- the files
def _files_under(device: VirtualDevice, root: str) -> list[MediaFile]:
    host_root = device.fs.host(root)
    out: list[MediaFile] = []
    if not host_root.is_dir():
        return out
    for folder, dirs, files in os.walk(host_root):
        rel = os.path.relpath(folder, host_root)
        base = root if rel == "." else f"{root}/{rel.replace(os.sep, '/')}"
        if ".nomedia" in files:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel == "." and d == "Android"))
        for name in files:
            if name.startswith(".") or not media_type(name):
                continue
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            out.append(MediaFile(f"{base}/{name}", st.st_size, st.st_mtime_ns // 1_000_000))
    return out


def sort_media(media: list[MediaFile]) -> list[MediaFile]:
    """The default sorting 33794: last modified, newest first (integers.xml default_sorting)."""
    return sorted(media, key=lambda m: (-m.modified_ms, m.name.lower()))


def folder_name(path: str) -> str:
    """getHumanizedFilename: "Internal" for the storage root, else the last segment (commons strings.xml:323)."""
    return T.text("breadcrumb_root") if path == STORAGE else posixpath.basename(path)


def folders(device: VirtualDevice) -> list[Folder]:
    """The folders holding media, newest first (directorySorting, Config.kt:18-20), then the Recycle Bin when it
    holds something (showRecycleBinAtFolders, Config.kt:450-452)."""
    by_parent: dict[str, list[MediaFile]] = {}
    for m in _files_under(device, STORAGE):
        by_parent.setdefault(m.parent, []).append(m)
    out = [Folder(p, folder_name(p), tuple(sort_media(ms))) for p, ms in by_parent.items()]
    out.sort(key=lambda f: (-f.modified_ms, f.name.lower()))
    binned = bin_media(device)
    if binned:
        out.append(Folder(RECYCLE_BIN, T.text("recycle_bin_name"), tuple(binned)))
    return out


def folder_media(device: VirtualDevice, path: str) -> list[MediaFile]:
    """The media of one folder (not its subfolders), in the folder's order."""
    if path == RECYCLE_BIN:
        return bin_media(device)
    return sort_media([m for m in _files_under(device, path) if m.parent == path])


def bin_media(device: VirtualDevice) -> list[MediaFile]:
    """What the recycle bin holds: files under ``files/`` at their original absolute paths."""
    return sort_media(_files_under(device, f"{FILES_DIR}{STORAGE}"))


def format_size(size: int) -> str:
    """commons Long.formatSize: "#,##0.#" of the size in B, kB, MB, GB, TB (extensions/Long.kt:8-16)."""
    import math

    if size <= 0:
        return "0 B"
    units = ("B", "kB", "MB", "GB", "TB")
    group = int(math.log10(size) / math.log10(1024))
    value = size / 1024 ** group
    text = f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{text} {units[group]}"


# ---------------------------------------------------------------------------------------------- the cache
def cache_folders(device: VirtualDevice, shown: list[Folder]) -> None:
    """DirectoryDao: the folders the folders screen found replace the cached ones (the bin is not cached)."""
    with STORE.connect(device) as db:
        db.execute("DELETE FROM directories")
        for f in shown:
            if f.path == RECYCLE_BIN:
                continue
            types = 0
            for m in f.media:
                types |= m.type
            db.execute("INSERT INTO directories (path, thumbnail, filename, media_count, last_modified, date_taken, "
                       "size, location, media_types, sort_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '')",
                       (f.path, f.media[0].path if f.media else "", f.name, len(f.media), f.modified_ms,
                        f.modified_ms, sum(m.size for m in f.media), LOCATION_INTERNAL, types))


def cache_media(device: VirtualDevice, path: str, media: list[MediaFile]) -> None:
    """MediumDao: a folder's media as its screen loaded them (rows of files gone are dropped)."""
    if path == RECYCLE_BIN:
        return
    with STORE.connect(device) as db:
        db.execute("DELETE FROM media WHERE parent_path = ? AND deleted_ts = 0", (path,))
        for m in media:
            db.execute("INSERT OR REPLACE INTO media (filename, full_path, parent_path, last_modified, date_taken, "
                       "size, type, video_duration, is_favorite, deleted_ts, media_store_id) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0)",
                       (m.name, m.path, m.parent, m.modified_ms, m.modified_ms, m.size, m.type))


def media_rows(device: VirtualDevice) -> list[dict[str, Any]]:
    return STORE.rows(device, "SELECT * FROM media ORDER BY id")


# ---------------------------------------------------------------------------------------------- operations
def copy_file(device: VirtualDevice, path: str, folder: str, *, move: bool) -> str | None:
    """commons copyMoveFilesTo of one file into ``folder``: the new path, or None when the name is taken (the real
    app then asks in FileConflictDialog, not modelled). A move renames the file and updates its cached row; both
    keep the source's modification time (keepLastModified defaults to true, commons BaseConfig.kt:210-212)."""
    dest = f"{folder.rstrip('/')}/{posixpath.basename(path)}"
    src_host, dest_host = device.fs.host(path), device.fs.host(dest)
    if dest_host.exists() or not src_host.is_file():
        return None
    device.fs.makedirs(folder)
    if move:
        shutil.move(str(src_host), str(dest_host))
        if STORE.exists(device):
            with STORE.connect(device) as db:
                db.execute("UPDATE media SET full_path = ?, parent_path = ? WHERE full_path = ?", (dest, folder, path))
    else:
        shutil.copy2(str(src_host), str(dest_host))
    device.media_scan(dest)
    return dest


def recycle(device: VirtualDevice, path: str) -> None:
    """movePathsInRecycleBin + tryDeleteFileDirItem (Activity.kt:332-390): copy into the bin, mark the row, delete."""
    binned = f"{FILES_DIR}{path}"
    device.fs.makedirs(posixpath.dirname(binned))
    shutil.copy2(str(device.fs.host(path)), str(device.fs.host(binned)))
    now = device.wall_ms()
    with STORE.connect(device) as db:
        db.execute("UPDATE media SET full_path = ?, deleted_ts = ? WHERE full_path = ?", (RECYCLE_BIN + path, now, path))
    device.fs.host(path).unlink()


def delete_file(device: VirtualDevice, path: str) -> None:
    """tryDeleteFileDirItem with deleteFromDatabase: the file (in the bin or not) and its row."""
    host = device.fs.host(path)
    if host.exists():
        host.unlink()
    if STORE.exists(device):
        key = RECYCLE_BIN + path.removeprefix(FILES_DIR) if path.startswith(FILES_DIR) else path
        with STORE.connect(device) as db:
            db.execute("DELETE FROM media WHERE full_path = ?", (key,))


def rename_file(device: VirtualDevice, path: str, new_name: str) -> str | None:
    """RenameItemDialog on a file: the new path, or None when it exists already."""
    dest = f"{posixpath.dirname(path)}/{new_name}"
    if dest == path:
        return path
    if device.fs.host(dest).exists():
        return None
    os.rename(device.fs.host(path), device.fs.host(dest))
    if STORE.exists(device):
        with STORE.connect(device) as db:
            db.execute("UPDATE media SET full_path = ?, filename = ? WHERE full_path = ?", (dest, new_name, path))
    return dest


def content_key(device: VirtualDevice, path: str) -> int:
    """A number from a file's bytes (0 when it cannot be read): the stand-in thumbnails are coloured by what the
    file holds, as the real ones show its pixels, so two copies of one picture look the same."""
    host = device.fs.host(path)
    try:
        st = host.stat()
    except OSError:
        return 0
    return _bytes_key(str(host), st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=1024)
def _bytes_key(host: str, inode: int, size: int, mtime_ns: int) -> int:
    """The hash of a file's bytes, once per version of the file (inode, size and mtime in the key): every draw of a
    grid colours every tile."""
    try:
        data = Path(host).read_bytes()
    except OSError:
        return 0
    return int.from_bytes(hashlib.blake2b(data, digest_size=4).digest(), "big")


def display_file_names(device: VirtualDevice) -> bool:
    """``display_file_names`` in Prefs.xml (Config.kt:203-205, Constants.kt:25; default false)."""
    return shared_prefs.load(device, PREFS).get_bool("display_file_names", False)


def set_display_file_names(device: VirtualDevice, on: bool) -> None:
    p = shared_prefs.load(device, PREFS)
    p.put_bool("display_file_names", on)
    shared_prefs.save(device, PREFS, p)


def last_copy_path(device: VirtualDevice) -> str:
    return shared_prefs.load(device, PREFS).get_str("last_copy_path")


def set_last_copy_path(device: VirtualDevice, path: str) -> None:
    p = shared_prefs.load(device, PREFS)
    p.put_str("last_copy_path", path)
    shared_prefs.save(device, PREFS, p)
