"""What the baseline rule sets share: an action's label as the estimator sees it, label normalisation, and
the title of the list row at a given height."""

from __future__ import annotations

from emukit.actions import Action
from emukit.evaluate.estimator import visible_nodes


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
