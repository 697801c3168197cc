"""The vocabulary of the stress suites' move tables (seed 002 Appendix F.3/F.4): a :class:`Move` is a unit of
model-visible actions that leaves a family's tracked state alone; a :class:`FamilyTable` holds a family's
neutral moves and its interfering moves per level. The tables themselves live in
:mod:`emukit.builder.stress_tables`, one module per family."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from emukit.builder.pair import SHADE_SWIPE

Step = dict[str, Any]  # one raw step, e.g. {"tap": {"text": "OK"}}

BACK: Step = {"back": {}}
# the notification shade pulled down from the status bar (the same gesture as the builder's wait action)
SHADE_DOWN: Step = {"swipe": dict(SHADE_SWIPE)}


@dataclass(frozen=True)
class Move:
    """A state-preserving unit of model-visible actions.

    ``steps``: raw steps (``tap``, ``long_press``, ``swipe``, ``back``, ``home``, ``key``), one recorded action
    each, coordinates as percentages of the screen (:mod:`emukit.builder.steps`) or element selectors;
    ``requires``: selectors that must all be on screen for the move to apply; ``pool``: the name of a
    distractor pool -- the move then applies to the first-fitting name of that pool that is on screen (as
    ``{name}``).
    """

    name: str
    steps: tuple[dict[str, Any], ...]
    requires: tuple[dict[str, Any], ...] = ()
    pool: str | None = None

    @property
    def length(self) -> int:
        return len(self.steps)


# (state params, template params, setting steps, rng) -> (pools: pool name -> names, setup steps creating them)
Distractors = Callable[[dict[str, Any], dict[str, Any], list[dict[str, Any]], random.Random],
                       tuple[dict[str, list[str]], list[dict[str, Any]]]]


@dataclass(frozen=True)
class FamilyTable:
    """Per family: neutral moves (d-stress and interference filler), interfering moves per level, and how
    distractors are derived from a trajectory (``distractors``: pools of names plus the adb-side setup steps
    that create them, run before the template's setup and never shown to a model)."""

    family: str
    neutral: tuple[Move, ...]
    levels: dict[str, tuple[Move, ...]]
    distractors: Distractors | None = None
    #: the app the moves act in when it is not the family's Table 6 app: the table of the family's host
    #: variants in that app (templates with ``variant: {app: ...}``)
    app: str | None = None

    @property
    def label(self) -> str:
        """``persistent``, or ``persistent in gallery`` for a host table."""
        return self.family if self.app is None else f"{self.family} in {self.app}"


# System-level moves: they apply in any app and leave it as it was (Overview opened and closed; the
# notification shade pulled down and closed with BACK).
SYSTEM_NEUTRAL = (
    Move("recents_round_trip", ({"key": 187}, {"key": 187})),
    Move("shade_open_close", (SHADE_DOWN, BACK)),
)
