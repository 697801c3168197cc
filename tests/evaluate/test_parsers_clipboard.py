"""Clipboard readout (seed 002 C.4): the expected payload in the editor body below 6.5 % of the viewport
height, the sibling payload absent; title-only, hidden, clipped, below-the-fold and sibling-present cases."""

from __future__ import annotations

import pytest

from emukit.evaluate.parsers import expected_context, judge, parse
from emukit.evaluate.parsers.clipboard import TITLE_BOUNDARY
from emukit.evaluate.visible import Evidence, EvidenceNode
from tests.evaluate.render_support import needs_chromium, render_many_fixtures, rendered

A, B = "x7Kp2Qa9", "mW4tR8zc"
CTX = {"expected": A, "sibling": B}
CASES = [
    ("editor_expected.html", "expected", A, True),
    ("editor_inline_markup.html", "expected", A, True),
    ("editor_textarea.html", "expected", A, True),
    ("editor_title_only.html", "none", None, False),
    ("editor_sibling_present.html", "both", None, False),
    ("editor_sibling_only.html", "sibling", B, False),
    ("editor_hidden_payload.html", "none", None, False),
    ("editor_clipped.html", "none", None, False),
    ("editor_below_fold.html", "none", None, False),
]

pytestmark = needs_chromium


@pytest.fixture(scope="module", autouse=True)
def _warm():
    render_many_fixtures([f"clipboard/{name}" for name, *_ in CASES])


@pytest.mark.parametrize("name, result, pasted, correct", CASES)
def test_clipboard_cases(name, result, pasted, correct):
    parsed = parse("clipboard", rendered(f"clipboard/{name}"), CTX)
    assert parsed.outcome == {"pasted_text": pasted, "result": result}, parsed.details
    assert parsed.valid is (result != "both")
    verdict = judge("clipboard", parsed, {"pasted_text": A})
    assert verdict.correct is correct and verdict.surface_valid


def test_the_sibling_branch_reads_the_same_surface_the_other_way():
    parsed = parse("clipboard", rendered("clipboard/editor_sibling_only.html"), {"expected": B, "sibling": A})
    assert parsed.outcome == {"pasted_text": B, "result": "expected"}
    assert judge("clipboard", parsed, {"pasted_text": B}).correct


def _node(text: str, y: float) -> EvidenceNode:
    return EvidenceNode(text=text, box=(16.0, y, 100.0, 20.0), in_viewport=1.0, unoccluded=1.0)


def test_title_boundary_is_scale_relative():
    for height in (800, 2400):
        edge = TITLE_BOUNDARY * height
        above = Evidence(nodes=(_node(A, edge - 1),), viewport=(360, height))
        at = Evidence(nodes=(_node(A, edge),), viewport=(360, height))
        assert parse("clipboard", above, CTX).outcome["result"] == "none"
        assert parse("clipboard", at, CTX).outcome["result"] == "expected"


def test_payload_inside_a_longer_sibling_is_not_the_payload():
    ev = Evidence(nodes=(_node("abc-123-long", 200),), viewport=(360, 800))
    parsed = parse("clipboard", ev, {"expected": "abc-123", "sibling": "abc-123-long"})
    assert parsed.outcome == {"pasted_text": "abc-123-long", "result": "sibling"}


def test_expected_context_from_pair_outcomes():
    ctx = expected_context("clipboard", {"pasted_text": A}, sibling_outcome={"pasted_text": B})
    assert ctx == {"expected": A, "sibling": B}
    ctx = expected_context("clipboard", {"pasted_text": None}, state={"clipboard_text": A},
                           sibling_state={"clipboard_text": B})
    assert ctx == {"expected": A, "sibling": B}
