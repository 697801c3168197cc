"""Persistent Artifact: a tracked file's existence at its source and destination paths, read through the
Files app's Downloads-scoped search or an opened folder (seed 002 Tables 6, 10, 20)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.actions import Action
from emukit.families.base import (
    FamilyUnit,
    StateValidationError,
    is_bool,
    register_family,
)

#: the folder names the Files search scope "Downloads" covers
DOWNLOADS_DIRS = frozenset({"Download", "Downloads"})


def _ctx_path(context: Mapping[str, Any], key: str) -> str:
    value = context.get(key)
    if not isinstance(value, str) or not value:
        raise StateValidationError(f"context.{key}", f"a non-empty path string is required, got {value!r}")
    return value.rstrip("/") or "/"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


@register_family
class Persistent(FamilyUnit):
    name = "persistent"
    order = 10
    title = "Persistent Artifact"
    schema: ClassVar = {"source_exists": (is_bool, "a bool"), "destination_exists": (is_bool, "a bool")}
    contract = (
        "File contract: the entity context names one tracked file. Opening a folder lists that folder, and the "
        "tracked file appears in it only if it currently exists at that exact path. A filename search started "
        "from the Files screen is limited to Downloads: it lists the file when a tracked copy exists under "
        "Downloads and otherwise shows the empty result 'No matches in Downloads'; every scope or location "
        "label of the search says Downloads. Never carry the file over from the screenshot when it no longer "
        "exists."
    )
    instruction = ("Predict the current persistent state of the specified artifact from the ordered Files "
                   "interaction history while ignoring unrelated artifacts and paths.")
    outcome_kinds = frozenset({"search", "folder"})
    outcome_keys = ("result",)
    target_key = "result"
    table6_templates = ("copy_direct", "move_direct", "delete_direct", "copy_interference", "move_interference",
                        "delete_interference", "copy_delete_source", "copy_delete_destination",
                        "move_delete_destination")

    def consequence(self, z: dict[str, Any], action: Action, context: Mapping[str, Any] | None) -> dict[str, Any]:
        if not isinstance(context, Mapping):
            raise StateValidationError("context", "persistent needs the probe context (probe, source, destination)")
        probe = context.get("probe")
        src, dst = _ctx_path(context, "source"), _ctx_path(context, "destination")
        tracked = [(src, z["source_exists"]), (dst, z["destination_exists"])]
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
            if context.get("app") and context["app"] != "files":  # a host variant opens the folder elsewhere
                out["app"] = str(context["app"])
        else:
            raise StateValidationError("context.probe", f"must be 'search' or 'folder', got {probe!r}")
        if hit is not None:  # identity only on the branch where the file must be visible (Table 20 projection)
            out["artifact"] = str(context.get("artifact") or posixpath.basename(hit))
            out["path"] = hit
        return out

    def state_lines(self, z: dict[str, Any], *, with_action: bool) -> list[str]:
        say = {True: "exists", False: "does not exist"}
        return [f"Tracked file at its source path: {say[z['source_exists']]}.",
                f"Tracked file at its destination path: {say[z['destination_exists']]}."]

    def action_state_lines(self, z: dict[str, Any], d: dict[str, Any]) -> list[str]:
        # with an action the file's existence is stated through the inspected result only, so an absent
        # branch carries neither the file's name nor its paths
        where = "under Downloads" if d["probe"] == "search" else "in the opened folder"
        return [f"Tracked file {where}: {'exists' if d['present'] else 'does not exist'}."]

    def result_lines(self, d: dict[str, Any]) -> list[str]:
        if d["probe"] == "search":
            head = "The Files search is limited to Downloads, under the heading 'Files in Downloads'."
            if d["present"]:
                return [head, f"It shows exactly one result row: {_quoted(d['artifact'])} ({d['path']})."]
            return [head, "It shows the empty state 'No matches in Downloads' and no result row."]
        if d.get("app") == "gallery":
            head = (f"The Gallery shows the media of the folder {d['folder']}, each file's name under its "
                    "thumbnail.")
            if d["present"]:
                return [head, f"One of its thumbnails is named {_quoted(d['artifact'])}."]
            return [head, "None of its thumbnails is the tracked file."]
        if d.get("app") == "notes":
            head = f"Markor's notebook lists the folder {d['folder']}."
            if d["present"]:
                return [head, f"One of its rows is the file {_quoted(d['artifact'])}."]
            return [head, "None of its rows is the tracked file."]
        head = f"The Files app shows the folder {d['folder']}."
        if d["present"]:
            return [head, f"Its listing includes one row for {_quoted(d['artifact'])}."]
        return [head, "Its listing has no row for the tracked file."]

    def check_branch(self, state: dict[str, Any], outcome: dict[str, Any], evidence: dict[str, Any],
                     spec: dict[str, Any], wait_seconds: float) -> list[str]:
        problems: list[str] = []
        field = spec.get("state_field") or "destination_exists"
        if (outcome.get("result") == "present") != bool(state.get(field)):
            problems.append(f"surface says {outcome.get('result')} but {field}={state.get(field)}")
        if not evidence.get("consistent", True):
            problems.append("search shows neither the target nor an explicit empty state")
        return problems

    def training_context(self, params: Mapping[str, Any]) -> dict[str, Any]:
        return {"artifact": params["target"]} if isinstance(params.get("target"), str) else {}
