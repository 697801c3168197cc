"""Crash safety: writer processes adding pairs are killed with SIGKILL (at random moments, inside a pair's
transaction, in the middle of an artifact write). Afterwards the store opens, every stored pair is complete
and equal to what was written, every referenced artifact exists and verifies, resumed writers (two
processes racing on the same work keys) add exactly the missing work keys, and re-adding a work key is a
no-op.

Writers are forked from the test process (no interpreter start-up each time) and open their own Store after
the fork. They skip fsync (``durable=False``): a killed process loses nothing the kernel already holds, so
SIGKILL tests the same guarantees either way, faster.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from emukit.store import Store
from tests.store import SEED, TEMPLATE, make_pair

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or not hasattr(os, "fork"),
                                reason="needs POSIX fork and SIGKILL")

SIZE = 30_000  # bytes per screenshot: large enough for kills to land inside artifact writes


def _arm(die_at: str) -> None:
    """Make this process SIGKILL itself at the K-th pair transaction (``commit:K``: rows flushed, COMMIT not
    sent) or the K-th artifact rename (``artifact:K``: temporary file written, not yet renamed)."""
    what, _, k = die_at.partition(":")
    count = [0]

    def hit() -> None:
        count[0] += 1
        if count[0] == int(k):
            os.kill(os.getpid(), signal.SIGKILL)

    if what == "commit":
        from sqlalchemy import event
        from sqlalchemy.orm import Session

        from emukit.store.models import PairRow

        @event.listens_for(Session, "after_flush")
        def _after_flush(session: Session, _ctx: object) -> None:
            if any(isinstance(obj, PairRow) for obj in session.new):
                hit()
    else:
        assert what == "artifact", die_at
        real_replace = os.replace

        def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
            hit()
            real_replace(src, dst)

        os.replace = replace  # type: ignore[assignment]


def _writer(data_dir: str, n: int, die_at: str, conn: Connection, url: str | None = None) -> None:
    """The writer process: resume the build of slots 0..n-1, reporting how many pairs it added."""
    if die_at:
        _arm(die_at)
    store = Store(url, data_dir=data_dir, durable=False)
    conn.send("ready")
    done = store.done_slots(TEMPLATE, SEED)
    added = 0
    for slot in range(n):
        if slot not in done:
            record, artifacts = make_pair(slot, size=SIZE)
            added += store.add_pair(record, slot, artifacts)
    conn.send(added)


class Writer:
    def __init__(self, data_dir: Path, n: int, die_at: str = "", url: str | None = None) -> None:
        self.conn, child = multiprocessing.get_context("fork").Pipe(duplex=False)
        self.proc = multiprocessing.get_context("fork").Process(target=_writer,
                                                                args=(str(data_dir), n, die_at, child, url))
        self.proc.start()
        child.close()
        assert self.conn.poll(60) and self.conn.recv() == "ready"

    def finish(self) -> int:
        """Wait for a writer that is not killed; returns how many pairs it added."""
        assert self.conn.poll(60)
        added = self.conn.recv()
        self.proc.join(60)
        assert self.proc.exitcode == 0
        self.conn.close()
        return added

    def killed(self, *, kill: bool = True, may_finish: bool = False) -> bool:
        """Kill the writer (unless it kills itself); True when SIGKILL is what ended it. With ``may_finish``
        a writer that completed its work before the kill (a fast machine, little work left) is accepted."""
        if kill:
            self.proc.kill()
        self.proc.join(60)
        was_killed = self.proc.exitcode == -signal.SIGKILL
        assert was_killed or (may_finish and self.proc.exitcode == 0), self.proc.exitcode
        self.conn.close()
        return was_killed


def _check(data_dir: Path, url: str | None = None) -> set[int]:
    """The store opens and is sound; every pair equals what the writer built. Returns the done slots."""
    with Store(url, data_dir=data_dir, durable=False) as store:
        assert store.audit() == []
        done = store.done_slots(TEMPLATE, SEED)
        assert store.count_pairs() == len(done)
        for record in store.pairs():
            slot = int(record.pair_id.rsplit("-", 1)[1])
            assert record == make_pair(slot, size=SIZE)[0]
        assert store.artifacts.verify_all() == []
        return done


def test_writers_killed_at_random_moments(tmp_path: Path):
    n, rng = 32, random.Random(20240601)
    done: set[int] = set()
    kills = 0
    for _ in range(5):
        writer = Writer(tmp_path, n)
        time.sleep(rng.uniform(0.0, 0.3))
        kills += writer.killed(may_finish=True)
        now = _check(tmp_path)
        assert now >= done  # nothing committed is ever lost
        done = now
    assert kills >= 1  # at least one writer really died mid-build
    # Resume with two writers racing on the same work keys: together they add exactly the missing ones.
    first, second = Writer(tmp_path, n), Writer(tmp_path, n)
    assert first.finish() + second.finish() == n - len(done)
    assert _check(tmp_path) == set(range(n))
    with Store(data_dir=tmp_path, durable=False) as store:
        for slot in range(n):  # re-adding a done work key is a no-op
            record, artifacts = make_pair(slot, size=SIZE)
            assert store.add_pair(record, slot, artifacts) is False
        assert store.count_pairs() == n and store.summary()[TEMPLATE].accepted == n


@pytest.mark.parametrize("die_at", ["commit:3", "artifact:40"])
def test_writer_killed_inside_a_pair(tmp_path: Path, die_at: str):
    Writer(tmp_path, 6, die_at).killed(kill=False)
    assert _check(tmp_path) == {0, 1}  # a pair has 16 artifacts: the 40th belongs to the third pair
    with Store(data_dir=tmp_path, durable=False) as store:
        orphans = {sha for sha, _ext, _path in store.artifacts.objects()} - store.referenced_artifacts()
        assert len(orphans) == (16 if die_at.startswith("commit") else 7)  # the third pair's, harmless
        leftovers = list(store.artifacts.root.rglob(".*.tmp"))
        assert len(leftovers) == (1 if die_at.startswith("artifact") else 0)  # a killed rename's temp file
        for slot in range(6):  # resume
            record, artifacts = make_pair(slot, size=SIZE)
            assert store.add_pair(record, slot, artifacts) is (slot >= 2)
        assert store.gc_artifacts(grace_s=0) == leftovers
    assert _check(tmp_path) == set(range(6))
