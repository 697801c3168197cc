"""Persistent Artifact: present/absent from the Files listing or search the shared action opened."""

from __future__ import annotations

import re
from typing import Any

from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.builder.readings._common import below_app_bar, inside
from emukit.errors import ConfigError
from emukit.hierarchy import elements_of


@register_reading
class FilesReading(OutcomeReader):
    """present/absent from the rows of the listing DocumentsUI shows (row titles inside the directory list),
    with its empty-state message ("No items", "No matches in <root>") and header as evidence."""

    family = "persistent"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        app = spec.get("app") or "files"
        if app == "gallery":
            return _gallery(spec, xml, tables)
        if app == "notes":
            return _markor(spec, xml, tables)
        if app != "files":
            raise ConfigError(f"outcome.app {app!r}: the Persistent Artifact reading reads files, gallery or notes")
        files = tables("files")
        elements = elements_of(xml)
        target = spec.get("target") or ""
        box = next((e.bounds for e in elements if e.resource_id == files.rid("dir_list")), None)
        below = below_app_bar(elements)
        rows = [e.text for e in elements if e.resource_id == files.rid("row_title")
                and (inside(e.bounds, box) if box is not None else e.bounds[1] > below)]
        no_matches = re.compile(re.escape(files.text("no_matches")).replace(re.escape("{root}"), ".+"))
        empty = next((e.text for e in elements if e.text == files.text("no_items") or no_matches.fullmatch(e.text)),
                     "")
        header = next((e.text for e in elements if e.resource_id == files.rid("header_title")), "")
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


def _gallery(spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
    """present/absent from the file names Simple Gallery Pro shows under the thumbnails of the opened folder's
    media grid (with "Toggle filename visibility" on), its empty-state message and the search hint naming the
    folder as evidence. Only the ``folder`` kind: the Gallery has no search limited to a folder."""
    from emukit.apps.gallery import grid_names

    if spec["kind"] != "folder":
        raise ConfigError(f"outcome.kind {spec['kind']!r}: the Gallery's reading opens a folder (kind: folder)")
    gallery = tables("gallery")
    elements = elements_of(xml)
    names = grid_names(elements, gallery)
    target = spec.get("target") or ""
    empty = next((e.text for e in elements if e.resource_id == gallery.rid("media_empty") and e.text), "")
    hint = next((e.text for e in elements if e.resource_id == gallery.rid("search_field")), "")
    present = target in names
    folder = spec.get("folder") or ""
    outcome = {"result": "present" if present else "absent", "probe": "folder", "target": target,
               "scope": folder.rstrip("/").rsplit("/", 1)[-1], "folder": folder}
    # the grid names every file or says the folder is empty; a grid of thumbnails without names says nothing
    tiles = sum(1 for e in elements if e.resource_id == gallery.rid("media_tile"))
    evidence = {"app": "gallery", "rows": names, "empty_message": empty, "header": hint,
                "consistent": bool(empty) or (tiles > 0 and len(names) == tiles)}
    return outcome, evidence


def _markor(spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
    """present/absent from the row titles of the folder Markor's notebook lists (its ``..`` row left out), with
    the folder's empty hint and the ``..`` row's description (the folder above: which folder is listed) as
    evidence. Only the ``folder`` kind (the shared action opens the folder from the notebook)."""
    if spec["kind"] != "folder":
        raise ConfigError(f"outcome.kind {spec['kind']!r}: Markor's reading opens a folder (kind: folder)")
    notes = tables("notes")
    elements = elements_of(xml)
    rows = [e.text for e in elements if e.resource_id == notes.rid("notebook_row_title") and e.text != ".."]
    up = next((e.content_desc for e in elements if e.resource_id == notes.rid("notebook_row")
               and e.content_desc.startswith("Folder .. ")), "")
    empty = next((e.text for e in elements if e.resource_id == notes.rid("notebook_empty_hint") and e.text), "")
    target = spec.get("target") or ""
    folder = spec.get("folder") or ""
    present = target in rows
    listed = up == f"Folder .. {folder.rstrip('/').rsplit('/', 1)[0]}"
    outcome = {"result": "present" if present else "absent", "probe": "folder", "target": target,
               "scope": folder.rstrip("/").rsplit("/", 1)[-1], "folder": folder}
    evidence = {"app": "notes", "rows": rows, "empty_message": empty, "header": up, "consistent": listed}
    return outcome, evidence
