"""Annotators' verifications of a task, kept side by side, and the explicit step that makes one canonical.

Every verdict an annotator gives (verified with its trajectory, or rejected with a note) is written as a new
file ``<task folder>/annotations/<task id>/<NNNN>.yaml`` and never overwritten: a second annotator, or the
same one again, adds a file beside the others. The task file itself (its ``provenance.reference`` and step
budget) changes only through :func:`accept_annotation` (``emukit tasks accept TASK_ID --annotation N``), which
refuses an annotation recorded on a different version of the task and a reference longer than the canonical
one unless told (the step budget would grow with it). :func:`agreement` compares the annotations of a task.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import statistics
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from emukit.actions import Action
from emukit.atomicio import create_exclusive
from emukit.errors import ConfigError
from emukit.provenance import BuiltOn
from emukit.tasks.files import budget_for, save_task
from emukit.tasks.schema import Task
from emukit.yamlmodel import load_yaml_model

Verdict = Literal["verified", "rejected"]
ANNOTATIONS = "annotations"
MAX_NUMBER = 9999


class Annotation(BaseModel):
    """One annotator's verdict on one task, as performed from the task's initial state."""

    model_config = ConfigDict(extra="forbid")

    number: int = Field(ge=1, le=MAX_NUMBER)
    task_id: str
    task_digest: str  # task_digest() of the task the run was performed on
    annotator: str = Field(min_length=1)
    at: dt.datetime
    verdict: Verdict
    trajectory: list[Action] = Field(default_factory=list)
    milestone_steps: list[int | None] = Field(default_factory=list)
    note: str = ""
    run: str = ""  # the annotate server's run id (one reset of the task)
    initial_snapshot: str | None = None
    review: list[str] = Field(default_factory=list)  # the review flags the annotator confirmed
    #: the device the annotator ran the task on and the builds of its apps (read on the device); None in
    #: annotations saved before it was kept
    built_on: BuiltOn | None = None
    source_path: str = Field(default="", exclude=True)

    @property
    def steps(self) -> int:
        return len(self.trajectory)


def task_digest(task: Task) -> str:
    """A digest of what a run of the task depends on (base, setup, milestones, instruction): an annotation
    recorded on a task whose digest has changed since is not accepted."""
    data = task.model_dump(mode="json", by_alias=True, include={"base_snapshot", "setup", "milestones",
                                                                "instruction"})
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def annotations_dir(folder: Path, task_id: str) -> Path:
    """Where the annotations of ``task_id`` live (beside the task file's folder)."""
    return Path(folder) / ANNOTATIONS / task_id


def load_annotation(path: Path) -> Annotation:
    """One annotation file; ConfigError names the file, line, field and reason."""
    return load_yaml_model(path, Annotation, "an annotation", source_path=str(path))


def load_annotations(folder: Path, task_id: str) -> list[Annotation]:
    """The annotations of ``task_id`` in ``folder``, by number; a file whose name and ``number`` disagree is a
    ConfigError naming it."""
    found: list[Annotation] = []
    for path in sorted(annotations_dir(folder, task_id).glob("*.yaml")):
        a = load_annotation(path)
        if path.stem != f"{a.number:04d}" or a.task_id != task_id:
            raise ConfigError(f"{path}: holds annotation {a.number} of task {a.task_id}, but its name says "
                              f"{path.stem} of task {task_id}")
        found.append(a)
    return found


def annotation_yaml(a: Annotation) -> str:
    data = a.model_dump(mode="json", exclude_none=True)
    data["trajectory"] = [s.model_dump(mode="json", exclude_none=True, exclude={"elapsed_ms"})
                          for s in a.trajectory]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def add_annotation(folder: Path, task: Task, *, annotator: str, verdict: Verdict, trajectory: list[Action],
                   milestone_steps: list[int | None], note: str = "", run: str = "",
                   review: list[str] | None = None, at: dt.datetime | None = None,
                   built_on: BuiltOn | None = None) -> Annotation:
    """Write a new annotation beside the existing ones (the next free number; never an existing file) and
    return it. A verified annotation needs every milestone reached; a rejection needs a note. ``built_on``:
    the device it was performed on."""
    if verdict == "verified" and (not trajectory or None in milestone_steps
                                  or len(milestone_steps) != len(task.milestones)):
        raise ConfigError(f"task {task.id}: a verified annotation needs a trajectory and the step of every "
                          f"milestone (got {len(trajectory)} actions, milestones after {milestone_steps})")
    if verdict == "rejected" and not note.strip():
        raise ConfigError(f"task {task.id}: a rejection needs a note saying what is wrong with the task")
    where = annotations_dir(folder, task.id)
    taken = [int(p.stem) for p in where.glob("*.yaml") if p.stem.isdigit()]  # the names are the numbers
    number = max(taken, default=0) + 1
    while number <= MAX_NUMBER:
        a = Annotation(number=number, task_id=task.id, task_digest=task_digest(task), annotator=annotator.strip(),
                       at=at or dt.datetime.now(dt.UTC).replace(microsecond=0), verdict=verdict,
                       trajectory=[s.model_copy(deep=True) for s in trajectory],
                       milestone_steps=list(milestone_steps), note=note.strip(), run=run,
                       initial_snapshot=task.provenance.initial_snapshot, review=list(review or []),
                       built_on=built_on)
        path = where / f"{number:04d}.yaml"
        if create_exclusive(path, annotation_yaml(a)):
            return a.model_copy(update={"source_path": str(path)})
        number += 1  # another writer took this number in the meantime
    raise ConfigError(f"{where}: no free annotation number left (at most {MAX_NUMBER})")


@dataclass
class Accepted:
    """What accepting an annotation did to the task."""

    task: Task
    path: Path
    previous_steps: int | None
    previous_budget: int
    messages: list[str] = field(default_factory=list)


def accept_annotation(folder: Path, task: Task, number: int, *, allow_longer: bool = False) -> Accepted:
    """Make annotation ``number`` the task's canonical verdict: a verified one becomes the reference
    trajectory (and sets the step budget from its length), a rejected one marks the task rejected. Refused
    (ConfigError) when the annotation was recorded on another version of the task, and, unless
    ``allow_longer``, when its trajectory is longer than the current canonical reference."""
    by_number = {a.number: a for a in load_annotations(folder, task.id)}
    if number not in by_number:
        known = ", ".join(str(n) for n in sorted(by_number)) or "none"
        raise ConfigError(f"task {task.id} has no annotation {number} in {annotations_dir(folder, task.id)} "
                          f"(annotations: {known})")
    a = by_number[number]
    if a.task_digest != task_digest(task):
        raise ConfigError(f"annotation {number} of task {task.id} ({a.source_path}) was recorded on another version "
                          "of the task (its setup, milestones or instruction changed since); annotate it again")
    prov = task.provenance
    previous = len(prov.reference) if prov.status == "verified" and prov.reference else None
    messages: list[str] = []
    if a.verdict == "rejected":
        new_prov = prov.model_copy(update={"status": "rejected", "note": a.note, "annotation": a.number})
        accepted = task.model_copy(update={"provenance": new_prov})
        messages.append(f"task {task.id} marked rejected after annotation {number} by {a.annotator}: {a.note}")
    else:
        budget = budget_for(a.steps)
        if previous is not None and a.steps > previous:
            growth = (f"annotation {number} has {a.steps} actions, the canonical reference {previous}: accepting it "
                      f"raises the step budget from {task.step_budget} to {budget}")
            if not allow_longer:
                raise ConfigError(f"{growth}; pass --allow-longer to accept a longer reference anyway")
            messages.append(growth + " (--allow-longer)")
        new_prov = prov.model_copy(update={
            "status": "verified", "verified_by": a.annotator, "verified_at": a.at, "method": "annotator",
            "human_steps": a.steps, "reference": [s.model_copy(deep=True) for s in a.trajectory],
            "milestone_steps": list(a.milestone_steps), "note": a.note, "annotation": a.number,
            "initial_snapshot": a.initial_snapshot or prov.initial_snapshot, "built_on": a.built_on})
        accepted = task.model_copy(update={"provenance": new_prov, "step_budget": budget})
        messages.append(f"task {task.id}: annotation {number} by {a.annotator} is the canonical reference now "
                        f"({a.steps} actions, milestones after {a.milestone_steps}, step budget {budget}"
                        + (f", was {task.step_budget}" if budget != task.step_budget else "") + ")")
    path = save_task(accepted, folder)
    return Accepted(accepted, path, previous, task.step_budget, messages)


# ------------------------------------------------------------------------------------------ agreement
def action_signature(a: Action) -> str:
    """What an action did, comparable across annotators: the element's id or label for taps and presses
    (coordinates differ by a few pixels between people), the key, the text, the swipe's direction."""
    if a.type in ("tap", "long_press"):
        e = a.element
        label = (e.resource_id or e.content_desc or e.text) if e is not None else ""
        return f"{a.type}:{label or f'{(a.x or 0) // 100},{(a.y or 0) // 100}'}"
    if a.type in ("swipe", "drag"):
        dx, dy = (a.x2 or 0) - (a.x or 0), (a.y2 or 0) - (a.y or 0)
        way = ("right" if dx > 0 else "left") if abs(dx) > abs(dy) else ("down" if dy > 0 else "up")
        return f"{a.type}:{way}"
    if a.type == "key":
        return f"key:{a.key}"
    if a.type in ("type", "open_app"):
        return f"{a.type}:{a.text}"
    return a.type


def _edit_distance(a: list[str], b: list[str]) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def trajectory_similarity(a: list[Action], b: list[Action]) -> float:
    """1 - the edit distance of the two action-signature sequences over the longer length (1: the same
    actions in the same order)."""
    sa, sb = [action_signature(x) for x in a], [action_signature(x) for x in b]
    longest = max(len(sa), len(sb))
    return 1.0 if longest == 0 else 1.0 - _edit_distance(sa, sb) / longest


@dataclass
class TaskAgreement:
    """How the annotations of one task agree (pairs of annotations by different annotators)."""

    task_id: str
    annotations: int
    annotators: list[str]
    verdicts: dict[str, int]
    steps: list[int]
    canonical_steps: int | None
    canonical_annotation: int | None
    pairs: int
    verdict_agreement: float | None
    trajectory_similarity: float | None
    milestones_identical: float | None
    milestone_step_mad: float | None

    def record(self) -> dict[str, Any]:
        return dict(self.__dict__)


def agreement(task: Task, items: list[Annotation]) -> TaskAgreement:
    """Agreement between the annotations of ``task`` by different annotators: the share of pairs with the same
    verdict; over pairs of verified ones, the mean trajectory similarity, the share of pairs whose milestones
    were reached after the same step numbers and the mean absolute difference of those step numbers."""
    verified = [a for a in items if a.verdict == "verified"]
    pairs = [(x, y) for x, y in combinations(items, 2) if x.annotator != y.annotator]
    vpairs = [(x, y) for x, y in combinations(verified, 2) if x.annotator != y.annotator]
    verdicts: dict[str, int] = {}
    for a in items:
        verdicts[a.verdict] = verdicts.get(a.verdict, 0) + 1
    mads = [abs((p or 0) - (q or 0)) for x, y in vpairs for p, q in zip(x.milestone_steps, y.milestone_steps,
                                                                       strict=False)]
    prov = task.provenance
    return TaskAgreement(
        task_id=task.id, annotations=len(items), annotators=sorted({a.annotator for a in items}),
        verdicts=verdicts, steps=[a.steps for a in verified],
        canonical_steps=len(prov.reference) if prov.status == "verified" else None,
        canonical_annotation=prov.annotation, pairs=len(pairs),
        verdict_agreement=(sum(x.verdict == y.verdict for x, y in pairs) / len(pairs)) if pairs else None,
        trajectory_similarity=(statistics.fmean(trajectory_similarity(x.trajectory, y.trajectory)
                                                for x, y in vpairs) if vpairs else None),
        milestones_identical=(sum(x.milestone_steps == y.milestone_steps for x, y in vpairs) / len(vpairs)
                              if vpairs else None),
        milestone_step_mad=statistics.fmean(mads) if mads else None)
