"""Schema migrations (Alembic, ``emukit/store/migrations``): a store written by the code before migrations
existed (``fixtures/store_schema_1.sql``, a SQLite dump of a store that code made: one run, one template, two
pairs, one rejection) upgrades in place with every row unchanged; the migrated schema equals the models on
SQLite and on a real PostgreSQL server; a database at a revision this code does not know is refused and left
untouched; several processes opening one new PostgreSQL database at once migrate it exactly once."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text

import emukit.store.migrations as migrations
from emukit.store import Store, StoreError, schema
from emukit.store.engine import create_store_engine
from emukit.store.models import Base
from tests.store import SEED, TEMPLATE, make_pair, make_rejection

FIXTURE = Path(__file__).parent / "fixtures" / "store_schema_1.sql"
TABLES = ("store_meta", "runs", "templates", "pairs", "branches", "steps", "rejections")


def _rows(db: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db) as conn:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}


def _old_store(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    db = data_dir / "emukit.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(FIXTURE.read_text())
    return db


def test_head_is_the_only_head_of_the_migrations():
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrations.__file__).parent))
    assert ScriptDirectory.from_config(cfg).get_heads() == [schema.HEAD]


def test_a_store_made_before_migrations_upgrades_in_place(tmp_path: Path):
    db = _old_store(tmp_path / "data")
    before = _rows(db)
    assert len(before["pairs"]) == 2 and len(before["steps"]) == 10 and before["store_meta"] == [
        ("schema_version", "1")]
    with Store(data_dir=tmp_path / "data", durable=False) as store:
        with store.engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [schema.HEAD]
        after = _rows(db)
        # every row as the old code wrote it; the columns later revisions added come after, empty (a pair's
        # device kind: "unknown", nobody recorded it)
        added = {"pairs": (None, "unknown", None),  # 0002: provenance; 0003: device_kind, built_on
                 "branches": (None,)}  # 0002: shared_steps
        for table, rows in before.items():
            if table == "store_meta":
                assert after[table] == [("schema_version", str(schema.SCHEMA_VERSION))]
                continue
            width = len(rows[0]) if rows else 0
            assert [r[:width] for r in after[table]] == rows, table
            assert all(r[width:] == added.get(table, ()) for r in after[table]), table
        assert list(store.pairs()) == [make_pair(0)[0], make_pair(1)[0]]
        assert {p.built_on.kind for p in store.pairs()} == {"unknown"}
        assert [p.pair_id for p in store.pairs(kinds=("unknown",))] == [make_pair(0)[0].pair_id,
                                                                        make_pair(1)[0].pair_id]
        assert list(store.pairs(kinds=("virtual-deterministic",))) == []
        assert [r.reason for r in store.rejections()] == ["state_same"]
        assert store.runs()[0].command == "build-pairs" and store.runs()[0].status == "ok"
        assert store.audit(verify_artifacts=False) == []
        record, artifacts = make_pair(3)  # and the upgraded store takes new work
        assert store.add_pair(record, 3, artifacts) and store.count_pairs() == 3
        store.add_rejection(make_rejection(4, "outcome_same"), 4)
        assert store.rejection_counts(TEMPLATE, SEED) == {2: 1, 4: 1}
    with Store(data_dir=tmp_path / "data", durable=False) as again:  # a second open finds it current
        assert again.count_pairs() == 3


def _differences(url: str) -> list:
    engine, _ = create_store_engine(url)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()


def test_the_migrated_schema_is_the_models_on_sqlite(tmp_path: Path):
    with Store(data_dir=tmp_path / "new", durable=False) as store:
        assert _differences(store.engine.url.render_as_string(hide_password=False)) == []
    _old_store(tmp_path / "old")
    Store(data_dir=tmp_path / "old", durable=False).close()
    assert _differences(f"sqlite:///{tmp_path / 'old' / 'emukit.db'}") == []


def test_the_migrated_schema_is_the_models_on_postgresql(pg_url: str, tmp_path: Path):
    Store(pg_url, data_dir=tmp_path, durable=False).close()
    assert _differences(pg_url) == []


def test_a_revision_this_code_does_not_know_is_refused_untouched(tmp_path: Path):
    Store(data_dir=tmp_path, durable=False).close()
    db = tmp_path / "emukit.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0999'")
    before = _rows(db)
    with pytest.raises(StoreError, match=r"is at schema revision 0999, which this emukit \(.*\) does not know "
                                         r"\(newest known: 0003\): upgrade emukit"):
        Store(data_dir=tmp_path, durable=False)
    assert _rows(db) == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [("0999",)]


def test_emukit_tables_without_a_schema_record_are_refused(tmp_path: Path):
    db = _old_store(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM store_meta")
    with pytest.raises(StoreError, match="has emukit tables but schema version None and no alembic_version"):
        Store(data_dir=tmp_path, durable=False)


def _open(url: str, data_dir: str, barrier: multiprocessing.synchronize.Barrier) -> None:  # type: ignore[name-defined]
    barrier.wait(30)
    Store(url, data_dir=data_dir, durable=False).close()


def test_processes_opening_a_new_postgresql_database_at_once_migrate_it_once(pg_url: str, tmp_path: Path):
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_open, args=(pg_url, str(tmp_path), barrier)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    engine, _ = create_store_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [schema.HEAD]
            assert conn.execute(text("SELECT value FROM store_meta")).scalars().all() == [str(schema.SCHEMA_VERSION)]
    finally:
        engine.dispose()
