"""The nightly rebuild end to end: real ``emukit nightly`` processes with an embedded virtual device behind the
tests' adb server (standing for the KVM workstation's AVDs, which this machine cannot run). A night killed
midway resumes without redoing finished steps, a second night started while one runs is refused, a night
with fewer pairs than the previous good one is a regression (exit 1), and the reports say so. Nothing is
mocked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emukit.errors import ConfigError
from emukit.nightly.compare import NightMetrics, TemplateMetrics, compare
from emukit.nightly.config import Snapshots, Thresholds, load_config
from emukit.nightly.run import _spec_hashes, plan_steps, previous_good, prune
from tests.nightly.helpers import lean_checks
from tests.nightly.helpers import nightly as _nightly
from tests.nightly.helpers import state as _state

CONFIG = """\
reports: reports
devices:
  virtual: 1
build:
  families:
    persistent: {count}
  templates: [copy_direct]
suites:
  - name: d-stress
    count: 1
    family: persistent
audits:
  stability:
    per_template: 1
    repeats: 1
tasks:
  verify: [file_delete_then_note_01]
thresholds:
  max_time_per_pair_increase: 20  # two pairs' build time is mostly device start: too noisy to gate on here
"""

#: the later nights of the test compare with the first: the steps whose figures the comparison reads (build,
#: stability) and the export, none of the other audits, suites or task checks (night 1 runs every step)
LEAN = CONFIG.replace("""suites:
  - name: d-stress
    count: 1
    family: persistent
audits:
  stability:
    per_template: 1
    repeats: 1
tasks:
  verify: [file_delete_then_note_01]
""", lean_checks("\n    per_template: 1\n    repeats: 1"))

@pytest.mark.timeout(600)  # three nights of emukit subprocesses, beside other workers
def test_nights_resume_lock_compare_and_report(emukit_cli, adb_server, vdevice, tmp_path):
    """``vdevice``: a device attached to the same adb server that the night must leave alone (``virtual``
    means every step starts its own)."""
    config = tmp_path / "nightly.yaml"
    config.write_text(CONFIG.format(count=2))
    reports = tmp_path / "reports"
    first = reports / "2026-12-01"

    # night 1: killed once its build step finished, while another start is refused by the lock
    proc = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-01", wait=False)
    deadline = time.monotonic() + 300
    while _state(first).get("steps", {}).get("build-persistent", {}).get("status") != "ok":
        assert proc.poll() is None, proc.stdout.read()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    busy = _nightly(emukit_cli, adb_server, config)
    assert busy.returncode == 3 and "another night is running" in busy.stdout, busy.stdout
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(20)
    assert _state(first)["status"] == "running"

    resumed = _nightly(emukit_cli, adb_server, config)  # no --night: the unfinished night is found and resumed
    assert resumed.returncode == 0, resumed.stdout
    assert "resumed night 2026-12-01" in resumed.stdout and "PASS" in resumed.stdout
    state = _state(first)
    assert state["status"] == "finished" and len(state["resumed_at"]) == 1
    assert state["steps"]["build-persistent"]["runs"] == 1  # not built again
    assert all(s["status"] == "ok" for s in state["steps"].values())
    assert set(state["steps"]) == {"build-persistent", "suite-d-stress", "audit-release", "audit-stability",
                                   "export", "audit-replay", "audit-shortcuts", "audit-diversity",
                                   "audit-split-d-stress", "tasks-verify"}
    report = json.loads((first / "report.json").read_text())
    assert report["ok"] is True and report["previous"] is None and report["pairs"] == 2
    assert "build-persistent" in report["skipped_steps"]
    assert report["stability"]["branches"] >= 2 and report["stability"]["stable"] == report["stability"]["branches"]
    assert report["templates"]["copy_direct"]["accepted"] == 2
    assert (first / "export" / "pairs.jsonl").exists()
    assert "PASS" in (first / "report.html").read_text()

    # night 2: the same request reproduces night 1 (same boundaries), so nothing regresses
    assert LEAN != CONFIG
    config.write_text(LEAN.format(count=2))
    same = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-02")
    assert same.returncode == 0, same.stdout
    second = json.loads((reports / "2026-12-02" / "report.json").read_text())
    assert second["previous"] == "2026-12-01" and second["regressions"] == 0
    assert not [f for f in second["findings"] if f["kind"] in ("boundary drift", "count", "template hash")]

    # night 3: one pair fewer than the last good night is a regression
    config.write_text(LEAN.format(count=1))
    worse = _nightly(emukit_cli, adb_server, config, "--night", "2026-12-03")
    assert worse.returncode == 1, worse.stdout
    third = json.loads((reports / "2026-12-03" / "report.json").read_text())
    assert third["previous"] == "2026-12-02" and third["ok"] is False
    count = [f for f in third["findings"] if f["kind"] == "count"]
    assert count == [{"kind": "count", "template": "copy_direct", "detail": "2 -> 1 pairs", "regression": True}]
    html = (reports / "2026-12-03" / "report.html").read_text()
    assert "FAIL" in html and "REGRESSION" in html and "2 -&gt; 1 pairs" in html


def test_previous_good_night_and_retention(tmp_path):
    """The comparison base is the latest night whose report passed (never a failed or unfinished one);
    retention keeps the newest nights, never removing the last good one or a running one."""
    def night(name: str, ok: bool | None, status: str = "finished") -> None:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "state.json").write_text(json.dumps({"status": status}))
        if ok is not None:
            (folder / "report.json").write_text(json.dumps({"ok": ok}))

    night("2026-11-28", True)
    night("2026-11-29", True)
    night("2026-11-30", False)
    night("2026-11-30.2", False)
    night("2026-12-01", None, status="running")
    (tmp_path / "not-a-night").mkdir()
    assert previous_good(tmp_path, besides="2026-12-02").name == "2026-11-29"
    assert previous_good(tmp_path, besides="2026-11-29").name == "2026-11-28"
    assert prune(tmp_path, keep=2) == ["2026-11-28", "2026-11-30"]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["2026-11-29", "2026-11-30.2", "2026-12-01", "not-a-night"]


def _metrics(accepted: int, rejected: int, boundaries: dict[str, str], hashes=("h1",), stable=(4, 4), seconds=10.0):
    reasons = {"state_differs": rejected} if rejected else {}
    return NightMetrics(templates={"t": TemplateMetrics(family="persistent", accepted=accepted, rejected=rejected,
                                                        rejected_by_reason=reasons,
                                                        template_hashes=list(hashes), boundaries=boundaries)},
                        stable_branches=stable[0], stability_branches=stable[1], build_seconds=seconds)


def test_comparison_flags_each_threshold():
    before = _metrics(10, 0, {"0:0": "a", "0:1": "b"})
    limits = Thresholds()
    assert compare(before, before, limits) == []
    drift = compare(_metrics(10, 0, {"0:0": "a", "0:1": "X"}), before, limits)
    assert [(f.kind, f.regression) for f in drift] == [("boundary drift", True)]
    expected = compare(_metrics(10, 0, {"0:0": "a", "0:1": "X"}, hashes=("h2",)), before, limits)
    assert [(f.kind, f.regression) for f in expected] == [("template hash", False), ("boundary drift", False)]
    worse = compare(_metrics(10, 10, {"0:0": "a", "0:1": "b"}, stable=(3, 4), seconds=20.0), before, limits)
    assert {f.kind: f.regression for f in worse} == {"acceptance": True, "rejections": False, "stability": True,
                                                     "time per pair": True}
    lenient = Thresholds(max_acceptance_drop=0.6, max_stability_drop=0.5, max_time_per_pair_increase=2.0)
    assert not [f for f in compare(_metrics(10, 10, {}, stable=(3, 4), seconds=20.0), before, lenient)
                if f.regression]


def test_config_errors_name_file_line_and_field(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("reports: out\ndevices:\n  virtual: 1\n  serials: [emulator-5554]\nbuild:\n  families:\n"
                   "    persistnt: 2\nthresholds:\n  max_acceptance_drop: 2\n  nonsense: 1\n")
    with pytest.raises(ConfigError) as err:
        load_config(bad)
    text = str(err.value)
    assert f"{bad}:2: devices: Value error, give exactly one of avds, serials, virtual" in text
    assert f"{bad}:7: build.families: Value error, unknown family 'persistnt'" in text or \
        f"{bad}:6: build.families: Value error, unknown family 'persistnt'" in text
    assert f"{bad}:9: thresholds.max_acceptance_drop: Input should be less than or equal to 1" in text
    assert f"{bad}:10: thresholds.nonsense: Extra inputs are not permitted" in text
    good = tmp_path / "sub" / "good.yaml"
    good.parent.mkdir()
    good.write_text(CONFIG.format(count=3))
    cfg = load_config(good)
    assert cfg.reports == (tmp_path / "sub" / "reports").resolve()  # relative to the config's folder
    assert cfg.build.families == {"persistent": 3} and cfg.suites[0].name == "d-stress"


def test_snapshots_check_selects_the_bases_an_attached_device_keeps(tmp_path):
    """``snapshots.check``: ``all`` (the default) plans a build step for every base spec found on an attached
    device's first night; names and globs select; a plain name that matches no spec names the config file."""
    shipped = _spec_hashes()
    assert {"files_base", "notes_base", "music_base", "tasks_base"} <= set(shipped) and len(shipped) >= 17
    config = tmp_path / "nightly.yaml"
    config.write_text(CONFIG.format(count=1).replace("virtual: 1", "serials: [emulator-5554]"))
    cfg = load_config(config)
    assert cfg.snapshots.check == "all" and cfg.snapshots.select(shipped) == shipped
    work = [("build", name, "emulator-5554") for name in cfg.snapshots.select(shipped)]
    steps = [s.name for s in plan_steps(cfg, tmp_path / "data", tmp_path / "export", ["emulator-5554"], work)]
    assert [n for n in steps if n.startswith("snapshot-")] == [f"snapshot-build-{n}-emulator-5554" for n in shipped]
    picked = Snapshots(check=["files_base", "task*"]).select(shipped)
    assert set(picked) == {"files_base", "task_track_base", "tasks_base", "tasks_org_base"}
    assert Snapshots(check=["zz_*"]).select(shipped) == {}
    with pytest.raises(ConfigError, match=r"nightly.yaml: snapshots.check: no base snapshot spec named nope_base"):
        Snapshots(check=["nope_base", "files_base"]).select(shipped, config)
    bad = tmp_path / "bad.yaml"
    bad.write_text(CONFIG.format(count=1) + "snapshots:\n  check: []\n")
    with pytest.raises(ConfigError, match=r"bad.yaml:\d+: snapshots.check: .*an empty list checks no base"):
        load_config(bad)


def test_install_timer_writes_units_that_systemd_accepts(emukit_cli, tmp_path):
    """The CLI writes the service and timer, ``systemd-analyze verify`` (where installed) accepts them and
    rejects a broken unit, and the printed cron line runs the same command."""
    import shutil

    from emukit.nightly import timer

    config = tmp_path / "my nights" / "nightly.yaml"
    config.parent.mkdir()
    config.write_text(CONFIG.format(count=2))
    units = tmp_path / "units"
    done = subprocess.run([*emukit_cli, "nightly", "install-timer", "--config", str(config),
                           "--at", "03:30", "--unit-dir", str(units), "--env", "ANDROID_SDK_ROOT=/opt/android sdk"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    service = (units / "emukit-nightly.service").read_text()
    tm = (units / "emukit-nightly.timer").read_text()
    assert "Type=oneshot" in service
    assert f"WorkingDirectory={config.parent}\n" in service  # taken literally by systemd: no quotes
    assert 'Environment="ANDROID_SDK_ROOT=/opt/android sdk"' in service
    assert f'ExecStart={sys.executable} -m emukit nightly run --config "{config}"' in service
    assert "OnCalendar=*-*-* 03:30:00" in tm and "Persistent=true" in tm and "Unit=emukit-nightly.service" in tm
    assert "WantedBy=timers.target" in tm
    cron = next(line for line in done.stdout.splitlines() if line.startswith("or cron: "))[len("or cron: "):]
    assert cron.startswith("30 3 * * * cd ") and "ANDROID_SDK_ROOT='/opt/android sdk' " in cron
    assert f"-m emukit nightly run --config '{config}'" in cron
    if shutil.which("systemd-analyze"):
        assert "systemd-analyze verify: ok" in done.stdout
        broken = tmp_path / "broken" / "emukit-nightly.service"
        broken.parent.mkdir()
        broken.write_text(service.replace(f"ExecStart={sys.executable}", "ExecStart=relative/python"))
        checked = timer.verify([broken])
        assert checked is not None and checked[0] is False, checked
    else:
        assert "systemd-analyze not found: the units were not verified" in done.stdout

    with pytest.raises(ConfigError, match="--at '25:00': expected HH:MM"):
        timer.units(config, "25:00")
    bad = subprocess.run([*emukit_cli, "nightly", "install-timer", "--config",
                          str(tmp_path / "missing.yaml"), "--unit-dir", str(units)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode == 2 and "missing.yaml: cannot read" in bad.stdout


def test_the_documented_config_is_valid(tmp_path):
    """docs/scale-out.md's example config validates as written."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "scale-out.md").read_text()
    block = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "nightly.yaml"
    path.write_text(block)
    cfg = load_config(path)
    assert cfg.devices.avds == ["emukit_api34_1", "emukit_api34_2"]
    assert sum(cfg.build.families.values()) == 800 and cfg.suites[0].name == "d-stress"
