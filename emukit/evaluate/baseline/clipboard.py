"""Baseline rules of Clipboard: "Copy" (or "Cut") copies the text of the element long-pressed before it (or
the text last typed when the whole field was selected); a cancelled selection (BACK) copies nothing.

What a tapped control does is read from the app's selector table first (``clipboard:`` on its entry,
:func:`emukit.apps.clipboard_roles.clipboard_role`, by the package of the window tapped): an app's own
"Copy to clipboard" item copies, and a look-alike ("Copy" that duplicates a task or copies a file, "Copy to…")
leaves the clipboard alone and ends the selection. Controls no table marks fall back on their label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emukit.apps.clipboard_roles import ClipboardRole, clipboard_role, may_be_marked
from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import action_point, label, norm, package_at, row_text_at
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
        elif action.type == "tap":
            role = _role(xml, action, said)
            if role in ("copy", "cut"):
                clip = candidate or clip
                candidate = None
            elif role == "none":
                candidate = None  # the app's own command: it ends the selection, the clipboard stays
        elif action.type == "key" and action.key == 4:  # BACK ends a selection
            candidate = None
    return {"clipboard_type": "text" if clip else "empty", "clipboard_text": clip}


def _role(xml: str, action: Any, said: str) -> ClipboardRole | None:
    """What the tapped control does to the clipboard: its table's mark, else its label ("copy"/"cut")."""
    el = action.element
    if el is not None and may_be_marked(resource_id=el.resource_id, text=el.text, description=el.content_desc):
        point = action_point(action)
        package = package_at(xml, *point) if point is not None else None
        role = clipboard_role(package=package, resource_id=el.resource_id, text=el.text,
                              description=el.content_desc)
        if role is not None:
            return role
    return "copy" if said in ("copy", "cut") else None
