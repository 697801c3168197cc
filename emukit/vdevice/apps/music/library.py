"""The song library: the audio rows of the MediaStore index, as Retro Music reads them.

Retro Music has no index of its own: ``RealSongRepository.makeSongCursor`` queries ``MediaStore.Audio.Media`` of
the primary external volume with ``is_music`` set (RetroMusicPlayer/RetroMusicPlayer,
app/src/main/java/code/name/monkey/retromusic/repository/SongRepository.kt), so the library is the rows the
device's media provider keeps (:mod:`emukit.vdevice.services.mediastore`, at the path of the MediaProvider
package the device lists). Not modelled: the query's minimum duration (the app's "filter song length"
preference) and its blacklist of folders. A song's ``_id`` is the provider's row id: kept while the
file stays (a changed file is re-read in place), so ids are stable per file. Album and artist ids are the
provider's too (:func:`emukit.vdevice.services.mediameta.group_id`).

What the app sees is what the provider has indexed. A real device indexes new files with the volume scan at
boot, an explicit scan, or the provider's idle maintenance; the stand-in app asks the provider to scan the Music
folder whenever the folder's listing (path, size, mtime) differs from the one its process saw last, so files
pushed while the app runs appear on its next frame (as after ``adb push`` + the scan broadcast). An unchanged
listing touches no database.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Any

from emukit.media import is_audio
from emukit.vdevice.apps.music.const import MUSIC_DIR, app_data
from emukit.vdevice.apps.music.store import Song
from emukit.vdevice.services.mediameta import MEDIA_TYPE_AUDIO

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

#: the provider's columns ``getSongFromCursorImpl`` reads (a NULL album or artist name reads as "")
_COLS = ("_id, _data, title, artist, album, album_id, artist_id, duration, track, year, composer, album_artist, "
         "date_modified")
#: the songs query: the audio collection (neither pending nor trashed) marked as music, under the Music folder
_SONGS = (f"SELECT {_COLS} FROM files WHERE media_type = {MEDIA_TYPE_AUDIO} AND is_music = 1 AND is_pending = 0 "
          "AND is_trashed = 0 AND _data LIKE ? ORDER BY _id")


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


def _read(device: VirtualDevice) -> list[Song]:
    rows = device.media.store.rows(_SONGS, (MUSIC_DIR + "/%",))
    songs: list[Song] = [{"id": r["_id"], "data": r["_data"], "title": r["title"] or "",
                          "artist": r["artist"] or "", "album": r["album"] or "", "album_id": r["album_id"] or 0,
                          "artist_id": r["artist_id"] or 0, "duration": r["duration"] or 0,
                          "track": r["track"] or 0, "year": r["year"] or 0, "composer": r["composer"],
                          "album_artist": r["album_artist"], "date_modified": r["date_modified"] or 0}
                         for r in rows]
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
    device.media.store.scan(MUSIC_DIR)
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
