"""The state families of seed 002 (Persistent Artifact, Clipboard, Ordered Collection, Temporal Deadline), each
one unit: a module of this package holds its layer-free semantics (:mod:`emukit.families.base`), and every
layer finds the family's piece there by name. Every ``--family`` choice, table order and dispatch reads the
registry; nothing else writes the family list out.

Adding a family: ``emukit/families/<name>.py`` (a :class:`FamilyUnit` subclass decorated
:func:`register_family`) and one module per layer piece (docs/architecture.md lists them); nothing else edited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator

from emukit.errors import ConfigError
from emukit.families.base import (
    FAMILY_UNITS,
    FamilyPieces,
    FamilyUnit,
    StateValidationError,
    register_family,
)


def _ordered_names() -> tuple[str, ...]:
    return tuple(sorted(FAMILY_UNITS.names(), key=lambda n: (FAMILY_UNITS[n].order, n)))


#: the families in the seed's order (the order of every table and report)
FAMILIES: tuple[str, ...] = _ordered_names()

#: ``--family`` choices of commands that also take every family at once
FAMILY_CHOICES: tuple[str, ...] = (*FAMILIES, "all")

#: the distribution-shift suites the families are built under (seed 002 Appendix F; :mod:`emukit.builder.stress`),
#: named once here for the builder, the CLI and the nightly config
SUITES: tuple[str, ...] = ("d-stress", "interference", "cross-app")
#: the folder under a data dir holding the suites, one ``<suite>/`` folder each
SUITES_DIRNAME = "suites"


def suite_dir(data_dir: Path, suite: str) -> Path:
    """Where ``emukit build-pairs --suite`` writes ``suite`` under ``data_dir``."""
    return Path(data_dir) / SUITES_DIRNAME / suite


def check_family(family: Any) -> str:
    """``family`` if it names a registered family; :class:`ConfigError` listing them otherwise."""
    if not isinstance(family, str) or family not in FAMILY_UNITS:
        raise ConfigError(f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    return family


def unit(family: str) -> FamilyUnit:
    """The registered unit of ``family`` (:class:`ConfigError` naming the known ones otherwise)."""
    return FAMILY_UNITS[check_family(family)]


def selected(family: str | None) -> str | None:
    """``None`` for every family (``None`` or ``"all"``), else the checked family name."""
    return None if family in (None, "all") else check_family(family)


def _validated(value: Any) -> str:
    try:
        return check_family(value)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None


#: a family name as a field type: a ``str`` that pydantic checks against the registry
Family = Annotated[str, AfterValidator(_validated)]

__all__ = ["FAMILIES", "FAMILY_CHOICES", "FAMILY_UNITS", "SUITES", "SUITES_DIRNAME", "Family", "FamilyPieces",
           "FamilyUnit", "StateValidationError", "check_family", "register_family", "selected", "suite_dir",
           "unit"]
