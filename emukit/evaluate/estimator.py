"""Predictive-state estimators: model-visible history in, canonical family state out (seed 002 Section 3,
Appendix C.6 / D.2).

:class:`StateEstimator` is the interface a learned estimator implements later. Its input is exactly what C.6
allows: the family (which selects the schema), prediction-time task context (the tracked artifact, the
playlist), the ordered history of model-visible observations and actions, and the final (boundary)
observation. The shared action ``A_t``, ground-truth state, outcomes, identifiers, warp records and simulator
time are never passed in.

:class:`BaselineEstimator` is a transparent rule-based reader of that history. It reads only the hierarchy
XML text of each observation and the recorded actions (type, text, coordinates, waits, and the targeted
element's description), never pixels, and follows four small rule sets:

* persistent — the tracked file starts at its source; a picker confirm ("Copy"/"Move") after "Copy to…" /
  "Move to…" on the tracked file, while the picker shows the destination folder, creates it there (and a
  move removes the source); a confirmed delete of the tracked file removes it from the folder on screen;
  "Cancel" drops the pending operation. Operations on other files (decoys) are ignored.
* clipboard — "Copy" copies the text of the element long-pressed before it (or the text last typed when
  the whole field was selected); a cancelled selection copies nothing.
* ordered — "Add to playlist" / "Add to playing queue" on a song appends the song (the title on the row
  whose menu was opened) to the chosen collection; drags on a visible list move the dragged row; the last
  visible listing of the tracked collection, when one was shown, is taken as the starting point.
* temporal — keypad digits entered on the Clock's timer keypad set the duration; Start starts it, Pause /
  Resume / Reset / Delete change it; logical time advances by each action's ``wait_ms`` and each ``wait``'s
  ``duration_ms``.

Its accuracy is what it is (reported as state-recovery Exact); it is a baseline and a pipeline check.
"""

from __future__ import annotations

import posixpath
import re
import xml.etree.ElementTree as ET
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.actions import Action
from emukit.apps.music import PACKAGE as MUSIC
from emukit.apps.music import list_titles
from emukit.apps.selectors import table
from emukit.errors import ConfigError

BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class VisibleNode:
    """One hierarchy node with text, as the estimator sees it."""

    text: str
    resource_id: str
    content_desc: str
    bounds: tuple[int, int, int, int]


def visible_nodes(xml: str) -> list[VisibleNode]:
    """Nodes with text or a content description, in document order (empty for unparsable XML)."""
    if not xml or not xml.strip():
        return []
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return []
    out = []
    for node in root.iter("node"):
        m = BOUNDS_RE.fullmatch(node.get("bounds") or "")
        if not m:
            continue
        text, desc = (node.get("text") or "").strip(), (node.get("content-desc") or "").strip()
        if text or desc:
            out.append(VisibleNode(text, node.get("resource-id") or "", desc,
                                   tuple(int(g) for g in m.groups())))  # type: ignore[arg-type]
    return out


HistoryStep = tuple[str, Action]  # (hierarchy XML of the observation the action was taken on, the action)


class StateEstimator(ABC):
    """Recovers the canonical state (seed 002 Table 10) of one family from model-visible history."""

    name: str = "estimator"

    @abstractmethod
    def estimate(self, family: str, history: Sequence[HistoryStep], final_observation: str, *,
                 task: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The canonical state JSON for ``family``. ``history``: ``(observation hierarchy XML, action)``
        oldest first; ``final_observation``: the boundary's hierarchy XML; ``task``: prediction-time task
        context (persistent: ``source``, ``destination``, ``artifact``; ordered: ``playlist``)."""


def _label(action: Action) -> str:
    el = action.element
    if el is None:
        return ""
    return (el.text or el.content_desc or "").strip()


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2026", "...").split()).casefold()


def _row_text_at(xml: str, y: int, exclude: tuple[str, ...] = ()) -> str | None:
    """The first text on the row at height ``y`` (the title of a list item), ignoring ``exclude``."""
    best = None
    for node in visible_nodes(xml):
        left, top, right, bottom = node.bounds
        if node.text and top <= y < bottom and node.text not in exclude and (bottom - top) < 400:
            if best is None or (node.bounds[1], node.bounds[0]) < (best.bounds[1], best.bounds[0]):
                best = node
    return best.text if best else None


def _listing_of(xml: str, playlist: str) -> list[str] | None:
    """The row titles of a playlist detail screen titled ``playlist`` (None when another screen shows): Retro
    Music's detail header names the playlist (``playlist_header_title``) above the list of its rows."""
    music = table(MUSIC)
    try:
        lists = [n for n in ET.fromstring(xml).iter("node") if n.get("resource-id") == music.rid("playlist_detail_list")]
    except ET.ParseError:
        return None
    if not lists:
        return None
    box = _bounds(lists[0].get("bounds", ""))
    nodes = visible_nodes(xml)
    heads = [n for n in nodes if n.text == playlist and n.resource_id == music.rid("playlist_header_title")
             and n.bounds[3] <= box[1]]
    if not heads:
        return None
    return list_titles(xml, music)


def _bounds(text: str) -> tuple[int, int, int, int]:
    nums = [int(v) for v in re.findall(r"-?\d+", text)]
    return (nums[0], nums[1], nums[2], nums[3]) if len(nums) == 4 else (0, 0, 0, 0)


def _is_row_menu(action: Action) -> bool:
    """A tap on a list row's menu button (Retro's ``menu``, an icon without text; older builds said "More
    options")."""
    el = action.element
    menu = table(MUSIC).rid("row_menu")
    # an exported pair describes the element as ``ImageView #menu``: the id's last part only
    return action.type == "tap" and el is not None and (
        el.resource_id in (menu, menu.rsplit("/", 1)[-1]) or _norm(_label(action)) == "more options")


def _folder_on_screen(xml: str) -> str | None:
    """The folder a Files screen shows: its ``Files in X`` header, else the last breadcrumb / title text."""
    nodes = visible_nodes(xml)
    for node in nodes:
        if node.text.startswith("Files in "):
            return node.text[len("Files in "):]
    crumbs = [n for n in nodes if n.resource_id.endswith(("breadcrumb", "title")) and n.bounds[1] < 500]
    return crumbs[-1].text if crumbs else None


class BaselineEstimator(StateEstimator):
    """Transparent rules over actions and hierarchy text (see the module docstring)."""

    name = "baseline"

    def estimate(self, family: str, history: Sequence[HistoryStep], final_observation: str, *,
                 task: Mapping[str, Any] | None = None) -> dict[str, Any]:
        task = dict(task or {})
        if family == "persistent":
            return self._persistent(history, task)
        if family == "clipboard":
            return self._clipboard(history)
        if family == "ordered":
            return self._ordered(history, final_observation, task)
        if family == "temporal":
            return self._temporal(history)
        raise ConfigError(f"unknown family {family!r}")

    # -- persistent --------------------------------------------------------------------------------------
    @staticmethod
    def _persistent(history: Sequence[HistoryStep], task: dict[str, Any]) -> dict[str, Any]:
        source, destination = task.get("source") or "", task.get("destination") or ""
        artifact = task.get("artifact") or posixpath.basename(source or destination)
        exists = {"source": True, "destination": destination == source and bool(source)}
        selected: str | None = None
        pending: str | None = None
        for xml, action in history:
            label = _norm(_label(action))
            if action.type == "long_press":
                selected = _label(action) or _row_text_at(xml, action.y or 0)
            elif action.type == "tap" and label in ("copy to...", "move to..."):
                pending = label.split()[0] if selected == artifact else None
            elif action.type == "tap" and label in ("copy", "move") and pending:
                texts = {n.text for n in visible_nodes(xml)}
                dest_dir = posixpath.basename(posixpath.dirname(destination))
                if dest_dir in texts or f"Files in {dest_dir}" in texts:
                    exists["destination"] = True
                    if pending == "move":
                        exists["source"] = False
                pending = None
            elif action.type == "tap" and label in ("ok", "delete") and pending == "delete":
                shown = _folder_on_screen(xml)
                for key, path in (("source", source), ("destination", destination)):
                    folder = posixpath.basename(posixpath.dirname(path))
                    if folder and folder == shown:
                        exists[key] = False
                        break
                pending = None
            elif action.type == "tap" and label == "delete" and selected == artifact:
                pending = "delete"
            elif action.type == "tap" and label == "cancel":
                pending = None
        return {"source_exists": exists["source"], "destination_exists": exists["destination"]}

    # -- clipboard ---------------------------------------------------------------------------------------
    @staticmethod
    def _clipboard(history: Sequence[HistoryStep]) -> dict[str, Any]:
        clip = ""
        candidate: str | None = None
        typed = ""
        for xml, action in history:
            label = _norm(_label(action))
            if action.type == "type" and action.text:
                typed = action.text
            elif action.type == "long_press":
                text = action.element.text if action.element is not None else ""
                candidate = text or (_row_text_at(xml, action.y or 0) if action.y is not None else None) or typed
            elif action.type == "tap" and label == "select all" and candidate is None:
                candidate = typed
            elif action.type == "tap" and label in ("copy", "cut") and candidate:
                clip = candidate
                candidate = None
            elif action.type == "key" and action.key == 4:  # BACK ends a selection
                candidate = None
        return {"clipboard_type": "text" if clip else "empty", "clipboard_text": clip}

    # -- ordered -----------------------------------------------------------------------------------------
    @staticmethod
    def _ordered(history: Sequence[HistoryStep], final_xml: str, task: dict[str, Any]) -> dict[str, Any]:
        playlist = task.get("playlist")
        kind = task.get("collection_type") or ("playlist" if playlist else "playing_queue")
        items: list[str] = []
        song: str | None = None
        adding = False
        for xml, action in history:
            label = _norm(_label(action))
            shown = _listing_of(xml, playlist) if kind == "playlist" and playlist else None
            if shown is not None:  # the tracked playlist is on screen: its rows are the current order
                items = shown
            if _is_row_menu(action):
                song = _row_text_at(xml, action.y or 0)
            elif action.type == "tap" and label == "add to playlist":
                adding = song is not None
            elif action.type == "tap" and label == "add to playing queue" and kind == "playing_queue" and song:
                items.append(song)
                song = None
            elif action.type == "tap" and adding and playlist and _label(action) == playlist:
                items.append(song)  # type: ignore[arg-type]
                song, adding = None, False
            elif action.type == "tap" and label == "cancel":
                adding = False
            elif action.type == "drag" and action.y is not None and action.y2 is not None:
                src = _row_text_at(xml, action.y)
                dst = _row_text_at(xml, action.y2)
                if src in items and dst in items:
                    items.remove(src)
                    items.insert(items.index(dst) + (1 if action.y2 > action.y else 0), src)
        return {"collection_type": kind, "ordered_items": items}

    # -- temporal ----------------------------------------------------------------------------------------
    @staticmethod
    def _temporal(history: Sequence[HistoryStep]) -> dict[str, Any]:
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
            label = _norm(_label(action))
            keypad = "timer_setup" in xml
            if action.type == "tap" and keypad and label.isdigit() and len(label) == 1:
                digits = (digits + label)[-6:]
            elif action.type == "tap" and label == "delete" and keypad:
                digits = digits[:-1]
            elif action.type == "tap" and label == "start" and digits:
                d = digits.rjust(6, "0")
                duration = int(d[:2]) * 3600 + int(d[2:4]) * 60 + int(d[4:])
                remaining, status, digits = float(duration), "running", ""
            elif action.type == "tap" and label in ("start", "resume") and status in ("paused", "reset"):
                status = "running"
            elif action.type == "tap" and label == "pause" and status == "running":
                status = "paused"
            elif action.type == "tap" and label == "reset" and status in ("running", "paused", "fired"):
                status, remaining = "reset", float(duration)
            elif action.type == "tap" and label in ("delete", "stop") and not keypad:
                status, remaining = "none", 0.0
        import math

        if status == "running":
            return {"timer_active": True, "remaining_seconds": max(0, math.ceil(remaining))}
        if status == "paused":
            return {"timer_active": False, "remaining_seconds": max(0, math.ceil(remaining))}
        return {"timer_active": False, "remaining_seconds": 0}


def load_estimator(spec: str = "baseline") -> StateEstimator:
    """``baseline``; a checkpoint folder of ``emukit estimator train`` (``CKPT``, or ``CKPT:joint`` /
    ``CKPT:specialist``: :mod:`emukit.estimator.infer`); or ``module.path:ClassName`` (a
    :class:`StateEstimator` subclass, built without arguments)."""
    if spec == "baseline":
        return BaselineEstimator()
    from emukit.estimator.infer import is_checkpoint, load_learned

    if is_checkpoint(spec):
        return load_learned(spec)
    module, sep, attr = spec.partition(":")
    if not sep:
        raise ConfigError(f"estimator {spec!r}: expected 'baseline' or 'module.path:ClassName'")
    import importlib

    cls = getattr(importlib.import_module(module), attr)
    est = cls()
    if not isinstance(est, StateEstimator):
        raise ConfigError(f"estimator {spec!r} is not a StateEstimator")
    return est
