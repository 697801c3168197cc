"""Semantic outcomes of the shared action, read from environment-side evidence after it ran: the app's UI
hierarchy (what the surface actually shows) cross-checked with the read-only probes."""

from __future__ import annotations

import re
from typing import Any

from emukit.device.actions import Element
from emukit.device.driver import Driver
from emukit.probes import probe

_COUNTDOWN = re.compile(r"^-?(?:(\d+):)?(\d{1,2}):(\d{2})$")
FILES = "com.google.android.documentsui"
MUSIC = "code.name.monkey.retromusic"
MARKOR_EDITOR = "net.gsantner.markor:id/document__fragment__edit__highlighting_editor"


def _seconds(text: str) -> int | None:
    m = _COUNTDOWN.match(text.strip())
    if not m:
        return None
    hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
    return hours * 3600 + minutes * 60 + seconds


def read_outcome(driver: Driver, family: str, spec: dict[str, Any], xml: str,
                 probe_params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(outcome, evidence) for the surface the shared action produced."""
    elements = driver.elements(xml)
    kind = spec["kind"]
    if kind in ("search", "folder"):
        return _files(elements, spec)
    if kind == "paste":
        editor = next((e for e in elements if e.resource_id == MARKOR_EDITOR), None)
        return {"pasted_text": editor.text if editor else None}, {"editor_found": editor is not None}
    if kind == "list":
        titles = _list_titles(elements)
        state = probe(driver, "ordered", **probe_params)
        return ({"collection_type": state.canonical["collection_type"], "ordered_items": titles},
                {"database_order": state.canonical["ordered_items"]})
    if kind == "shade":
        return _shade(elements)
    raise ValueError(f"unknown outcome kind {kind!r}")


def _list_titles(elements: list[Element]) -> list[str]:
    """Titles of the rows the opened list shows completely, top to bottom: inside the list's bounds
    (``recycler_view``; the first row of a queue or playlist starts right under the app bar), so a row cut
    off at the bottom is not read as shown. Without a list: every row title below the app bar."""
    box = next((e.bounds for e in elements if e.resource_id == f"{MUSIC}:id/recycler_view"), None)
    rows = sorted((e for e in elements if e.resource_id == f"{MUSIC}:id/title"), key=lambda e: e.bounds[1])
    if box is None:
        return [e.text for e in rows if e.bounds[1] > 300]
    return [e.text for e in rows if box[1] <= e.bounds[1] and e.bounds[3] <= box[3]]


def _files(elements: list[Element], spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    target = spec.get("target") or ""
    rows = [e.text for e in elements if e.resource_id == "android:id/title" and e.bounds[1] > 300]
    empty = next((e.text for e in elements if e.resource_id == f"{FILES}:id/message"), "")
    header = next((e.text for e in elements if e.resource_id == f"{FILES}:id/header_title"), "")
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


def _shade(elements: list[Element]) -> tuple[dict[str, Any], dict[str, Any]]:
    texts = [e.text for e in elements if e.text]
    descs = [e.content_desc for e in elements if e.content_desc]
    timers = [e for e in elements if e.resource_id == "android:id/title"]
    titles = [e.text for e in timers]
    bodies = [e.text for e in elements if e.resource_id == "android:id/text"]
    remaining = next((s for s in (_seconds(b) for b in bodies) if s is not None), None)
    if "Time's up" in titles:
        status = "fired"
    elif any(t.startswith("Timer paused") for t in titles):
        status = "paused"
    elif any(t == "Timer" or t.endswith("timers running") for t in titles) and remaining is not None:
        status = "running"
    else:
        status = "none"
    outcome = {"status": status, "remaining_seconds": remaining if status in ("running", "paused") else 0}
    return outcome, {"notification_titles": titles, "notification_texts": bodies,
                     "has_stop": "Stop" in texts or "Stop" in descs, "has_pause": "Pause" in texts or "Pause" in descs}
