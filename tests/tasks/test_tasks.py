"""Milestone tasks: the format, the shipped task set, the checks, and replaying / recording reference
trajectories on a real virtual device behind the real adb server."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from emukit.apps.registry import package_of
from emukit.errors import ConfigError
from emukit.tasks.checks import ScreenView, evaluate, hierarchy_has
from emukit.tasks.files import (
    instances,
    load_task,
    load_task_templates,
    load_tasks,
    save_task,
    task_yaml,
    tasks_dir,
)
from emukit.tasks.schema import Check, ScreenLeaf, Task

SHIPPED = load_tasks()


# ------------------------------------------------------------------------------------------ the shipped set
def test_shipped_task_set_covers_the_issue() -> None:
    templates = load_task_templates()
    assert len(SHIPPED) >= 24
    assert len({t.template for t in SHIPPED}) >= 8
    assert {t.template for t in SHIPPED} <= {t.name for t in templates}
    assert {t.context for t in SHIPPED} == {"cross_app", "persist_after_switch", "revisit_entity"}
    for task in SHIPPED:
        prov = task.provenance
        assert prov.status == "verified" and prov.method == "scripted" and prov.verified_at is not None
        assert 2 <= len(task.milestones) <= 5
        assert prov.human_steps == len(prov.reference)
        assert task.step_budget == 2 * prov.human_steps  # about twice the human length
        assert prov.milestone_steps[-1] == len(prov.reference)  # the last action completes the task
        assert len(set(task.apps)) >= 2  # every task crosses apps (at least the launcher)
        assert all(a.element is not None for a in prov.reference if a.type in ("tap", "long_press"))
    per_template: dict[str, list[dict]] = {}
    for task in SHIPPED:
        per_template.setdefault(task.template, []).append(task.params)
    for name, params in per_template.items():
        assert len(params) >= 3
        assert all(params.count(p) == 1 for p in params), f"{name}: instances repeat their parameters"


def test_task_yaml_round_trips(tmp_path: Path) -> None:
    task = SHIPPED[0]
    path = save_task(task, tmp_path)
    again = load_task(path)
    assert again.model_dump(exclude={"source_path"}) == task.model_dump(exclude={"source_path"})
    assert task_yaml(again) == path.read_text()


# ------------------------------------------------------------------------------------------ bad input
def _write(tmp_path: Path, data: dict, name: str | None = None) -> Path:
    path = tmp_path / f"{name or data.get('id', 'x')}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _draft() -> dict:
    return yaml.safe_load(task_yaml(SHIPPED[0].model_copy(update={"provenance": SHIPPED[0].provenance.model_copy(
        update={"status": "draft"})})))


def test_bad_task_files_name_file_line_and_field(tmp_path: Path) -> None:
    data = _draft()
    data["milestones"][1]["check"] = {"clipboard": {"equals": "x"}, "app": {"package": "p"}}
    path = _write(tmp_path, data)
    with pytest.raises(ConfigError) as err:
        load_task(path)
    assert str(path) in str(err.value) and "milestones.1.check" in str(err.value)
    assert "exactly one of" in str(err.value)

    data = _draft()
    data["milestones"][0].pop("screen_check")  # a clipboard check cannot be scored on a rendered screen
    with pytest.raises(ConfigError, match=r"milestones\.0: .*screen_check"):
        load_task(_write(tmp_path, data))

    data = _draft()
    data["provenance"]["status"] = "verified"
    data["provenance"]["reference"] = []
    data["provenance"]["milestone_steps"] = []
    with pytest.raises(ConfigError, match="a verified task needs"):
        load_task(_write(tmp_path, data))

    data = _draft()
    data["step_budget"] = 0
    with pytest.raises(ConfigError, match=r":\d+: step_budget"):
        load_task(_write(tmp_path, data))

    data = _draft()
    with pytest.raises(ConfigError, match="must match the file name"):
        load_task(_write(tmp_path, data, name="other_name"))

    (tmp_path / "broken.yaml").write_text("id: [unclosed\n")
    with pytest.raises(ConfigError, match=r"broken\.yaml:\d+: invalid YAML"):
        load_task(tmp_path / "broken.yaml")

    with pytest.raises(ConfigError, match="unknown task"):
        load_tasks(tasks_dir(), ["no_such_task"])


# ------------------------------------------------------------------------------------------ checks
def test_screen_checks_on_hierarchies_and_rendered_text() -> None:
    xml = ('<hierarchy><node text="Playing queue" resource-id="app:id/toolbar_title" content-desc="" '
           'checked="false" bounds="[0,0][10,10]"><node text="" content-desc="Pause" clickable="true" '
           'bounds="[0,10][10,20]"/><node text="hidden" bounds="[0,0][0,0]"/></node></hierarchy>')
    assert hierarchy_has(xml, ScreenLeaf(text="Playing queue", resource_id="toolbar_title"))
    assert hierarchy_has(xml, ScreenLeaf(content_desc="Pause", clickable=True))
    assert not hierarchy_has(xml, ScreenLeaf(content_desc="Pause", clickable=False))
    assert not hierarchy_has(xml, ScreenLeaf(text="hidden"))  # no on-screen bounds
    assert hierarchy_has(xml, ScreenLeaf(text="Resume", absent=True))

    view = ScreenView(["Playing queue", "Amber Skies\nThe Lanterns"], labels=["Pause"])
    both = Check.model_validate({"all": [{"screen": {"text": "Amber Skies"}}, {"screen": {"content_desc": "Pause"}}]})
    assert evaluate(both, view)
    assert not evaluate(Check.model_validate({"screen": {"text": "Amber"}}), view)  # text is exact
    assert evaluate(Check.model_validate({"screen": {"text_contains": "Amber"}}), view)
    assert evaluate(Check.model_validate({"not": {"screen": {"text": "Blue Harbor"}}}), view)
    with pytest.raises(ValueError, match="cannot answer a clipboard check"):
        evaluate(Check.model_validate({"clipboard": {"equals": "x"}}), view)


def test_instances_draw_distinct_parameters() -> None:
    template = next(t for t in load_task_templates() if t.name == "clock_format_then_timer")
    domain = template.params["minutes"].choice
    params = [t.params["minutes"] for t in instances(template, len(domain))]
    assert sorted(params) == sorted(domain)  # every instance takes a value no earlier one has
    with pytest.raises(ConfigError, match=f"cannot draw {len(domain) + 1} different parameter sets"):
        instances(template, len(domain) + 1)


# ------------------------------------------------------------------------------------------ on a device
@pytest.fixture(scope="module")
def device(vdevice, adb_server, tmp_path_factory):
    from emukit.workers import DeviceContext

    d = DeviceContext(vdevice.serial, adb_port=adb_server.port, data_dir=tmp_path_factory.mktemp("data"))
    yield d
    d.close()


def test_shipped_tasks_verify(device) -> None:
    """Every template's first task replays exactly (18 of the 200; all 200 are verified by ``emukit tasks verify
    --all`` over a device pool, which the nightly's tasks step runs)."""
    from emukit.tasks.verify import verify_task

    firsts = {t.template: t for t in reversed(SHIPPED)}
    sample = sorted(firsts.values(), key=lambda t: t.id)
    assert len(sample) >= 18
    results = [verify_task(device, task) for task in sample]
    assert [(r.task_id, r.problems) for r in results if not r.ok] == []
    assert all(r.reached == r.expected for r in results)


def test_verify_catches_broken_tasks(device) -> None:
    """A truncated reference misses its last milestone; a milestone whose check already holds initially is
    premature; a milestone expected later than it is reached comes before its time."""
    from emukit.tasks.verify import verify_task

    task = next(t for t in SHIPPED if t.template == "code_to_new_note")
    prov = task.provenance
    truncated = task.model_copy(update={"provenance": prov.model_copy(update={
        "reference": prov.reference[:-1], "milestone_steps": [*prov.milestone_steps[:-1], len(prov.reference) - 1]})})
    r = verify_task(device, truncated)
    assert not r.ok and any("code_pasted never reached" in p for p in r.problems)

    trivial = task.model_dump(by_alias=True)
    trivial["milestones"][0]["check"] = {"file": {"path": "/storage/emulated/0/Documents/Markor/Codes.md"}}
    r = verify_task(device, Task.model_validate(trivial))
    assert any("already true in the initial state: code_copied" in p for p in r.problems)

    late = task.model_copy(update={"provenance": prov.model_copy(update={
        "milestone_steps": [prov.milestone_steps[0] + 1, *prov.milestone_steps[1:]]})})
    r = verify_task(device, late)
    first = prov.milestone_steps[0]
    assert any(f"code_copied reached after action {first}, before its time ({first + 1})" in p for p in r.problems)


def test_recording_reproduces_the_shipped_reference(device) -> None:
    from emukit.tasks.verify import record_reference

    template = next(t for t in load_task_templates() if t.name == "queue_survives_switch")
    draft = instances(template, 1)[0]
    shipped = next(t for t in SHIPPED if t.id == draft.id)
    recorded = record_reference(device, template, draft, by="test")
    built_on = recorded.provenance.built_on
    assert built_on is not None and built_on.kind == "virtual-deterministic"
    assert set(built_on.apps) == {"code.name.monkey.retromusic", "com.android.settings"}  # the task's apps
    assert [a.canonical() for a in recorded.provenance.reference] == \
        [a.canonical() for a in shipped.provenance.reference]
    assert recorded.provenance.milestone_steps == shipped.provenance.milestone_steps
    assert recorded.step_budget == shipped.step_budget


def test_cli_verify_table_and_exit_codes(emukit_cli, vdevice, adb_server, tmp_path) -> None:
    """``emukit tasks verify`` as a user runs it: on the module's device, then spread over a pool of two embedded
    virtual devices that the command starts itself (it must: the pool, its device choice and the spreading of
    tasks and negatives over it are what is tested), with exit codes and tables."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    good = next(t for t in SHIPPED if t.template == "note_revisit")  # found on the shipped path
    bad = good.model_copy(update={"id": "note_revisit_broken", "provenance": good.provenance.model_copy(update={
        "reference": good.provenance.reference[:-2],
        "milestone_steps": [*good.provenance.milestone_steps[:-1], len(good.provenance.reference) - 2]})})
    save_task(bad, folder)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*emukit_cli, "tasks", *args, "--tasks-dir", str(folder)],
                              env=adb_server.env, capture_output=True, text=True, timeout=300)

    ok = run("verify", good.id, "--device", vdevice.serial, "--data-dir", str(tmp_path / "data"), "--report",
             str(tmp_path / "verify.jsonl"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PASS" in ok.stdout and "1/1 tasks pass" in ok.stdout
    [row] = [json.loads(line) for line in (tmp_path / "verify.jsonl").read_text().splitlines()]
    assert (row["task_id"], row["ok"], row["device"]) == (good.id, True, vdevice.serial)
    assert row["built_on"]["kind"] == "virtual-deterministic" and row["built_on"]["api_level"] == 34
    assert set(row["built_on"]["apps"]) == {package_of(app) for app in good.apps}
    failed = run("verify", good.id, "note_revisit_broken", "--device", vdevice.serial, "--data-dir",
                 str(tmp_path / "data"))
    assert failed.returncode == 1
    assert "note_revisit_broken: FAIL" in failed.stdout and "1/2 tasks pass" in failed.stdout
    assert "never" in failed.stdout and "reached" in failed.stdout
    # over a pool of two embedded devices, with the template's generated negatives (its first task's)
    spread = run("verify", *[t.id for t in SHIPPED[:3]], "--negatives", "--devices", "2", "--data-dir",
                 str(tmp_path / "pool"))
    assert spread.returncode == 0, spread.stdout + spread.stderr
    assert "3/3 tasks pass in" in spread.stdout
    assert "generated negatives" in spread.stdout and "2/2 negatives rejected" in spread.stdout
    assert f"{SHIPPED[0].id} negative sibling: rejected" in spread.stdout
    serials = set(re.findall(r": ok \([0-9.]+ s on (\S+) \(virtual-deterministic\)\)", spread.stdout))
    # embedded devices of the run's own (which of the two takes which task depends on which is ready first)
    assert 1 <= len(serials) <= 2 and vdevice.serial not in serials
    listed = run("list")
    assert listed.returncode == 0 and "note_revisit_broken" in listed.stdout
    usage = run("verify", "--device", vdevice.serial)
    assert usage.returncode == 2 and "give --all or one or more TASK_IDs" in usage.stdout
