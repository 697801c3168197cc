"""Generated wrong trajectories (``emukit.tasks.negatives``): for every shipped task template, its first task's
milestones reject the reference of the sibling task whose parameters differ most (another code, song, file or
contact) and the reference cut one action short, replayed from the task's own initial state on the virtual
device behind the real adb server (nothing mocked); and ``emukit tasks verify --negatives`` reports them."""

from __future__ import annotations

import pytest

from emukit.tasks.files import load_task_templates, load_tasks
from emukit.tasks.negatives import (
    run_negative,
    sibling_negative,
    template_negatives,
    truncated_negative,
)


def test_each_template_gets_a_sibling_and_a_truncated_negative() -> None:
    tasks = load_tasks()
    pairs = template_negatives(tasks)
    templates = {t.name for t in load_task_templates()}
    assert {(t.template, n.kind) for t, n in pairs} == {(name, kind) for name in templates
                                                         for kind in ("sibling", "truncated")}
    for task, negative in pairs:
        assert task.id.endswith("_01")
        if negative.kind == "sibling":
            assert negative.source.split("'")[0] != task.id and "differ" in negative.source
            assert list(negative.actions) != list(task.provenance.reference)
        else:
            assert len(negative.actions) == task.provenance.milestone_steps[-1] - 1
    lone = tasks[0].model_copy(update={"id": "alone"})
    assert sibling_negative(lone, [lone]) is None
    draft = lone.model_copy(update={"provenance": lone.provenance.model_copy(update={"milestone_steps": [],
                                                                                     "reference": []})})
    assert truncated_negative(draft) is None


@pytest.fixture(scope="module")
def device(vdevice, adb_server, tmp_path_factory):
    from emukit.device.driver import Driver
    from emukit.workers import DeviceContext

    driver = Driver(vdevice.serial, adb_server.port)
    ctx = DeviceContext(vdevice.serial, adb_port=adb_server.port, data_dir=tmp_path_factory.mktemp("data"),
                        driver=driver)
    yield ctx
    ctx.close()


def test_every_templates_milestones_reject_its_sibling_negative(device) -> None:
    """The sibling negatives replayed (the truncated ones stop short of the step ``emukit tasks verify`` proves
    the last milestone is first reached at; ``emukit tasks verify --all --negatives`` replays those too)."""
    rejected, accepted = [], []
    for task, negative in template_negatives(load_tasks()):
        if negative.kind != "sibling":
            continue
        result = run_negative(device, task, negative)
        assert not result.problems
        (rejected if result.rejected else accepted).append((task.id, result.missed))
    assert not accepted, accepted
    assert len(rejected) == len(load_task_templates())
