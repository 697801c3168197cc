"""The surfaces ``ref:surface`` draws (:mod:`emukit.evaluate.adapters.reference`), one module per state family
(``surfaces/<family>.py``), each a function ``html(ctx) -> page`` registered with :data:`SURFACES`: the
surface implied by the request's family, action and state-interface consequence, drawn so that the family's
parser reads that consequence. The page frame and widgets they share live in :mod:`._page`.

This ``__init__`` only defines the registry: the registry imports every family module on first read, and
they import it back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.families import FamilyPieces

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext

#: a prediction context in, a full-viewport HTML page out
Surface = Callable[["PredictionContext"], str]

#: every family's reference surface, by name (``emukit/evaluate/surfaces/<family>.py``)
SURFACES: FamilyPieces[Surface] = FamilyPieces("reference surface", "emukit.evaluate.surfaces",
                                               "emukit.reference_surfaces")

__all__ = ["SURFACES", "Surface"]
