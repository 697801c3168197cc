"""The song library: a small MediaStore stand-in scanned from ``/sdcard/Music``.

The media provider's index lives where Android keeps it, ``external.db`` of
``com.android.providers.media.module``, table ``files``. A song's ``_id`` is assigned when its file is first
seen and kept while the file stays (a changed file is re-read in place), so ids are stable per file. The scan
is cheap: the folder listing (path, size, mtime) is compared with the one of the last scan, kept in the app's
process state, and only a changed listing touches the database. Retro Music observes MediaStore, so the app
rescans whenever it is shown (which also covers ``adb push`` + the scan broadcast).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import TYPE_CHECKING, Any

from emukit.media import is_audio, mime_type, read_tags
from emukit.vdevice.apps.music.const import MEDIA_DB, MUSIC_DIR, app_data
from emukit.vdevice.apps.music.store import Song, connect

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

_MEDIA_SCHEMA = (
    ("CREATE TABLE IF NOT EXISTS files (_id INTEGER PRIMARY KEY AUTOINCREMENT, _data TEXT UNIQUE NOT NULL, "
     "_display_name TEXT, _size INTEGER, mime_type TEXT, media_type INTEGER DEFAULT 2, title TEXT, "
     "artist TEXT, album TEXT, album_artist TEXT, composer TEXT, album_id INTEGER, artist_id INTEGER, "
     "duration INTEGER, track INTEGER, year INTEGER, is_music INTEGER DEFAULT 1, date_added INTEGER, "
     "date_modified INTEGER)"),
    "PRAGMA user_version = 1300",
)
_COLS = ("_id, _data, title, artist, album, album_id, artist_id, duration, track, year, composer, album_artist, "
         "date_modified")


def stable_id(name: str) -> int:
    """A positive id derived from a name (MediaStore's album / artist ids are hashes of their keys too)."""
    return zlib.crc32(name.strip().lower().encode()) & 0x7FFFFFFF


def _listing(device: VirtualDevice) -> list[tuple[str, int, int]]:
    """``(device path, size, mtime_ns)`` of every audio file under the Music folder, sorted."""
    root = device.fs.host(MUSIC_DIR)
    out: list[tuple[str, int, int]] = []
    if not root.is_dir():
        return out
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = os.path.relpath(folder, root)
        base = MUSIC_DIR if rel == "." else f"{MUSIC_DIR}/{rel.replace(os.sep, '/')}"
        for name in files:
            if is_audio(name):
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                out.append((f"{base}/{name}", st.st_size, st.st_mtime_ns))
    return sorted(out)


def _sync(device: VirtualDevice, listing: list[tuple[str, int, int]]) -> None:
    """Bring the ``files`` table in line with ``listing`` (insert new, re-read changed, drop gone files)."""
    with connect(device, MEDIA_DB, _MEDIA_SCHEMA) as db:
        known = {path: (rid, size, mod) for rid, path, size, mod in
                 db.execute("SELECT _id, _data, _size, date_modified FROM files WHERE _data LIKE ?",
                            (MUSIC_DIR + "/%",))}
        present = set()
        for path, size, mtime_ns in listing:
            present.add(path)
            mod = mtime_ns // 1_000_000_000
            old = known.get(path)
            if old is not None and old[1:] == (size, mod):
                continue
            try:
                tags = read_tags(device.fs.read_bytes(path), path)
            except OSError:
                continue
            values = (path.rsplit("/", 1)[1], size, mime_type(path), tags.title, tags.artist, tags.album,
                      tags.album_artist, tags.composer, stable_id(tags.album), stable_id(tags.artist),
                      tags.duration_ms, tags.track, tags.year, mod)
            if old is None:
                db.execute("INSERT INTO files (_display_name, _size, mime_type, title, artist, album, "
                           "album_artist, composer, album_id, artist_id, duration, track, year, date_modified, "
                           "_data, date_added) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           (*values, path, device.wall_ms() // 1000))
            else:
                db.execute("UPDATE files SET _display_name=?, _size=?, mime_type=?, title=?, artist=?, album=?, "
                           "album_artist=?, composer=?, album_id=?, artist_id=?, duration=?, track=?, year=?, "
                           "date_modified=? WHERE _data=?", (*values, path))
        gone = [(p,) for p in known if p not in present]
        db.executemany("DELETE FROM files WHERE _data = ?", gone)


def _read(device: VirtualDevice) -> list[Song]:
    with connect(device, MEDIA_DB, _MEDIA_SCHEMA) as db:
        rows = db.execute(f"SELECT {_COLS} FROM files WHERE is_music = 1 AND _data LIKE ?", (MUSIC_DIR + "/%",))
        songs = [{"id": r[0], "data": r[1], "title": r[2], "artist": r[3], "album": r[4], "album_id": r[5],
                  "artist_id": r[6], "duration": r[7], "track": r[8], "year": r[9], "composer": r[10],
                  "album_artist": r[11], "date_modified": r[12]} for r in rows]
    return sorted(songs, key=song_sort_key)


def song_sort_key(song: Song) -> tuple:
    """Songs tab order: title A-Z (case-insensitive), then artist, then id."""
    return song["title"].lower(), song["artist"].lower(), song["id"]


def media_scan(device: VirtualDevice, force: bool = False) -> list[Song]:
    """Rescan the Music folder if its listing changed; returns every song sorted by title."""
    listing = _listing(device)
    sig = hashlib.sha1(repr(listing).encode()).hexdigest()
    data = app_data(device)
    cache = data.get("media")
    if not force and cache is not None and cache.get("sig") == sig:
        return cache["songs"]
    _sync(device, listing)
    songs = _read(device)
    data["media"] = {"sig": sig, "songs": songs}
    return songs


def songs(device: VirtualDevice) -> list[Song]:
    """Every song of the library, sorted by title (rescanning when the Music folder changed)."""
    return media_scan(device)


def song_by_id(device: VirtualDevice, song_id: int) -> Song | None:
    """The library song with MediaStore id ``song_id``."""
    return next((s for s in songs(device) if s["id"] == song_id), None)


def albums(device: VirtualDevice) -> list[dict[str, Any]]:
    """Albums A-Z: ``{"id", "name", "artist", "songs"}`` (songs by track number, then title)."""
    groups: dict[int, dict[str, Any]] = {}
    for s in songs(device):
        group = groups.setdefault(s["album_id"], {"id": s["album_id"], "name": s["album"],
                                                  "artist": s.get("album_artist") or s["artist"], "songs": []})
        group["songs"].append(s)
    for group in groups.values():
        group["songs"].sort(key=lambda s: (s.get("track", 0), s["title"].lower(), s["id"]))
    return sorted(groups.values(), key=lambda g: (g["name"].lower(), g["id"]))


def artists(device: VirtualDevice) -> list[dict[str, Any]]:
    """Artists A-Z: ``{"id", "name", "albums", "songs"}`` (songs by title)."""
    groups: dict[int, dict[str, Any]] = {}
    for s in songs(device):
        group = groups.setdefault(s["artist_id"], {"id": s["artist_id"], "name": s["artist"], "songs": []})
        group["songs"].append(s)
    for group in groups.values():
        group["albums"] = len({s["album_id"] for s in group["songs"]})
    return sorted(groups.values(), key=lambda g: (g["name"].lower(), g["id"]))
