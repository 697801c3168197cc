"""VLC's persistent state where the real app keeps it (facts: the pinned table's repos ``vlc``
videolan/vlc-android a55f148e (tag 3.5.4) and ``ml`` the VLC medialibrary 981f8867, the commit
vlc:buildsystem/compile-medialibrary.sh:9 pins).

* ``app_db/vlc_media.db``: the medialibrary's SQLite database. Its folder is ``Context.getDir("db")``
  (vlc:application/vlc-android/src/org/videolan/vlc/gui/SendCrashActivity.kt:123) and its name
  ``Medialibrary.VLC_MEDIA_DB_NAME`` "/vlc_media.db" (vlc:medialibrary/src/org/videolan/medialibrary/interfaces/
  Medialibrary.java:97); android_world reads the same path (android_world task_evals/single/vlc.py:29).
  The model version is 36 (ml:src/Settings.cpp:35). Modelled tables, with the model-36 statements:
  ``Media`` (ml:src/Media.cpp:1758-1796), ``Playlist`` and ``PlaylistMediaRelation`` (ml:src/Playlist.cpp:
  626-701) and the relation's two position triggers (ml:src/Playlist.cpp:723-744). Not modelled: File,
  Folder, Device, Album, Artist, Genre, the FTS tables and the counters' other triggers.
* A playlist's order is ``PlaylistMediaRelation.position``, 0-based: append inserts at
  ``min(position, count)`` (ml:src/Playlist.cpp:302-308), a removal deletes the row at a position and the
  delete trigger closes the gap, a move deletes the row and inserts it again at the new position
  (ml:src/Playlist.cpp:453-489), where the insert trigger shifts the rows at and after it.
* A discovered file becomes a Media row whose title and filename are the file name (ml:src/Media.cpp:
  106-128; the parser later sets the title from the tags or the name without its extension); type 1 video,
  2 audio (ml:include/medialibrary/IMedia.h:46-66), ``import_type`` 0 (internal).
* ``shared_prefs/org.videolan.vlc_preferences.xml`` (``Settings.getInstance``, the default preferences):
  ``app_onboarding_done`` and ``first_run`` (OnboardingActivity.onDone, vlc:.../gui/onboarding/
  OnboardingActivity.kt:77-93).
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "org.videolan.vlc"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
MAIN_STORAGE = "/storage/emulated/0"
VIDEOS_FOLDER = f"{MAIN_STORAGE}/VLCVideos"  # where android_world puts its videos (apps.py:644)
ONBOARDING_DONE = "app_onboarding_done"  # ONBOARDING_DONE_KEY (vlc:.../gui/onboarding/OnboardingActivity.kt:29)
FIRST_RUN = "first_run"  # PREF_FIRST_RUN (vlc:application/resources/.../Constants.kt:25)
VLC_VERSION_CODE = 3050400  # build.gradle:41 (BuildConfig.VLC_VERSION_CODE)
TYPE_VIDEO, TYPE_AUDIO = 1, 2  # IMedia::Type
# file extensions the medialibrary indexes (ml:src/MediaLibrary.cpp:120-240, a subset); audio ones become audio
VIDEO_EXTENSIONS = (".3gp", ".avi", ".flv", ".m4v", ".mkv", ".mov", ".mp4", ".mpeg", ".mpg", ".ogv", ".ts", ".webm",
                    ".wmv")
AUDIO_EXTENSIONS = (".aac", ".flac", ".m4a", ".mp3", ".oga", ".ogg", ".opus", ".wav", ".wma")
SKIPPED_FOLDERS = ("Android",)  # app-private trees under the main storage

class MedialibrarySchema(RoomSchema):
    """The medialibrary's database lives in ``app_db`` (``getDir("db")``), not in ``databases``."""

    @property
    def path(self) -> str:
        return f"/data/data/{self.package}/app_db/{self.name}"


class MedialibraryStore(RoomStore):
    """The medialibrary opens SQLite itself (no SQLiteOpenHelper): no ``android_metadata`` table, WAL journal."""

    def create(self, device: VirtualDevice) -> None:
        if self.exists(device):
            return
        device.fs.makedirs(self.schema.path.rsplit("/", 1)[0])
        with closing(sqlite3.connect(device.fs.host(self.schema.path), isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            for statement in self.schema.create:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {int(self.schema.version)}")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


SCHEMA = MedialibrarySchema(
    package=PACKAGE, name="vlc_media.db", version=36,
    create=(
        ("CREATE TABLE Media(id_media INTEGER PRIMARY KEY AUTOINCREMENT,type INTEGER,"
         "subtype INTEGER NOT NULL DEFAULT 0,duration INTEGER DEFAULT -1,last_position REAL DEFAULT -1,"
         "last_time INTEGER DEFAULT -1,play_count UNSIGNED INTEGER NOT NULL DEFAULT 0,"
         "last_played_date UNSIGNED INTEGER,insertion_date UNSIGNED INTEGER,release_date UNSIGNED INTEGER,"
         "title TEXT COLLATE NOCASE,filename TEXT COLLATE NOCASE,is_favorite BOOLEAN NOT NULL DEFAULT 0,"
         "is_present BOOLEAN NOT NULL DEFAULT 1,device_id INTEGER,"
         "nb_playlists UNSIGNED INTEGER NOT NULL DEFAULT 0,folder_id UNSIGNED INTEGER,"
         "import_type UNSIGNED INTEGER NOT NULL,group_id UNSIGNED INTEGER,"
         "forced_title BOOLEAN NOT NULL DEFAULT 0,artist_id UNSIGNED INTEGER,genre_id UNSIGNED INTEGER,"
         "track_number UNSIGEND INTEGER,album_id UNSIGNED INTEGER,disc_number UNSIGNED INTEGER,lyrics TEXT,"
         "FOREIGN KEY(group_id) REFERENCES MediaGroup(id_group) ON DELETE RESTRICT,"
         "FOREIGN KEY(folder_id) REFERENCES Folder(id_folder)"
         "FOREIGN KEY(artist_id) REFERENCES Artist(id_artist) ON DELETE SET NULL,"
         "FOREIGN KEY(genre_id) REFERENCES Genre(id_genre),"
         "FOREIGN KEY(album_id) REFERENCES Album(id_album)  ON DELETE SET NULL)"),
        ("CREATE TABLE Playlist(id_playlist INTEGER PRIMARY KEY AUTOINCREMENT,name TEXT COLLATE NOCASE,"
         "creation_date UNSIGNED INT NOT NULL,artwork_mrl TEXT,nb_video UNSIGNED INT NOT NULL DEFAULT 0,"
         "nb_audio UNSIGNED INT NOT NULL DEFAULT 0,nb_unknown UNSIGNED INT NOT NULL DEFAULT 0,"
         "nb_present_video UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_video <= nb_video),"
         "nb_present_audio UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_audio <= nb_audio),"
         "nb_present_unknown UNSIGNED INT NOT NULL DEFAULT 0 CHECK(nb_present_unknown <= nb_unknown),"
         "duration UNSIGNED INT NOT NULL DEFAULT 0,nb_duration_unknown UNSIGNED INT NOT NULL DEFAULT 0)"),
        # File (ml:src/File.cpp:293-323): the file behind each Media row, found by its mrl
        ("CREATE TABLE File(id_file INTEGER PRIMARY KEY AUTOINCREMENT,media_id UNSIGNED INT DEFAULT NULL,"
         "playlist_id UNSIGNED INT DEFAULT NULL,mrl TEXT,type UNSIGNED INTEGER,last_modification_date UNSIGNED INT,"
         "size UNSIGNED INT,folder_id UNSIGNED INTEGER,is_removable BOOLEAN NOT NULL,is_external BOOLEAN NOT NULL,"
         "is_network BOOLEAN NOT NULL,"
         "FOREIGN KEY(media_id) REFERENCES Media(id_media) ON DELETE CASCADE,"
         "FOREIGN KEY(playlist_id) REFERENCES Playlist(id_playlist) ON DELETE CASCADE,"
         "FOREIGN KEY(folder_id) REFERENCES Folder(id_folder) ON DELETE CASCADE,"
         "UNIQUE(mrl,folder_id) ON CONFLICT FAIL)"),
        ("CREATE TABLE PlaylistMediaRelation(media_id INTEGER,playlist_id INTEGER,position INTEGER,"
         "FOREIGN KEY(media_id) REFERENCES Media(id_media) ON DELETE NO ACTION,"
         "FOREIGN KEY(playlist_id) REFERENCES Playlist(id_playlist) ON DELETE CASCADE)"),
        ("CREATE TRIGGER playlist_position_on_insert AFTER INSERT ON PlaylistMediaRelation "
         "WHEN new.position IS NOT NULL BEGIN UPDATE PlaylistMediaRelation SET position = position + 1 "
         "WHERE playlist_id = new.playlist_id AND position >= new.position AND rowid != new.rowid; END"),
        ("CREATE TRIGGER playlist_position_on_delete AFTER DELETE ON PlaylistMediaRelation BEGIN "
         "UPDATE PlaylistMediaRelation SET position = position - 1 WHERE playlist_id = old.playlist_id "
         "AND position > old.position; END"),
    ),
)
STORE = MedialibraryStore(SCHEMA)


# ---------------------------------------------------------------------------------------------- prefs
def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def onboarding_done(device: VirtualDevice) -> bool:
    return prefs(device).get_bool(ONBOARDING_DONE)


def finish_onboarding(device: VirtualDevice) -> None:
    """OnboardingActivity.onDone: the first-run flags (the medialibrary scan stays on, its default)."""
    p = prefs(device)
    p.put_int(FIRST_RUN, VLC_VERSION_CODE)
    p.put_bool(ONBOARDING_DONE, True)
    p.put_int("ml_scan", 0)  # KEY_MEDIALIBRARY_SCAN = ML_SCAN_ON (vlc:application/tools/.../Settings.kt:106-108)
    shared_prefs.save(device, PREFS, p)


# ---------------------------------------------------------------------------------------------- media
def media_type(name: str) -> int | None:
    low = name.lower()
    if low.endswith(VIDEO_EXTENSIONS):
        return TYPE_VIDEO
    if low.endswith(AUDIO_EXTENSIONS):
        return TYPE_AUDIO
    return None


def can_read_storage(device: VirtualDevice) -> bool:
    """Permissions.canReadStorage on API 34 for a target-33 app: all-files access (the app-op), since
    READ_EXTERNAL_STORAGE is never granted there (vlc:.../util/Permissions.kt:100-103)."""
    return device.app_op_allowed(PACKAGE, "MANAGE_EXTERNAL_STORAGE")


def _listing(device: VirtualDevice) -> list[tuple[str, int]]:
    """``(device path, type)`` of every media file under the main storage."""
    root = device.fs.host(MAIN_STORAGE)
    out: list[tuple[str, int]] = []
    if not root.is_dir():
        return out
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel == "." and d in SKIPPED_FOLDERS))
        base = MAIN_STORAGE if rel == "." else f"{MAIN_STORAGE}/{rel.replace(os.sep, '/')}"
        for name in sorted(files):
            kind = media_type(name)
            if kind is not None and not name.startswith("."):
                out.append((f"{base}/{name}", kind))
    return out


def scan(device: VirtualDevice) -> None:
    """The medialibrary's discovery of the main storage: a Media row per new file, files gone are removed
    (with their playlist rows, as UpdateNbMediaOnMediaDeletion does); nothing without storage access."""
    if not can_read_storage(device):
        return
    listing = _listing(device)
    now = device.wall_ms() // 1000
    with STORE.connect(device) as db:
        paths = {r[0].removeprefix("file://"): r[1]
                 for r in db.execute("SELECT mrl, media_id FROM File WHERE media_id IS NOT NULL")}
        present = set()
        for path, kind in listing:
            present.add(path)
            if path in paths:
                continue
            name = path.rsplit("/", 1)[1]
            cur = db.execute("INSERT INTO Media (type, title, filename, insertion_date, is_present, device_id, "
                             "import_type) VALUES (?, ?, ?, ?, 1, 1, 0)", (kind, name, name, now))
            # the main file (IFile::Type::Main = 1) of a local, internal media
            db.execute("INSERT INTO File (media_id, mrl, type, last_modification_date, size, is_removable, "
                       "is_external, is_network) VALUES (?, ?, 1, ?, ?, 0, 0, 0)",
                       (int(cur.lastrowid or 0), "file://" + path, now, device.fs.host(path).stat().st_size))
        for path, media_id in paths.items():
            if path not in present:
                db.execute("DELETE FROM PlaylistMediaRelation WHERE media_id = ?", (media_id,))
                db.execute("DELETE FROM File WHERE media_id = ?", (media_id,))
                db.execute("DELETE FROM Media WHERE id_media = ?", (media_id,))


def media(device: VirtualDevice, kind: int | None = None) -> list[dict[str, Any]]:
    """Media rows (of ``kind``), by title as the video grid sorts them (default sort: name)."""
    if not STORE.exists(device):
        return []
    sql = "SELECT * FROM Media" + (" WHERE type = ?" if kind is not None else "") + " ORDER BY title, id_media"
    return STORE.rows(device, sql, (kind,) if kind is not None else ())


def display_title(row: dict[str, Any]) -> str:
    """What the lists show: the parser's title, the file name without its extension."""
    title = str(row["title"])
    return title.rsplit(".", 1)[0] if "." in title else title


# ---------------------------------------------------------------------------------------------- playlists
def playlists(device: VirtualDevice) -> list[dict[str, Any]]:
    """Playlists by name (the Playlists tab's default sort), each with its item count."""
    if not STORE.exists(device):
        return []
    return STORE.rows(device, "SELECT p.*, (SELECT COUNT(*) FROM PlaylistMediaRelation r WHERE r.playlist_id = "
                              "p.id_playlist) AS count FROM Playlist p ORDER BY p.name, p.id_playlist")


def playlist(device: VirtualDevice, playlist_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM Playlist WHERE id_playlist = ?", (playlist_id,))
    return rows[0] if rows else None


def tracks(device: VirtualDevice, playlist_id: int) -> list[dict[str, Any]]:
    """A playlist's media in position order."""
    return STORE.rows(device, "SELECT m.*, r.position FROM PlaylistMediaRelation r JOIN Media m ON m.id_media = "
                              "r.media_id WHERE r.playlist_id = ? ORDER BY r.position", (playlist_id,))


def playlist_by_name(device: VirtualDevice, name: str) -> dict[str, Any] | None:
    """``getPlaylistByName``: exact title match (SavePlaylistDialog.kt:264)."""
    return next((p for p in playlists(device) if p["name"] == name), None)


def create_playlist(device: VirtualDevice, name: str) -> int:
    return STORE.execute(device, "INSERT INTO Playlist (name, creation_date) VALUES (?, ?)",
                         (name, device.wall_ms() // 1000))


def append(device: VirtualDevice, playlist_id: int, media_ids: list[int]) -> None:
    """``Playlist.append``: each at position ``count`` with the playlist's counters (Playlist.cpp:302-350)."""
    with STORE.connect(device) as db:
        for media_id in media_ids:
            row = db.execute("SELECT type, duration FROM Media WHERE id_media = ?", (media_id,)).fetchone()
            if row is None:
                continue
            db.execute("INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position) VALUES (?, ?, "
                       "(SELECT COUNT(media_id) FROM PlaylistMediaRelation WHERE playlist_id = ?))",
                       (media_id, playlist_id, playlist_id))
            video, audio = int(row["type"] == TYPE_VIDEO), int(row["type"] == TYPE_AUDIO)
            duration = max(0, int(row["duration"] or 0))
            db.execute("UPDATE Playlist SET nb_video = nb_video + ?, nb_present_video = nb_present_video + ?, "
                       "nb_audio = nb_audio + ?, nb_present_audio = nb_present_audio + ?, duration = duration + ?, "
                       "nb_duration_unknown = nb_duration_unknown + ? WHERE id_playlist = ?",
                       (video, video, audio, audio, duration, int(duration <= 0), playlist_id))
            db.execute("UPDATE Media SET nb_playlists = nb_playlists + 1 WHERE id_media = ?", (media_id,))


def remove(device: VirtualDevice, playlist_id: int, position: int) -> None:
    """``Playlist.remove(position)``: the row at ``position`` goes, the trigger closes the gap."""
    with STORE.connect(device) as db:
        row = db.execute("SELECT r.media_id, m.type, m.duration FROM PlaylistMediaRelation r JOIN Media m ON "
                         "m.id_media = r.media_id WHERE r.playlist_id = ? AND r.position = ?",
                         (playlist_id, position)).fetchone()
        if row is None:
            return
        db.execute("DELETE FROM PlaylistMediaRelation WHERE playlist_id = ? AND position = ?", (playlist_id, position))
        video, audio = int(row["type"] == TYPE_VIDEO), int(row["type"] == TYPE_AUDIO)
        duration = max(0, int(row["duration"] or 0))
        db.execute("UPDATE Playlist SET nb_video = nb_video - ?, nb_present_video = nb_present_video - ?, "
                   "nb_audio = nb_audio - ?, nb_present_audio = nb_present_audio - ?, duration = duration - ?, "
                   "nb_duration_unknown = nb_duration_unknown - ? WHERE id_playlist = ?",
                   (video, video, audio, audio, duration, int(duration <= 0), playlist_id))
        db.execute("UPDATE Media SET nb_playlists = nb_playlists - 1 WHERE id_media = ?", (row["media_id"],))


def move(device: VirtualDevice, playlist_id: int, frm: int, to: int) -> None:
    """``Playlist.move(from, to)``: delete the row, insert it again at ``to`` (Playlist.cpp:453-489)."""
    with STORE.connect(device) as db:
        row = db.execute("SELECT media_id FROM PlaylistMediaRelation WHERE playlist_id = ? AND position = ?",
                         (playlist_id, frm)).fetchone()
        if row is None or frm == to:
            return
        db.execute("DELETE FROM PlaylistMediaRelation WHERE playlist_id = ? AND position = ?", (playlist_id, frm))
        db.execute("INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position) VALUES (?, ?, ?)",
                   (row["media_id"], playlist_id, to))


def delete_playlist(device: VirtualDevice, playlist_id: int) -> None:
    """``MediaUtils.deletePlaylist`` -> ``Playlist.delete``: the row (its relation rows cascade)."""
    with STORE.connect(device) as db:
        for (media_id,) in db.execute("SELECT media_id FROM PlaylistMediaRelation WHERE playlist_id = ?",
                                      (playlist_id,)).fetchall():
            db.execute("UPDATE Media SET nb_playlists = nb_playlists - 1 WHERE id_media = ?", (media_id,))
        db.execute("DELETE FROM PlaylistMediaRelation WHERE playlist_id = ?", (playlist_id,))
        db.execute("DELETE FROM Playlist WHERE id_playlist = ?", (playlist_id,))
