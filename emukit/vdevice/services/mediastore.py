"""The MediaStore index: MediaProvider's ``external.db`` at its real path, with the real ``files`` table, and the
collections ``content://media/external/{images,video,audio}/media`` and ``content://media/external/file``.

Modelled on AOSP MediaProvider at android-14.0.0_r1 (docs/vdevice.md, "MediaStore"):

* :meth:`MediaStore.scan` is ``ModernMediaScanner.scanFile``/``scanDirectory`` (the ``MEDIA_SCANNER_SCAN_FILE``
  broadcast): the file, or every entry of the folder, is upserted with the scanner's values; afterwards every row at
  or under the path that the walk did not visit is deleted (a scan of a deleted path drops its rows).
* :meth:`MediaStore.fuse_create` / :meth:`fuse_delete` / :meth:`fuse_rename` are what the FUSE daemon asks of
  MediaProvider when the shell uid creates, unlinks or renames a file under ``/sdcard``: a *pending* row owned by
  ``com.android.shell`` (``insertFileForFuse``), the row deleted, the rows moved. Nothing is indexed when the
  file is closed. The caller skips these for root, which bypasses MediaProvider.
* :meth:`MediaStore.query` / :meth:`delete` are the provider's answer to the shell's ``content`` tool.

One SQLite connection per operation, under the device lock; the database is created (with the boot-time scan of
shared storage) the first time anything needs it and lives under ``/data``, so snapshots carry it.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import sqlite3
import stat as stat_mod
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.vdevice.services import mediameta as M

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PROVIDER = "com.google.android.providers.media.module"  # the Google-signed mainline build of the pinned image
DB_PATH = f"/data/data/{PROVIDER}/databases/external.db"  # DatabaseHelper.EXTERNAL_DATABASE_NAME
DB_VERSION = 1407  # DatabaseHelper.VERSION_U
AUTHORITY = "media"
SHELL_PACKAGE = "com.android.shell"
MODIFIER_FUSE, MODIFIER_CR, MODIFIER_MEDIA_SCAN, MODIFIER_CR_PENDING_METADATA = 1, 2, 3, 4
PENDING_SECONDS = 7 * 24 * 3600  # FileUtils.DEFAULT_DURATION_PENDING

#: the ``files`` table as ``DatabaseHelper.createLatestSchema`` creates it (``_user_id`` defaults to user 0)
FILES_DDL = (
    "CREATE TABLE files (_id INTEGER PRIMARY KEY AUTOINCREMENT,_data TEXT UNIQUE COLLATE NOCASE,_size INTEGER,"
    "format INTEGER,parent INTEGER,date_added INTEGER,date_modified INTEGER,mime_type TEXT,title TEXT,"
    "description TEXT,_display_name TEXT,picasa_id TEXT,orientation INTEGER,latitude DOUBLE,longitude DOUBLE,"
    "datetaken INTEGER,mini_thumb_magic INTEGER,bucket_id TEXT,bucket_display_name TEXT,isprivate INTEGER,"
    "title_key TEXT,artist_id INTEGER,album_id INTEGER,composer TEXT,track INTEGER,year INTEGER CHECK(year!=0),"
    "is_ringtone INTEGER,is_music INTEGER,is_alarm INTEGER,is_notification INTEGER,is_podcast INTEGER,"
    "album_artist TEXT,duration INTEGER,bookmark INTEGER,artist TEXT,album TEXT,resolution TEXT,tags TEXT,"
    "category TEXT,language TEXT,mini_thumb_data TEXT,name TEXT,media_type INTEGER,old_id INTEGER,is_drm INTEGER,"
    "width INTEGER, height INTEGER, title_resource_uri TEXT,owner_package_name TEXT DEFAULT NULL,"
    "color_standard INTEGER, color_transfer INTEGER, color_range INTEGER,_hash BLOB DEFAULT NULL, "
    "is_pending INTEGER DEFAULT 0,is_download INTEGER DEFAULT 0, download_uri TEXT DEFAULT NULL,"
    "referer_uri TEXT DEFAULT NULL, is_audiobook INTEGER DEFAULT 0,date_expires INTEGER DEFAULT NULL,"
    "is_trashed INTEGER DEFAULT 0,group_id INTEGER DEFAULT NULL,primary_directory TEXT DEFAULT NULL,"
    "secondary_directory TEXT DEFAULT NULL,document_id TEXT DEFAULT NULL,instance_id TEXT DEFAULT NULL,"
    "original_document_id TEXT DEFAULT NULL,relative_path TEXT DEFAULT NULL,volume_name TEXT DEFAULT NULL,"
    "artist_key TEXT DEFAULT NULL,album_key TEXT DEFAULT NULL,genre TEXT DEFAULT NULL,genre_key TEXT DEFAULT NULL,"
    "genre_id INTEGER,author TEXT DEFAULT NULL, bitrate INTEGER DEFAULT NULL,capture_framerate REAL DEFAULT NULL, "
    "cd_track_number TEXT DEFAULT NULL,compilation INTEGER DEFAULT NULL, disc_number TEXT DEFAULT NULL,"
    "is_favorite INTEGER DEFAULT 0, num_tracks INTEGER DEFAULT NULL,writer TEXT DEFAULT NULL, "
    "exposure_time TEXT DEFAULT NULL,f_number TEXT DEFAULT NULL, iso INTEGER DEFAULT NULL,"
    "scene_capture_type INTEGER DEFAULT NULL, generation_added INTEGER DEFAULT 0,"
    "generation_modified INTEGER DEFAULT 0, xmp BLOB DEFAULT NULL,_transcode_status INTEGER DEFAULT 0, "
    "_video_codec_type TEXT DEFAULT NULL,_modifier INTEGER DEFAULT 0, is_recording INTEGER DEFAULT 0,"
    "redacted_uri_id TEXT DEFAULT NULL, _user_id INTEGER DEFAULT 0, _special_format INTEGER DEFAULT NULL)"
)

# The projection maps: the ``@Column`` fields (and ``_ID``) of each collection's contract class and the interfaces it
# implements (MediaStore.java at android-14.0.0_r1). The default projection of a query is the map's iteration order:
# an ArrayMap, whose keys iterate by ascending Java hash code (see :func:`default_projection`).
_MEDIA = ("_id", "_data", "_size", "_display_name", "title", "date_added", "date_modified", "mime_type",
          "is_drm", "is_pending", "is_trashed", "date_expires", "width", "height", "duration", "orientation",
          "owner_package_name", "volume_name", "relative_path", "document_id", "instance_id", "original_document_id",
          "resolution", "is_favorite", "xmp", "is_download", "generation_added", "generation_modified", "datetaken",
          "bucket_id", "bucket_display_name", "group_id", "cd_track_number", "album", "artist", "author",
          "composer", "genre", "year", "writer", "num_tracks", "disc_number", "album_artist", "compilation",
          "bitrate", "capture_framerate")
COLLECTIONS: dict[str, tuple[str, ...]] = {
    "images": _MEDIA + ("description", "picasa_id", "isprivate", "latitude", "longitude", "mini_thumb_magic",
                        "exposure_time", "f_number", "iso", "scene_capture_type"),
    "video": _MEDIA + ("description", "isprivate", "category", "language", "latitude", "longitude", "tags",
                       "mini_thumb_magic", "color_standard", "color_transfer", "color_range", "bookmark"),
    "audio": _MEDIA + ("title_key", "track", "album_key", "artist_id", "artist_key", "album_id", "genre_id",
                       "genre_key", "title_resource_uri", "is_music", "is_podcast", "is_ringtone", "is_alarm",
                       "is_notification", "is_audiobook", "is_recording", "bookmark"),
    "files": _MEDIA + ("format", "parent", "media_type"),
}
#: URI path -> (collection: the view or table it reads, the media_type it holds or None for every row)
_URIS = {"images/media": ("images", M.MEDIA_TYPE_IMAGE), "video/media": ("video", M.MEDIA_TYPE_VIDEO),
         "audio/media": ("audio", M.MEDIA_TYPE_AUDIO), "file": ("files", None)}
_VOLUMES = ("external", M.VOLUME_EXTERNAL_PRIMARY)


def default_projection(collection: str) -> list[str]:
    """The columns a query without ``--projection`` returns: the projection map's keys in ArrayMap order (by Java
    ``String.hashCode``, ties in insertion order)."""
    return sorted(COLLECTIONS[collection], key=M.java_hash)


class MediaStoreError(ValueError):
    """A request the provider refuses (unknown URI, invalid column, SQL error)."""


class MediaStore:
    """The external volume's index (``external.db``) and the provider's answers over it."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self._fixed_now: int | None = None  # the time a boot scan stamps (:meth:`boot`)

    # ------------------------------------------------------------------ the database
    @property
    def exists(self) -> bool:
        return self.device.fs.host(DB_PATH).exists()

    def _create(self) -> bool:
        host = self.device.fs.host(DB_PATH)
        if host.exists():
            return False
        self.device.fs.makedirs(posixpath.dirname(DB_PATH))
        with closing(sqlite3.connect(host, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=DELETE")
            db.execute("CREATE TABLE android_metadata (locale TEXT)")
            db.execute("INSERT INTO android_metadata VALUES ('en_US')")
            db.execute("CREATE TABLE local_metadata (generation INTEGER DEFAULT 0)")
            db.execute("INSERT INTO local_metadata VALUES (0)")
            db.execute(FILES_DDL)
            db.execute("CREATE TABLE deleted_media (_id INTEGER PRIMARY KEY AUTOINCREMENT,"
                       "old_id INTEGER UNIQUE, generation_modified INTEGER NOT NULL)")
            for view, kind in (("audio", M.MEDIA_TYPE_AUDIO), ("video", M.MEDIA_TYPE_VIDEO),
                               ("images", M.MEDIA_TYPE_IMAGE)):
                cols = ",".join(default_projection(view)) + ",_modifier"
                db.execute(f"CREATE VIEW {view} AS SELECT {cols} FROM files WHERE media_type={kind}")
            for statement in ("CREATE INDEX media_type_index ON files(media_type)",
                              "CREATE INDEX parent_index ON files(parent)",
                              "CREATE INDEX path_index ON files(_data)",
                              "CREATE INDEX bucket_index on files(bucket_id,media_type,datetaken, _id)"):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {DB_VERSION}")
        return True

    def boot(self, when_s: int) -> None:
        """The index a device has from its first boot: the database with the scan of shared storage the provider
        runs when the volume is mounted, so a fresh device's state (and every snapshot of it) holds it. Its rows
        are stamped ``when_s`` (the fresh device's logical time, as every path of it is), so every fresh device
        starts with the same bytes, whichever process made it and whenever."""
        self._fixed_now = when_s
        try:
            with self._db() as db:  # opening it creates and scans it
                db.execute("PRAGMA user_version")
        finally:
            self._fixed_now = None

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """One connection for one operation; a new database gets the volume scan the provider runs when shared
        storage is mounted at boot (``REASON_MOUNTED``)."""
        with self.device.lock:
            created = self._create()
            db = sqlite3.connect(self.device.fs.host(DB_PATH))
            db.row_factory = sqlite3.Row
            try:
                with db:
                    db.execute("PRAGMA synchronous=OFF")
                    if created:
                        _Scan(self, db, M.SHARED_STORAGE).run()
                    yield db
            finally:
                db.close()

    def _now(self) -> int:
        if self._fixed_now is not None:
            return self._fixed_now
        return self.device.wall_ms() // 1000

    def canonical(self, path: str) -> str | None:
        """The canonical device path (``/sdcard/x`` -> ``/storage/emulated/0/x``), or None when it cannot be
        resolved."""
        try:
            return self.device.fs.resolve(path).device_path
        except OSError:
            return None

    @staticmethod
    def in_volume(path: str) -> bool:
        return path == M.SHARED_STORAGE or path.startswith(M.SHARED_STORAGE + "/")

    # ------------------------------------------------------------------ rows
    @staticmethod
    def _bump(db: sqlite3.Connection) -> int:
        """A write transaction's generation (``beginTransactionInternal``)."""
        db.execute("UPDATE local_metadata SET generation=generation+1")
        return int(db.execute("SELECT generation FROM local_metadata").fetchone()[0])

    def _insert(self, db: sqlite3.Connection, values: dict[str, Any], generation: int) -> int:
        values = dict(values, generation_added=generation, generation_modified=generation)
        cols = ", ".join(values)
        return int(db.execute(f"INSERT INTO files ({cols}) VALUES ({', '.join('?' * len(values))})",
                              tuple(values.values())).lastrowid)

    @staticmethod
    def _update(db: sqlite3.Connection, row_id: int, values: dict[str, Any], generation: int) -> None:
        values = dict(values, generation_modified=generation)
        db.execute(f"UPDATE files SET {', '.join(f'{k} = ?' for k in values)} WHERE _id = ?",
                   (*values.values(), row_id))

    def _parent(self, db: sqlite3.Connection, path: str, generation: int) -> int:
        """``MediaProvider.getParent``: the parent folder's row id, inserting missing folder rows up to ``/``."""
        parent = posixpath.dirname(path)
        if parent == "/":
            return -1
        row = db.execute("SELECT _id FROM files WHERE _data = ?", (parent,)).fetchone()
        if row is not None:
            return int(row[0])
        values: dict[str, Any] = {"format": M.FORMAT_ASSOCIATION, "_data": parent,
                                  "parent": self._parent(db, parent, generation),
                                  "owner_package_name": M.owner_of(parent), "volume_name": M.volume_name(parent),
                                  "relative_path": M.relative_path(parent), "_display_name": M.display_name(parent),
                                  "is_download": int(bool(M._DOWNLOAD.match(parent)))}
        with contextlib.suppress(OSError):  # a folder gone meanwhile keeps no date
            values["date_modified"] = int(os.stat(self.device.fs.host(parent)).st_mtime)
        return self._insert(db, values, generation)

    # ------------------------------------------------------------------ the scanner
    def scan(self, path: str) -> None:
        """``MediaProvider.scanFile`` for one path (a folder: its whole tree), as on ``MEDIA_SCANNER_SCAN_FILE``.
        Paths outside shared storage belong to the internal volume, which is not modelled."""
        canon = self.canonical(path)
        if canon is None or not self.in_volume(canon):
            return
        with self._db() as db:
            _Scan(self, db, canon).run()

    # ------------------------------------------------------------------ FUSE (shell uid)
    def fuse_create(self, path: str, owner: str = SHELL_PACKAGE) -> None:
        """A file created through the FUSE mount (``insertFileIfNecessaryForFuse``): a pending row owned by the
        creator, with no size or modification date yet; an existing row for the path is the previous file, which
        the creator unlinked first (adbd's push does)."""
        canon = self.canonical(path)
        if canon is None or not self.in_volume(canon) or canon == M.SHARED_STORAGE:
            return
        with self._db() as db:
            generation = self._bump(db)
            db.execute("DELETE FROM files WHERE _data = ?", (canon,))
            mime = M.mime_type(canon)
            hidden = _should_file_be_hidden(self.device, canon)
            values = M.path_values(canon)
            values.update(is_pending=1, date_expires=self._now() + PENDING_SECONDS, owner_package_name=owner,
                          mime_type=mime, media_type=M.MEDIA_TYPE_NONE if hidden else M.media_type(mime),
                          title=M.file_title(M.display_name(canon)), date_added=self._now(),
                          format=M.format_code(mime), _modifier=MODIFIER_FUSE, _user_id=0)
            if M.media_type(mime) == M.MEDIA_TYPE_AUDIO:
                values.update(M.audio_flags(canon))
            values["parent"] = self._parent(db, canon, generation)
            self._insert(db, values, generation)

    def fuse_delete(self, path: str, *, tree: bool = False) -> None:
        """Files unlinked through the FUSE mount (``deleteFileForFuse``): their rows go. ``tree``: a folder removed
        with ``rm -r`` (each file unlinked, each folder removed with rmdir, which leaves folder rows alone)."""
        canon = self.canonical(posixpath.dirname(path) or "/")
        if canon is None:
            return
        canon = posixpath.join(canon, posixpath.basename(path.rstrip("/")))
        if not self.in_volume(canon) or not self.exists:
            return
        with self._db() as db:
            db.execute("DELETE FROM files WHERE _data = ? AND ifnull(format, 0) != ?", (canon, M.FORMAT_ASSOCIATION))
            if tree:
                db.execute("DELETE FROM files WHERE _data LIKE ? ESCAPE '\\' AND ifnull(format, 0) != ?",
                           (_like_prefix(canon), M.FORMAT_ASSOCIATION))

    def fuse_rename(self, old: str, new: str) -> None:
        """A rename through the FUSE mount (``renameForFuse``): the row of a file, or the rows of a folder and
        everything under it, move to the new path; a file's MIME and media type follow its new name."""
        old_c, new_c = self.canonical(posixpath.dirname(old) or "/"), self.canonical(new)
        if old_c is None or new_c is None or not self.exists:
            return
        old_c = posixpath.join(old_c, posixpath.basename(old.rstrip("/")))
        if not (self.in_volume(old_c) and self.in_volume(new_c)):
            return
        with self._db() as db:
            generation = self._bump(db)
            rows = db.execute("SELECT _id, _data, mime_type, media_type, format FROM files WHERE _data = ? "
                              "OR _data LIKE ? ESCAPE '\\'", (old_c, _like_prefix(old_c))).fetchall()
            for row in rows:
                path = new_c + row["_data"][len(old_c):]
                values = M.path_values(path)
                values.pop("is_pending")  # the FUSE thread leaves is_pending alone
                if row["_data"] == old_c and row["format"] != M.FORMAT_ASSOCIATION:
                    mime = M.mime_type(path)
                    hidden = _should_file_be_hidden(self.device, path)
                    was_hidden = row["media_type"] == M.MEDIA_TYPE_NONE and M.media_type(row["mime_type"]) != 0
                    values.update(mime_type=mime, media_type=M.MEDIA_TYPE_NONE if hidden else M.media_type(mime))
                    if (was_hidden and not hidden) or mime != row["mime_type"]:
                        values["_modifier"] = MODIFIER_FUSE
                    if M.media_type(mime) == M.MEDIA_TYPE_AUDIO:
                        values.update(M.audio_flags(path))
                self._update(db, row["_id"], values, generation)

    # ------------------------------------------------------------------ content://media
    @staticmethod
    def collection_of(uri: str) -> tuple[str, int | None, int | None]:
        """(collection, media type, row id) of a ``content://media/<volume>/...`` URI; MediaStoreError otherwise."""
        rest = uri.removeprefix("content://")
        authority, _, path = rest.partition("/")
        if authority != AUTHORITY or rest == uri:
            raise MediaStoreError(f"Unknown URI {uri}")
        volume, _, tail = path.strip("/").partition("/")
        if volume not in _VOLUMES:
            raise MediaStoreError(f"Volume {volume} not found" if volume else f"Unknown URI {uri}")
        row_id = None
        head, _, last = tail.rpartition("/")
        if last.isdigit() and head in _URIS:
            tail, row_id = head, int(last)
        if tail not in _URIS:
            raise MediaStoreError(f"Unknown URI {uri}")
        collection, kind = _URIS[tail]
        return collection, kind, row_id

    def _where(self, collection: str, row_id: int | None, where: str | None) -> str:
        clauses = [f"_id={row_id}"] if row_id is not None else []
        caller = "root" if self.device.state.rooted else SHELL_PACKAGE  # Content.resolveCallingPackage
        if row_id is None:  # a single item matches pending and trashed rows (MATCH_INCLUDE)
            clauses.append(f"((is_pending=0 AND NOT _modifier={MODIFIER_CR_PENDING_METADATA}) OR (is_pending=1 "
                           f"AND owner_package_name IN ('{caller}')))")
            clauses.append("is_trashed=0")
        clauses.append(f"volume_name IN ('{M.VOLUME_EXTERNAL_PRIMARY}')")
        if where:
            clauses.append(f"({where})")
        return " AND ".join(clauses)

    def query(self, uri: str, *, projection: list[str] | None = None, where: str | None = None,
              sort: str | None = None) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Columns and rows of a ``content query`` on a media collection."""
        collection, _, row_id = self.collection_of(uri)
        allowed = COLLECTIONS[collection]
        for column in projection or ():
            if column not in allowed:
                raise MediaStoreError(f"Invalid column {column}")
        cols = ", ".join(projection or default_projection(collection))
        sql = f"SELECT {cols} FROM {collection} WHERE {self._where(collection, row_id, where)} ORDER BY {sort or '_id'}"
        with self._db() as db:
            try:
                cur = db.execute(sql)
            except sqlite3.Error as exc:
                raise MediaStoreError(f"{exc} (query: {sql})") from exc
            return [d[0] for d in cur.description], [tuple(r) for r in cur.fetchall()]

    def delete(self, uri: str, *, where: str | None = None) -> int:
        """``content delete``: each matching row goes with its file (``deleteIfAllowed``); folder rows still
        named as a parent stay."""
        collection, kind, row_id = self.collection_of(uri)
        clause = self._where(collection, row_id, where)
        if kind is not None:
            clause = f"media_type={kind} AND {clause}"
        with self._db() as db:
            try:
                rows = db.execute(f"SELECT _id, _data, format FROM files WHERE {clause}").fetchall()
            except sqlite3.Error as exc:
                raise MediaStoreError(str(exc)) from exc
            count = 0
            for row in rows:
                if row["format"] == M.FORMAT_ASSOCIATION and db.execute(
                        "SELECT 1 FROM files WHERE parent = ? LIMIT 1", (row["_id"],)).fetchone():
                    continue
                host = self.device.fs.host(row["_data"], follow=False)
                if os.path.lexists(host) and not stat_mod.S_ISDIR(os.lstat(host).st_mode):
                    os.unlink(host)
                count += db.execute("DELETE FROM files WHERE _id = ?", (row["_id"],)).rowcount
        return count

    def rows(self, sql: str = "SELECT * FROM files ORDER BY _id", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Rows of the raw database (for apps and tests)."""
        with self._db() as db:
            return [dict(r) for r in db.execute(sql, args).fetchall()]


def _like_prefix(path: str) -> str:
    return path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"


def _should_file_be_hidden(device: VirtualDevice, path: str) -> bool:
    """``FileUtils.shouldFileBeHidden``: the name starts with a dot, or a folder above it is hidden."""
    if M.is_file_hidden(M.display_name(path)):
        return True
    parent = posixpath.dirname(path)
    while parent not in ("/", ""):
        if M.is_directory_hidden(parent, device.fs.host(parent)):
            return True
        parent = posixpath.dirname(parent)
    return False


class _Scan:
    """One ``ModernMediaScanner.Scan`` of a canonical path in shared storage."""

    def __init__(self, store: MediaStore, db: sqlite3.Connection, root: str) -> None:
        self.store = store
        self.device = store.device
        self.db = db
        self.root = root
        self.scanned: set[int] = set()
        self.generation = 0
        self.now = store._now()

    def run(self) -> None:
        self.generation = self.store._bump(self.db)
        host = self.device.fs.host(self.root, follow=False)
        single = host.is_file()
        start = posixpath.dirname(self.root) if single else self.root
        scannable, hidden = self._scannable_and_hidden(start)
        if scannable and os.path.lexists(host):
            if single:
                self._visit(self.root, host, os.lstat(host), hidden)
            elif host.is_dir() and not host.is_symlink():
                self._walk(self.root, host, hidden)
            else:
                self._visit(self.root, host, os.lstat(host), hidden)
        if not (single and len(self.scanned) == 1):
            self._reconcile()

    def _scannable_and_hidden(self, path: str) -> tuple[bool, bool]:
        """``shouldScanPathAndIsPathHidden`` over the path and every ancestor."""
        hidden = False
        while path not in ("", "/"):
            if not M.should_be_visible(path) and M.should_be_invisible(path):
                return False, False
            hidden = M.is_directory_hidden(path, self.device.fs.host(path, follow=False)) or hidden
            path = posixpath.dirname(path)
        return True, hidden

    def _walk(self, path: str, host: Path, hidden: bool) -> None:
        """``preVisitDirectory`` (unscannable folders are skipped), the folder's own row, then its entries."""
        if not M.should_be_visible(path) and M.should_be_invisible(path):
            return
        hidden = hidden or M.is_directory_hidden(path, host)
        self._visit(path, host, os.lstat(host), hidden)
        try:
            entries = sorted(os.scandir(host), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            child = f"{path}/{entry.name}"
            st = entry.stat(follow_symlinks=False)
            if stat_mod.S_ISDIR(st.st_mode):
                self._walk(child, Path(entry.path), hidden)
            else:
                self._visit(child, Path(entry.path), st, hidden)

    def _visit(self, path: str, host: Path, st: os.stat_result, hidden: bool) -> None:
        """``visitFile``: skip an unchanged row, else upsert the scanner's values for the entry."""
        is_dir = stat_mod.S_ISDIR(st.st_mode)
        name = M.display_name(path)
        mime = None if is_dir else M.mime_type(name)
        kind = self._media_type(name, mime, hidden)
        row = self.db.execute("SELECT _id, date_modified, _size, mime_type, media_type, is_pending, _modifier "
                              "FROM files WHERE _data = ?", (path,)).fetchone()
        if row is not None:
            self.scanned.add(int(row["_id"]))
            if is_dir:
                return
            same = (row["date_modified"] == int(st.st_mtime) and row["_size"] == st.st_size
                    and not row["is_pending"] and row["_modifier"] == MODIFIER_MEDIA_SCAN)
            if same and row["media_type"] == kind:
                return
        if name == ".nomedia":
            return
        values = self._values(path, host, st, is_dir, mime, kind)
        if row is not None:
            self.store._update(self.db, int(row["_id"]), values, self.generation)
            return
        values.update(date_added=self.now, owner_package_name=M.owner_of(path), _user_id=0)
        if is_dir:
            values.update(format=M.FORMAT_ASSOCIATION, mime_type=None, media_type=M.MEDIA_TYPE_NONE)
        values["parent"] = self.store._parent(self.db, path, self.generation)
        self.scanned.add(self.store._insert(self.db, values, self.generation))

    @staticmethod
    def _media_type(name: str, mime: str | None, hidden: bool) -> int:
        """``resolveMediaTypeFromFilePath``: hidden entries and album art are not media."""
        if mime is None:
            return M.MEDIA_TYPE_NONE
        kind = M.media_type(mime)
        if hidden or M.is_file_hidden(name):
            return M.MEDIA_TYPE_NONE
        if kind == M.MEDIA_TYPE_IMAGE and M.is_album_art(name):
            return M.MEDIA_TYPE_NONE
        return kind

    def _values(self, path: str, host: Path, st: os.stat_result, is_dir: bool, mime: str | None,
                kind: int) -> dict[str, Any]:
        """``withGenericValues`` and the scanItem* values of the entry's media type, then the path columns."""
        values: dict[str, Any] = {
            "_size": st.st_size, "date_modified": int(st.st_mtime), "datetaken": None, "is_drm": 0, "width": None,
            "height": None, "resolution": None, "orientation": None, "album": None, "artist": None,
            "composer": None, "title": M.file_title(M.display_name(path)), "year": None, "duration": None,
            "album_artist": None, "_modifier": MODIFIER_MEDIA_SCAN}
        if mime is not None:
            values.update(mime_type=mime, media_type=kind, format=M.format_code(mime))
        if kind == M.MEDIA_TYPE_IMAGE:
            values["description"] = None
            size = M.image_size(host)
            if size:
                values.update(width=size[0], height=size[1], resolution=f"{size[0]}\u00d7{size[1]}")
        elif kind == M.MEDIA_TYPE_VIDEO:
            values.update(artist=M.UNKNOWN, album=M.display_name(posixpath.dirname(path)))
            info = M.mp4_info(host) if mime in ("video/mp4", "video/3gpp", "video/quicktime") else {}
            if info.get("duration") is not None:
                values["duration"] = info["duration"]
            if info.get("width") and info.get("height"):
                values.update(width=info["width"], height=info["height"],
                              resolution=f"{info['width']}\u00d7{info['height']}")
        elif kind == M.MEDIA_TYPE_AUDIO:
            values.update(artist=M.UNKNOWN, album=M.display_name(posixpath.dirname(path)), track=None)
            values.update(M.audio_flags(path))
            values.update(M.audio_info(host, path))
            values.update(M.audio_group_ids(values))
        values.update(M.path_values(path))
        return values

    def _reconcile(self) -> None:
        """``reconcileAndClean``: rows at or under the root that the walk did not visit are deleted (pending rows
        that have not expired stay)."""
        rows = self.db.execute("SELECT _id, is_pending, date_expires FROM files WHERE (_data = ? OR _data LIKE ? "
                               "ESCAPE '\\')", (self.root, _like_prefix(self.root))).fetchall()
        gone = [(r["_id"],) for r in rows if r["_id"] not in self.scanned
                and not (r["is_pending"] == 1 and (r["date_expires"] or 0) > self.now)]
        self.db.executemany("DELETE FROM files WHERE _id = ?", gone)
