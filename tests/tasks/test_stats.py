"""``emukit tasks stats``: GUI-CC's Figure 2 statistics of a task set, overall, per category and per template,
recomputed here from the task files themselves."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from emukit.tasks.files import load_task_templates, load_tasks
from emukit.tasks.schema import CATEGORY_TITLES, Task
from emukit.tasks.stats import task_stats


def test_every_task_and_template_has_one_of_gui_ccs_categories() -> None:
    templates = {t.name: t for t in load_task_templates()}
    assert set(CATEGORY_TITLES) == {"communication", "travel_navigation", "shopping_delivery", "finance",
                                    "media_entertainment", "system_utility"}
    for task in load_tasks():
        assert task.category == templates[task.template].category  # the template's, copied at instantiation


def test_figures_match_the_task_files() -> None:
    tasks = load_tasks()
    stats = task_stats(tasks)
    o = stats.overall
    budgets = [t.step_budget for t in tasks]
    milestones = [len(t.milestones) for t in tasks]
    assert o.tasks == len(tasks) and o.templates == sorted({t.template for t in tasks})
    assert o.apps == sorted({a for t in tasks for a in t.apps} - {"launcher"})
    assert (o.budget.min, o.budget.max) == (min(budgets), max(budgets))
    assert o.budget.avg == pytest.approx(sum(budgets) / len(budgets), abs=0.005)
    assert (o.milestones.min, o.milestones.max) == (min(milestones), max(milestones))
    assert o.milestones.avg == pytest.approx(sum(milestones) / len(milestones), abs=0.005)
    assert sum(g.tasks for g in stats.by_category.values()) == o.tasks
    assert sum(g.tasks for g in stats.by_template.values()) == o.tasks
    assert list(stats.by_category) == [c for c in CATEGORY_TITLES if c in {t.category for t in tasks}]
    for name, g in stats.by_template.items():
        mine = [t for t in tasks if t.template == name]
        assert g.tasks == len(mine) and g.categories == sorted({t.category for t in mine})
        refs = [len(t.provenance.reference) for t in mine]
        assert (g.reference_steps.min, g.reference_steps.max) == (min(refs), max(refs))


def test_an_empty_group_and_a_task_without_reference(tmp_path: Path) -> None:
    (task,) = [t for t in load_tasks() if t.id.endswith("_01")][:1]
    draft = Task.model_validate({**task.model_dump(by_alias=True), "provenance": {"status": "draft"}})
    stats = task_stats([draft])
    assert stats.overall.reference_steps.avg is None and stats.overall.reference_steps.text() == "-"
    assert stats.overall.verified == 0 and stats.overall.budget.min == task.step_budget


def _cli(*args: str) -> tuple[int, str]:
    from emukit.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf), redirect_stderr(buf):
        code = main(["tasks", "stats", *args])
    return code, buf.getvalue()


def test_cli_prints_the_tables_and_json(tmp_path: Path) -> None:
    n = len(load_tasks())
    code, out = _cli()
    assert code == 0, out
    assert "Online tasks (GUI-CC Figure 2)" in out and "per category" in out and "per template" in out
    row = next(line for line in out.splitlines() if "# Tasks" in line)
    assert row.split("│")[2].strip() == str(n)
    assert "System & utility" in out and "Media & entertainment" in out
    code, out = _cli("--json")
    data = json.loads(out)
    assert code == 0 and data["overall"]["tasks"] == n and set(data["by_category"]) <= set(CATEGORY_TITLES)


def test_cli_refuses_an_unknown_category_naming_the_field(tmp_path: Path) -> None:
    src = next(Path(t.source_path) for t in load_tasks())
    data = yaml.safe_load(src.read_text())
    data["category"] = "gaming"
    data["id"] = "my_own_task"  # ids are unique across the shipped folder and a user's
    (tmp_path / "my_own_task.yaml").write_text(yaml.safe_dump(data))
    code, out = _cli("--tasks-dir", str(tmp_path))
    assert code != 0 and "my_own_task.yaml" in out and "category" in out and "system_utility" in out


def test_the_shipped_set_is_at_gui_cc_scale() -> None:
    """GUI-CC's online track (seed 000, section 3 and Figure 2): 200 tasks, 18 templates, 2-5 ordered milestones
    per task (4.0 on average), step budgets of 6-24 about twice the reference length; here at least 12 apps and
    all six categories, every task verified, and each template instantiated as often as its ``count`` says."""
    tasks = load_tasks()
    templates = {t.name: t for t in load_task_templates()}
    stats = task_stats(tasks).overall
    assert stats.tasks == 200 and len(stats.templates) >= 18 and len(stats.apps) >= 12
    assert stats.categories == sorted(CATEGORY_TITLES)
    assert stats.verified == 200
    assert all(2 <= len(t.milestones) <= 5 for t in tasks)
    assert abs(stats.milestones.avg - 4.0) <= 0.3, stats.milestones.avg
    for t in tasks:
        n = len(t.provenance.reference)
        assert 6 <= t.step_budget <= 24, (t.id, t.step_budget)
        assert t.step_budget == 2 * n, (t.id, t.step_budget, n)  # twice the reference, as GUI-CC sets it
        assert t.template in templates
    for name, template in templates.items():
        assert sum(t.template == name for t in tasks) == template.count, name
    # GUI-CC's semantic action space: an app is opened with one open_app action, never walked to in All Apps
    launcher = "com.google.android.apps.nexuslauncher"
    for t in tasks:
        assert any(a.type == "open_app" for a in t.provenance.reference), t.id
        assert not any(a.element is not None and a.element.resource_id.startswith(launcher)
                       for a in t.provenance.reference), t.id


def test_the_annotators_queue_serves_the_whole_set() -> None:
    """``emukit annotate --queue [FILTER] --include-verified``: every shipped task in id order, a filter by
    template, and the progress line."""
    from emukit.annotate.queue import TaskQueue

    queue = TaskQueue.load("Ann Notator", include_verified=True)
    assert len(queue.tasks) == 200
    first = queue.next_task()
    assert first is not None and first.id == min(t.id for t in load_tasks())
    assert queue.next_task(after=first.id).id > first.id
    assert queue.summary() == "0 of 200 task(s) annotated by Ann Notator, 200 task(s) waiting"
    sms = TaskQueue.load("Ann Notator", "sms_code_to_task", include_verified=True)
    assert len(sms.tasks) == 13 and all(t.template == "sms_code_to_task" for t in sms.tasks)
    assert TaskQueue.load("Ann Notator").next_task() is None  # every shipped task is verified already
