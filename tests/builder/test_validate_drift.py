"""The Temporal Deadline validator with the real time a device measured between the state probe and the
outcome read (``elapsed_drift_ms`` in the outcome evidence): none on a logical clock, seconds on hardware."""

from __future__ import annotations

from emukit.builder.validate import validate_branch


def _check(remaining: int, wait: float, status: str, shown: int = 0, drift_ms: int | None = None) -> list[str]:
    evidence = {} if drift_ms is None else {"elapsed_drift_ms": drift_ms}
    outcome = {"status": status, "remaining_seconds": shown}
    return validate_branch("temporal", {"timer_active": True, "remaining_seconds": remaining}, outcome, evidence,
                           {"kind": "shade"}, {}, wait)


def test_a_logical_clock_allows_one_second():
    assert _check(300, 120, "running", 180) == []
    assert _check(300, 120, "running", 181) == []
    assert _check(300, 120, "running", 178)  # two seconds off: wrong
    assert _check(120, 120, "fired") == []
    assert _check(121, 120, "fired")  # due one second after the wait: must still run


def test_measured_drift_widens_the_window_by_exactly_what_passed():
    # 4.5 s passed on the device between the probe and the shade read
    assert _check(300, 120, "running", 176, drift_ms=4500) == []
    assert _check(300, 120, "running", 174, drift_ms=4500)  # more than the device measured
    assert _check(300, 120, "running", 182, drift_ms=4500)  # the countdown cannot run backwards
    # due within the drift window: either reading is right
    assert _check(123, 120, "fired", drift_ms=4500) == []
    assert _check(123, 120, "running", 0, drift_ms=4500) == []
    # due after the window: it must still be running; due before the wait ended: it must have fired
    assert _check(130, 120, "fired", drift_ms=4500)
    assert _check(110, 120, "running", 0, drift_ms=4500)


def test_negative_drift_counts_as_none():
    assert _check(300, 120, "running", 178, drift_ms=-3000)
