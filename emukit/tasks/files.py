"""Where tasks live and how they are read and written.

``tasks/<id>.yaml`` holds one task, ``tasks/templates/<name>.yaml`` one task template and
``tasks/screens/<id>.png`` a task's clean initial screenshot. Task folders of your own (``--tasks-dir DIR``,
``$EMUKIT_TASKS``) are merged with the shipped one (:mod:`emukit.resources`); an id found in two folders is
an error naming both files. Writes are atomic, so an interrupted save never leaves a half-written task.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from emukit import resources
from emukit.atomicio import write_atomic
from emukit.errors import ConfigError
from emukit.tasks.schema import Milestone, Task, TaskTemplate
from emukit.templates.sampler import sample_params, substitute
from emukit.yamlmodel import load_named_model


def tasks_dir() -> Path:
    """The milestone tasks shipped with emukit (:func:`emukit.resources.shipped_dir`)."""
    return resources.shipped_dir("tasks")


def task_folders(dirs: Iterable[Path] | None = ()) -> list[Path]:
    """The task search path: ``dirs`` (``--tasks-dir``), ``$EMUKIT_TASKS``, the shipped folder."""
    return resources.search_path("tasks", dirs)


def task_path(task_id: str, folder: Path | None = None) -> Path:
    return (folder or tasks_dir()) / f"{task_id}.yaml"


def load_task(path: Path) -> Task:
    """One task file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, Task, "a task", key="id", source_path=str(path))


def task_files(folder: Path | None = None, *, dirs: Iterable[Path] | None = ()) -> dict[str, Path]:
    """Task id -> file, over ``folder`` alone or the whole search path; ConfigError when an id is in two."""
    return resources.files_by_stem("task", [folder] if folder is not None else task_folders(dirs))


def locate_task(task_id: str, folder: Path | None = None, *, dirs: Iterable[Path] | None = ()) -> Path | None:
    """The file of ``task_id`` on the search path (or in ``folder``), None when there is none."""
    return task_files(folder, dirs=dirs).get(task_id)


def load_tasks(folder: Path | None = None, ids: list[str] | None = None, *,
               dirs: Iterable[Path] | None = ()) -> list[Task]:
    """Every task (sorted by id), or just ``ids`` (ConfigError for unknown ones), from ``folder`` alone or,
    with no folder, from the whole search path (:func:`task_folders` of ``dirs``)."""
    files = task_files(folder, dirs=dirs)
    if ids:
        missing = [i for i in ids if i not in files]
        if missing:
            roots = ", ".join(str(r) for r in ([folder] if folder is not None else task_folders(dirs)))
            raise ConfigError(f"unknown task(s) {', '.join(missing)} in {roots} "
                              f"(known: {', '.join(sorted(files)) or 'none'})")
        return [load_task(files[i]) for i in ids]
    return [load_task(files[i]) for i in sorted(files)]


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
    """Validate and write ``<folder>/<id>.yaml`` atomically (default folder: where new tasks go,
    :func:`emukit.resources.writable`); returns the path. Refuses an installed emukit's shipped folder."""
    Task.model_validate(task.model_dump(by_alias=True))  # never write what could not be read back
    path = task_path(task.id, folder or resources.writable("tasks"))
    resources.check_writable("tasks", path)
    write_atomic(path, task_yaml(task))
    return path


def screens_dir(folder: Path | None = None) -> Path:
    return (folder or tasks_dir()) / "screens"


# ------------------------------------------------------------------------------------------ task templates
def load_task_template(path: Path) -> TaskTemplate:
    """One task template file; ConfigError names the file, line, field and reason."""
    return load_named_model(path, TaskTemplate, "a task template", source_path=str(path))


def load_task_templates(folder: Path | None = None, names: list[str] | None = None, *,
                        dirs: Iterable[Path] | None = ()) -> list[TaskTemplate]:
    """Task templates from ``<folder>/templates`` alone, or from every task folder's ``templates/`` on the
    search path; a name defined twice is a ConfigError naming both files."""
    roots = [folder] if folder is not None else task_folders(dirs)
    loaded = [load_task_template(p) for r in roots for p in sorted((r / "templates").glob("*.yaml"))]
    found = resources.unique("task template", [(t.name, t.source_path, t) for t in loaded])
    root = ", ".join(str(r / "templates") for r in roots)
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
        template=template.name, context=template.context, category=template.category, apps=template.apps,
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
