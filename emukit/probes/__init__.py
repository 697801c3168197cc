"""Read-only ground-truth probes, one per state family (seed 002 Table 10 canonical states)."""

from __future__ import annotations

from typing import Any

from emukit.device.driver import Driver
from emukit.probes.base import FAMILIES, Family, ProbeResult
from emukit.probes.clipboard import probe_clipboard
from emukit.probes.ordered import probe_ordered
from emukit.probes.persistent import probe_persistent
from emukit.probes.temporal import probe_temporal

__all__ = ["FAMILIES", "Family", "ProbeResult", "probe", "probe_clipboard", "probe_ordered",
           "probe_persistent", "probe_temporal"]


def probe(driver: Driver, family: Family, **params: Any) -> ProbeResult:
    """Dispatch to the family's probe: persistent(source, destination), clipboard(), ordered(playlist=None),
    temporal(timer_id=None)."""
    if family == "persistent":
        return probe_persistent(driver, params["source"], params.get("destination"), sha256=params.get("sha256", False))
    if family == "clipboard":
        return probe_clipboard(driver)
    if family == "ordered":
        return probe_ordered(driver, params.get("playlist"))
    if family == "temporal":
        return probe_temporal(driver, params.get("timer_id"))
    raise ValueError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
