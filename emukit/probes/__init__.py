"""Read-only ground-truth probes, one per state family (seed 002 Table 10 canonical states): each family's
module (``emukit/probes/<family>.py``) registers its :class:`FamilyProbe` in :data:`PROBES`, and
:func:`probe` finds it there by the family's name."""

from __future__ import annotations

from typing import Any

from emukit.device.driver import Driver
from emukit.probes.base import (
    FAMILIES,
    PROBES,
    CliOption,
    Family,
    FamilyProbe,
    ProbeResult,
    ProbeUsageError,
    register_probe,
)
from emukit.probes.clipboard import probe_clipboard
from emukit.probes.ordered import probe_ordered
from emukit.probes.persistent import probe_persistent
from emukit.probes.temporal import probe_temporal

__all__ = ["FAMILIES", "PROBES", "CliOption", "Family", "FamilyProbe", "ProbeResult", "ProbeUsageError", "probe",
           "probe_clipboard", "probe_ordered", "probe_persistent", "probe_temporal", "register_probe"]


def probe(driver: Driver, family: Family, **params: Any) -> ProbeResult:
    """The canonical state of ``family`` on ``driver``, read by the family's registered probe; ``params`` are the
    template's state parameters (each probe module says which it reads and ignores the rest).
    :class:`~emukit.errors.ConfigError` for a family without a probe."""
    return PROBES.get(family).read(driver, **params)
