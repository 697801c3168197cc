"""Retro Music's persistent state, in the files and formats the real app uses.

* ``databases/playlist.db`` (Room, version 24): ``PlaylistEntity`` and ``SongEntity``; a playlist's order is
  ``song_key`` order, and ``(playlist_creator_id, id)`` is unique, inserted with REPLACE as Room's DAO does.
* ``databases/music_playback_state.db`` (MusicPlaybackQueueStore, version 12): ``playing_queue`` and
  ``original_playing_queue``; the order is row order, every save deletes all rows and inserts again
  (MusicService.saveQueues on every QUEUE_CHANGED, MusicService.kt:1144-1148, 1312-1317).
* ``shared_prefs/<pkg>_preferences.xml``: MusicService's ``POSITION``, ``POSITION_IN_TRACK``,
  ``SHUFFLE_MODE`` and ``REPEAT_MODE``.

Every write opens the database, commits and closes it at once (journal mode WAL, as Room and Android's
SQLiteOpenHelper use), so a probe pulling the ``databases/`` folder always sees the latest state.
A song is a JSON dict: ``id title track year duration data date_modified album_id album artist_id artist
composer album_artist`` (+ ``key``, the ``song_key``, for playlist rows).
"""

from __future__ import annotations

import sqlite3
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import quoteattr

from emukit.vdevice.apps.music.const import PLAYLIST_DB, PREFS_XML, QUEUE_DB

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

Song = dict[str, Any]

_PLAYLIST_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT)",
    "INSERT INTO android_metadata VALUES ('en_US')",
    ("CREATE TABLE IF NOT EXISTS `PlaylistEntity` (`playlist_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "
     "`playlist_name` TEXT NOT NULL)"),
    ("CREATE TABLE IF NOT EXISTS `SongEntity` (`song_key` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "
     "`playlist_creator_id` INTEGER NOT NULL, `id` INTEGER NOT NULL, `title` TEXT NOT NULL, "
     "`track_number` INTEGER NOT NULL, `year` INTEGER NOT NULL, `duration` INTEGER NOT NULL, "
     "`data` TEXT NOT NULL, `date_modified` INTEGER NOT NULL, `album_id` INTEGER NOT NULL, "
     "`album_name` TEXT NOT NULL, `artist_id` INTEGER NOT NULL, `artist_name` TEXT NOT NULL, "
     "`composer` TEXT, `album_artist` TEXT)"),
    ("CREATE UNIQUE INDEX IF NOT EXISTS `index_SongEntity_playlist_creator_id_id` ON `SongEntity` "
     "(`playlist_creator_id`, `id`)"),
    "CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)",
    "INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, 'a1d6e2f3c9b04e7d8f5a6b7c8d9e0f12')",
    "PRAGMA user_version = 24",
)
_QUEUE_COLUMNS = ("_id INT NOT NULL, title STRING NOT NULL, track INT NOT NULL, year INT NOT NULL, "
                  "duration LONG NOT NULL, _data STRING NOT NULL, date_modified LONG NOT NULL, "
                  "album_id INT NOT NULL, album STRING NOT NULL, artist_id INT NOT NULL, "
                  "artist STRING NOT NULL, composer STRING, album_artist STRING")
_QUEUE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT)",
    "INSERT INTO android_metadata VALUES ('en_US')",
    f"CREATE TABLE IF NOT EXISTS playing_queue({_QUEUE_COLUMNS})",
    f"CREATE TABLE IF NOT EXISTS original_playing_queue({_QUEUE_COLUMNS})",
    "PRAGMA user_version = 12",
)
QUEUE_TABLES = ("playing_queue", "original_playing_queue")
_SONG_ENTITY_COLS = ("playlist_creator_id, id, title, track_number, year, duration, data, date_modified, "
                     "album_id, album_name, artist_id, artist_name, composer, album_artist")
_QUEUE_COLS = ("_id, title, track, year, duration, _data, date_modified, album_id, album, artist_id, artist, "
               "composer, album_artist")


@contextmanager
def connect(device: VirtualDevice, path: str, schema: Iterable[str] = ()) -> Iterator[sqlite3.Connection]:
    """An open connection to a device database (created with ``schema`` when new); commits and closes."""
    device.fs.makedirs(path.rsplit("/", 1)[0])
    host = device.fs.host(path)
    conn = sqlite3.connect(host, isolation_level=None)
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == 0 and schema:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("BEGIN")
            for sql in schema:
                conn.execute(sql)
            conn.execute("COMMIT")
        conn.execute("BEGIN")
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()


def ensure_databases(device: VirtualDevice) -> None:
    """Create both databases (as the app does on first start) if they do not exist yet."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA):
        pass
    with connect(device, QUEUE_DB, _QUEUE_SCHEMA):
        pass


# ---------------------------------------------------------------------------------------------- playlists
def _entity_row(pid: int, s: Song) -> tuple:
    return (pid, s["id"], s["title"], s.get("track", 0), s.get("year", 0), s.get("duration", 0), s["data"],
            s.get("date_modified", 0), s.get("album_id", 0), s.get("album", ""), s.get("artist_id", 0),
            s.get("artist", ""), s.get("composer"), s.get("album_artist"))


def load_playlists(device: VirtualDevice) -> list[dict[str, Any]]:
    """Every playlist as ``{"id", "name", "songs"}`` (songs in ``song_key`` order, each with its ``key``)."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        lists = [{"id": pid, "name": name, "songs": []}
                 for pid, name in db.execute("SELECT playlist_id, playlist_name FROM PlaylistEntity")]
        by_id = {p["id"]: p for p in lists}
        rows = db.execute("SELECT song_key, playlist_creator_id, id, title, track_number, year, duration, data, "
                          "date_modified, album_id, album_name, artist_id, artist_name, composer, album_artist "
                          "FROM SongEntity ORDER BY song_key")
        for (key, pid, sid, title, track, year, dur, data, mod, alb_id, alb, art_id, art, comp, alb_art) in rows:
            if pid in by_id:
                by_id[pid]["songs"].append({
                    "key": key, "id": sid, "title": title, "track": track, "year": year, "duration": dur,
                    "data": data, "date_modified": mod, "album_id": alb_id, "album": alb, "artist_id": art_id,
                    "artist": art, "composer": comp, "album_artist": alb_art})
    return lists


def create_playlist(device: VirtualDevice, name: str) -> int:
    """Insert a PlaylistEntity; returns its ``playlist_id``."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        return int(db.execute("INSERT INTO PlaylistEntity (playlist_name) VALUES (?)", (name,)).lastrowid)


def rename_playlist(device: VirtualDevice, pid: int, name: str) -> None:
    """Set a playlist's name."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        db.execute("UPDATE PlaylistEntity SET playlist_name = ? WHERE playlist_id = ?", (name, pid))


def delete_playlist(device: VirtualDevice, pid: int) -> None:
    """DeletePlaylistDialog: the playlist's songs, then the playlist."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        db.execute("DELETE FROM SongEntity WHERE playlist_creator_id = ?", (pid,))
        db.execute("DELETE FROM PlaylistEntity WHERE playlist_id = ?", (pid,))


def insert_songs(device: VirtualDevice, pid: int, songs: Iterable[Song]) -> None:
    """``insertSongs`` (OnConflictStrategy.REPLACE): a song already in the playlist moves to its end."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        db.executemany(f"INSERT OR REPLACE INTO SongEntity ({_SONG_ENTITY_COLS}) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", [_entity_row(pid, s) for s in songs])


def remove_song(device: VirtualDevice, pid: int, song_id: int) -> None:
    """Delete a song's row from playlist ``pid`` (by song id: the pair is unique)."""
    with connect(device, PLAYLIST_DB, _PLAYLIST_SCHEMA) as db:
        db.execute("DELETE FROM SongEntity WHERE playlist_creator_id = ? AND id = ?", (pid, song_id))


# ---------------------------------------------------------------------------------------------- playing queue
def save_queues(device: VirtualDevice, queue: list[Song], original: list[Song]) -> None:
    """MusicPlaybackQueueStore.saveQueues: both tables emptied and refilled in order."""
    with connect(device, QUEUE_DB, _QUEUE_SCHEMA) as db:
        for table, songs in zip(QUEUE_TABLES, (queue, original), strict=True):
            db.execute(f"DELETE FROM {table}")
            db.executemany(f"INSERT INTO {table} ({_QUEUE_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           [_entity_row(0, s)[1:] for s in songs])


def load_queues(device: VirtualDevice) -> tuple[list[Song], list[Song]]:
    """The saved playing queue and original playing queue, in row order."""
    out: list[list[Song]] = []
    with connect(device, QUEUE_DB, _QUEUE_SCHEMA) as db:
        for table in QUEUE_TABLES:
            rows = db.execute(f"SELECT {_QUEUE_COLS} FROM {table} ORDER BY rowid")
            out.append([{"id": r[0], "title": r[1], "track": r[2], "year": r[3], "duration": r[4], "data": r[5],
                         "date_modified": r[6], "album_id": r[7], "album": r[8], "artist_id": r[9],
                         "artist": r[10], "composer": r[11], "album_artist": r[12]} for r in rows])
    return out[0], out[1]


# ---------------------------------------------------------------------------------------------- shared prefs
def read_prefs(device: VirtualDevice) -> dict[str, Any]:
    """The default SharedPreferences file as a dict (ints, longs, booleans, floats and strings)."""
    try:
        root = ET.fromstring(device.fs.read_bytes(PREFS_XML))
    except (OSError, ET.ParseError):
        return {}
    out: dict[str, Any] = {}
    for el in root:
        name = el.get("name", "")
        if el.tag in ("int", "long"):
            out[name] = int(el.get("value", "0"))
        elif el.tag == "boolean":
            out[name] = el.get("value") == "true"
        elif el.tag == "float":
            out[name] = float(el.get("value", "0"))
        elif el.tag == "string":
            out[name] = el.text or ""
    return out


def write_prefs(device: VirtualDevice, updates: dict[str, Any]) -> None:
    """Merge ``updates`` into the prefs file (``apply()``), written at once in Android's XML format."""
    prefs = read_prefs(device)
    prefs.update(updates)
    lines = ["<?xml version='1.0' encoding='utf-8' standalone='yes' ?>", "<map>"]
    for name in sorted(prefs):
        value = prefs[name]
        if isinstance(value, bool):
            lines.append(f'    <boolean name={quoteattr(name)} value="{str(value).lower()}" />')
        elif isinstance(value, int):
            lines.append(f'    <int name={quoteattr(name)} value="{value}" />')
        elif isinstance(value, float):
            lines.append(f'    <float name={quoteattr(name)} value="{value}" />')
        else:
            text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            lines.append(f"    <string name={quoteattr(name)}>{text}</string>")
    lines.append("</map>")
    device.fs.makedirs(PREFS_XML.rsplit("/", 1)[0])
    device.fs.write_bytes(PREFS_XML, ("\n".join(lines) + "\n").encode())
