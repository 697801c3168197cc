"""The stress suites' move tables (seed 002 Appendix F.3/F.4), one module per family: ``<family>.py`` builds
the family's :class:`~emukit.builder.stress_model.FamilyTable` from the vocabulary of
:mod:`emukit.builder.stress_model` and registers it with :func:`register_table` in :data:`STRESS_TABLES`
(a module of another package does the same when an ``emukit.stress_tables`` entry point names it). A table
with an ``app`` holds the moves of the family's host variants in that app (``<app>.py``, :data:`HOST_TABLES`).
:mod:`emukit.builder.stress` finds a family's table there by name and checks every table when it is imported.
"""

from __future__ import annotations

from emukit.builder.stress_model import FamilyTable
from emukit.families import FamilyPieces

STRESS_TABLES: FamilyPieces[FamilyTable] = FamilyPieces("stress table", "emukit.builder.stress_tables",
                                                        "emukit.stress_tables")


#: the move tables of host variants, by (family, app): the family's moves in another app than its Table 6 one
HOST_TABLES: dict[tuple[str, str], FamilyTable] = {}


def register_table(table: FamilyTable) -> FamilyTable:
    """Register ``table`` in :data:`STRESS_TABLES` under its family's name, or with an ``app`` in
    :data:`HOST_TABLES` under (family, app); returns it."""
    if table.app is not None:
        HOST_TABLES[(table.family, table.app)] = table
        return table
    return STRESS_TABLES.register(table.family)(table)


def host_table(family: str, app: str) -> FamilyTable | None:
    """The move table of ``family``'s host variants in ``app`` (every table module loaded first); None when no
    module registers one."""
    STRESS_TABLES.load()
    return HOST_TABLES.get((family, app))
