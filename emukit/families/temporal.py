"""Temporal Deadline: a countdown timer's activity and remaining time, read by waiting and opening the
notification shade (seed 002 Tables 6, 10, 20)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.actions import Action
from emukit.families.base import FamilyUnit, StateValidationError, is_bool, is_count, register_family


def clock(seconds: int) -> str:
    """``MM:SS`` (``H:MM:SS`` from one hour), as the Clock app shows a countdown."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


@register_family
class Temporal(FamilyUnit):
    name = "temporal"
    order = 40
    title = "Temporal Deadline"
    schema: ClassVar = {"timer_active": (is_bool, "a bool"), "remaining_seconds": (is_count, "an int >= 0")}
    contract = (
        "Timer contract: the action waits for the stated duration and then opens the notification shade over "
        "the whole screen. A running timer whose remaining time is not longer than the wait has fired and shows "
        "a Clock notification with Time's up and Stop; a running timer with time left shows its updated "
        "countdown with Pause; without an active timer there is no timer notification."
    )
    instruction = ("Infer the current timer state from the ordered visible history, including "
                   "interaction-visible temporal evidence.")
    outcome_kinds = frozenset({"shade"})
    outcome_keys = ("status", "remaining_seconds")
    target_key = "status"
    table6_templates = ("start_time_shift", "duration_shift", "run_pause_contrast", "pause_reset_contrast",
                        "pause_resume_control", "pause_delete_restart")
    outcome_mix_key = "status"
    wait_opens_shade = True

    def consequence(self, z: dict[str, Any], action: Action, context: Mapping[str, Any] | None) -> dict[str, Any]:
        if action.type != "wait" or action.duration_ms is None or action.duration_ms < 0:
            raise StateValidationError("action.duration_ms", "temporal needs a wait action with a duration >= 0, "
                                       f"got type {action.type!r}, duration_ms {action.duration_ms!r}")
        wait = action.duration_ms / 1000
        if not z["timer_active"]:
            return {"outcome": "none", "wait_seconds": wait}
        if wait >= z["remaining_seconds"]:
            return {"outcome": "fired", "wait_seconds": wait, "remaining_seconds": 0}
        return {"outcome": "running", "wait_seconds": wait,
                "remaining_seconds": math.ceil(z["remaining_seconds"] - wait)}

    def state_lines(self, z: dict[str, Any], *, with_action: bool) -> list[str]:
        if z["timer_active"]:
            r = z["remaining_seconds"]
            return [f"Timer: running, {r} seconds ({clock(r)}) remaining."]
        return ["Timer: not active (no running countdown)."]

    def result_lines(self, d: dict[str, Any]) -> list[str]:
        head = "After the wait the notification shade covers the screen"
        if d["outcome"] == "fired":
            return [(f"{head} with one Clock notification whose lines, top to bottom, are: Clock -> Time's up -> "
                    "Stop (Stop is its button).")]
        if d["outcome"] == "running":
            return [(f"{head} with one Clock notification whose lines, top to bottom, are: Clock -> "
                    f"{clock(d['remaining_seconds'])} -> Timer -> Pause (Pause is its button).")]
        return [f"{head} and shows no timer notification."]

    def check_branch(self, state: dict[str, Any], outcome: dict[str, Any], evidence: dict[str, Any],
                     spec: dict[str, Any], wait_seconds: float) -> list[str]:
        problems: list[str] = []
        remaining = int(state.get("remaining_seconds", 0))
        status = outcome.get("status")
        # Real time that passed on the device between the state probe and the outcome read (measured on its
        # elapsed-realtime clock, see run_branch): 0 on a device whose clock moves only when told; on a
        # ticking device a timer due within that window may show either way, and the countdown read at any
        # moment of it.
        drift = max(0.0, float(evidence.get("elapsed_drift_ms", 0)) / 1000)
        if state.get("timer_active"):
            want = ({"fired"} if remaining <= wait_seconds else {"running"} if remaining > wait_seconds + drift
                    else {"fired", "running"})
            if status not in want:
                problems.append(f"timer with {remaining}s left and a {wait_seconds}s wait (+{drift:.1f}s measured "
                                f"on the device) shows {status}, expected {' or '.join(sorted(want))}")
            shown = int(outcome.get("remaining_seconds", 0))
            if status == "running" and not remaining - wait_seconds - drift - 1 <= shown <= remaining - wait_seconds + 1:
                problems.append(f"countdown after the wait shows {shown}s; the probed {remaining}s less the "
                                f"{wait_seconds}s wait (and up to {drift:.1f}s measured on the device) is "
                                f"{remaining - wait_seconds - drift:.0f}-{remaining - wait_seconds:.0f}s")
        elif remaining > 0:
            # a paused timer: its notification with the kept remainder (the probe rounds it up, the shade's
            # countdown down), or no timer notification at all when the Clock is in the foreground (it hides
            # its running/paused notifications there); it neither runs nor fires
            if status == "paused":
                if abs(int(outcome.get("remaining_seconds", 0)) - remaining) > 1:
                    problems.append(f"paused timer ({remaining}s) shows {outcome.get('remaining_seconds')}s")
            elif status != "none":
                problems.append(f"paused timer ({remaining}s) shows {status}")
        elif status not in ("none",):
            problems.append(f"no active timer but the shade shows {status}")
        return problems
