"""An app's SQLite database where the real app keeps it (``/data/data/<package>/databases/<name>``), with
the tables its Room (or SQLiteOpenHelper) schema creates.

Room creates the file on first access (``RoomOpenHelper.onCreate``: the entity tables, ``room_master_table``
with the schema's identity hash, ``PRAGMA user_version``), and Android's SQLiteOpenHelper adds
``android_metadata`` (locale); the app's own ``RoomDatabase.Callback.onCreate`` may insert default rows.
Every write opens the file, commits and closes it, so a probe pulling the ``databases/`` folder over adb sees
the latest state, as with a real app's writes (WAL checkpointed on close).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


@dataclass(frozen=True)
class RoomSchema:
    """One database: its file name, version, ``CREATE`` statements (as Room's generated ``createAllTables``
    runs them), identity hash (None: a plain SQLiteOpenHelper database) and the rows the app's onCreate
    callback inserts."""

    package: str
    name: str
    version: int
    create: Sequence[str]
    identity_hash: str | None = None
    on_create: Sequence[tuple[str, tuple[Any, ...]]] = field(default_factory=tuple)

    @property
    def path(self) -> str:
        return f"/data/data/{self.package}/databases/{self.name}"


class RoomStore:
    """Read and write one :class:`RoomSchema` database on a virtual device."""

    def __init__(self, schema: RoomSchema) -> None:
        self.schema = schema

    def exists(self, device: VirtualDevice) -> bool:
        return device.fs.host(self.schema.path).exists()

    def create(self, device: VirtualDevice) -> None:
        """Open the database as the app's first access does: create it with its schema when it is absent."""
        if self.exists(device):
            return
        device.fs.makedirs(self.schema.path.rsplit("/", 1)[0])
        with closing(sqlite3.connect(device.fs.host(self.schema.path), isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE android_metadata (locale TEXT)")
            db.execute("INSERT INTO android_metadata VALUES ('en_US')")
            for statement in self.schema.create:
                db.execute(statement)
            if self.schema.identity_hash is not None:
                db.execute("CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT)")
                db.execute("INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, ?)",
                           (self.schema.identity_hash,))
            for sql, args in self.schema.on_create:
                db.execute(sql, args)
            db.execute(f"PRAGMA user_version = {int(self.schema.version)}")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    @contextmanager
    def connect(self, device: VirtualDevice) -> Iterator[sqlite3.Connection]:
        """A connection to the database (created first when absent), committed and closed on exit."""
        self.create(device)
        db = sqlite3.connect(device.fs.host(self.schema.path))
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            db.close()

    def rows(self, device: VirtualDevice, sql: str, args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """The rows of a query as dicts; none when the database does not exist yet (the app never ran)."""
        if not self.exists(device):
            return []
        with closing(sqlite3.connect(device.fs.host(self.schema.path))) as db:
            db.row_factory = sqlite3.Row
            return [dict(r) for r in db.execute(sql, args)]

    def execute(self, device: VirtualDevice, sql: str, args: tuple[Any, ...] = ()) -> int:
        """Run one write; returns the last inserted row id (0 when none)."""
        with self.connect(device) as db:
            cur = db.execute(sql, args)
            return int(cur.lastrowid or 0)
