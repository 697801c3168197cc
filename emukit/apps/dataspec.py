"""The pipeline side of the app kit: an app's SQLite database read and seeded over adb, the way android_world
reads and seeds its apps' databases (it pulls the database file to the host and queries it there; it writes
rows with the app stopped; google-research/android_world d9c569f764b3 android_world/utils/sqlite_utils.py).

* :class:`AppDatabase`: where the app keeps one database (``/data/data/<package>/databases/<name>``);
  :meth:`AppDatabase.read` copies the whole ``databases`` folder (``-wal`` and ``-shm`` included, so the
  copy is what the app last committed) and queries the copy, never the live file; an app that never opened
  (installed, or cleared, and not launched since) has no database, which the reading says (``reason``).
* :class:`RowsSeed`: a base snapshot section whose items become rows of one table: the app is launched once
  if its database does not exist yet (its first access creates it with its real schema, which a file made
  by emukit could not match), then stopped, and the rows are inserted with the device's ``sqlite3`` as root,
  so the file keeps its owner and mode.
"""

from __future__ import annotations

import abc
import shlex
import sqlite3
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from emukit.apps.base import SeedSection
from emukit.device.driver import Driver
from emukit.errors import DeviceError


@dataclass(frozen=True)
class DbReading:
    """Rows read from an app database, or why there are none (``reason`` None: the database was read)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    reason: str | None = None
    files: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AppDatabase:
    """One database file of one app."""

    package: str
    name: str
    #: the folder of the app's data directory that holds it (``databases`` for Room and SQLiteOpenHelper)
    subdir: str = "databases"

    @property
    def folder(self) -> str:
        return f"/data/data/{self.package}/{self.subdir}"

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.name}"

    def exists(self, driver: Driver) -> bool:
        return driver.shell(f"[ -f {shlex.quote(self.path)} ] && echo yes; true").text.strip() == "yes"

    def read(self, driver: Driver, sql: str, args: tuple[Any, ...] = ()) -> DbReading:
        """Run ``sql`` on a host copy of the database folder."""
        from emukit.probes.ordered import FolderMissing, pull_folder

        with tempfile.TemporaryDirectory(prefix="emukit-db-") as tmp:
            try:
                names = pull_folder(driver, self.folder, Path(tmp))
            except FolderMissing:
                return DbReading(reason=f"{self.folder} does not exist: {self.package} has not been opened since "
                                        "it was installed or cleared")
            if self.name not in names:
                return DbReading(reason=f"no {self.name} in {self.folder}: the app has not created it yet",
                                 files=sorted(names))
            conn = sqlite3.connect(Path(tmp) / self.name)
            conn.row_factory = sqlite3.Row
            try:
                rows = [dict(r) for r in conn.execute(sql, args)]
            except sqlite3.Error as exc:
                raise DeviceError(f"{driver.serial}: {self.path}: {exc} (query: {sql})") from None
            finally:
                conn.close()
            return DbReading(rows=rows, files=sorted(names))


def sql_literal(value: Any) -> str:
    """``value`` as an SQL literal (strings quoted, quotes doubled; booleans as 0/1; None as NULL)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


class RowsSeed(SeedSection):
    """A seed section whose items are rows of ``table`` in ``database``; the app ``profile`` creates the
    database on its first launch."""

    database: ClassVar[AppDatabase]
    table: ClassVar[str]
    profile: ClassVar[str]
    #: how long the first launch may take to create the database
    create_timeout_s: ClassVar[float] = 30.0

    @classmethod
    @abc.abstractmethod
    def row(cls, item: Any) -> dict[str, Any]:
        """The column values of one item."""

    @classmethod
    def create_database(cls, driver: Driver) -> None:
        """Launch the app once (through its first-run walk when it has one) so that it creates its database,
        then go home."""
        from emukit.apps.registry import profile_for

        profile = profile_for(driver, cls.profile)
        first_run = getattr(profile, "complete_first_run", None)
        if first_run is not None:
            first_run()
        else:
            profile.launch(fresh=True)
        deadline = time.monotonic() + cls.create_timeout_s
        while not cls.database.exists(driver):
            if time.monotonic() > deadline:
                raise DeviceError(f"{driver.serial}: {cls.database.path} did not appear within "
                                  f"{cls.create_timeout_s:.0f} s of launching {cls.database.package}")
            time.sleep(0.2)
        driver.home()

    @classmethod
    def insert_sql(cls, items: list[Any]) -> str:
        statements = []
        for item in items:
            row = cls.row(item)
            columns = ", ".join(f"`{c}`" for c in row)
            values = ", ".join(sql_literal(v) for v in row.values())
            statements.append(f"INSERT INTO `{cls.table}` ({columns}) VALUES ({values});")
        return "BEGIN; " + " ".join(statements) + " COMMIT;"

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        if not cls.database.exists(driver):
            cls.create_database(driver)
        driver.shell(f"am force-stop {shlex.quote(cls.database.package)}", check=True)
        driver.shell(f"sqlite3 {shlex.quote(cls.database.path)} {shlex.quote(cls.insert_sql(items))}", check=True)
