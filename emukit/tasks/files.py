"""Where tasks live and how they are read and written.

``tasks/<id>.yaml`` holds one task, ``tasks/templates/<name>.yaml`` one task template and
``tasks/screens/<id>.png`` a task's clean initial screenshot. ``$EMUKIT_TASKS`` points elsewhere. Writes
are atomic, so an interrupted save never leaves a half-written task.
"""

from __future__ import annotations

import math
import os
import random
from pathlib import Path
from typing import Any

import yaml

from emukit.atomicio import write_atomic
from emukit.errors import ConfigError
from emukit.tasks.schema import Milestone, Task, TaskTemplate
from emukit.templates.sampler import sample_params, substitute
from emukit.yamlmodel import load_named_model


def tasks_dir() -> Path:
    """The project's ``tasks/`` folder (next to the package), or ``$EMUKIT_TASKS``."""
    env = os.environ.get("EMUKIT_TASKS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "tasks"


def task_path(task_id: str, folder: Path | None = None) -> Path:
    return (folder or tasks_dir()) / f"{task_id}.yaml"


def load_task(path: Path) -> Task:
    """One task file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, Task, "a task", key="id", source_path=str(path))


def load_tasks(folder: Path | None = None, ids: list[str] | None = None) -> list[Task]:
    """Every task in ``folder`` (sorted by id), or just ``ids`` (ConfigError for unknown ones)."""
    root = folder or tasks_dir()
    if ids:
        missing = [i for i in ids if not task_path(i, root).is_file()]
        if missing:
            known = ", ".join(p.stem for p in sorted(root.glob("*.yaml"))) or "none"
            raise ConfigError(f"unknown task(s) {', '.join(missing)} in {root} (known: {known})")
        return [load_task(task_path(i, root)) for i in ids]
    return [load_task(p) for p in sorted(root.glob("*.yaml"))]


def task_yaml(task: Task) -> str:
    """The task as YAML, fields in reading order, reference actions without timing noise."""
    data = task.model_dump(mode="json", by_alias=True, exclude_none=True)
    data["milestones"] = [m.model_dump(mode="json", by_alias=True, exclude_defaults=True) for m in task.milestones]
    for m in data["milestones"]:
        if m.get("screen_check") == m["check"]:
            del m["screen_check"]
    prov = data["provenance"]
    prov["reference"] = [a.model_dump(mode="json", exclude_none=True, exclude={"elapsed_ms"})
                         for a in task.provenance.reference]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def save_task(task: Task, folder: Path | None = None) -> Path:
    """Validate and write ``tasks/<id>.yaml`` atomically; returns the path."""
    Task.model_validate(task.model_dump(by_alias=True))  # never write what could not be read back
    path = task_path(task.id, folder)
    write_atomic(path, task_yaml(task))
    return path


def screens_dir(folder: Path | None = None) -> Path:
    return (folder or tasks_dir()) / "screens"


# ------------------------------------------------------------------------------------------ task templates
def load_task_template(path: Path) -> TaskTemplate:
    """One task template file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, TaskTemplate, "a task template", source_path=str(path))


def load_task_templates(folder: Path | None = None, names: list[str] | None = None) -> list[TaskTemplate]:
    root = (folder or tasks_dir()) / "templates"
    found = [load_task_template(p) for p in sorted(root.glob("*.yaml"))]
    if names:
        missing = set(names) - {t.name for t in found}
        if missing:
            raise ConfigError(f"unknown task template(s) {', '.join(sorted(missing))} in {root}")
        found = [t for t in found if t.name in names]
    return found


def sample_task_params(template: TaskTemplate, index: int, seed: int = 0, attempt: int = 0) -> dict[str, Any]:
    """The parameters of instance ``index`` (deterministic in template, seed, index and attempt)."""
    import hashlib

    digest = hashlib.sha256(f"task|{template.name}|{seed}|{index}|{attempt}".encode()).digest()
    return sample_params(template, random.Random(int.from_bytes(digest[:8], "big")))


def instances(template: TaskTemplate, count: int, seed: int = 0) -> list[Task]:
    """``count`` draft tasks with pairwise different parameters (``<template>_01``, ``_02``...): instance i
    takes the first of its seeded draws that no earlier instance has."""
    tasks: list[Task] = []
    seen: list[dict[str, Any]] = []
    for index in range(count):
        for attempt in range(64):
            values = sample_task_params(template, index, seed, attempt)
            if values not in seen:
                break
        else:
            raise ConfigError(f"{template.source_path}: cannot draw {count} different parameter sets "
                              f"(only {len(seen)} found); widen the params or lower --count")
        seen.append(values)
        tasks.append(instantiate(template, index, seed, values=values))
    return tasks


def instantiate(template: TaskTemplate, index: int, seed: int = 0, task_id: str | None = None,
                values: dict[str, Any] | None = None) -> Task:
    """A draft task from a template: parameters sampled (or ``values``), every ``{field}`` substituted,
    milestones validated. Its step budget is provisional until a reference trajectory is recorded (then
    ``budget_factor`` x its length, rounded up)."""
    values = values if values is not None else sample_task_params(template, index, seed)
    where = f"{template.source_path}"
    milestones = []
    for i, raw in enumerate(template.milestones):
        data = substitute(raw, values, f"{where}: milestones[{i}]")
        try:
            milestones.append(Milestone.model_validate(data))
        except ValueError as exc:
            raise ConfigError(f"{where}: milestones[{i}] ({raw.get('id')}): {exc}") from None
    return Task(
        id=task_id or f"{template.name}_{index + 1:02d}",
        template=template.name, context=template.context, apps=template.apps,
        instruction=substitute(template.instruction, values, f"{where}: instruction"),
        base_snapshot=template.base_snapshot,
        setup=substitute(template.setup, values, f"{where}: setup"),
        milestones=milestones, step_budget=100,
        params={k: v for k, v in values.items() if not k.startswith("_")},
    )


def solution_steps(template: TaskTemplate, task: Task) -> list[dict[str, Any]]:
    """The template's scripted solution with the task's parameters substituted."""
    return substitute(template.solution, task.params, f"{template.source_path}: solution")


def budget_for(human_steps: int, factor: float = 2.0) -> int:
    """About twice the human length (seed 001: the step budget is roughly twice the annotated length)."""
    return max(1, math.ceil(human_steps * factor))
