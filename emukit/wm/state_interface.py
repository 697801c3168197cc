"""The deterministic state-conditioning interface (seed 002 Appendix E, Table 20 rules).

A canonical family state (oracle or recovered — the interface cannot tell and does not care) is validated and
rendered into one conditioning text block. Given the candidate action (and, for Persistent Artifact, the
prediction-time context of what the action inspects), the interface also resolves the action's deterministic
consequence ``D = g_f(Z, A, c)`` and the surface it must appear on:

* Persistent Artifact — search: present iff a tracked path inside the Downloads scope exists (surface: Files
  search "Files in Downloads", one result row or "No matches in Downloads"); folder: present iff the tracked
  path inside the opened folder exists. Absent results omit the file's identity.
* Clipboard — PASTE inserts the payload verbatim; the payload is written once.
* Ordered Collection — the list is kept exactly (no sorting or deduplication) and written once, numbered.
* Temporal Deadline — inactive -> none; active and wait >= remaining -> fired (Clock / Time's up / Stop);
  active and wait < remaining -> running with the remainder (Clock / MM:SS / Timer / Pause: the order of the
  real timer notification, DeskClock's chronometer above its state line).

Nothing here reads a future observation, a label or benchmark bookkeeping; the output is a pure function of
``(family, state, action, context)`` with a fixed line order.
"""

from __future__ import annotations

import json
import math
import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.wm.contracts import FAMILIES

DOWNLOADS_DIRS = frozenset({"Download", "Downloads"})


class StateValidationError(ConfigError, ValueError):
    """A canonical state, action or context the interface cannot use; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_items(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(i, str) for i in v)


_Check = tuple[Callable[[Any], bool], str]
SCHEMAS: dict[str, dict[str, _Check]] = {
    "persistent": {"source_exists": (_is_bool, "a bool"), "destination_exists": (_is_bool, "a bool")},
    "clipboard": {"clipboard_type": (lambda v: v in ("text", "empty"), "'text' or 'empty'"),
                  "clipboard_text": (lambda v: isinstance(v, str), "a string")},
    "ordered": {"collection_type": (lambda v: v in ("playlist", "playing_queue"), "'playlist' or 'playing_queue'"),
                "ordered_items": (_is_items, "a list of strings")},
    "temporal": {"timer_active": (_is_bool, "a bool"), "remaining_seconds": (_is_count, "an int >= 0")},
}


def validate_state(family: str, state: Any) -> dict[str, Any]:
    """Check ``state`` against the family's canonical schema (seed 002 Table 10); return a plain copy."""
    if family not in SCHEMAS:
        raise StateValidationError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    if not isinstance(state, Mapping):
        raise StateValidationError(family, f"state must be a JSON object, got {type(state).__name__}")
    schema = SCHEMAS[family]
    for key in state:
        if key not in schema:
            raise StateValidationError(f"{family}.{key}", f"unexpected field; expected {', '.join(schema)}")
    for key, (check, expected) in schema.items():
        if key not in state:
            raise StateValidationError(f"{family}.{key}", "missing")
        if not check(state[key]):
            raise StateValidationError(f"{family}.{key}", f"must be {expected}, got {state[key]!r}")
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in state.items()}
    if family == "clipboard" and (out["clipboard_type"] == "empty") != (out["clipboard_text"] == ""):
        raise StateValidationError("clipboard.clipboard_text", "must be empty exactly when clipboard_type is "
                                   f"'empty' (type {out['clipboard_type']!r}, text {out['clipboard_text']!r})")
    return out


def _ctx_path(context: Mapping[str, Any], key: str) -> str:
    value = context.get(key)
    if not isinstance(value, str) or not value:
        raise StateValidationError(f"context.{key}", f"a non-empty path string is required, got {value!r}")
    return value.rstrip("/") or "/"


def _persistent(state: dict[str, Any], context: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(context, Mapping):
        raise StateValidationError("context", "persistent needs the probe context (probe, source, destination)")
    probe = context.get("probe")
    src, dst = _ctx_path(context, "source"), _ctx_path(context, "destination")
    tracked = [(src, state["source_exists"]), (dst, state["destination_exists"])]
    if probe == "search":
        in_scope = [(p, e) for p, e in tracked if DOWNLOADS_DIRS & set(p.split("/")[:-1])]
        hit = next((p for p, e in in_scope if e), None)
        out: dict[str, Any] = {"probe": "search", "scope": "Downloads", "present": hit is not None}
    elif probe == "folder":
        folder = _ctx_path(context, "folder")
        inspected = [(p, e) for p, e in tracked if posixpath.dirname(p) == folder]
        if context.get("artifact"):
            inspected = [(p, e) for p, e in inspected if posixpath.basename(p) == context["artifact"]]
        if not inspected:
            raise StateValidationError("context.folder", f"{folder!r} holds neither {src!r} nor {dst!r}")
        hit = next((p for p, e in inspected if e), None)
        out = {"probe": "folder", "folder": folder, "present": hit is not None}
    else:
        raise StateValidationError("context.probe", f"must be 'search' or 'folder', got {probe!r}")
    if hit is not None:  # identity only on the branch where the file must be visible (Table 20 projection)
        out["artifact"] = str(context.get("artifact") or posixpath.basename(hit))
        out["path"] = hit
    return out


def resolve_consequence(family: str, state: Mapping[str, Any], action: Action,
                        context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``D_t^f``: the deterministic result of ``action`` on ``state`` (Table 20), as a small dict."""
    z = validate_state(family, state)
    if family == "persistent":
        return _persistent(z, context)
    if family == "clipboard":
        return {"inserted": z["clipboard_text"]}
    if family == "ordered":
        return {"collection_type": z["collection_type"], "items": z["ordered_items"],
                "count": len(z["ordered_items"])}
    if action.type != "wait" or action.duration_ms is None or action.duration_ms < 0:
        raise StateValidationError("action.duration_ms", "temporal needs a wait action with a duration >= 0, got "
                                   f"type {action.type!r}, duration_ms {action.duration_ms!r}")
    wait = action.duration_ms / 1000
    if not z["timer_active"]:
        return {"outcome": "none", "wait_seconds": wait}
    if wait >= z["remaining_seconds"]:
        return {"outcome": "fired", "wait_seconds": wait, "remaining_seconds": 0}
    return {"outcome": "running", "wait_seconds": wait,
            "remaining_seconds": math.ceil(z["remaining_seconds"] - wait)}


def clock(seconds: int) -> str:
    """``MM:SS`` (``H:MM:SS`` from one hour), as the Clock app shows a countdown."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _numbered(items: list[str]) -> list[str]:
    return [f"{i}. {json.dumps(item, ensure_ascii=False)}" for i, item in enumerate(items, 1)]


def _state_lines(family: str, z: dict[str, Any], with_action: bool) -> list[str]:
    if family == "persistent":
        say = {True: "exists", False: "does not exist"}
        return [f"Tracked file at its source path: {say[z['source_exists']]}.",
                f"Tracked file at its destination path: {say[z['destination_exists']]}."]
    if family == "clipboard":
        if z["clipboard_type"] == "empty":
            return ["Clipboard: empty."]
        if with_action:
            return ["Clipboard: holds text (the exact payload is given once, below)."]
        return [f"Clipboard: holds the text {json.dumps(z['clipboard_text'], ensure_ascii=False)}."]
    if family == "ordered":
        kind = "Playlist" if z["collection_type"] == "playlist" else "Playing queue"
        n = len(z["ordered_items"])
        if n == 0:
            return [f"{kind}: empty (0 items)."]
        if with_action:
            return [f"{kind}: {n} item{'s' if n != 1 else ''} (listed once, below)."]
        return [f"{kind}: {n} item{'s' if n != 1 else ''}, in this order:", *_numbered(z["ordered_items"])]
    if z["timer_active"]:
        r = z["remaining_seconds"]
        return [f"Timer: running, {r} seconds ({clock(r)}) remaining."]
    return ["Timer: not active (no running countdown)."]


def _result_lines(family: str, d: dict[str, Any]) -> list[str]:
    if family == "persistent":
        if d["probe"] == "search":
            head = "The Files search is limited to Downloads, under the heading 'Files in Downloads'."
            if d["present"]:
                return [head, (f"It shows exactly one result row: {json.dumps(d['artifact'], ensure_ascii=False)}"
                              f" ({d['path']}).")]
            return [head, "It shows the empty state 'No matches in Downloads' and no result row."]
        head = f"The Files app shows the folder {d['folder']}."
        if d["present"]:
            return [head, f"Its listing includes one row for {json.dumps(d['artifact'], ensure_ascii=False)}."]
        return [head, "Its listing has no row for the tracked file."]
    if family == "clipboard":
        if d["inserted"] == "":
            return ["Pasting inserts nothing; the editor body stays as it is."]
        return [("Pasting inserts exactly this text into the focused editor body, which shows it: "
                f"{json.dumps(d['inserted'], ensure_ascii=False)}")]
    if family == "ordered":
        view = "the playlist detail view" if d["collection_type"] == "playlist" else "the compact playing-queue view"
        if d["count"] == 0:
            return [f"Opening it shows {view} with no item rows."]
        return [(f"Opening it shows {view} with exactly {d['count']} primary row{'s' if d['count'] != 1 else ''}, "
                "in this order:"), *_numbered(d["items"])]
    head = "After the wait the notification shade covers the screen"
    if d["outcome"] == "fired":
        return [(f"{head} with one Clock notification whose lines, top to bottom, are: Clock -> Time's up -> Stop "
                "(Stop is its button).")]
    if d["outcome"] == "running":
        return [(f"{head} with one Clock notification whose lines, top to bottom, are: Clock -> "
                f"{clock(d['remaining_seconds'])} -> Timer -> Pause (Pause is its button).")]
    return [f"{head} and shows no timer notification."]


def render_state(family: str, canonical_state: Mapping[str, Any], *, action: Action | None = None,
                 context: Mapping[str, Any] | None = None) -> str:
    """The conditioning text for ``canonical_state``.

    Without ``action``: the validated state alone. With ``action``: the state plus its resolved consequence
    and target surface (for Persistent Artifact, ``context`` = ``{"probe": "search"|"folder", "source",
    "destination", "folder" (folder probe), "artifact" (optional display name)}``; in this mode the file's
    source/destination existence is stated through the inspected result only, so an absent branch carries
    neither the file's name nor its paths). Raises :class:`StateValidationError` naming the bad field.
    """
    z = validate_state(family, canonical_state)
    body: list[str]
    if action is None:
        body = _state_lines(family, z, with_action=False)
    else:
        d = resolve_consequence(family, z, action, context)
        if family == "persistent":
            where = "under Downloads" if d["probe"] == "search" else "in the opened folder"
            state = [f"Tracked file {where}: {'exists' if d['present'] else 'does not exist'}."]
        else:
            state = _state_lines(family, z, with_action=True)
        body = [*state, "Required result of the action:", *_result_lines(family, d)]
    note = ("This block is the current hidden state, which the screenshot does not show"
            + (", and the result it forces on the action" if action is not None else "")
            + ". It is authoritative: make the next screen agree with it exactly, and never display the block, "
              "its wording or its field names.")
    return "\n".join([f'<authoritative_state family="{family}">', *body, "</authoritative_state>", note])
