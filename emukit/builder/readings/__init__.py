"""Each family's reading of the shared action's outcome, one module per family, found by the family's name.

A reading turns what the surface shows after the shared action (its hierarchy dump, read with the selector
tables of the installed builds) into the branch's semantic outcome and the evidence behind it; a family whose
outcome also needs a probe on the device (Ordered Collection: the collection type and the database order)
says so in :meth:`OutcomeReader.read_on_device`, and how the release audit takes those parts from the stored
record in :meth:`OutcomeReader.from_stored`. Register a reading (an :class:`OutcomeReader` subclass naming
its ``family``) with ``@register_reading`` in ``emukit/builder/readings/<family>.py`` (or a module of your own
named by an ``emukit.outcome_readings`` entry point).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from emukit.apps.selectors import SelectorTable
from emukit.device.driver import Driver
from emukit.families import FamilyPieces

#: the selector table of an app (profile name: files, notes, music, clock; or systemui)
Tables = Callable[[str], SelectorTable]
Reading = tuple[dict[str, Any], dict[str, Any]]


class OutcomeReader(ABC):
    """One family's outcome reading (``spec`` is the template's ``outcome`` block with its parameters
    substituted: ``kind`` and the surface's fields)."""

    #: the family's name (a registered :class:`emukit.families.FamilyUnit`)
    family: ClassVar[str]

    @abstractmethod
    def read(self, spec: dict[str, Any], xml: str, tables: Tables) -> Reading:
        """``(outcome, evidence)`` of what the hierarchy ``xml`` shows, without a device."""

    def read_on_device(self, driver: Driver, spec: dict[str, Any], xml: str, tables: Tables,
                       probe_params: dict[str, Any]) -> Reading:
        """The reading at build time, on the device that ran the branch (default: :meth:`read`)."""
        return self.read(spec, xml, tables)

    def from_stored(self, spec: dict[str, Any], xml: str, tables: Tables, stored_outcome: dict[str, Any],
                    stored_evidence: dict[str, Any]) -> Reading:
        """The reading of a stored pair (the release audit): what :meth:`read_on_device` took from a device
        comes from the stored outcome and evidence; the surface is re-read from ``xml`` (default: :meth:`read`)."""
        return self.read(spec, xml, tables)


OUTCOME_READINGS: FamilyPieces[OutcomeReader] = FamilyPieces("outcome reading", "emukit.builder.readings",
                                                             "emukit.outcome_readings")


def register_reading(cls: type[OutcomeReader]) -> type[OutcomeReader]:
    """Class decorator: register one instance of ``cls`` in :data:`OUTCOME_READINGS` under ``cls.family``."""
    OUTCOME_READINGS.register(cls.family)(cls())
    return cls
