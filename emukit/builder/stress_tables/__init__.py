"""The stress suites' move tables (seed 002 Appendix F.3/F.4), one module per family: ``<family>.py`` builds
the family's :class:`~emukit.builder.stress_model.FamilyTable` from the vocabulary of
:mod:`emukit.builder.stress_model` and registers it with :func:`register_table` in :data:`STRESS_TABLES`
(a module of another package does the same when an ``emukit.stress_tables`` entry point names it).
:mod:`emukit.builder.stress` finds a family's table there by name and checks every table when it is imported.
"""

from __future__ import annotations

from emukit.builder.stress_model import FamilyTable
from emukit.families import FamilyPieces

STRESS_TABLES: FamilyPieces[FamilyTable] = FamilyPieces("stress table", "emukit.builder.stress_tables",
                                                        "emukit.stress_tables")


def register_table(table: FamilyTable) -> FamilyTable:
    """Register ``table`` in :data:`STRESS_TABLES` under its family's name; returns it."""
    return STRESS_TABLES.register(table.family)(table)
