"""Baseline rules of Persistent Artifact: the tracked file starts at its source; a picker confirm ("Copy" /
"Move") after "Copy to…" / "Move to…" on the tracked file, while the picker shows the destination folder,
creates it there (and a move removes the source); a confirmed delete of the tracked file removes it from the
folder on screen; "Cancel" drops the pending operation. Operations on other files (decoys) are ignored."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.baseline._common import label, norm, row_text_at
from emukit.evaluate.estimator import HistoryStep, visible_nodes


def folder_on_screen(xml: str) -> str | None:
    """The folder a Files screen shows: its ``Files in X`` header, else the last breadcrumb / title text."""
    nodes = visible_nodes(xml)
    for node in nodes:
        if node.text.startswith("Files in "):
            return node.text[len("Files in "):]
    crumbs = [n for n in nodes if n.resource_id.endswith(("breadcrumb", "title")) and n.bounds[1] < 500]
    return crumbs[-1].text if crumbs else None


@BASELINE_RULES.register("persistent")
def persistent(history: Sequence[HistoryStep], final_xml: str, task: Mapping[str, Any]) -> dict[str, Any]:
    """``source_exists`` / ``destination_exists`` of the task's tracked file (``source``, ``destination``,
    ``artifact``)."""
    source, destination = task.get("source") or "", task.get("destination") or ""
    artifact = task.get("artifact") or posixpath.basename(source or destination)
    exists = {"source": True, "destination": destination == source and bool(source)}
    selected: str | None = None
    pending: str | None = None
    for xml, action in history:
        said = norm(label(action))
        if action.type == "long_press":
            selected = label(action) or row_text_at(xml, action.y or 0)
        elif action.type == "tap" and said in ("copy to...", "move to..."):
            pending = said.split()[0] if selected == artifact else None
        elif action.type == "tap" and said in ("copy", "move") and pending:
            texts = {n.text for n in visible_nodes(xml)}
            dest_dir = posixpath.basename(posixpath.dirname(destination))
            if dest_dir in texts or f"Files in {dest_dir}" in texts:
                exists["destination"] = True
                if pending == "move":
                    exists["source"] = False
            pending = None
        elif action.type == "tap" and said in ("ok", "delete") and pending == "delete":
            shown = folder_on_screen(xml)
            for key, path in (("source", source), ("destination", destination)):
                folder = posixpath.basename(posixpath.dirname(path))
                if folder and folder == shown:
                    exists[key] = False
                    break
            pending = None
        elif action.type == "tap" and said == "delete" and selected == artifact:
            pending = "delete"
        elif action.type == "tap" and said == "cancel":
            pending = None
    return {"source_exists": exists["source"], "destination_exists": exists["destination"]}
