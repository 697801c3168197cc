"""Several builders, one PostgreSQL store: three ``emukit build-pairs`` processes (standing for three machines:
each its own data dir and embedded virtual device, one shared artifact root) share one request through the
store's job queue on the tests' real PostgreSQL server. One builder is SIGKILLed while it holds a job; the
others take its jobs after the heartbeat timeout, and the run ends with exactly the requested count, no
duplicate pair and no orphaned artifact. Nothing is mocked."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import psycopg

from emukit.builder.run import BuildOptions, PairRunner, make_runner
from emukit.builder.shared import SharedPairRunner, open_jobs
from emukit.device.ownership import leftovers, reap
from emukit.store import Store
from emukit.templates import load_templates

TEMPLATES = ["copy_direct", "move_direct", "delete_direct"]
COUNT = 9  # 3 pairs of each template
HEARTBEAT_S = 5


class _Builder:
    """One builder process; its output is collected by a thread so the test can read it while it runs."""

    def __init__(self, emukit_cli, adb_server, data: Path, artifacts: Path, pg_url: str) -> None:
        cmd = [*emukit_cli, "build-pairs", "--family", "persistent", "--count", str(COUNT),
               *[a for t in TEMPLATES for a in ("--template", t)], "--devices", "1", "--data-dir", str(data),
               "--artifacts", str(artifacts), "--db", pg_url, "--queue-heartbeat", str(HEARTBEAT_S), "--quiet"]
        self.proc = subprocess.Popen(cmd, env=adb_server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def worker_id(self) -> str | None:
        for line in self.lines:
            if "is queue worker " in line:
                return line.split("is queue worker ")[1].split()[0]
        return None

    def finish(self, timeout: float) -> int:
        code = self.proc.wait(timeout)
        self._reader.join(10)
        return code


def test_three_builders_share_a_request_and_one_is_killed(emukit_cli, adb_server, tmp_path, pg_url):
    artifacts = tmp_path / "shared-artifacts"
    builders = [_Builder(emukit_cli, adb_server, tmp_path / f"machine{i}", artifacts, pg_url) for i in range(3)]
    victim = builders[1]
    deadline = time.monotonic() + 300
    held: list[int] = []
    with psycopg.connect(pg_url, autocommit=True) as conn:
        while not held:  # kill the victim once pairs are landing and it holds a job
            assert victim.proc.poll() is None, victim.output
            assert time.monotonic() < deadline, "the victim never held a job: " + victim.output
            wid = victim.worker_id()
            if wid is not None and conn.execute("SELECT to_regclass('pgqueuer')").fetchone()[0] is not None:
                stored = conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
                if stored >= 2:
                    held = [r[0] for r in conn.execute(
                        "SELECT id FROM pgqueuer WHERE status = 'picked' AND queue_manager_id = %s", (wid,))]
            time.sleep(0.1)
        os.killpg(victim.proc.pid, signal.SIGKILL)  # mid-job
        victim.finish(20)
        # what `emukit devices --reap` does on the dead builder's machine: its device is stopped, its records go
        # (leftovers are the devices whose owner died; the survivors' devices are not among them)
        for item in leftovers():
            reap(item)
        killed_at = conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
        assert killed_at < COUNT

        outputs = []
        for b in (builders[0], builders[2]):
            code = b.finish(600)
            outputs.append(b.output)
            assert code == 0, b.output
        for out in outputs:
            assert f"{COUNT} of {COUNT} wanted now stored" in out, out
            assert "shared work: plan emukit.pairs." in out, out

        # the jobs the victim held were finished by the survivors, and the plan left nothing on the queue
        done = {r[0] for r in conn.execute(
            "SELECT job_id FROM pgqueuer_log WHERE status = 'successful' AND job_id = ANY(%s)", (held,))}
        assert done == set(held)
        assert conn.execute("SELECT count(*) FROM pgqueuer").fetchone()[0] == 0
        keys = conn.execute("SELECT template, seed, slot FROM pairs").fetchall()
        assert len(keys) == len(set(keys)) == COUNT
        jobs_done = sum(int(out.split("; ")[1].split()[0]) for out in
                        (line for o in outputs for line in o.splitlines() if line.startswith("shared work:")))
        assert jobs_done >= COUNT - killed_at  # the survivors did at least what was left

    with Store(pg_url, data_dir=tmp_path / "machine0", artifacts_dir=artifacts) as store:
        pairs = list(store.pairs())
        assert len(pairs) == COUNT and len({p.pair_id for p in pairs}) == COUNT
        assert {p.template: sum(q.template == p.template for q in pairs) for p in pairs} == {t: 3 for t in TEMPLATES}
        assert store.audit() == []  # every referenced artifact exists and verifies
        assert store.artifacts.unreferenced(store.referenced_artifacts()) == []  # no orphan, no temporary file
    for i in range(3):  # artifacts went to the shared root only
        assert not (tmp_path / f"machine{i}" / "artifacts").exists()


def test_a_late_builder_finds_nothing_to_do_and_sqlite_stays_local(adb_server, tmp_path, pg_url):
    """The plan's jobs are computed from the store: a complete store gives no job (a builder started after
    the others finished exits without building), a partly built one only the missing pairs; and the SQLite
    default still plans the work in-process."""
    templates = load_templates(names=["copy_direct"])
    options = BuildOptions(templates=templates, count_per_family=3, data_dir=tmp_path / "d", db_url=pg_url)
    with Store(pg_url, data_dir=tmp_path / "d") as store:
        runner = make_runner(options, store)
        assert isinstance(runner, SharedPairRunner)
        assert open_jobs(runner.progress) == [("copy_direct", 0), ("copy_direct", 1), ("copy_direct", 2)]
        tp = runner.progress["copy_direct"]
        tp.done = {1, 4}  # slot 4 is in job 1's chain (1, 4, 7, ...): a local build's replacement
        assert open_jobs(runner.progress) == [("copy_direct", 0)]
        tp.done = {0, 1, 2}
        assert open_jobs(runner.progress) == []
    local = BuildOptions(templates=templates, count_per_family=3, data_dir=tmp_path / "s")
    with Store(data_dir=tmp_path / "s") as store:
        runner = make_runner(local, store)
        assert type(runner) is PairRunner
