"""What every ground-truth probe returns (the canonical state of seed 002 Table 10 plus audit evidence) and
what a family's probe is: a :class:`FamilyProbe` registered in :data:`PROBES` by its own module,
``emukit/probes/<family>.py`` (or a module of another package named by an ``emukit.family_probes`` entry point).

Probes are read-only: they never navigate the UI, launch an app or write anything on the device. They read
files (``stat``/``find``/``cat``), pulled database copies, the emulator's gRPC clipboard and the clocks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, Field

from emukit.errors import ConfigError
from emukit.families import FAMILIES, Family, FamilyPieces  # noqa: F401 - FAMILIES re-exported by emukit.probes

if TYPE_CHECKING:
    from emukit.device.driver import Driver


class ProbeResult(BaseModel):
    """The canonical state JSON (what models are scored against) and the richer evidence kept for audit."""

    family: Family
    canonical: dict[str, Any]
    evidence: dict[str, Any] = Field(default_factory=dict)


class ProbeUsageError(ConfigError):
    """The ``emukit probe`` options do not make a probe of the family (the command exits 2 with the message)."""


class CliOption:
    """One ``emukit probe`` option a family's probe reads: argparse's ``add_argument(*flags, **kwargs)``."""

    def __init__(self, *flags: str, **kwargs: Any) -> None:
        self.flags = flags
        self.kwargs = kwargs


class FamilyProbe(ABC):
    """One family's read-only probe. Subclass it in ``emukit/probes/<family>.py`` and decorate the class with
    :func:`register_probe`.

    :meth:`read` takes the template's state parameters as keywords and ignores those it does not use (every
    caller passes the whole ``state`` of a template); :attr:`cli_options` and :meth:`params_from_cli` are the
    family's part of ``emukit probe``."""

    #: the family's name (a registered :class:`emukit.families.FamilyUnit`)
    family: ClassVar[str]
    #: the ``emukit probe`` options this probe reads (an option another family declared first is shared)
    cli_options: ClassVar[tuple[CliOption, ...]] = ()

    def __repr__(self) -> str:  # the registry names a probe registered twice by its class
        return f"{type(self).__qualname__}()"

    @abstractmethod
    def read(self, driver: Driver, **params: Any) -> ProbeResult:
        """The family's canonical state on ``driver`` (plus evidence)."""

    def params_from_cli(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The :meth:`read` parameters from the parsed ``emukit probe`` options (by argparse ``dest``);
        :class:`ProbeUsageError` when they do not make a probe. None by default."""
        return {}


PROBES: FamilyPieces[FamilyProbe] = FamilyPieces("probe", "emukit.probes", "emukit.family_probes")


def register_probe(cls: type[FamilyProbe]) -> type[FamilyProbe]:
    """Class decorator: register one instance of ``cls`` in :data:`PROBES` under ``cls.family``."""
    PROBES.register(cls.family)(cls())
    return cls
