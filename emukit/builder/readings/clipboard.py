"""Clipboard: the text the paste put into the field the query context long-pressed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.hierarchy import elements_of


@register_reading
class PasteReading(OutcomeReader):
    """The pasted field's text after the paste (None when no such field is on screen): Markor's note editor
    (the family's own app), else, for a host variant (``outcome.app``), the focused text field of that app's
    window, the one the paste went into (a long press focuses the field it lands on)."""

    family = "clipboard"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        app = spec.get("app") or "notes"
        if app == "notes":
            editor_id = tables("notes").rid("editor")
            editor = next((e for e in elements_of(xml) if e.resource_id == editor_id), None)
            return {"pasted_text": editor.text if editor else None}, {"editor_found": editor is not None}
        package = tables(app).package
        field = next((n for n in ET.fromstring(xml).iter("node") if n.get("focused") == "true"
                      and n.get("package") == package and n.get("class", "").endswith("EditText")), None)
        text = field.get("text", "") if field is not None else None
        evidence = {"editor_found": field is not None, "app": app,
                    "field": (field.get("resource-id") or field.get("class", "")) if field is not None else None}
        return {"pasted_text": text}, evidence
