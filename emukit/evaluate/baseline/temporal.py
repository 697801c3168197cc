"""Baseline rules of Temporal Deadline: keypad digits entered on the Clock's timer keypad set the duration;
Start starts it, Pause / Resume / Reset / Delete change it; logical time advances by each action's
``wait_ms`` and each ``wait``'s ``duration_ms``.

The Stopwatch tab's buttons look like the timer's: its Start / Pause button is the same ``fab`` with the
same content descriptions, and its Reset is ``left_button`` with content-desc Reset (the Clock's selector table,
``stopwatch_fab`` / ``stopwatch_reset``). A tap is read as the stopwatch's, and leaves the timer alone, when
the screen it was taken on is the Stopwatch tab: the Toolbar's title (``toolbar_title``) reads the tab's name
(``tab_stopwatch``), as the table's capture and third-party page objects for Google Clock have it."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from emukit.apps.selectors import tables_of
from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import label, norm
from emukit.evaluate.estimator import HistoryStep, visible_nodes

CLOCK = "com.google.android.deskclock"
#: the timer words the Stopwatch tab's buttons show too (only a tap on one of them needs its screen read)
STOPWATCH_LOOKALIKES = frozenset({"start", "pause", "resume", "reset", "stop", "delete"})


@functools.cache
def _stopwatch_titles() -> frozenset[tuple[str, str]]:
    """``(title resource id, folded Stopwatch tab name)`` of every pinned Clock build's selector table."""
    out = set()
    for table in tables_of(CLOCK):
        title, tab = table.selectors.get("toolbar_title"), table.selectors.get("tab_stopwatch")
        if title is not None and title.resource_id and tab is not None and tab.description:
            out.add((title.resource_id, norm(tab.description)))
    return frozenset(out)


def on_stopwatch(xml: str) -> bool:
    """Whether the screen ``xml`` is the Clock's Stopwatch tab (its Toolbar title names the tab)."""
    titles = _stopwatch_titles()
    return any((node.resource_id, norm(node.text)) in titles for node in visible_nodes(xml) if node.text)


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
        if action.type == "tap" and said in STOPWATCH_LOOKALIKES and on_stopwatch(xml):
            continue  # the stopwatch's Start / Pause / Reset: the timer is left as it is
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
