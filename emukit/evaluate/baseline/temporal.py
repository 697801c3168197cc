"""Baseline rules of Temporal Deadline: keypad digits entered on the Clock's timer keypad set the duration;
Start starts it, Pause / Resume / Reset / Delete change it; logical time advances by each action's
``wait_ms`` and each ``wait``'s ``duration_ms``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import label, norm
from emukit.evaluate.estimator import HistoryStep


@BASELINE_RULES.register("temporal")
def temporal(history: Sequence[HistoryStep], final_xml: str, task: Mapping[str, Any]) -> dict[str, Any]:
    """``timer_active`` / ``remaining_seconds`` after the history (the task context is not needed)."""
    digits = ""
    duration = 0
    remaining = 0.0
    status = "none"  # none | running | paused | reset
    for xml, action in history:
        elapsed = (action.wait_ms or 0) + (action.duration_ms or 0 if action.type == "wait" else 0)
        if status == "running":
            remaining -= elapsed / 1000
            if remaining <= 0:
                status, remaining = "fired", 0.0
        said = norm(label(action))
        keypad = "timer_setup" in xml
        if action.type == "tap" and keypad and said.isdigit() and len(said) == 1:
            digits = (digits + said)[-6:]
        elif action.type == "tap" and said == "delete" and keypad:
            digits = digits[:-1]
        elif action.type == "tap" and said == "start" and digits:
            d = digits.rjust(6, "0")
            duration = int(d[:2]) * 3600 + int(d[2:4]) * 60 + int(d[4:])
            remaining, status, digits = float(duration), "running", ""
        elif action.type == "tap" and said in ("start", "resume") and status in ("paused", "reset"):
            status = "running"
        elif action.type == "tap" and said == "pause" and status == "running":
            status = "paused"
        elif action.type == "tap" and said == "reset" and status in ("running", "paused", "fired"):
            status, remaining = "reset", float(duration)
        elif action.type == "tap" and said in ("delete", "stop") and not keypad:
            status, remaining = "none", 0.0
    if status == "running":
        return {"timer_active": True, "remaining_seconds": max(0, math.ceil(remaining))}
    if status == "paused":
        return {"timer_active": False, "remaining_seconds": max(0, math.ceil(remaining))}
    return {"timer_active": False, "remaining_seconds": 0}
