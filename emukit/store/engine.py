"""Database URLs and engines: the default SQLite file, redaction of passwords, SQLite tuned for several
writer threads and processes (WAL, a busy timeout, ``BEGIN IMMEDIATE`` for write transactions)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from emukit.store.errors import StoreError

DB_FILENAME = "emukit.db"
WRITE_OPTION = "emukit_write"  # execution option: this transaction will write (SQLite: BEGIN IMMEDIATE)


def default_url(data_dir: Path) -> str:
    """``sqlite:///<data-dir>/emukit.db`` with an absolute path."""
    return f"sqlite:///{(Path(data_dir).resolve() / DB_FILENAME).as_posix()}"


def redact(url: str | URL) -> str:
    """The URL with its password replaced by ``***`` (safe to print or log)."""
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL may still carry user:password@
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


def scrub(text: str, url: URL) -> str:
    """``text`` with the URL's password replaced by ``***`` where it occurs *as a password*: inside the URL
    (``user:PASSWORD@``, raw or percent-encoded) or as a ``password=PASSWORD`` connection parameter. Other
    text that merely contains the same characters (a module name, a host) is left alone."""
    password = url.password
    if not password:
        return text
    text = text.replace(url.render_as_string(hide_password=False), url.render_as_string(hide_password=True))
    for form in sorted({str(password), quote(str(password), safe=""), quote_plus(str(password))}, key=len,
                       reverse=True):
        text = text.replace(f":{form}@", ":***@")
        text = re.sub(rf"(password\s*=\s*)(['\"]?){re.escape(form)}\2(?=[\s'\",;)]|$)", r"\1\2***\2", text)
    return text


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def create_store_engine(url: str, *, busy_timeout_s: float = 30.0, durable: bool = True,
                        echo: bool = False) -> tuple[Engine, URL]:
    """An engine for ``url`` (any SQLAlchemy URL); raises :class:`StoreError` naming the redacted URL.

    For SQLite, ``durable=False`` lowers ``synchronous`` to NORMAL: commits survive a killed process but
    the last ones may be lost in a power cut.
    """
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError) as exc:
        raise StoreError(f"invalid database URL {redact(url)!r}: expected dialect[+driver]://[user[:password]@]"
                         f"host/database or sqlite:///path ({exc.__class__.__name__})") from None
    if parsed.drivername == "postgresql":  # SQLAlchemy's default would be psycopg2; emukit's extra is psycopg 3
        parsed = parsed.set(drivername="postgresql+psycopg")
    safe = redact(parsed)
    kwargs: dict[str, Any] = {"echo": echo}
    memory = is_sqlite(parsed) and parsed.database in (None, "", ":memory:")
    if memory:  # one shared connection, or every session would see its own empty database
        kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    elif is_sqlite(parsed):
        kwargs["connect_args"] = {"timeout": busy_timeout_s}
    else:
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(parsed, **kwargs)
    except NoSuchModuleError:
        raise StoreError(f"database URL {safe!r}: unknown database kind {parsed.drivername!r}") from None
    except ImportError as exc:
        hint = " (for PostgreSQL: pip install 'emukit[postgres]', which installs psycopg 3)" \
            if parsed.get_backend_name() == "postgresql" else ""
        raise StoreError(f"database URL {safe!r}: its driver is not installed: {scrub(str(exc), parsed)}{hint}") \
            from None
    except (ArgumentError, TypeError, ValueError) as exc:
        raise StoreError(f"database URL {safe!r} is not usable: {scrub(str(exc), parsed)}") from None
    if is_sqlite(parsed):
        _tune_sqlite(engine, busy_timeout_ms=int(busy_timeout_s * 1000), wal=not memory, durable=durable)
    return engine, parsed


def _tune_sqlite(engine: Engine, *, busy_timeout_ms: int, wal: bool, durable: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module; _on_begin below issues BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")  # before WAL: switching may wait
            if wal:
                cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A deferred transaction that reads and then writes cannot wait for another writer (SQLite returns
        # SQLITE_BUSY at once to avoid deadlock); taking the write lock up front makes busy_timeout apply.
        write = conn.get_execution_options().get(WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
