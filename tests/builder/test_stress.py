"""Stress suites (seed 002 Appendix F.3/F.4): d-stress with d=4 and interference ``low`` on one Persistent
Artifact template, on the test's virtual device; plus the planner and the move table's validation."""

from __future__ import annotations

import argparse
import dataclasses
import io
from collections import Counter

import pytest
from rich.console import Console

from emukit.builder.stress import (
    LEVELS,
    SuiteOptions,
    SuiteRunner,
    plan,
    read_suite,
    suite_dir,
    validate_table,
)
from emukit.builder.stress_model import SYSTEM_NEUTRAL, FamilyTable, Move
from emukit.builder.stress_tables import STRESS_TABLES
from emukit.commands.suite import run_suite
from emukit.errors import ConfigError
from emukit.export import SPLIT_CRITERIA
from emukit.templates import load_templates
from tests.builder.audit_helpers import stress_rejection


@pytest.fixture(scope="module")
def session(vdevice, adb_server):
    return {"serial": vdevice.serial}


def _args(data, serial, suite, **extra) -> argparse.Namespace:
    base = {"suite": suite, "family": "persistent", "template": ["delete_direct"], "count": 1, "seed": 0,
            "data_dir": data, "db": None, "devices": None, "device": [serial], "max_attempts": 2, "quiet": True}
    return argparse.Namespace(**{**base, **extra})


def _check_rows(data, suite, depth, level):
    rows = read_suite(data, suite, "persistent")
    assert len(rows) == 1
    row = rows[0]
    assert (row["d"], row["level"], row["template"]) == (depth, level, "delete_direct")
    seg = row["segment"]
    assert seg["length"] == depth and seg["moves"]
    assert row["target"] == row["state_after_setting"] == {"source_exists": False, "destination_exists": False}
    assert all(row["validation"].values())
    assert len(row["history"]) >= seg["start"] + depth
    root = suite_dir(data, suite)
    for step in row["history"]:
        assert (root / step["observation"]["screenshot"]).is_file()
        assert (root / step["observation"]["hierarchy"]).is_file()
    assert (root / row["final_observation"]["screenshot"]).is_file()
    return row


def _console() -> Console:
    return Console(file=io.StringIO(), width=200)


def test_d_stress_4(session, tmp_path):
    data = tmp_path / "data"
    console = _console()
    assert run_suite(_args(data, session["serial"], "d-stress", depth=[4]), console) == 0
    row = _check_rows(data, "d-stress", 4, None)
    # the segment's actions are exactly the recorded actions between the setting steps and convergence
    segment = row["history"][row["segment"]["start"]:row["segment"]["start"] + 4]
    assert all(s["action"]["type"] in ("tap", "key", "swipe", "long_press") for s in segment)
    assert "d-stress suite" in console.file.getvalue()
    # resuming does nothing more
    assert run_suite(_args(data, session["serial"], "d-stress", depth=[4]), _console()) == 0
    assert len(read_suite(data, "d-stress", "persistent")) == 1


def test_interference_low(session, tmp_path):
    data = tmp_path / "data"
    assert run_suite(_args(data, session["serial"], "interference", level=["low"]), _console()) == 0
    row = _check_rows(data, "interference", 8, "low")
    assert row["segment"]["interfering"] >= 1 and row["segment"]["distractors"] == {}
    # a suite folder is a side `emukit audit split` understands (one example per trajectory)
    from emukit.audit.split import audit_split

    report = audit_split(suite_dir(data, "interference"), suite_dir(data, "interference") / "persistent.jsonl")
    assert report.train.examples == 1 and report.failed() == list(SPLIT_CRITERIA)


def test_plan_follows_the_seed_strata():
    templates = load_templates(family="persistent")
    items = plan("d-stress", templates, 200)
    assert Counter(i.depth for i in items) == {4: 50, 8: 50, 16: 50, 32: 50}
    assert len({i.template.name for i in items}) == 9
    items = plan("interference", templates, 200)
    assert Counter(i.level for i in items) == {"low": 70, "medium": 70, "high": 60}
    assert {i.depth for i in items} == {8}
    assert Counter(i.level for i in plan("interference", templates, 3)) == {"low": 1, "medium": 1, "high": 1}
    assert [i.trajectory_id for i in plan("interference", templates, 10)] == \
        [i.trajectory_id for i in plan("interference", list(reversed(templates)), 10)]


def test_unsupported_family_is_reported(tmp_path, monkeypatch):
    """Every shipped family has a table; a family without one (removed here) is reported, not built."""
    assert set(STRESS_TABLES) == {"persistent", "clipboard", "ordered", "temporal"}
    assert STRESS_TABLES.missing() == []
    monkeypatch.delitem(STRESS_TABLES._entries, "temporal")  # the registered table, removed for this test
    temporal = load_templates(family="temporal")
    assert len(temporal) == 6
    runner = SuiteRunner(SuiteOptions(suite="d-stress", templates=temporal, count_per_family=4, data_dir=tmp_path))
    assert runner.unsupported == ["temporal"] and runner.items == []


def test_table_validation():
    table = STRESS_TABLES["persistent"]
    validate_table(table)
    bad_step = dataclasses.replace(table, neutral=(*table.neutral, Move("type_text", ({"type": "x"},))))
    with pytest.raises(ConfigError, match="not a single state-preserving"):
        validate_table(bad_step)
    bad_profile = dataclasses.replace(table, neutral=(*table.neutral, Move("op", ({"files.delete": {}},))))
    with pytest.raises(ConfigError, match="not a single state-preserving"):
        validate_table(bad_profile)
    bad_selector = dataclasses.replace(table, neutral=(*table.neutral, Move("sel", ({"tap": {"txt": "a"}},))))
    with pytest.raises(ConfigError, match="unknown selector"):
        validate_table(bad_selector)
    no_pool = dataclasses.replace(table, levels={**table.levels, "high": (Move("p", ({"tap": {"text": "{name}"}},)),)})
    with pytest.raises(ConfigError, match="placeholders"):
        validate_table(no_pool)
    unknown_level = dataclasses.replace(table, levels={**table.levels, "extreme": table.neutral})
    with pytest.raises(ConfigError, match="unknown level"):
        validate_table(unknown_level)
    no_filler = dataclasses.replace(table, neutral=tuple(m for m in table.neutral if m.requires))
    with pytest.raises(ConfigError, match="always applies"):
        validate_table(no_filler)
    assert set(table.levels) == set(LEVELS)
    for family in STRESS_TABLES:
        validate_table(STRESS_TABLES[family])


def test_depths_must_be_fillable_and_missing_levels_are_skipped(monkeypatch):
    (copy_direct,) = load_templates(names=["copy_direct"])
    as_clipboard = copy_direct.model_copy(update={"family": "clipboard"})
    # a clipboard table with system moves only (2 actions each) and no medium/high levels
    monkeypatch.setitem(STRESS_TABLES._entries, "clipboard",
                        FamilyTable("clipboard", SYSTEM_NEUTRAL, {"low": SYSTEM_NEUTRAL}))
    with pytest.raises(ConfigError, match="multiples of 2"):
        plan("d-stress", [as_clipboard], 4, depths=(5,))
    items = plan("interference", [as_clipboard, copy_direct], 3)
    assert Counter((i.template.family, i.level) for i in items) == {
        ("clipboard", "low"): 3, ("persistent", "low"): 1, ("persistent", "medium"): 1, ("persistent", "high"): 1}


def test_a_move_that_changes_the_state_is_rejected(session, adb_server, tmp_path, monkeypatch):
    """The boundary state must equal the state right after the setting steps: a 'neutral' move that deletes
    everything in the folder it is in (after copy_direct: the source folder) is caught."""
    wipe = Move("delete_all", ({"tap": {"sel": "files:more_options"}}, {"tap": {"sel": "files:menu_select_all"}},
                               {"tap": {"sel": "files:action_delete"}}, {"tap": {"sel": "files:delete_confirm"}}))
    monkeypatch.setitem(STRESS_TABLES._entries, "persistent",
                        dataclasses.replace(STRESS_TABLES["persistent"], neutral=(wipe,)))
    rejected = stress_rejection(session["serial"], adb_server.port, "copy_direct", 4, tmp_path)
    assert rejected.reason == "state_preserved"
    assert "'source_exists': False" in rejected.detail
