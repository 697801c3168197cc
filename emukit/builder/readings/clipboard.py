"""Clipboard: the text the paste put into the note editor."""

from __future__ import annotations

from typing import Any

from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.hierarchy import elements_of


@register_reading
class PasteReading(OutcomeReader):
    """The editor's text after the paste (None when no editor is on screen)."""

    family = "clipboard"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        editor_id = tables("notes").rid("editor")
        editor = next((e for e in elements_of(xml) if e.resource_id == editor_id), None)
        return {"pasted_text": editor.text if editor else None}, {"editor_found": editor is not None}
