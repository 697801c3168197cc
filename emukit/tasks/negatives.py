"""Wrong trajectories a task's milestones must reject (``emukit tasks verify --negatives``).

A milestone checklist that a wrong trajectory also completes cannot tell a good agent from a bad one. For every
task template the shipped set is checked against generated negatives, replayed from the task's own initial
state exactly like its reference:

* **sibling**: the reference trajectory of another task of the same template, the one whose parameters differ
  most (another song, code, file or contact): the plausible run of an agent that kept the wrong entity in mind.
  Its actions fit the template's screens, so the milestones, not a missing button, must reject it.
* **truncated**: the reference cut just before the action that reaches the last milestone: a run that stops
  one step short.

A negative is **rejected** when at least one milestone is still unreached at its end (a replay that fails on
the way, a target no longer there, counts as rejected too, and says so).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from emukit.actions import Action
from emukit.tasks.schema import Task
from emukit.tasks.session import TaskSession
from emukit.workers import DeviceContext

NegativeKind = Literal["sibling", "truncated"]


@dataclass(frozen=True)
class Negative:
    """One wrong trajectory for ``task_id``: its kind, where it comes from, and its actions."""

    task_id: str
    kind: NegativeKind
    source: str
    actions: tuple[Action, ...]


@dataclass
class NegativeResult:
    negative: Negative
    reached: list[int | None]
    missed: list[str]
    replay_error: str | None = None
    wall_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        """True when the milestones did not all tick (the negative is told apart from a success)."""
        return bool(self.missed)


def _differing(a: Task, b: Task) -> int:
    return sum(1 for k in set(a.params) | set(b.params) if a.params.get(k) != b.params.get(k))


def sibling_negative(task: Task, siblings: Sequence[Task]) -> Negative | None:
    """The reference of the same template's task whose parameters differ most from ``task``'s (ties: the first
    by id); None when no other task of the template has a reference."""
    others = [t for t in siblings if t.template == task.template and t.id != task.id and t.provenance.reference
              and _differing(task, t) > 0]
    if not others:
        return None
    best = max(sorted(others, key=lambda t: t.id), key=lambda t: _differing(task, t))
    changed = sorted(k for k in best.params if best.params.get(k) != task.params.get(k))
    return Negative(task.id, "sibling", f"{best.id}'s reference ({', '.join(changed)} differ)",
                    tuple(best.provenance.reference))


def truncated_negative(task: Task) -> Negative | None:
    """The reference without the action that reaches the last milestone and everything after it."""
    steps = task.provenance.milestone_steps
    if not steps or not task.provenance.reference:
        return None
    cut = steps[-1] - 1
    return Negative(task.id, "truncated", f"the reference's first {cut} of {len(task.provenance.reference)} actions",
                    tuple(task.provenance.reference[:cut]))


def template_negatives(tasks: Sequence[Task]) -> list[tuple[Task, Negative]]:
    """For every template, its first task (by id) with each negative that can be generated for it."""
    by_template: dict[str, list[Task]] = {}
    for t in sorted(tasks, key=lambda t: t.id):
        if t.provenance.reference:
            by_template.setdefault(t.template, []).append(t)
    out: list[tuple[Task, Negative]] = []
    for name in sorted(by_template):
        group = by_template[name]
        first = group[0]
        for negative in (sibling_negative(first, group), truncated_negative(first)):
            if negative is not None:
                out.append((first, negative))
    return out


def run_negative(device: DeviceContext, task: Task, negative: Negative) -> NegativeResult:
    """Replay ``negative`` from ``task``'s initial state and report which milestones it reached."""
    t0 = time.perf_counter()
    session = TaskSession(device, task, screenshots=False)
    session.reset()
    error = session.replay(negative.actions)
    reached = session.tracker.reached_at
    missed = [m.id for m, r in zip(task.milestones, reached, strict=True) if r is None]
    return NegativeResult(negative, reached, missed, error, time.perf_counter() - t0)
