"""The Temporal Deadline templates: they load, sample deterministically, and a small model of the Clock's
timers run over each branch's steps reproduces the declared expectations: the same total (visible) waiting
time in both branches, no timer fired before the boundary, the probed state at the boundary, and the
outcome of the shared wait with margins of at least 30 s either side of a deadline. Offline: no device
(the templates are run on a device by ``tools/try_template.py``)."""

from __future__ import annotations

import pytest

from emukit.errors import ConfigError
from emukit.templates import load_template, templates_dir
from emukit.templates.sampler import evaluate_int, rng_for, sample_params, substitute

TEMPORAL = ["start_time_shift", "duration_shift", "run_pause_contrast", "pause_reset_contrast",
            "pause_resume_control", "pause_delete_restart"]
SLOTS = 300
MARGIN = 30  # seconds between the end of the shared wait and any deadline
NAVIGATION = {"back", "home", "launch", "clock.open_timers", "clock.open_clock_tab", "clock.open_from_notification",
              "clock.open_from_launcher", "settings.open_from_launcher", "settings.open_date_time"}


def test_derived_arithmetic():
    assert evaluate_int("(3 + 7 % 4) * 60 + 30") == 390
    assert evaluate_int(" max(1, 2 - 5) + min(4, 9) ") == 5
    assert evaluate_int("-7 // 2") == -4
    for bad in ("__import__('os')", "1.5 + 1", "2 ** 8", "x + 1", "abs(-1)"):
        with pytest.raises(ConfigError):
            evaluate_int(bad)
    with pytest.raises(ConfigError):
        evaluate_int("1 // 0")


def _run(steps: list[dict]) -> tuple[list[dict], int, str]:
    """Apply the steps to a list of timers (newest last); returns (timers, total seconds waited, the app in
    front at the end)."""
    timers: list[dict] = []
    waited = 0
    front = "settings"
    for step in steps:
        (name, args), = step.items()
        args = args or {}
        if name in ("launch", "clock.open_from_launcher", "clock.open_from_notification"):
            front = args if name == "launch" else "clock"
        elif name == "back":
            front = "settings" if front == "clock" else "launcher"  # the Clock runs over Date & time
        elif name == "home":
            front = "launcher"
        elif name == "settings.open_from_launcher":
            front = "settings"
        if name == "clock.start_timer":
            length = int(args.get("minutes", 0)) * 60 + int(args.get("seconds", 0))
            timers.append({"state": "running", "left": length, "length": length})
        elif name == "wait":
            seconds = int(args["seconds"])
            assert seconds > 0
            waited += seconds
            for t in timers:
                if t["state"] == "running":
                    t["left"] -= seconds
                    assert t["left"] > 0, "a timer fired before the boundary"
        elif name in ("clock.pause", "clock.resume", "clock.reset", "clock.restart", "clock.delete"):
            t = timers[int(args.get("index", 0))]
            want = {"clock.pause": "running", "clock.resume": "paused", "clock.reset": "paused",
                    "clock.restart": "reset", "clock.delete": None}[name]
            assert want is None or t["state"] == want, f"{name} on a {t['state']} timer"
            if name == "clock.pause":
                t["state"] = "paused"
            elif name == "clock.resume" or name == "clock.restart":
                t["state"] = "running"
            elif name == "clock.reset":
                t.update(state="reset", left=t["length"])
            else:
                timers.remove(t)
        else:
            assert name in NAVIGATION, f"unexpected step {name}"
    return timers, waited, front


def _state(timers: list[dict]) -> dict:
    if not timers:
        return {"timer_active": False, "remaining_seconds": 0}
    t = timers[-1]
    return {"timer_active": t["state"] == "running",
            "remaining_seconds": t["left"] if t["state"] in ("running", "paused") else 0}


def _outcome(state: dict, wait: int, front: str) -> dict:
    """The shade after the shared wait; the Clock hides running/paused notifications while it is open."""
    left = state["remaining_seconds"]
    if state["timer_active"]:
        if left <= wait:
            assert wait - left >= MARGIN
            return {"status": "fired"}
        assert left - wait >= MARGIN
        return {"status": "none"} if front == "clock" else {"status": "running", "remaining_seconds": left - wait}
    if left and front != "clock":
        return {"status": "paused", "remaining_seconds": left}
    return {"status": "none"}


@pytest.mark.parametrize("name", TEMPORAL)
def test_template_domain_and_contrast(name):
    t = load_template(templates_dir() / "temporal" / f"{name}.yaml")
    assert t.family == "temporal" and t.base_snapshot == "clock_base" and t.outcome.kind == "shade"
    assert t.shared_action.type == "wait"
    pairs = set()
    for slot in range(SLOTS):
        params = sample_params(t, rng_for(t.name, 0, slot, 0))
        wait = int(substitute(t.shared_action.seconds, params))
        assert 60 <= wait <= 30 * 60
        result = {}
        for branch in "AB":
            steps = substitute(t.setup + t.branches[branch] + t.converge, params)
            timers, waited, front = _run(steps)
            state = _state(timers)
            expect = substitute(t.expect[branch].model_dump(), params)
            assert {k: state[k] for k in expect["state"]} == expect["state"], (branch, params)
            outcome = _outcome(state, wait, front)
            assert {k: outcome.get(k) for k in expect["outcome"]} == expect["outcome"], (branch, params)
            result[branch] = (state, outcome, waited)
        (sa, oa, wa), (sb, ob, wb) = result["A"], result["B"]
        assert wa == wb, "both branches must show the same clock time at the boundary"
        assert sa != sb and oa != ob
        pairs.add((tuple(sorted(sa.items())), tuple(sorted(sb.items())), wait, wa))
    assert len(pairs) >= 150, f"only {len(pairs)} distinct pairs in {SLOTS} slots"
    assert sample_params(t, rng_for(t.name, 0, 0, 0)) == sample_params(t, rng_for(t.name, 0, 0, 0))


def test_outcomes_are_balanced_between_fired_and_running():
    """Over the six templates (the default even allocation), the shade after the shared wait shows fired and
    running about equally often: 5/12 each, and none 2/12 (only run_pause_contrast and pause_resume_control
    can show none: their boundary is the open Clock, which hides a running timer's notification, so there A
    must fire to differ from B). Before the ``variant`` parameter every pair had one fired branch (50%)."""
    counts = {"fired": 0, "running": 0, "none": 0}
    for name in TEMPORAL:
        t = load_template(templates_dir() / "temporal" / f"{name}.yaml")
        for slot in range(SLOTS):
            params = sample_params(t, rng_for(t.name, 0, slot, 0))
            for branch in "AB":
                counts[substitute(t.expect[branch].model_dump(), params)["outcome"]["status"]] += 1
    total = sum(counts.values())
    share = {k: 100 * v / total for k, v in counts.items()}
    assert abs(share["fired"] - share["running"]) <= 4, share
    assert 38 <= share["fired"] <= 46 and 15 <= share["none"] <= 18, share
