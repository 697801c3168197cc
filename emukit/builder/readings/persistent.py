"""Persistent Artifact: present/absent from the Files listing or search the shared action opened."""

from __future__ import annotations

import re
from typing import Any

from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.builder.readings._common import below_app_bar, inside
from emukit.hierarchy import elements_of


@register_reading
class FilesReading(OutcomeReader):
    """present/absent from the rows of the listing DocumentsUI shows (row titles inside the directory list),
    with its empty-state message ("No items", "No matches in <root>") and header as evidence."""

    family = "persistent"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
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
