"""The baseline estimator's rules, one module per state family (``baseline/<family>.py``), each a function
``rules(history, final_observation, task) -> canonical state`` registered with :data:`BASELINE_RULES`;
:class:`emukit.evaluate.estimator.BaselineEstimator` finds a family's rules by its name. Helpers the rule
sets share live in :mod:`._common`.

This ``__init__`` only defines the registry: the registry imports every family module on first read, and
they import it back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from emukit.actions import Action
from emukit.families import FamilyPieces

#: ``(history, final observation XML, task context) -> canonical state``; history as in
#: :data:`emukit.evaluate.estimator.HistoryStep`
BaselineRules = Callable[[Sequence[tuple[str, Action]], str, Mapping[str, Any]], dict[str, Any]]

#: every family's baseline rules, by name (``emukit/evaluate/baseline/<family>.py``)
BASELINE_RULES: FamilyPieces[BaselineRules] = FamilyPieces("baseline estimator rule set",
                                                           "emukit.evaluate.baseline", "emukit.baseline_rules")

__all__ = ["BASELINE_RULES", "BaselineRules"]
