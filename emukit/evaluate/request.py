"""The request builder: one world-model request, and the prediction context that travels with it, for every
kind of sample the evaluator predicts for.

A strict pair's branch, a milestone task's step and an external trajectory's step are all one observation
and one action put to a world-model format (:mod:`emukit.wm`); what differs is said here, once:

* ``sample``: what the request is for (``pair``, ``task``, ``trajectory``), recorded in the
  :class:`~emukit.evaluate.adapters.base.PredictionContext` so an adapter or a report never has to guess;
* ``family``: a pair's state family (its transition contract, its wait serialization, the reference model's
  surface); None for tasks and trajectories, which have none;
* ``contract``: the transition contract in place of the family's (required without a family; tasks and
  trajectories use :data:`TASK_CONTRACT`).

The condition's inputs (history, state block, entity context) are the pair evaluator's
(:func:`emukit.evaluate.run.build_branch_request`); tasks and trajectories ask in the observation condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.actions import Action
from emukit.evaluate.adapters.base import SAMPLE_KINDS, PredictionContext, SampleKind
from emukit.wm.formats.base import WorldModelFormat

__all__ = ["SAMPLE_KINDS", "TASK_CONTRACT", "RequestBuilder", "SampleKind"]

#: The transition contract of a step of a multi-app task (milestone tasks, external trajectories).
TASK_CONTRACT = (
    "Task contract: the action is one step of a multi-app phone task. Show the screen the action leads to: "
    "the app, page, dialog or keyboard it opens, with every text the user has entered or copied carried over "
    "unchanged. Never show a result the action has not produced yet."
)


@dataclass(frozen=True)
class RequestBuilder:
    """Builds ``(request body, prediction context)`` for one sample kind with one format.

    Attributes:
        fmt: the world-model format (the request's wire shape).
        sample: the kind of sample.
        family: the pair family; None for a sample without one.
        contract: the transition contract in place of the family's; required when ``family`` is None.
    """

    fmt: WorldModelFormat
    sample: SampleKind
    family: str | None = None
    contract: str | None = None

    def __post_init__(self) -> None:
        if self.sample not in SAMPLE_KINDS:
            raise ValueError(f"unknown sample kind {self.sample!r}; expected one of {', '.join(SAMPLE_KINDS)}")
        if self.family is None and self.contract is None:
            raise ValueError(f"a {self.sample} request without a pair family needs a transition contract")

    def build(self, observation_png: bytes, action: Action, *, screen_size: tuple[int, int],
              observation_xml: str = "", condition: str = "observation",
              history: Sequence[tuple[bytes, Action]] | None = None, condition_text: str | None = None,
              entity_context: str | None = None, state: Mapping[str, Any] | None = None,
              interface_context: Mapping[str, Any] | None = None,
              consequence: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], PredictionContext]:
        """The request body for predicting the screen after ``action`` on ``observation_png`` and its context.

        Args:
            observation_png: the current screen as the device captured it.
            action: the action to predict the effect of.
            screen_size: the device screen the action's coordinates are in.
            observation_xml: the current screen's view hierarchy ("" when none came with it).
            condition: the conditioning (``observation``, ``raw-history``, ``oracle-state``,
                ``predictive-state``); recorded in the context, the inputs below carry it.
            history: earlier ``(png, action)`` steps, oldest first (raw history).
            condition_text: the rendered state block (state conditions).
            entity_context: pair-shared task context (the tracked entity).
            state: the canonical state given to the state interface (state conditions).
            interface_context: the persistent probe context.
            consequence: the interface's resolved consequence.
        """
        body = self.fmt.build_request(observation_png, action, screen_size=screen_size, history=history,
                                      condition_text=condition_text, family=self.family, contract=self.contract,
                                      entity_context=entity_context)
        vp = self.fmt.viewport
        ctx = PredictionContext(family=self.family, condition=condition, format=self.fmt.name,
                                viewport=(vp.width, vp.height, vp.device_scale_factor), action=action,
                                screen_size=screen_size, observation_png=observation_png,
                                observation_xml=observation_xml, state=state, interface_context=interface_context,
                                consequence=consequence, sample=self.sample)
        return body, ctx
