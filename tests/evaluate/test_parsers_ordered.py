"""Ordered Collection readout (seed 002 C.4): primary rows by position, alignment and typography, top to
bottom; exact sequence; duplicates, foreign and invented rows, missing and below-the-fold rows fail."""

from __future__ import annotations

import pytest

from emukit.evaluate.parsers import expected_context, judge, parse
from emukit.evaluate.parsers.ordered import row_label
from emukit.evaluate.fallback import fallback_evidence
from tests.evaluate.render_support import fixture_html, needs_chromium, render_many_fixtures, rendered

EXPECTED = ["Blue Harbor", "Copper Lantern", "Velvet Meadow", "Amber River", "Winter Orbit"]
SIBLING = ["Blue Harbor", "Velvet Meadow", "Copper Lantern", "Amber River", "Winter Orbit"]
CTX = {"expected_items": EXPECTED, "sibling_items": SIBLING, "known_items": ["Cedar Summit"]}
CASES = [
    ("queue_expected.html", EXPECTED, True),
    ("queue_highlighted_current.html", EXPECTED, True),   # a bold, coloured current row stays a primary row
    ("queue_numbered.html", EXPECTED, True),              # "1. Title" and "Title — Artist" labels
    ("queue_items_in_subtitles.html", EXPECTED, True),    # item names in artist lines are not primary rows
    ("queue_hidden_foreign.html", EXPECTED, True),        # a display:none foreign row is not evidence
    ("queue_wrong_order.html", SIBLING, False),           # the sibling's ordering
    ("queue_duplicate.html", EXPECTED[:3] + ["Copper Lantern"] + EXPECTED[3:], False),
    ("queue_foreign_item.html", EXPECTED + ["Cedar Summit"], False),
    ("queue_invented_row.html", EXPECTED + ["fresh invention"], False),
    ("queue_missing_item.html", EXPECTED[:4], False),
    ("queue_below_fold.html", EXPECTED[:3], False),
]

pytestmark = needs_chromium


@pytest.fixture(scope="module", autouse=True)
def _warm():
    render_many_fixtures([f"ordered/{name}" for name, *_ in CASES])


@pytest.mark.parametrize("name, rows, correct", CASES)
def test_ordered_cases(name, rows, correct):
    parsed = parse("ordered", rendered(f"ordered/{name}"), CTX)
    assert parsed.outcome == {"ordered_items": rows}, parsed.details
    verdict = judge("ordered", parsed, {"collection_type": "playing_queue", "ordered_items": EXPECTED})
    assert verdict.correct is correct and verdict.surface_valid


def test_sibling_branch_is_judged_against_its_own_order():
    parsed = parse("ordered", rendered("ordered/queue_wrong_order.html"),
                   {"expected_items": SIBLING, "sibling_items": EXPECTED})
    assert judge("ordered", parsed, {"ordered_items": SIBLING}).correct


def test_row_labels():
    assert row_label("1. blue harbor") == "blue harbor"
    assert row_label("#12 blue harbor 3:41") == "blue harbor"
    assert row_label("99 problems") == "problems"  # the item table is consulted with the full text first


def test_item_titles_starting_with_numbers_match():
    html = ('<!DOCTYPE html><html><body style="margin:0;font:16px sans-serif">'
            '<div>99 Problems</div><div>7 Rings</div></body></html>')
    ev = fallback_evidence(html, (360, 800))
    parsed = parse("ordered", ev, {"expected_items": ["99 Problems", "7 Rings"]})
    assert parsed.outcome == {"ordered_items": ["99 Problems", "7 Rings"]}


def test_fallback_keeps_source_order():
    parsed = parse("ordered", fallback_evidence(fixture_html("ordered/queue_wrong_order.html"), (360, 800)), CTX)
    assert parsed.source == "fallback" and parsed.outcome == {"ordered_items": SIBLING}


def test_expected_context_collects_every_known_item():
    ctx = expected_context("ordered", {"ordered_items": EXPECTED}, sibling_outcome={"ordered_items": SIBLING},
                           state={"ordered_items": EXPECTED}, known_items=["Cedar Summit"])
    assert ctx["expected_items"] == EXPECTED and ctx["sibling_items"] == SIBLING
    assert ctx["known_items"] == EXPECTED + ["Cedar Summit"]
