"""Semantic outcomes of the shared action, read from environment-side evidence after it ran: the app's UI
hierarchy (what the surface actually shows) cross-checked with the read-only probes. Each family's reading is
its module in ``emukit/builder/readings/``; this module picks it by the family's name."""

from __future__ import annotations

from typing import Any

from emukit.apps.registry import device_table
from emukit.builder.readings import OUTCOME_READINGS, Reading, Tables
from emukit.builder.readings._common import below_app_bar
from emukit.builder.readings.temporal import clock_notifications
from emukit.device.driver import Driver

__all__ = ["Tables", "below_app_bar", "clock_notifications", "read_outcome", "stored_outcome", "surface_outcome"]


def read_outcome(driver: Driver, family: str, spec: dict[str, Any], xml: str,
                 probe_params: dict[str, Any]) -> Reading:
    """(outcome, evidence) for the surface the shared action produced, read with the tables of the device's
    installed builds (and, where the family's reading says so, a probe on the device)."""
    return OUTCOME_READINGS[family].read_on_device(driver, spec, xml, lambda app: device_table(driver, app),
                                                   probe_params)


def surface_outcome(family: str, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
    """(outcome, evidence) of what the hierarchy ``xml`` shows, without a device: ``tables(app)`` gives the
    selector table each reading uses."""
    return OUTCOME_READINGS[family].read(spec, xml, tables)


def stored_outcome(family: str, spec: dict[str, Any], xml: str, tables: Tables, outcome: dict[str, Any] | None,
                   evidence: dict[str, Any] | None) -> Reading:
    """The reading of a stored pair's next observation: the surface re-read from ``xml``, what came from a
    device probe at build time taken from the stored ``outcome`` / ``evidence``."""
    return OUTCOME_READINGS[family].from_stored(spec, xml, tables, outcome or {}, evidence or {})
