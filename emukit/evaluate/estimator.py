"""Predictive-state estimators: model-visible history in, canonical family state out (seed 002 Section 3,
Appendix C.6 / D.2).

:class:`StateEstimator` is the interface a learned estimator implements later. Its input is exactly what C.6
allows: the family (which selects the schema), prediction-time task context (the tracked artifact, the
playlist), the ordered history of model-visible observations and actions, and the final (boundary)
observation. The shared action ``A_t``, ground-truth state, outcomes, identifiers, warp records and simulator
time are never passed in.

:class:`BaselineEstimator` is a transparent rule-based reader of that history. It reads only the hierarchy
XML text of each observation and the recorded actions (type, text, coordinates, waits, and the targeted
element's description), never pixels, and follows one small rule set per family, each in its own module
(``emukit/evaluate/baseline/<family>.py``, found by the family's name through
:data:`emukit.evaluate.baseline.BASELINE_RULES`): their docstrings state the rules.

Its accuracy is what it is (reported as state-recovery Exact); it is a baseline and a pipeline check.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.evaluate.baseline import BASELINE_RULES

BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class VisibleNode:
    """One hierarchy node with text, as the estimator sees it."""

    text: str
    resource_id: str
    content_desc: str
    bounds: tuple[int, int, int, int]


def visible_nodes(xml: str) -> list[VisibleNode]:
    """Nodes with text or a content description, in document order (empty for unparsable XML)."""
    if not xml or not xml.strip():
        return []
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return []
    out = []
    for node in root.iter("node"):
        m = BOUNDS_RE.fullmatch(node.get("bounds") or "")
        if not m:
            continue
        text, desc = (node.get("text") or "").strip(), (node.get("content-desc") or "").strip()
        if text or desc:
            out.append(VisibleNode(text, node.get("resource-id") or "", desc,
                                   tuple(int(g) for g in m.groups())))  # type: ignore[arg-type]
    return out


HistoryStep = tuple[str, Action]  # (hierarchy XML of the observation the action was taken on, the action)


class StateEstimator(ABC):
    """Recovers the canonical state (seed 002 Table 10) of one family from model-visible history."""

    name: str = "estimator"

    @abstractmethod
    def estimate(self, family: str, history: Sequence[HistoryStep], final_observation: str, *,
                 task: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The canonical state JSON for ``family``. ``history``: ``(observation hierarchy XML, action)``
        oldest first; ``final_observation``: the boundary's hierarchy XML; ``task``: prediction-time task
        context (persistent: ``source``, ``destination``, ``artifact``; ordered: ``playlist``)."""


class BaselineEstimator(StateEstimator):
    """Transparent rules over actions and hierarchy text (see the module docstring)."""

    name = "baseline"

    def estimate(self, family: str, history: Sequence[HistoryStep], final_observation: str, *,
                 task: Mapping[str, Any] | None = None) -> dict[str, Any]:
        rules = BASELINE_RULES.get(family)  # ConfigError naming the known families
        return rules(history, final_observation, dict(task or {}))


def load_estimator(spec: str = "baseline") -> StateEstimator:
    """``baseline``; a checkpoint folder of ``emukit estimator train`` (``CKPT``, or ``CKPT:joint`` /
    ``CKPT:specialist``: :mod:`emukit.estimator.infer`); or ``module.path:ClassName`` (a
    :class:`StateEstimator` subclass, built without arguments)."""
    if spec == "baseline":
        return BaselineEstimator()
    from emukit.estimator.infer import is_checkpoint, load_learned

    if is_checkpoint(spec):
        return load_learned(spec)
    module, sep, attr = spec.partition(":")
    if not sep:
        raise ConfigError(f"estimator {spec!r}: expected 'baseline' or 'module.path:ClassName'")
    import importlib

    cls = getattr(importlib.import_module(module), attr)
    est = cls()
    if not isinstance(est, StateEstimator):
        raise ConfigError(f"estimator {spec!r} is not a StateEstimator")
    return est
