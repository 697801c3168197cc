"""Temporal Deadline readout (seed 002 C.4): fired (Time's up / zero state + Stop), running (nonzero
countdown + Pause, [r-6, r]), none (no timer evidence on a recognisable shade), contradictions invalid, the
footer visibly complete, wall-clock times not mistaken for countdowns."""

from __future__ import annotations

import pytest

from emukit.evaluate.parsers import judge, parse
from tests.evaluate.render_support import needs_chromium, render_many_fixtures, rendered

GATES = {"shade_grounded": True, "footer_complete": True, "offline_self_contained": True}
CASES = [
    ("shade_fired.html", "fired", 0, {}),
    ("shade_zero_countdown.html", "fired", 0, {}),            # an equivalent zero timer state
    ("shade_fired_wall_clock.html", "fired", 0, {}),          # 10:42 in the header is a clock, not a countdown
    ("shade_running.html", "running", 295, {}),
    ("shade_running_icon_pause.html", "running", 295, {}),    # icon-only Pause with an aria-label
    ("shade_none.html", "none", None, {}),
    ("shade_paused.html", "paused", 200, {}),
    ("shade_fired_with_pause.html", "invalid", None, {}),     # contradiction
    ("shade_fired_with_alarm.html", "invalid", None, {}),     # alarm content
    ("shade_duplicated_cards.html", "invalid", None, {}),     # duplicated state-bearing controls
    ("shade_fired_hidden_stop.html", "invalid", None, {}),    # Stop not visible
    ("shade_running_no_pause.html", "invalid", None, {}),
    ("shade_footer_below_fold.html", "fired", 0, {"footer_complete": False}),
    ("settings_unrelated.html", "none", None, {"shade_grounded": False, "footer_complete": False}),
]

pytestmark = needs_chromium


@pytest.fixture(scope="module", autouse=True)
def _warm():
    render_many_fixtures([f"temporal/{name}" for name, *_ in CASES])


@pytest.mark.parametrize("name, status, remaining, failed", CASES)
def test_temporal_cases(name, status, remaining, failed):
    parsed = parse("temporal", rendered(f"temporal/{name}"), {})
    assert parsed.outcome == {"status": status, "remaining_seconds": remaining}, (parsed.reason, parsed.details)
    assert parsed.valid is (status != "invalid")
    assert parsed.surface_checks == {**GATES, **failed}


@pytest.mark.parametrize("target, correct", [(300, True), (301, True), (295, True), (294, False), (290, False),
                                             (302, False)])
def test_running_countdown_tolerance(target, correct):
    # The rendered 04:55 (295 s) is accepted for targets r with r - 6 <= 295 <= r.
    parsed = parse("temporal", rendered("temporal/shade_running.html"), {})
    verdict = judge("temporal", parsed, {"status": "running", "remaining_seconds": target})
    assert verdict.correct is correct, verdict.reason


def test_tolerance_is_clipped_at_zero():
    from emukit.evaluate.parsers.temporal import remaining_ok

    assert remaining_ok(0, 3) and remaining_ok(3, 3) and not remaining_ok(4, 3)


def test_fired_none_and_surface_gates_in_the_verdict():
    fired = parse("temporal", rendered("temporal/shade_fired.html"), {})
    assert judge("temporal", fired, {"status": "fired", "remaining_seconds": 0}).correct
    assert not judge("temporal", fired, {"status": "running", "remaining_seconds": 60}).correct
    unrelated = parse("temporal", rendered("temporal/settings_unrelated.html"), {})
    verdict = judge("temporal", unrelated, {"status": "none", "remaining_seconds": 0})
    assert verdict.sem_correct and not verdict.surface_valid and not verdict.correct
    cut = judge("temporal", parse("temporal", rendered("temporal/shade_footer_below_fold.html"), {}),
                {"status": "fired"})
    assert cut.sem_correct and not cut.correct and "footer_complete" in cut.reason
    invalid = parse("temporal", rendered("temporal/shade_fired_with_pause.html"), {})
    assert not judge("temporal", invalid, {"status": "fired"}).sem_correct
