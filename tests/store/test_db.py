"""The database API: exact round trip of pairs, work-key idempotence (resume), rejections and summary, runs
and templates, URLs (default file, an explicit second SQLite URL, errors that hide passwords), concurrent
threads, a second Store on the same data dir, and the integrity audit.

These run on SQLite files; the same API against a real PostgreSQL server is in ``test_postgresql.py``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import Boolean, delete, inspect, text

from emukit.records import CRITERIA, Rejection, Validation
from emukit.store import Store, StoreError, db, redact
from emukit.store.models import PairRow, StepRow, StoreMeta
from tests.store import SEED, TEMPLATE, make_pair, make_rejection


@pytest.fixture
def store(tmp_path: Path):
    with Store(data_dir=tmp_path / "data", durable=False) as s:  # no fsyncs: fast; see test_durable_default
        yield s


def add(store: Store, slot: int, **kw) -> bool:
    record, artifacts = make_pair(slot, **kw)
    return store.add_pair(record, slot, artifacts)


def test_default_url_is_a_wal_sqlite_file_in_the_data_dir(store: Store):
    assert store.url == f"sqlite:///{(store.data_dir.resolve() / 'emukit.db').as_posix()}"
    assert (store.data_dir / "emukit.db").is_file()
    with store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
    assert set(inspect(store.engine).get_table_names()) == {
        "store_meta", "runs", "templates", "pairs", "branches", "steps", "rejections", "alembic_version"}


def test_durable_default(tmp_path: Path, store: Store):
    with Store(data_dir=tmp_path / "durable") as durable, durable.engine.connect() as conn:
        assert durable.artifacts.durable and conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
    with store.engine.connect() as conn:
        assert not store.artifacts.durable and conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1


def test_schema_compiles_for_postgresql():
    """No server here, but the DDL PostgreSQL would get is checked: portable types, named constraints."""
    from sqlalchemy.dialects import postgresql
    from sqlalchemy.schema import CreateIndex, CreateTable

    from emukit.store.models import Base

    ddl = "\n".join(str(CreateTable(t).compile(dialect=postgresql.dialect()))
                    + "".join(str(CreateIndex(i).compile(dialect=postgresql.dialect())) for i in t.indexes)
                    for t in Base.metadata.sorted_tables)
    assert "seed BIGINT NOT NULL" in ddl and "params JSON NOT NULL" in ddl
    assert "TIMESTAMP WITH TIME ZONE" in ddl and "BOOLEAN" in ddl
    assert "CONSTRAINT uq_pairs_work_key UNIQUE (template, seed, slot)" in ddl
    assert "CREATE INDEX ix_rejections_template_seed_slot" in ddl


def test_one_boolean_column_per_criterion():
    booleans = {c.name for c in PairRow.__table__.columns if isinstance(c.type, Boolean)}
    assert booleans == set(CRITERIA)


def test_pairs_round_trip_exactly(store: Store):
    originals = [make_pair(slot)[0] for slot in range(4)]
    for slot in range(4):
        assert add(store, slot)
    back = list(store.pairs())
    assert back == originals
    assert [p.model_dump(mode="json") for p in back] == [p.model_dump(mode="json") for p in originals]
    assert store.get_pair(originals[2].pair_id) == originals[2]
    assert store.get_pair("nope") is None
    for record in back:
        for branch in record.branches.values():
            for step in branch.history:
                assert store.artifacts.get(step.observation.screenshot, "png").startswith(b"\x89PNG")


def test_pairs_are_read_in_batches_and_filtered(store: Store, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(db, "_BATCH", 3)
    for slot in range(7):
        add(store, slot, family="clipboard" if slot % 2 else "persistent", template=f"t{slot % 2}")
    assert [p.pair_id for p in store.pairs()] == [make_pair(s, template=f"t{s % 2}")[0].pair_id for s in range(7)]
    assert [p.seed for p in store.pairs(family="clipboard")] == [SEED] * 3
    assert len(list(store.pairs(template="t0"))) == 4
    assert store.count_pairs() == 7 and store.count_pairs(family="persistent") == 4
    assert store.count_pairs(family="persistent", template="t1") == 0


def test_work_key_makes_add_idempotent(store: Store):
    record, artifacts = make_pair(1)
    assert store.add_pair(record, 1, artifacts) is True
    assert store.add_pair(record, 1, artifacts) is False
    # Another pair for the same work key writes nothing: not even its artifacts.
    other, other_artifacts = make_pair(1, size=300)
    other = other.model_copy(update={"pair_id": "other"})
    assert store.add_pair(other, 1, other_artifacts) is False
    assert not any(store.artifacts.exists(sha, ext) for sha, (_d, ext) in other_artifacts.items())
    assert store.count_pairs() == 1 and store.get_pair("other") is None
    assert store.done_slots(TEMPLATE, SEED) == {1}
    assert store.has_pair(TEMPLATE, SEED, 1) and not store.has_pair(TEMPLATE, SEED + 1, 1)
    assert add(store, 2) and add(store, 1, seed=SEED + 1)
    assert store.done_slots(TEMPLATE, SEED) == {1, 2} and store.done_slots(TEMPLATE, SEED + 1) == {1}
    assert store.done_slots("other_template", SEED) == set()


def test_pair_id_under_another_work_key_is_an_error(store: Store):
    record, artifacts = make_pair(1)
    store.add_pair(record, 1, artifacts)
    with pytest.raises(StoreError, match=rf"pair_id {record.pair_id} is already stored under work key"):
        store.add_pair(record, 2, artifacts)
    assert store.count_pairs() == 1


def test_malformed_pairs_are_refused(store: Store):
    record, artifacts = make_pair(0)
    failing = record.model_copy(update={"validation": Validation(
        stable_boundary=True, observation_match=True, state_differs=False, outcome_differs=True,
        validator_pass=False)})
    with pytest.raises(StoreError, match="fails state_differs, validator_pass; store it as a rejection"):
        store.add_pair(failing, 0, artifacts)
    one = record.model_copy(update={"branches": {"A": record.branches["A"]}})
    with pytest.raises(StoreError, match="needs A and B"):
        store.add_pair(one, 0, artifacts)
    swapped = record.model_copy(update={"branches": {"A": record.branches["B"], "B": record.branches["A"]}})
    with pytest.raises(StoreError, match="stored under 'A' is named 'B'"):
        store.add_pair(swapped, 0, artifacts)
    with pytest.raises(StoreError, match="slot must be >= 0"):
        store.add_pair(record, -1, artifacts)
    assert store.count_pairs() == 0 and list(store.artifacts.objects()) == []


def test_artifacts_must_match_and_be_complete(store: Store):
    record, artifacts = make_pair(0)
    some_sha = record.branches["B"].next_observation.screenshot
    partial = {k: v for k, v in artifacts.items() if k != some_sha}
    with pytest.raises(StoreError, match=rf"refers to 1 artifact\(s\) neither given nor stored: .*{some_sha}\.png"):
        store.add_pair(record, 0, partial)
    wrong = dict(artifacts)
    wrong[some_sha] = (b"not the screenshot", "png")
    with pytest.raises(StoreError, match=f"given as {some_sha}"):
        store.add_pair(record, 0, wrong)
    assert store.count_pairs() == 0 and list(store.artifacts.objects()) == []
    # Objects already in the store may be left out of the dict.
    store.artifacts.put(*artifacts[some_sha])
    assert store.add_pair(record, 0, partial)
    assert store.audit() == []


def test_rejections_and_summary(store: Store):
    add(store, 0)
    add(store, 1)
    add(store, 0, template="move_direct")
    for slot, reason in ((2, "unstable_boundary"), (2, "unstable_boundary"), (3, "observation_mismatch")):
        store.add_rejection(make_rejection(slot, reason), slot)
    store.add_rejection(make_rejection(0, "device_lost", template="paste", family="clipboard"), 0)
    rejections = store.rejections(template=TEMPLATE)
    assert [(r.slot, r.reason) for r in rejections] == [(2, "unstable_boundary"), (2, "unstable_boundary"),
                                                        (3, "observation_mismatch")]
    assert rejections[0].detail == "slot 2 failed: unstable_boundary" and rejections[0].created_at.tzinfo
    assert Rejection(**rejections[0].model_dump(exclude={"id", "slot", "run_id", "created_at"})) \
        == make_rejection(2, "unstable_boundary")  # the record round-trips
    assert len(store.rejections(reason="unstable_boundary", slot=2)) == 2
    assert store.rejections(family="clipboard")[0].template == "paste"
    assert store.rejection_counts(TEMPLATE, SEED) == {2: 2, 3: 1}
    summary = store.summary()
    assert list(summary) == ["copy_direct", "move_direct", "paste"]
    copy = summary["copy_direct"]
    assert (copy.accepted, copy.rejected, copy.attempted) == (2, 3, 5)
    assert copy.rejected_by_reason == {"unstable_boundary": 2, "observation_mismatch": 1}
    assert (summary["move_direct"].accepted, summary["move_direct"].rejected) == (1, 0)
    assert summary["paste"].model_dump() == {"template": "paste", "family": "clipboard", "accepted": 0,
                                             "rejected": 1, "rejected_by_reason": {"device_lost": 1},
                                             "attempted": 1}


def test_runs_and_templates(store: Store):
    run_id = store.start_run("build-pairs", {"templates": ["copy_direct"], "n": 3, "out": Path("/x")})
    record, artifacts = make_pair(0)
    store.add_pair(record, 0, artifacts, run_id=run_id)
    store.add_rejection(make_rejection(1, "x"), 1, run_id=run_id)
    store.finish_run(run_id, "ok")
    (run,) = store.runs()
    assert (run.id, run.command, run.args, run.status) == (run_id, "build-pairs",
                                                           {"templates": ["copy_direct"], "n": 3, "out": "/x"}, "ok")
    assert run.finished_at is not None and run.finished_at >= run.started_at and run.emukit_version
    assert store.rejections()[0].run_id == run_id
    with pytest.raises(StoreError, match="no run 999"):
        store.finish_run(999)
    first = store.upsert_template("copy_direct", "persistent", "11" * 32, "name: copy_direct\n")
    assert store.upsert_template("copy_direct", "persistent", "11" * 32, "name: copy_direct\n") == first
    assert store.upsert_template("copy_direct", "persistent", "22" * 32, "name: copy_direct # v2\n") != first
    assert store.template_source("copy_direct", "22" * 32) == "name: copy_direct # v2\n"
    assert store.template_source("copy_direct", "33" * 32) is None


def test_explicit_second_sqlite_url(tmp_path: Path):
    """Any SQLAlchemy URL is used as given; the artifacts stay in the data dir."""
    db_file = tmp_path / "elsewhere" / "other.db"
    db_file.parent.mkdir()
    with Store(f"sqlite:///{db_file.as_posix()}", data_dir=tmp_path / "data") as store:
        assert add(store, 0)
        assert store.url == f"sqlite:///{db_file.as_posix()}"
    assert db_file.is_file() and not (tmp_path / "data" / "emukit.db").exists()
    assert any((tmp_path / "data" / "artifacts").rglob("*.png"))
    with Store(f"sqlite:///{db_file.as_posix()}", data_dir=tmp_path / "data") as again:
        assert again.count_pairs() == 1 and again.audit() == []
    with Store("sqlite://", data_dir=tmp_path / "mem") as memory:  # in-memory: one shared connection
        assert add(memory, 0) and memory.count_pairs() == 1


@pytest.mark.parametrize("url, message", [
    ("not a url", "invalid database URL 'not a url'"),
    ("nosuchdb://u:hunter2@h/db", r"database URL 'nosuchdb://u:\*\*\*@h/db': unknown database kind"),
    ("postgresql://u:hunter2@127.0.0.1:1/db",  # no server on port 1; plain postgresql:// means psycopg 3
     r"cannot open database postgresql\+psycopg://u:\*\*\*@127.0.0.1:1/db: connection failed"),
    ("sqlite:////nonexistent-dir/sub/x.db", "cannot open database sqlite:////nonexistent-dir/sub/x.db"),
])
def test_bad_urls_are_named_without_password(tmp_path: Path, url: str, message: str):
    with pytest.raises(StoreError, match=message) as err:
        Store(url, data_dir=tmp_path)
    assert "hunter2" not in str(err.value)


def test_redact():
    assert redact("postgresql://emu:pw@db.example:5432/emukit") == "postgresql://emu:***@db.example:5432/emukit"
    assert redact("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"


def test_a_short_password_is_masked_only_where_it_is_the_password(tmp_path: Path):
    """A one-letter password ``p`` must not garble ``psycopg`` in the driver error (the driver for
    ``+nosuchdriver`` cannot exist, so the error text is real, from SQLAlchemy)."""
    from sqlalchemy.engine import make_url

    from emukit.store.engine import scrub

    url = make_url("postgresql+psycopg://emu:p@db.example/emukit")
    text = "No module named 'psycopg'; postgresql+psycopg://emu:p@db.example/emukit; dsn password=p port=5432"
    assert scrub(text, url) == ("No module named 'psycopg'; postgresql+psycopg://emu:***@db.example/emukit; "
                                "dsn password=*** port=5432")
    encoded = make_url("postgresql://emu:s%40cret@h/db")
    assert scrub("at postgresql://emu:s%40cret@h/db with password='s@cret'", encoded) == \
        "at postgresql://emu:***@h/db with password='***'"
    with pytest.raises(StoreError) as err:
        Store("postgresql+nosuchdriver://emu:p@localhost/emukit", data_dir=tmp_path)
    assert "***syco" not in str(err.value) and "emu:***@localhost" in str(err.value)


def test_newer_schema_is_refused(tmp_path: Path):
    with Store(data_dir=tmp_path) as store, store._session(write=True) as s:
        s.get(StoreMeta, "schema_version").value = "99"
    with pytest.raises(StoreError, match="has schema version 99; .* knows version 3: upgrade emukit"):
        Store(data_dir=tmp_path)


def test_two_threads_add_different_pairs(store: Store):
    errors: list[BaseException] = []

    def work(slots: range) -> None:
        try:
            for slot in slots:
                assert add(store, slot)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(range(i, 30, 2),)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count_pairs() == 30 and store.done_slots(TEMPLATE, SEED) == set(range(30))
    assert store.audit() == []


def test_threads_racing_on_the_same_work_keys(store: Store):
    results: list[list[bool]] = [[], [], []]
    barrier = threading.Barrier(3)

    def work(i: int) -> None:
        barrier.wait()
        results[i] = [add(store, slot) for slot in range(12)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [sum(col) for col in zip(*results)] == [1] * 12  # every work key won exactly once
    assert store.count_pairs() == 12


def test_second_store_on_the_same_data_dir_sees_pairs(tmp_path: Path):
    first = Store(data_dir=tmp_path, durable=False)
    second = Store(data_dir=tmp_path, durable=False)
    assert add(first, 0) and second.count_pairs() == 1
    assert add(second, 1) and first.done_slots(TEMPLATE, SEED) == {0, 1}
    assert list(second.pairs()) == list(first.pairs()) == [make_pair(0)[0], make_pair(1)[0]]
    assert not add(second, 0)
    first.close()
    second.close()
    with sqlite3.connect(tmp_path / "emukit.db") as conn:  # plain sqlite3 reads it too
        assert conn.execute("select count(*) from branches").fetchone() == (4,)


def test_audit_finds_missing_steps_and_bad_artifacts(store: Store):
    for slot in range(3):
        add(store, slot)
    assert store.audit() == []
    record = make_pair(1)[0]
    step_png = record.branches["A"].history[0].observation.screenshot
    os.remove(store.artifacts.path(step_png, "png"))
    next_xml = record.branches["B"].next_observation.hierarchy
    store.artifacts.path(next_xml, "xml").write_bytes(b"<tampered/>")
    with store._session(write=True) as s:
        s.execute(delete(StepRow).where(StepRow.index == 1, StepRow.screenshot == record.branches["A"]
                                        .history[1].observation.screenshot))
    problems = store.audit()
    assert len(problems) == 3, problems
    assert f"pair {record.pair_id} branch A: steps [0, 2], expected 0..2" in problems
    assert any(f"{step_png}.png is missing" in p for p in problems)
    assert any(f"{next_xml}.xml is corrupt" in p for p in problems)
    assert len(store.audit(verify_artifacts=False)) == 1


def test_gc_removes_only_unreferenced_artifacts(store: Store):
    add(store, 0)
    orphan = store.artifacts.put(b"orphan of a crashed add_pair", "png")
    assert store.gc_artifacts(grace_s=3600) == []  # too young to be sure
    assert store.gc_artifacts(grace_s=0) == [store.artifacts.path(orphan, "png")]
    assert store.audit() == [] and len(store.referenced_artifacts()) == len(list(store.artifacts.objects()))


def test_database_errors_become_store_errors(store: Store):
    with store.engine.begin() as conn:
        conn.execute(text("DROP TABLE rejections"))
    with pytest.raises(StoreError, match=r"database sqlite:///.*emukit.db: no such table: rejections"):
        store.rejections()
