"""`emukit build-pairs` end to end on a real virtual device behind the real adb server: the CLI, the store,
resuming after SIGKILL with the exact count, and device faults injected mid-branch.

The fault test decides *when* a fault fires by wrapping the builder's history recorder (a test hook); the
faults themselves are real (console `fault crash|drop|offline`)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from emukit.store import Store

PERSISTENT_FAST = ["copy_direct", "move_direct", "delete_direct"]


def _cli(emukit_cli, adb_server, serial: str, data: Path, *extra: str) -> subprocess.Popen:
    cmd = [*emukit_cli, "build-pairs", "--family", "persistent", "--device", serial,
           "--data-dir", str(data), "--quiet", *extra]
    return subprocess.Popen(cmd, env=adb_server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _pairs_in_db(data: Path) -> int:
    db = data / "emukit.db"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_cli_input_errors_come_before_any_progress(emukit_cli, adb_server, tmp_path):
    """Bad input is refused with a message naming it, and no progress bar is drawn first (the command runs on a
    pseudo-terminal, where rich draws its progress bar; no device is started for any of these)."""
    import pty

    def run(*args: str) -> tuple[int, str]:
        leader, follower = pty.openpty()
        proc = subprocess.Popen([*emukit_cli, "build-pairs", "--family", "persistent",
                                 "--data-dir", str(tmp_path / "data"), *args], env=adb_server.env,
                                stdin=follower, stdout=follower, stderr=follower)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        return proc.wait(60), b"".join(chunks).decode(errors="replace")

    for args, message in ((("--count", "0"), "--count must be at least 1, got 0"),
                          (("--device", "emulator-5999"), "device(s) not attached: emulator-5999"),
                          (("--template", "no_such_template"), "unknown template(s) no_such_template"),
                          (("--db", "postgresql+nosuchdriver://emu:p@localhost/x"), "emu:***@localhost")):
        code, out = run(*args)
        assert code in (1, 2), out
        assert message in out, out
        assert "building pairs" not in out, out


def test_cli_sigkill_and_resume_exact_count(emukit_cli, vdevice, adb_server, tmp_path):
    data = tmp_path / "data"
    args = ["--count", "6", *[a for t in PERSISTENT_FAST for a in ("--template", t)]]
    first = _cli(emukit_cli, adb_server, vdevice.serial, data, *args)
    deadline = time.monotonic() + 240
    while _pairs_in_db(data) < 2:
        assert first.poll() is None, first.stdout.read().decode()
        assert time.monotonic() < deadline, "no pair stored in time"
        time.sleep(0.2)
    os.killpg(first.pid, signal.SIGKILL)  # mid-run, possibly mid-pair
    first.wait(10)
    killed_at = _pairs_in_db(data)
    assert 2 <= killed_at < 6

    second = _cli(emukit_cli, adb_server, vdevice.serial, data, *args)
    out = second.communicate(timeout=400)[0].decode()
    assert second.returncode == 0, out
    assert "strict pairs" in out  # the summary table
    assert f"data dir: {data.resolve()}" in out and f"database: sqlite:///{data.resolve()}/emukit.db" in out
    assert "6 of 6 wanted now stored" in out and f"next:  emukit export --data-dir {data}" in out
    assert "emukit evaluate --pairs" in out
    with Store(data_dir=data) as store:
        pairs = list(store.pairs())
        assert len(pairs) == 6 and len({p.pair_id for p in pairs}) == 6
        assert {p.template for p in pairs} == set(PERSISTENT_FAST)
        assert all(set(p.branches) == {"A", "B"} and p.validation.accepted for p in pairs)
        assert store.audit() == []  # every referenced artifact exists and verifies

    third = _cli(emukit_cli, adb_server, vdevice.serial, data, *args)  # nothing left to do
    out = third.communicate(timeout=120)[0].decode()
    assert third.returncode == 0, out
    with Store(data_dir=data) as store:
        assert store.count_pairs() == 6


def test_cli_builds_into_a_postgresql_store(emukit_cli, vdevice, adb_server, tmp_path, pg_url):
    """``--db postgresql://...`` (no driver named: psycopg 3) on the tests' real PostgreSQL server."""
    data = tmp_path / "data"
    proc = _cli(emukit_cli, adb_server, vdevice.serial, data, "--db", pg_url, "--count", "2", "--template", "copy_direct")
    out = proc.communicate(timeout=300)[0].decode()
    assert proc.returncode == 0, out
    assert "database: " + pg_url.replace("postgresql://", "postgresql+psycopg://", 1) in out
    assert "2 of 2 wanted now stored" in out and not (data / "emukit.db").exists()
    with Store(pg_url, data_dir=data) as store:
        pairs = list(store.pairs())
        assert len(pairs) == 2 and {p.template for p in pairs} == {"copy_direct"}
        assert all(p.validation.accepted for p in pairs) and store.audit() == []
        assert [r.command for r in store.runs()] == ["build-pairs"]


@pytest.mark.parametrize(("fault", "rejected"), [("crash", True), ("offline 12", True), ("drop", False)])
def test_fault_mid_branch_is_rejected_then_retried(pair_builder, vdevice, adb_server, tmp_path, monkeypatch, fault,
                                                  rejected):
    """crash: the next action fails, the attempt is rejected and the slot retried; offline: the device stops
    answering, the attempt is rejected and retried once it is back; drop: the adb server reconnects at once
    and the driver restarts the uiautomator2 server, so the branch goes on and the pair is complete."""
    from emukit.builder import pair as pair_mod
    from emukit.builder.run import BuildOptions
    from emukit.workers import DeviceRequest
    from emukit.device.console import ConsoleClient
    from emukit.templates import load_templates

    fired: list[str] = []
    original_after = pair_mod._HistoryRecorder.after

    def after(self, driver, action):  # fire the fault once, at the 4th action of the first branch
        original_after(self, driver, action)
        if not fired and len(self.steps) == 4:
            fired.append(fault)
            with ConsoleClient.for_serial(driver.serial) as console:
                console.command(f"fault {fault}")

    monkeypatch.setattr(pair_mod._HistoryRecorder, "after", after)
    data = tmp_path / "data"
    options = BuildOptions(templates=load_templates(names=["copy_direct"]), count_per_family=1, seed=3,
                           data_dir=data, devices=DeviceRequest(serials=(vdevice.serial,)), adb_port=adb_server.port)
    runner = pair_builder(options)
    assert fired == [fault]
    with Store(data_dir=data) as store:
        assert store.count_pairs() == 1  # the attempt after the fault succeeded
        rejections = store.rejections()
        if rejected:
            assert len(rejections) == 1
            assert rejections[0].reason in ("action_failed", "device_error")
            assert rejections[0].detail  # the reason names what failed
        else:
            assert rejections == []
        pair = next(store.pairs())
        assert len(pair.branches["A"].history) >= 10 and pair.validation.accepted
        assert store.audit() == []  # nothing half-written
    assert runner.total_done == 1


def test_host_part_rejections_and_store_failures_go_back_to_the_queue(pair_builder, vdevice, adb_server, tmp_path,
                                                                     monkeypatch):
    """The finisher thread checks and stores attempts while the device runs the next one. A pair that fails
    the criteria there is stored as a rejection and its slot retried; a store failure is reported and the
    slot retried; the build still ends with the exact count. The failures are injected by wrapping
    ``assemble_pair`` and ``Store.add_pair`` once each (test hooks); everything else is real."""
    from emukit.builder import run as run_mod
    from emukit.builder.pair import Rejected
    from emukit.builder.run import BuildOptions
    from emukit.workers import DeviceRequest
    from emukit.templates import load_templates

    real_assemble, real_add = run_mod.assemble_pair, Store.add_pair
    injected: list[str] = []

    def assemble(ctx, branches, artifacts, device):
        if "criteria" not in injected:
            injected.append("criteria")
            raise Rejected("validator_pass", "injected: A's outcome did not match the template")
        return real_assemble(ctx, branches, artifacts, device)

    def add_pair(self, record, slot, blobs, **kw):
        if "store" not in injected:
            injected.append("store")
            raise OSError("injected: disk full")
        return real_add(self, record, slot, blobs, **kw)

    monkeypatch.setattr(run_mod, "assemble_pair", assemble)
    monkeypatch.setattr(Store, "add_pair", add_pair)
    data = tmp_path / "data"
    options = BuildOptions(templates=load_templates(names=["copy_direct"]), count_per_family=2, seed=5,
                           data_dir=data, devices=DeviceRequest(serials=(vdevice.serial,)), adb_port=adb_server.port)
    runner = pair_builder(options)
    assert injected == ["criteria", "store"]
    assert runner.total_done == 2
    assert any("OSError: injected: disk full" in e for e in runner.errors)
    with Store(data_dir=data) as store:
        assert store.count_pairs() == 2
        assert [(r.reason, r.attempt) for r in store.rejections()] == [("validator_pass", 0)]
        assert store.audit() == []
