"""Ordered Collection: the rows the opened playlist or queue shows (Retro Music's, or with ``app: vlc`` a VLC
playlist's), with the collection type and the database order after the action from the probe."""

from __future__ import annotations

from typing import Any

from emukit.apps.music import list_titles
from emukit.builder.readings import OutcomeReader, Reading, Tables, register_reading
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.probes import probe


@register_reading
class ListReading(OutcomeReader):
    """``ordered_items`` from the list's primary rows; on the device also ``collection_type`` and, as
    evidence, the database order (the validator compares the screen with it)."""

    family = "ordered"

    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        app = spec.get("app") or "music"
        if app == "vlc":
            from emukit.apps.vlc import playlist_titles
            from emukit.hierarchy import elements_of

            return {"ordered_items": playlist_titles(elements_of(xml), tables("vlc"))}, {}
        if app != "music":
            raise ConfigError(f"outcome.app {app!r}: the Ordered Collection reading reads music or vlc")
        return {"ordered_items": list_titles(xml, tables("music"))}, {}

    def read_on_device(self, driver: Driver, spec: dict[str, Any], xml: str, tables: Tables,
                       probe_params: dict[str, Any]) -> Reading:
        outcome, _ = self.read(spec, xml, tables)
        state = probe(driver, "ordered", **probe_params)
        return ({"collection_type": state.canonical["collection_type"], **outcome},
                {"database_order": state.canonical["ordered_items"]})

    def from_stored(self, spec: dict[str, Any], xml: str, tables: Tables, stored_outcome: dict[str, Any],
                    stored_evidence: dict[str, Any]) -> Reading:
        outcome, _ = self.read(spec, xml, tables)
        return ({"collection_type": stored_outcome.get("collection_type"), **outcome},
                {"database_order": stored_evidence.get("database_order")})
