"""The store's schema version and its in-place upgrade (Alembic revisions in :mod:`emukit.store.migrations`).

Opening a store runs :func:`upgrade`: an empty database gets every revision; a database made before
migrations existed (tables of schema version 1, no ``alembic_version``) is stamped ``0001`` and then
upgraded; a database at an older revision is upgraded; one at a revision this code does not know (written
by a newer emukit) is refused, untouched. The upgrade runs in one transaction that holds the database's
write lock (SQLite ``BEGIN IMMEDIATE``; a PostgreSQL advisory lock), so several processes opening the same
new database at once migrate it exactly once. ``store_meta.schema_version`` follows the head revision's
number, which is what releases before migrations check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Connection, inspect, text

HEAD = "0003"  # the newest revision in migrations/versions (tests/store/test_migrations.py checks it)
SCHEMA_VERSION = int(HEAD)
VERSION_TABLE = "alembic_version"
_PG_LOCK_KEY = 0x656D756B6974  # "emukit": the advisory lock taken while a PostgreSQL store is migrated


class SchemaError(Exception):
    """The database's schema cannot be used or upgraded by this code (message for the user)."""


def is_current(conn: Connection) -> bool:
    """True when the database is at :data:`HEAD` with a matching ``schema_version`` (no upgrade needed)."""
    tables = set(inspect(conn).get_table_names())
    if VERSION_TABLE not in tables or "store_meta" not in tables:
        return False
    revision = conn.execute(text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars().all()
    return revision == [HEAD] and _meta_version(conn) == SCHEMA_VERSION


def upgrade(conn: Connection, emukit_version: str) -> None:
    """Bring the database behind ``conn`` (inside a write transaction) to :data:`HEAD`; raises
    :class:`SchemaError`, changing nothing, for a database this code must not touch."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    cfg = _config(conn)
    script = ScriptDirectory.from_config(cfg)
    if script.get_current_head() != HEAD:
        raise SchemaError(f"cannot be upgraded: the migrations' head is {script.get_current_head()}, but this "
                          f"emukit ({emukit_version}) expects {HEAD}")
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
    tables = set(inspect(conn).get_table_names())
    meta_version = _meta_version(conn) if "store_meta" in tables else None
    if meta_version is not None and meta_version > SCHEMA_VERSION:
        raise SchemaError(f"has schema version {meta_version}; this emukit ({emukit_version}) knows version "
                          f"{SCHEMA_VERSION}: upgrade emukit")
    if VERSION_TABLE in tables:
        current = MigrationContext.configure(conn).get_current_revision()
        try:
            known = current is None or script.get_revision(current) is not None
        except CommandError:
            known = False
        if not known:
            raise SchemaError(f"is at schema revision {current}, which this emukit ({emukit_version}) does not "
                              f"know (newest known: {HEAD}): upgrade emukit")
    elif "pairs" in tables or "runs" in tables:  # made before migrations: exactly the 0001 tables
        if meta_version != 1:
            raise SchemaError(f"has emukit tables but schema version {meta_version} and no {VERSION_TABLE} "
                              "table: it was not made by emukit, or its schema record was lost")
        command.stamp(cfg, "0001")
    command.upgrade(cfg, "head")
    _set_meta_version(conn)


def _config(conn: Connection) -> Any:
    from alembic.config import Config

    import emukit.store.migrations as migrations

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).resolve().parent))
    cfg.attributes["connection"] = conn
    return cfg


def _meta_version(conn: Connection) -> int | None:
    value = conn.execute(text("SELECT value FROM store_meta WHERE key = 'schema_version'")).scalar()
    try:
        return None if value is None else int(value)
    except ValueError:
        raise SchemaError(f"has an unreadable schema version {value!r} in store_meta") from None


def _set_meta_version(conn: Connection) -> None:
    updated = conn.execute(text("UPDATE store_meta SET value = :v WHERE key = 'schema_version'"),
                           {"v": str(SCHEMA_VERSION)}).rowcount
    if not updated:
        conn.execute(text("INSERT INTO store_meta (key, value) VALUES ('schema_version', :v)"),
                     {"v": str(SCHEMA_VERSION)})
