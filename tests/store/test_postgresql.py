"""The store on a real PostgreSQL server (started by the tests, see ``tests/postgres.py``): plain
``postgresql://`` URLs use psycopg 3, pairs round-trip exactly, several writer processes racing on the same
work keys store each once, a writer SIGKILLed inside a pair's transaction loses nothing committed and leaves
only harmless orphan artifacts, and the store audits clean after resuming."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, text

from emukit.store import Store
from tests.store import SEED, TEMPLATE, make_pair, make_rejection
from tests.store.test_crash_safety import SIZE, Writer, _check


def test_a_pair_round_trips_and_the_schema_is_postgresql_native(pg_url: str, tmp_path: Path):
    with Store(pg_url, data_dir=tmp_path, durable=False) as store:
        assert store.url.startswith("postgresql+psycopg://")
        assert store.engine.dialect.name == "postgresql"
        run = store.start_run("build-pairs", {"count": 2, "path": tmp_path})
        for slot in (0, 1):
            record, artifacts = make_pair(slot)
            assert store.add_pair(record, slot, artifacts, run_id=run)
            assert not store.add_pair(record, slot, artifacts, run_id=run)  # the work key holds it already
        store.add_rejection(make_rejection(2, "state_same"), 2, run_id=run)
        store.finish_run(run, "ok")
        assert [r for r in store.pairs()] == [make_pair(0)[0], make_pair(1)[0]]
        assert store.summary()[TEMPLATE].accepted == 2 and store.rejection_counts(TEMPLATE, SEED) == {2: 1}
        assert store.runs()[0].finished_at.tzinfo is not None and store.audit() == []
        with store.engine.connect() as conn:
            columns = {c["name"]: c["type"] for c in inspect(conn).get_columns("runs")}
            assert "TIMESTAMP" in str(columns["started_at"]) and "JSON" in str(columns["args"])
            assert conn.execute(text("SELECT data_type FROM information_schema.columns WHERE "
                                     "table_name = 'pairs' AND column_name = 'seed'")).scalar() == "bigint"


def test_writers_race_and_one_is_killed_inside_a_pair(pg_url: str, tmp_path: Path):
    n = 12
    Writer(tmp_path, n, "commit:3", url=pg_url).killed(kill=False)  # dies with its third pair's rows flushed
    assert _check(tmp_path, pg_url) == {0, 1}
    with Store(pg_url, data_dir=tmp_path, durable=False) as store:
        orphans = {sha for sha, _ext, _path in store.artifacts.objects()} - store.referenced_artifacts()
        assert len(orphans) == 16  # the third pair's artifacts, written before its transaction
    writers = [Writer(tmp_path, n, url=pg_url) for _ in range(3)]  # three builders on the same work keys
    assert sum(w.finish() for w in writers) == n - 2
    assert _check(tmp_path, pg_url) == set(range(n))
    with Store(pg_url, data_dir=tmp_path, durable=False) as store:
        assert store.count_pairs() == n and store.summary()[TEMPLATE].accepted == n
        for slot in range(n):
            record, artifacts = make_pair(slot, size=SIZE)
            assert store.add_pair(record, slot, artifacts) is False
