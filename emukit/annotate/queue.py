"""The annotator's task queue (``emukit annotate --queue [FILTER]``): the tasks a filter selects, in id order,
and which of them still wait for this annotator.

A task waits when it is not verified and this annotator has not annotated it yet; with ``include_verified``
verified tasks this annotator has not annotated wait too (a second opinion for ``emukit tasks agreement``).
``FILTER`` is a shell-style pattern over task ids or template names (``timer_*``, ``code_to_new_note``); no
filter selects every task on the search path.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import Path

from emukit.errors import ConfigError
from emukit.tasks.annotations import load_annotations
from emukit.tasks.files import load_tasks
from emukit.tasks.schema import Task


class TaskQueue:
    """Tasks matching ``pattern`` and the progress of ``annotator`` through them."""

    def __init__(self, tasks: list[Task], annotator: str, *, pattern: str | None = None,
                 include_verified: bool = False) -> None:
        self.pattern = pattern
        self.annotator = annotator
        self.include_verified = include_verified
        self.tasks = sorted((t for t in tasks if matches(t, pattern)), key=lambda t: t.id)
        if not self.tasks:
            known = ", ".join(sorted({t.template for t in tasks})) or "none"
            raise ConfigError(f"no task matches the queue filter {pattern!r} (task templates: {known})")

    @classmethod
    def load(cls, annotator: str, pattern: str | None = None, *, dirs: Iterable[Path] | None = (),
             include_verified: bool = False) -> TaskQueue:
        return cls(load_tasks(dirs=dirs), annotator, pattern=pattern, include_verified=include_verified)

    def annotated(self, task: Task) -> bool:
        """Whether this annotator has saved an annotation of ``task`` (read from disk each time)."""
        return any(a.annotator == self.annotator
                   for a in load_annotations(Path(task.source_path).parent, task.id))

    def waiting(self, task: Task) -> bool:
        if self.annotated(task):
            return False
        return self.include_verified or task.provenance.status != "verified"

    def next_task(self, after: str | None = None) -> Task | None:
        """The first waiting task after ``after`` in id order (wrapping round), else None."""
        ids = [t.id for t in self.tasks]
        start = ids.index(after) + 1 if after in ids else 0
        for task in self.tasks[start:] + self.tasks[:start]:
            if task.id != after and self.waiting(task):
                return task
        return None

    def progress(self, current: str | None = None) -> dict[str, object]:
        """Position of ``current`` and how many tasks are done / left for this annotator."""
        done = sum(self.annotated(t) for t in self.tasks)
        left = sum(self.waiting(t) for t in self.tasks)
        ids = [t.id for t in self.tasks]
        return {"filter": self.pattern, "total": len(self.tasks), "annotated_by_you": done, "waiting": left,
                "position": ids.index(current) + 1 if current in ids else None}

    def summary(self) -> str:
        p = self.progress()
        what = "unverified " if not self.include_verified else ""
        return (f"{p['annotated_by_you']} of {p['total']} task(s) annotated by {self.annotator}, "
                f"{p['waiting']} {what}task(s) waiting")


def matches(task: Task, pattern: str | None) -> bool:
    """Whether ``pattern`` (shell-style) matches the task's id or its template's name (no pattern: all)."""
    if not pattern:
        return True
    return fnmatch.fnmatchcase(task.id, pattern) or fnmatch.fnmatchcase(task.template, pattern)
