"""What the baseline rule sets share: an action's label as the estimator sees it, label normalisation, and
the title of the list row at a given height."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from emukit.actions import Action
from emukit.evaluate.estimator import visible_nodes

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def label(action: Action) -> str:
    """The targeted element's text or content description ("" without an element)."""
    el = action.element
    if el is None:
        return ""
    return (el.text or el.content_desc or "").strip()


def norm(text: str) -> str:
    """``text`` with "…" spelled out, whitespace collapsed and case folded (how labels are compared)."""
    return " ".join(text.replace("\u2026", "...").split()).casefold()


def row_text_at(xml: str, y: int, exclude: tuple[str, ...] = ()) -> str | None:
    """The first text on the row at height ``y`` (the title of a list item), ignoring ``exclude``."""
    best = None
    for node in visible_nodes(xml):
        _, top, _, bottom = node.bounds
        if node.text and top <= y < bottom and node.text not in exclude and (bottom - top) < 400:
            if best is None or (node.bounds[1], node.bounds[0]) < (best.bounds[1], best.bounds[0]):
                best = node
    return best.text if best else None


def package_at(xml: str, x: int, y: int) -> str | None:
    """The package of the innermost node whose bounds hold ``(x, y)`` (the window the point is in)."""
    if not xml or not xml.strip():
        return None
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return None
    best: tuple[int, str] | None = None
    for node in root.iter("node"):
        m = _BOUNDS.fullmatch(node.get("bounds") or "")
        package = node.get("package")
        if not m or not package:
            continue
        left, top, right, bottom = (int(g) for g in m.groups())
        if left <= x < right and top <= y < bottom:
            area = (right - left) * (bottom - top)
            if best is None or area <= best[0]:
                best = (area, package)
    return best[1] if best else None


def action_point(action: Action) -> tuple[int, int] | None:
    """Where the action landed: its element's centre, else its coordinates."""
    if action.element is not None and action.element.bounds != (0, 0, 0, 0):
        return action.element.center
    if action.x is not None and action.y is not None:
        return action.x, action.y
    return None
