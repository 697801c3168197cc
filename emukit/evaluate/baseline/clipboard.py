"""Baseline rules of Clipboard: "Copy" (or "Cut") copies the text of the element long-pressed before it (or
the text last typed when the whole field was selected); a cancelled selection (BACK) copies nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import label, norm, row_text_at
from emukit.evaluate.estimator import HistoryStep


@BASELINE_RULES.register("clipboard")
def clipboard(history: Sequence[HistoryStep], final_xml: str, task: Mapping[str, Any]) -> dict[str, Any]:
    """``clipboard_type`` / ``clipboard_text`` after the history (the task context is not needed)."""
    clip = ""
    candidate: str | None = None
    typed = ""
    for xml, action in history:
        said = norm(label(action))
        if action.type == "type" and action.text:
            typed = action.text
        elif action.type == "long_press":
            text = action.element.text if action.element is not None else ""
            candidate = text or (row_text_at(xml, action.y or 0) if action.y is not None else None) or typed
        elif action.type == "tap" and said == "select all" and candidate is None:
            candidate = typed
        elif action.type == "tap" and said in ("copy", "cut") and candidate:
            clip = candidate
            candidate = None
        elif action.type == "key" and action.key == 4:  # BACK ends a selection
            candidate = None
    return {"clipboard_type": "text" if clip else "empty", "clipboard_text": clip}
