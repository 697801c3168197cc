"""Semantic outcomes of the shared action, read from environment-side evidence after it ran: the app's UI
hierarchy (what the surface actually shows) cross-checked with the read-only probes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from emukit.actions import Element
from emukit.apps.music import list_titles
from emukit.apps.registry import device_table
from emukit.apps.selectors import SelectorTable
from emukit.device.driver import Driver
from emukit.hierarchy import elements_of
from emukit.probes import probe

# a countdown as the app or the notification's Chronometer shows it: 4:59, 04:59, 1:04:59; negative with "-"
# or U+2212 (frameworks R.string.negative_duration)
_COUNTDOWN = re.compile(r"^[-\u2212]?(?:(\d+):)?(\d{1,2}):(\d{2})$")
STATUS_BAR = "com.android.systemui:id/status_bar"
# list rows start below the status bar and the top app bar: 300 px on a display whose status bar is 96 px
# (1080x2400 at 420 dpi), i.e. 3.125 status-bar heights on any display (both scale with the density)
BELOW_APP_BAR_PER_STATUS_BAR = 300 / 96


def below_app_bar(elements: list[Element]) -> int:
    """Where list rows start on this screen (px from the top), from the status bar's bounds; 0 without one."""
    bar = next((e.bounds for e in elements if e.resource_id == STATUS_BAR), None)
    return round((bar[3] - bar[1]) * BELOW_APP_BAR_PER_STATUS_BAR) if bar is not None else 0


def _seconds(text: str) -> int | None:
    m = _COUNTDOWN.match(text.strip())
    if not m:
        return None
    hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
    return hours * 3600 + minutes * 60 + seconds


#: the selector table of an app (profile name: files, notes, music, clock; or systemui)
Tables = Callable[[str], SelectorTable]


def read_outcome(driver: Driver, family: str, spec: dict[str, Any], xml: str,
                 probe_params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(outcome, evidence) for the surface the shared action produced, read with the tables of the device's
    installed builds; the Ordered Collection's collection type and database order come from the probe."""
    outcome, evidence = surface_outcome(spec, xml, lambda app: device_table(driver, app))
    if spec["kind"] == "list":
        state = probe(driver, "ordered", **probe_params)
        outcome = {"collection_type": state.canonical["collection_type"], **outcome}
        evidence = {"database_order": state.canonical["ordered_items"]}
    return outcome, evidence


def surface_outcome(spec: dict[str, Any], xml: str, tables: Tables) -> tuple[dict[str, Any], dict[str, Any]]:
    """(outcome, evidence) of what the hierarchy ``xml`` shows, without a device (the release audit re-reads
    stored pairs with it): ``tables(app)`` gives the selector table each reading uses. A list outcome holds
    only ``ordered_items`` here."""
    elements = elements_of(xml)
    kind = spec["kind"]
    if kind in ("search", "folder"):
        return _files(elements, spec, tables("files"))
    if kind == "paste":
        editor_id = tables("notes").rid("editor")
        editor = next((e for e in elements if e.resource_id == editor_id), None)
        return {"pasted_text": editor.text if editor else None}, {"editor_found": editor is not None}
    if kind == "list":
        return {"ordered_items": list_titles(xml, tables("music"))}, {}
    if kind == "shade":
        return _shade(elements, tables("clock"), tables("systemui"))
    raise ValueError(f"unknown outcome kind {kind!r}")


def _files(elements: list[Element], spec: dict[str, Any], files: SelectorTable) -> tuple[dict[str, Any], dict[str, Any]]:
    """present/absent from the rows of the listing DocumentsUI shows (row titles inside the directory list),
    with its empty-state message ("No items", "No matches in <root>") and header as evidence."""
    target = spec.get("target") or ""
    box = next((e.bounds for e in elements if e.resource_id == files.rid("dir_list")), None)
    below = below_app_bar(elements)
    rows = [e.text for e in elements if e.resource_id == files.rid("row_title")
            and (_inside(e.bounds, box) if box is not None else e.bounds[1] > below)]
    no_matches = re.compile(re.escape(files.text("no_matches")).replace(re.escape("{root}"), ".+"))
    empty = next((e.text for e in elements if e.text == files.text("no_items") or no_matches.fullmatch(e.text)), "")
    header = next((e.text for e in elements if e.resource_id == files.rid("header_title")), "")
    present = target in rows
    outcome: dict[str, Any] = {"result": "present" if present else "absent", "probe": spec["kind"],
                               "target": target}
    if spec["kind"] == "search":
        outcome["scope"] = "Downloads"
    else:
        outcome["scope"] = (spec.get("folder") or "").rstrip("/").rsplit("/", 1)[-1]
        outcome["folder"] = spec.get("folder")
    evidence = {"rows": rows, "empty_message": empty, "header": header,
                "consistent": present or bool(empty) or spec["kind"] == "folder"}
    return outcome, evidence


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def clock_notifications(elements: list[Element], clock: SelectorTable,
                        sysui: SelectorTable) -> list[dict[str, Any]]:
    """The Clock's timer notifications in a shade dump, top to bottom: ``{"state", "chronometer", "actions"}``.

    Each is a SystemUI ``expandableNotificationRow`` holding DeskClock's custom content (``state`` text under a
    ``chronometer``, TimerNotificationBuilder.buildChronometer) and its ``android:id/action0`` buttons. Rows are
    found by bounds, so a flat element list (document order, no nesting) is enough."""
    rows = [e for e in elements if e.resource_id == sysui.rid("notification_row")]
    out = []
    for row in sorted(rows, key=lambda e: e.bounds[1]):
        inside = [e for e in elements if e is not row and _inside(e.bounds, row.bounds)]
        state = next((e.text for e in inside if e.resource_id == clock.rid("notification_state")), None)
        if state is None:
            continue
        chrono = next((e.text for e in inside if e.resource_id == clock.rid("notification_chronometer")), "")
        actions = [e.text for e in inside if e.resource_id == sysui.rid("notification_action")]
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
