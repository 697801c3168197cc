"""Temporal Deadline: the timer status and countdown the notification shade shows after the wait."""

from __future__ import annotations

import re
from typing import Any

from emukit.actions import Element
from emukit.apps.selectors import SelectorTable
from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.builder.readings._common import inside
from emukit.hierarchy import elements_of

# a countdown as the app or the notification's Chronometer shows it: 4:59, 04:59, 1:04:59; negative with "-"
# or U+2212 (frameworks R.string.negative_duration)
_COUNTDOWN = re.compile(r"^[-\u2212]?(?:(\d+):)?(\d{1,2}):(\d{2})$")


def _seconds(text: str) -> int | None:
    m = _COUNTDOWN.match(text.strip())
    if not m:
        return None
    hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
    return hours * 3600 + minutes * 60 + seconds


def clock_notifications(elements: list[Element], clock: SelectorTable,
                        sysui: SelectorTable) -> list[dict[str, Any]]:
    """The Clock's timer notifications in a shade dump, top to bottom: ``{"state", "chronometer", "actions"}``.

    Each is a SystemUI ``expandableNotificationRow`` holding DeskClock's custom content (``state`` text under a
    ``chronometer``, TimerNotificationBuilder.buildChronometer) and its ``android:id/action0`` buttons. Rows are
    found by bounds, so a flat element list (document order, no nesting) is enough."""
    rows = [e for e in elements if e.resource_id == sysui.rid("notification_row")]
    out = []
    for row in sorted(rows, key=lambda e: e.bounds[1]):
        within = [e for e in elements if e is not row and inside(e.bounds, row.bounds)]
        state = next((e.text for e in within if e.resource_id == clock.rid("notification_state")), None)
        if state is None:
            continue
        chrono = next((e.text for e in within if e.resource_id == clock.rid("notification_chronometer")), "")
        actions = [e.text for e in within if e.resource_id == sysui.rid("notification_action")]
        out.append({"state": state, "chronometer": chrono, "actions": actions})
    return out


def _timer_status(note: dict[str, Any], clock: SelectorTable) -> str:
    """fired / paused / running for one Clock notification, from its state line and buttons (DeskClock's
    strings: "Time's up" or "N timers expired" with Stop; "Timer paused" / "N timers paused"; "Timer",
    "N timers" or the timer's label while counting down, with Pause or "Reset all timers")."""
    state, actions = note["state"], note["actions"]
    expired = {clock.text("state_expired")}
    if state in expired or re.fullmatch(clock.text("state_many_expired", n=r"\d+"), state):
        return "fired"
    if clock.text("action_stop") in actions or clock.text("action_stop_all") in actions:
        return "fired"  # an expired timer with a label: the label is the state line
    if state == clock.text("state_paused") or re.fullmatch(clock.text("state_many_paused", n=r"\d+"), state):
        return "paused"
    if state == clock.text("state_missed") or re.fullmatch(clock.text("state_many_missed", n=r"\d+"), state):
        return "none"
    return "running"


def _shade(elements: list[Element], clock: SelectorTable,
           sysui: SelectorTable) -> tuple[dict[str, Any], dict[str, Any]]:
    """The timer status the shade shows: the first Clock notification's (fired before paused before running,
    as DeskClock posts them), with the chronometer's countdown for a running or paused timer."""
    notes = clock_notifications(elements, clock, sysui)
    statuses = [_timer_status(n, clock) for n in notes]
    status, remaining = "none", None
    for want in ("fired", "running", "paused"):
        if want in statuses:
            note = notes[statuses.index(want)]
            remaining = _seconds(note["chronometer"]) if want != "fired" else 0
            status = want if remaining is not None else "none"
            break
    outcome = {"status": status, "remaining_seconds": remaining if status in ("running", "paused") else 0}
    actions = [a for n in notes for a in n["actions"]]
    return outcome, {"notification_titles": [n["state"] for n in notes],
                     "notification_texts": [n["chronometer"] for n in notes],
                     "has_stop": clock.text("action_stop") in actions or clock.text("action_stop_all") in actions,
                     "has_pause": clock.text("action_pause") in actions}


@register_reading
class ShadeReading(OutcomeReader):
    """fired / running / paused / none and the remaining seconds, from the Clock's notifications in the shade
    (read with the Clock's and SystemUI's selector tables)."""

    family = "temporal"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        return _shade(elements_of(xml), tables("clock"), tables("systemui"))
