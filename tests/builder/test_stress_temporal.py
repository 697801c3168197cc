"""Stress suites (seed 002 Appendix F.3/F.4) for the Temporal Deadline family: d-stress at d=4, interference
``medium`` and ``high`` on the test's virtual device (the timer state at the boundary is the state right after
the setting steps, since no inserted action moves the logical clock); plus the move table's shape."""

from __future__ import annotations

import argparse
import dataclasses
import io

import pytest
from rich.console import Console

from emukit.builder.stress import LEVELS, read_suite, validate_table
from emukit.builder.stress_model import Move
from emukit.builder.stress_tables import STRESS_TABLES
from emukit.builder.stress_tables.temporal import TEMPORAL_TABLE
from emukit.commands.suite import run_suite
from tests.builder.audit_helpers import stress_rejection


@pytest.fixture(scope="module")
def session(vdevice, adb_server):
    return {"serial": vdevice.serial}


def _run(data, serial, suite: str, template: str, **extra) -> dict:
    args = argparse.Namespace(**{
        "suite": suite, "family": "temporal", "template": [template], "count": 1, "seed": 0, "data_dir": data,
        "db": None, "devices": None, "device": [serial], "max_attempts": 2, "quiet": True, **extra})
    assert run_suite(args, Console(file=io.StringIO(), width=200)) == 0
    (row,) = read_suite(data, suite, "temporal")
    assert row["template"] == template and all(row["validation"].values())
    # the timer was set and keeps running; it is frozen during the segment (no waits, logical clock)
    assert row["target"] == row["state_after_setting"]
    assert row["target"]["timer_active"] is True and row["target"]["remaining_seconds"] > 0
    seg = row["segment"]
    assert seg["length"] == row["d"]
    segment = row["history"][seg["start"]:seg["start"] + row["d"]]
    assert all(s["action"]["type"] in ("tap", "key", "swipe", "long_press") for s in segment)
    return row


def _level_moves(row: dict, level: str) -> list[str]:
    names = {m.name for m in TEMPORAL_TABLE.levels[level]}
    return [m for m in row["segment"]["moves"] if m in names]


def test_d_stress_4(session, tmp_path):
    row = _run(tmp_path / "data", session["serial"], "d-stress", "run_pause_contrast", depth=[4])
    assert (row["d"], row["level"], row["segment"]["interfering"]) == (4, None, 0)
    assert set(row["segment"]["moves"]) <= {m.name for m in TEMPORAL_TABLE.neutral}


def test_interference_high_on_the_timer_tab(session, tmp_path):
    row = _run(tmp_path / "data", session["serial"], "interference", "run_pause_contrast", level=["high"])
    assert (row["d"], row["level"]) == (8, "high")
    assert row["segment"]["interfering"] >= 1 and _level_moves(row, "high")


def test_interference_medium_from_another_app(session, tmp_path):
    """Branch A ends on Settings' Date & time page: the medium moves reach the Clock through its timer
    notification and come back."""
    row = _run(tmp_path / "data", session["serial"], "interference", "start_time_shift", level=["medium"])
    assert (row["d"], row["level"]) == (8, "medium")
    moved = _level_moves(row, "medium")
    assert row["segment"]["interfering"] >= 1 and moved and all(m.endswith("_from_shade") for m in moved)


def test_a_move_that_changes_the_timer_is_rejected(session, adb_server, tmp_path, monkeypatch):
    """"+ 1:00" on the timer changes the remaining time: the boundary check catches it."""
    plus = {"tap": {"sel": "clock:card_add_minute"}}
    monkeypatch.setitem(STRESS_TABLES._entries, "temporal",  # the registered table, replaced for this test
                        dataclasses.replace(TEMPORAL_TABLE, neutral=(Move("plus", (plus, plus)),)))
    rejected = stress_rejection(session["serial"], adb_server.port, "run_pause_contrast", 2, tmp_path)
    assert rejected.reason == "state_preserved"


def test_table_shape():
    validate_table(TEMPORAL_TABLE)
    assert STRESS_TABLES["temporal"] is TEMPORAL_TABLE
    assert set(TEMPORAL_TABLE.levels) == set(LEVELS)
    groups = [TEMPORAL_TABLE.neutral, *TEMPORAL_TABLE.levels.values()]
    # even lengths only: the 2-action system moves can then fill every depth and the rest of any segment
    assert all(m.length % 2 == 0 for moves in groups for m in moves)
    # every medium/high move applies either on the Timer tab's timers (their remaining time on screen) or where
    # the Clock's notification icon shows in the status bar
    for level in ("medium", "high"):
        moves = TEMPORAL_TABLE.levels[level]
        assert {m.requires[0]["sel"] for m in moves} == {"clock:timer_text", "clock:status_icon"}
        assert not {m.name for m in moves} & {m.name for m in TEMPORAL_TABLE.levels["low"]}
