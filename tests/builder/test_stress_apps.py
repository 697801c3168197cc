"""Interference moves of the Clipboard and Ordered Collection families (seed 002 Appendix F.4): one ``medium``
and one ``high`` trajectory per family on the test's virtual device, plus the tables and their distractors."""

from __future__ import annotations

import argparse
import io
import random
import re

import pytest
from rich.console import Console

from emukit.apps.registry import package_of
from emukit.apps.selectors import tables_of
from emukit.builder.stress import LEVELS, read_suite, validate_table
from emukit.builder.stress_tables import STRESS_TABLES
from emukit.builder.stress_tables.clipboard import clipboard_distractors
from emukit.builder.stress_tables.ordered import ordered_distractors
from emukit.commands.suite import run_suite
from emukit.device.driver import Driver
from emukit.probes.ordered import collection_items


@pytest.fixture(scope="module")
def session(vdevice, adb_server):
    return {"serial": vdevice.serial}


def _build(tmp_path, serial: str, family: str, template: str, level: str) -> dict:
    """One interference trajectory of ``template`` at ``level``; returns its checked row."""
    args = argparse.Namespace(suite="interference", family=family, template=[template], count=1, seed=0,
                              data_dir=tmp_path / "data", db=None, devices=None, device=[serial], max_attempts=2,
                              quiet=True, level=[level])
    assert run_suite(args, Console(file=io.StringIO(), width=200)) == 0
    (row,) = read_suite(tmp_path / "data", "interference", family)
    assert (row["template"], row["level"], row["d"]) == (template, level, 8)
    assert all(row["validation"].values()), row["validation"]
    seg = row["segment"]
    assert seg["length"] == 8 and len(row["history"]) >= seg["start"] + 8
    level_moves = {m.name for m in STRESS_TABLES[family].levels[level]}
    names = [re.sub(r"\(.*\)$", "", m) for m in seg["moves"]]
    assert seg["interfering"] >= 1 and sum(n in level_moves for n in names) == seg["interfering"], seg
    assert row["target"] == row["state_after_setting"]
    return row


def test_clipboard_high(session, tmp_path):
    row = _build(tmp_path, session["serial"], "clipboard", "original_strict", "high")
    assert row["target"]["clipboard_text"] == row["params"]["p"][0]
    assert len(row["segment"]["distractors"]["paragraphs"]) == 8


def test_clipboard_medium(session, tmp_path):
    row = _build(tmp_path, session["serial"], "clipboard", "original_strict", "medium")
    assert row["target"]["clipboard_text"] == row["params"]["p"][0]


def test_ordered_high_with_near_name_playlists(session, adb_server, tmp_path):
    row = _build(tmp_path, session["serial"], "ordered", "multi_playlist_interleaved", "high")
    assert row["target"]["collection_type"] == "playlist"
    target, *near = row["segment"]["distractors"]["playlists"]
    assert target == row["params"]["names"][0] and len(near) == 2
    driver = Driver(session["serial"], adb_server.port, default_timeout=10)
    try:  # the near-name playlists were created (empty) and left alone
        assert [collection_items(driver, name) for name in near] == [[], []]
    finally:
        driver.close()


def test_ordered_medium_in_the_queue(session, tmp_path):
    row = _build(tmp_path, session["serial"], "ordered", "queue_mixed_insertion", "medium")
    assert row["target"]["collection_type"] == "playing_queue" and len(row["target"]["ordered_items"]) == 6


def _selectors(move) -> list[dict]:
    """Every selector of a move: its requires and the element targets of its taps and long presses."""
    targets = [args for step in move.steps for kind, args in step.items()
               if kind in ("tap", "long_press") and not {"x", "y"} <= set(args)]
    return [*move.requires, *targets]


@pytest.mark.parametrize("family", ["clipboard", "ordered"])
def test_tables(family):
    table = STRESS_TABLES[family]
    validate_table(table)
    assert set(table.levels) == set(LEVELS) and table.distractors is not None
    for moves in table.levels.values():
        assert moves and all(m.length % 2 == 0 for m in moves)  # the two-action fillers complete any even d
    moves = [m for group in table.levels.values() for m in group]
    # every selector is a table entry (the row's text or position added as data), no id or string spelled here
    for move in moves:
        for sel in _selectors(move):
            assert "sel" in sel and not set(sel) & {"resourceId", "description", "className"}, (move.name, sel)
            assert ":id/" not in str(sel), (move.name, sel)
    # no move taps Copy, Cut or Paste (whatever entry names them)
    taps = [args for m in moves for s in m.steps for kind, args in s.items() if kind == "tap" and "sel" in args]
    for args in taps:
        app, _, name = args["sel"].partition(":")
        for t in tables_of(package_of(app)):
            assert t.query(name, **args.get("fmt", {})).get("text") not in ("Copy", "Cut", "Paste"), args


def test_distractor_pools():
    paragraphs, setup = clipboard_distractors({}, {"p": ["Heron21", "Otter33"], "t": ["north", "east"]}, [],
                                              random.Random(0))
    assert paragraphs == {"paragraphs": ["Heron21 north", "Otter33 east"]}
    assert setup == []
    assert clipboard_distractors({}, {"p": ["Heron21"]}, [], random.Random(0))[0] == {"paragraphs": ["Heron21"]}
    pools, setup = ordered_distractors({"playlist": "Focus"}, {"pl": "Focus", "names": ["Focus 2", "Commute"]}, [],
                                       random.Random(0))
    target, *near = pools["playlists"]
    assert target == "Focus" and pools["target"] == ["Focus"] and len(near) == 2
    assert "Focus 2" not in near and all("Focus" in n and n != "Focus" for n in near)
    assert setup == [*({"music.seed_playlist": {"name": n}} for n in near), {"launch": "music"}]
    pools, _ = ordered_distractors({}, {"songs": ["Iron Tide", "Open Water", "Kite Season"]}, [], random.Random(0))
    assert pools == {"playlists": ["Iron Tide Mix", "Open Water Mix"], "target": []}
