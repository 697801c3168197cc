"""``emukit audit replay --suite``: the stored trajectories of a distribution-shift suite executed again from
their rows alone (template, seed, attempt, slot, depth, level, sink) and compared step by step. The suites are
built and replayed on the module's virtual device (the session pool's, behind the real adb server; nothing is
mocked); the refusals of a missing or changed template need no device."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from emukit.audit.suite_replay import audit_suite_replay, load_trajectories
from emukit.builder.stress import SuiteOptions, build_suite, suite_dir
from emukit.workers import DeviceRequest
from emukit.errors import ConfigError
from emukit.templates import load_templates, templates_dir
from tests.builder.audit_helpers import cli


@pytest.fixture(scope="module")
def suites(vdevice, adb_server, tmp_path_factory) -> dict[str, Any]:
    """A cross-app suite of one trajectory per family (ordered, temporal) and a d-stress suite of one
    ``delete_direct`` trajectory at d = 4, built on the module's device."""
    data = tmp_path_factory.mktemp("suite-replay")
    for options in (SuiteOptions(suite="cross-app", templates=load_templates(), count_per_family=1),
                    SuiteOptions(suite="d-stress", templates=load_templates(names=["delete_direct"]),
                                 count_per_family=1, depths=(4,))):
        options.data_dir, options.devices, options.adb_port = data, DeviceRequest(serials=(vdevice.serial,)), adb_server.port
        runner = build_suite(options)
        assert runner.complete, runner.failed + runner.errors
    return {"data": data, "serial": vdevice.serial, "adb_port": adb_server.port}


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")


def _replay(suite: str, data: Path, serial: str, *extra: str) -> int:
    return cli("audit", "replay", "--suite", suite, "--data-dir", str(data), "--device", serial, "--quiet", *extra)


def _rewrite(path: Path, change) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    change(rows)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return rows


def test_every_stored_trajectory_reproduces(suites, capsys):
    """By suite name (DATA_DIR/suites/NAME) and by folder: every step's observation and action, the final
    observation, the target and the validation flags come out as stored."""
    rc = _replay("cross-app", suites["data"], suites["serial"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "2/2 trajectories reproduced (every observation and action, states and validation): PASS" in out
    assert "sink=" in out and "MISMATCH" not in out
    rc = _replay(str(suite_dir(suites["data"], "d-stress")), suites["data"], suites["serial"],
                 "--family", "persistent")
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "d=4" in out and "1/1 trajectories reproduced" in out


def test_a_forged_row_is_a_mismatch_at_the_step_it_changed(suites, tmp_path, capsys):
    """A stored action the device never took, an observation digest of another screen and a parameter the
    seed does not give: each row is reported at its first differing field, the others pass, the exit status
    is 1. Without the observations (semantic only) the forged digest is not looked at, the action still is."""
    data = tmp_path / "data"
    shutil.copytree(suite_dir(suites["data"], "cross-app"), suite_dir(data, "cross-app"))
    shutil.copytree(suite_dir(suites["data"], "d-stress"), suite_dir(data, "d-stress"))
    cross = suite_dir(data, "cross-app")
    home = {}

    def moved_home(rows):  # the route's HOME press stored as BACK
        home["step"] = len(rows[0]["history"]) - 3
        assert rows[0]["history"][home["step"]]["action"] == {"type": "key", "key": 3}
        rows[0]["history"][home["step"]]["action"]["key"] = 4

    def other_screen(rows):  # step 2's observation stored as step 1's screenshot
        rows[0]["history"][2]["observation"]["screenshot"] = rows[0]["history"][1]["observation"]["screenshot"]

    (ordered,) = _rewrite(cross / "ordered.jsonl", moved_home)
    (temporal,) = _rewrite(cross / "temporal.jsonl", other_screen)
    (stress,) = _rewrite(suite_dir(data, "d-stress") / "persistent.jsonl",
                         lambda rows: rows[0]["params"].update(n=rows[0]["params"]["n"] + 1))

    rc = _replay("cross-app", data, suites["serial"])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 1, out
    assert f"MISMATCH {ordered['trajectory_id']} ({cross / 'ordered.jsonl'}:1): first at history[{home['step']}].action: " \
           'stored {"key": 4, "type": "key"}, replayed {"key": 3, "type": "key"}' in out
    assert f"MISMATCH {temporal['trajectory_id']} ({cross / 'temporal.jsonl'}:1): first at " \
           "history[2].observation (screenshot)" in out
    assert "0/2 trajectories reproduced" in out and "FAIL" in out
    rc = _replay("d-stress", data, suites["serial"])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 1, out
    assert f"MISMATCH {stress['trajectory_id']}" in out and \
        f"first at params.n: stored {stress['params']['n']}, replayed {stress['params']['n'] - 1}" in out

    report = audit_suite_replay(cross, data_dir=data, devices=DeviceRequest(serials=(suites["serial"],)), semantic_only=True,
                                adb_port=suites["adb_port"])
    by_id = {r.trajectory.trajectory_id: r for r in report.trajectories}
    assert by_id[temporal["trajectory_id"]].ok
    forged = by_id[ordered["trajectory_id"]]
    assert [d.field for d in forged.differences] == [f"history[{home['step']}].action"]
    assert forged.differences[0].step == home["step"]
    assert forged.steps_same == forged.steps - 1 and not report.ok
    assert report.by_family() == {"ordered": (0, 1), "temporal": (1, 1)}


# ------------------------------------------------------------------------------------------ no device
def _row(template: str, template_hash: str) -> dict[str, Any]:
    """A d-stress row as the builder stores it (its content does not matter: it is refused before it runs)."""
    obs = {"screenshot": f"artifacts/ab/cd/{'ab' * 32}.png", "hierarchy": f"artifacts/cd/ef/{'cd' * 32}.xml"}
    return {"trajectory_id": f"d-stress-{template}-0-s0", "suite": "d-stress", "family": "persistent",
            "template": template, "template_hash": template_hash, "params": {}, "seed": 0, "slot": 0, "attempt": 0,
            "d": 4, "level": None, "history": [{"observation": obs, "action": {"type": "back"}}],
            "final_observation": obs, "target": {}, "state_after_setting": {}, "validation": {}}


def _suite(folder: Path, row: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "persistent.jsonl").write_text(json.dumps(row) + "\n")
    return folder


def test_a_missing_or_changed_template_is_refused_naming_the_row_and_field(tmp_path, capsys):
    """The replay executes a row's template again, so it must be the template the row was built from: a name
    not on the template search path, or a template whose content hash is no longer the row's, is refused
    before any device starts (exit 1), naming the file, line, trajectory and field."""
    folder = _suite(tmp_path / "missing", _row("no_such_template", "0" * 64))
    assert cli("audit", "replay", "--suite", str(folder), "--data-dir", str(tmp_path)) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"{folder / 'persistent.jsonl'}:1 (d-stress-no_such_template-0-s0): field 'template': no template " \
           "'no_such_template'" in err

    # a template of one's own folder, recorded at its present hash, then edited
    mine = tmp_path / "templates"
    mine.mkdir()
    text = (templates_dir() / "persistent" / "delete_direct.yaml").read_text()
    path = mine / "delete_direct_mine.yaml"
    path.write_text(text.replace("name: delete_direct", "name: delete_direct_mine", 1))
    (template,) = load_templates(names=["delete_direct_mine"], dirs=[mine])
    folder = _suite(tmp_path / "changed", _row("delete_direct_mine", template.content_hash()))
    (stored,) = load_trajectories(folder, templates=[mine])
    item = stored.work_item()
    assert (item.template.name, item.index, item.depth, item.level, item.sink) == ("delete_direct_mine", 0, 4, None, None)
    path.write_text(path.read_text().replace("A confirms DELETE", "A confirms the DELETE", 1))
    with pytest.raises(ConfigError, match=r"persistent.jsonl:1 \(d-stress-delete_direct_mine-0-s0\): field "
                                          rf"'template_hash': the row was built from delete_direct_mine @ "
                                          rf"{template.content_hash()[:12]}, but .*delete_direct_mine.yaml is now @"):
        load_trajectories(folder, templates=[mine])
    assert cli("audit", "replay", "--suite", str(folder), "--templates", str(mine), "--data-dir", str(tmp_path)) == 1
    assert "field 'template_hash'" in capsys.readouterr().err


def test_the_suite_options_are_checked(tmp_path, capsys):
    """A suite name with no folder, a row without a field a replay needs, and --pair with --suite."""
    assert cli("audit", "replay", "--suite", "interference", "--data-dir", str(tmp_path)) == 1
    assert "no such suite folder" in " ".join(capsys.readouterr().err.split())
    row = _row("delete_direct", "0" * 64)
    del row["slot"]
    folder = _suite(tmp_path / "old", row)
    with pytest.raises(ConfigError, match="persistent.jsonl:1: missing field 'slot'"):
        load_trajectories(folder)
    assert cli("audit", "replay", "--suite", str(folder), "--pair", "p", "--data-dir", str(tmp_path)) == 2
    assert "--pair goes with --pairs" in capsys.readouterr().err
