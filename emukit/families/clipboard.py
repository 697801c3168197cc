"""Clipboard: the system clipboard's hidden payload, read by pasting into a focused editor (seed 002
Tables 6, 10, 20)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.actions import Action
from emukit.families.base import FamilyUnit, StateValidationError, register_family


@register_family
class Clipboard(FamilyUnit):
    name = "clipboard"
    order = 20
    title = "Clipboard"
    schema: ClassVar = {"clipboard_type": (lambda v: v in ("text", "empty"), "'text' or 'empty'"),
                        "clipboard_text": (lambda v: isinstance(v, str), "a string")}
    contract = (
        "Clipboard contract: the action pastes the current system clipboard into the focused editor. The "
        "screenshot does not show the clipboard; after the action the editor body holds exactly the pasted "
        "text, unchanged. An empty clipboard inserts nothing."
    )
    instruction = "Infer the current hidden clipboard state from the complete ordered GUI history and actions."
    outcome_kinds = frozenset({"paste"})
    outcome_keys = ("pasted_text",)
    target_key = "pasted_text"
    table6_templates = ("original_strict", "copy_cancel_control", "same_page_partial_selection",
                        "copy_then_mutate_source", "paste_non_consuming")

    def cross_check(self, z: dict[str, Any]) -> None:
        if (z["clipboard_type"] == "empty") != (z["clipboard_text"] == ""):
            raise StateValidationError("clipboard.clipboard_text", "must be empty exactly when clipboard_type is "
                                       f"'empty' (type {z['clipboard_type']!r}, text {z['clipboard_text']!r})")

    def consequence(self, z: dict[str, Any], action: Action, context: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"inserted": z["clipboard_text"]}

    def state_lines(self, z: dict[str, Any], *, with_action: bool) -> list[str]:
        if z["clipboard_type"] == "empty":
            return ["Clipboard: empty."]
        if with_action:
            return ["Clipboard: holds text (the exact payload is given once, below)."]
        return [f"Clipboard: holds the text {json.dumps(z['clipboard_text'], ensure_ascii=False)}."]

    def result_lines(self, d: dict[str, Any]) -> list[str]:
        if d["inserted"] == "":
            return ["Pasting inserts nothing; the editor body stays as it is."]
        return [("Pasting inserts exactly this text into the focused editor body, which shows it: "
                f"{json.dumps(d['inserted'], ensure_ascii=False)}")]

    def check_branch(self, state: dict[str, Any], outcome: dict[str, Any], evidence: dict[str, Any],
                     spec: dict[str, Any], wait_seconds: float) -> list[str]:
        if outcome.get("pasted_text") != state.get("clipboard_text"):
            return [f"pasted {outcome.get('pasted_text')!r} but the clipboard held {state.get('clipboard_text')!r}"]
        return []
