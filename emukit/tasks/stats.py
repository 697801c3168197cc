"""Statistics of a task set in the shape of GUI-CC's Figure 2 (seed 000: tasks, apps, app categories, templates,
average and min / max step budget, average and min / max milestones), for the whole set, per category and per
template.

Apps are counted without the launcher (every task may go through it; GUI-CC counts the apps tasks are about). A
task's reference length is its verified reference trajectory (``provenance.reference``); a task without one
counts towards the other figures only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import mean

from pydantic import BaseModel, ConfigDict

from emukit.tasks.schema import CATEGORY_TITLES, Task

#: the profile every task may pass through on its way between apps; not one of the apps a task is about
NAVIGATION_APPS = frozenset({"launcher"})


class Spread(BaseModel):
    """Average, minimum and maximum of one quantity over a group of tasks (None for an empty group)."""

    model_config = ConfigDict(frozen=True)

    avg: float | None
    min: int | None
    max: int | None

    @classmethod
    def of(cls, values: Sequence[int]) -> Spread:
        if not values:
            return cls(avg=None, min=None, max=None)
        return cls(avg=round(mean(values), 2), min=min(values), max=max(values))

    def text(self) -> str:
        """``avg (min-max)``, or ``-``."""
        if self.avg is None:
            return "-"
        return f"{self.avg:.2f} ({self.min}-{self.max})"


class GroupStats(BaseModel):
    """The figures of one group of tasks (the whole set, a category or a template)."""

    model_config = ConfigDict(frozen=True)

    tasks: int
    apps: list[str]
    categories: list[str]
    templates: list[str]
    budget: Spread
    milestones: Spread
    reference_steps: Spread
    verified: int


class TaskStats(BaseModel):
    """:class:`GroupStats` for the whole set, per category (GUI-CC's six, in their order; absent ones left out)
    and per template (by name)."""

    overall: GroupStats
    by_category: dict[str, GroupStats]
    by_template: dict[str, GroupStats]


def group_stats(tasks: Sequence[Task]) -> GroupStats:
    """The figures of ``tasks``."""
    apps = sorted({a for t in tasks for a in t.apps if a not in NAVIGATION_APPS})
    return GroupStats(
        tasks=len(tasks), apps=apps, categories=sorted({t.category for t in tasks}),
        templates=sorted({t.template for t in tasks}),
        budget=Spread.of([t.step_budget for t in tasks]),
        milestones=Spread.of([len(t.milestones) for t in tasks]),
        reference_steps=Spread.of([len(t.provenance.reference) for t in tasks if t.provenance.reference]),
        verified=sum(t.provenance.status == "verified" for t in tasks),
    )


def _grouped(tasks: Sequence[Task], key: Callable[[Task], str], order: Sequence[str]) -> dict[str, GroupStats]:
    groups: dict[str, list[Task]] = {}
    for t in tasks:
        groups.setdefault(key(t), []).append(t)
    return {k: group_stats(groups[k]) for k in order if k in groups}


def task_stats(tasks: Sequence[Task]) -> TaskStats:
    """GUI-CC's Figure 2 statistics of ``tasks``, overall, per category and per template."""
    return TaskStats(
        overall=group_stats(tasks),
        by_category=_grouped(tasks, lambda t: t.category, list(CATEGORY_TITLES)),
        by_template=_grouped(tasks, lambda t: t.template, sorted({t.template for t in tasks})),
    )
