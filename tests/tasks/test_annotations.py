"""Annotations beside a task (never overwritten), accepting one as canonical, annotator agreement, the task
queue and file modes kept on save: no device needed (the trajectories are the shipped references)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from emukit.actions import Action, Element
from emukit.annotate.queue import TaskQueue
from emukit.atomicio import create_exclusive, default_mode, write_atomic
from emukit.errors import ConfigError
from emukit.tasks.annotations import (
    accept_annotation,
    action_signature,
    add_annotation,
    agreement,
    annotations_dir,
    load_annotations,
    trajectory_similarity,
)
from emukit.tasks.files import load_task, save_task
from emukit.tasks.schema import Provenance, Task

SHIPPED = Path(__file__).resolve().parents[2] / "tasks" / "code_to_new_note_01.yaml"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    return tmp_path / "tasks"


@pytest.fixture()
def canonical(folder: Path) -> Task:
    """The shipped, verified task copied into a folder of its own."""
    task = load_task(SHIPPED)
    save_task(task, folder)
    return load_task(folder / f"{task.id}.yaml")


def _run(task: Task, extra: int = 0) -> list[Action]:
    return [*task.provenance.reference, *[Action(type="wait", duration_ms=1000)] * extra]


def test_annotations_are_added_beside_each_other_and_never_overwritten(folder, canonical):
    task_file = folder / f"{canonical.id}.yaml"
    before = task_file.read_bytes()
    steps = list(canonical.provenance.milestone_steps)
    a = add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=_run(canonical),
                       milestone_steps=steps, note="first")
    b = add_annotation(folder, canonical, annotator="bo", verdict="verified", trajectory=_run(canonical, 3),
                       milestone_steps=steps, note="second")
    c = add_annotation(folder, canonical, annotator="ann", verdict="rejected", trajectory=[], milestone_steps=[],
                       note="the code is on two lines")
    assert [x.number for x in (a, b, c)] == [1, 2, 3]
    where = annotations_dir(folder, canonical.id)
    assert sorted(p.name for p in where.iterdir()) == ["0001.yaml", "0002.yaml", "0003.yaml"]
    first = (where / "0001.yaml").read_bytes()
    loaded = load_annotations(folder, canonical.id)
    assert [(x.annotator, x.verdict, x.steps, x.note) for x in loaded] == [
        ("ann", "verified", len(canonical.provenance.reference), "first"),
        ("bo", "verified", len(canonical.provenance.reference) + 3, "second"),
        ("ann", "rejected", 0, "the code is on two lines")]
    assert loaded[0].trajectory == canonical.provenance.reference
    assert task_file.read_bytes() == before  # the task is never touched by an annotation
    assert (where / "0001.yaml").read_bytes() == first

    # the refusals name what is missing
    with pytest.raises(ConfigError, match="needs a trajectory and the step of every milestone"):
        add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=_run(canonical),
                       milestone_steps=[6, 12, None, None])
    with pytest.raises(ConfigError, match="a rejection needs a note"):
        add_annotation(folder, canonical, annotator="ann", verdict="rejected", trajectory=[], milestone_steps=[],
                       note="  ")
    # a file whose name and number disagree is named
    (where / "0009.yaml").write_bytes(first)
    with pytest.raises(ConfigError, match="0009.yaml: holds annotation 1"):
        load_annotations(folder, canonical.id)


def test_concurrent_writers_get_distinct_numbers(folder, canonical):
    """Writers racing for the next number never overwrite each other (the name is taken atomically)."""
    made: list[int] = []
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            made.append(add_annotation(folder, canonical, annotator=f"a{i}", verdict="rejected", trajectory=[],
                                       milestone_steps=[], note=f"note {i}").number)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and sorted(made) == list(range(1, 9))
    assert sorted(a.note for a in load_annotations(folder, canonical.id)) == sorted(f"note {i}" for i in range(8))
    assert not create_exclusive(annotations_dir(folder, canonical.id) / "0001.yaml", "x")
    assert not list(annotations_dir(folder, canonical.id).glob(".*.tmp"))


def test_accept_makes_one_canonical_and_refuses_a_longer_run_unless_told(folder, canonical):
    steps = list(canonical.provenance.milestone_steps)
    n = len(canonical.provenance.reference)
    add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=_run(canonical, 33),
                   milestone_steps=steps, note="many useless waits")
    add_annotation(folder, canonical, annotator="bo", verdict="verified", trajectory=_run(canonical),
                   milestone_steps=steps, note="clean")
    with pytest.raises(ConfigError, match=rf"annotation 1 has {n + 33} actions, the canonical reference {n}: "
                                          rf"accepting it raises the step budget from {canonical.step_budget} to "
                                          rf"{2 * (n + 33)}; pass --allow-longer"):
        accept_annotation(folder, canonical, 1)
    assert load_task(folder / f"{canonical.id}.yaml") == canonical

    done = accept_annotation(folder, canonical, 2)
    task = load_task(folder / f"{canonical.id}.yaml")
    assert (task.provenance.annotation, task.provenance.verified_by, task.provenance.method) == (2, "bo", "annotator")
    assert task.provenance.reference == canonical.provenance.reference and task.step_budget == 2 * n
    assert "annotation 2 by bo is the canonical reference now" in done.messages[0]

    done = accept_annotation(folder, task, 1, allow_longer=True)
    task = load_task(folder / f"{canonical.id}.yaml")
    assert task.provenance.annotation == 1 and task.step_budget == 2 * (n + 33)
    assert "raises the step budget" in done.messages[0] and "--allow-longer" in done.messages[0]

    with pytest.raises(ConfigError, match=r"has no annotation 7 .* \(annotations: 1, 2\)"):
        accept_annotation(folder, task, 7)
    # an annotation of an earlier version of the task is not accepted
    changed = task.model_copy(update={"instruction": task.instruction + " Then close Markor."})
    save_task(changed, folder)
    with pytest.raises(ConfigError, match="recorded on another version of the task"):
        accept_annotation(folder, load_task(folder / f"{canonical.id}.yaml"), 2)


def test_accepting_a_rejection_marks_the_task_rejected(folder, canonical):
    add_annotation(folder, canonical, annotator="cy", verdict="rejected", trajectory=[], milestone_steps=[],
                   note="Settings has no Date & time page on this image")
    accept_annotation(folder, canonical, 1)
    task = load_task(folder / f"{canonical.id}.yaml")
    assert (task.provenance.status, task.provenance.note, task.provenance.annotation) == (
        "rejected", "Settings has no Date & time page on this image", 1)


def test_agreement_by_hand(folder, canonical):
    ref = canonical.provenance.reference
    steps = list(canonical.provenance.milestone_steps)
    shifted = [steps[0], steps[1], steps[2] + 1, steps[3] + 1]
    add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=ref, milestone_steps=steps)
    at = steps[1] + 1  # one action repeated after the second milestone, before the third
    add_annotation(folder, canonical, annotator="bo", verdict="verified", trajectory=[*ref[:at], ref[at], *ref[at:]],
                   milestone_steps=shifted)
    add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=ref, milestone_steps=steps)
    add_annotation(folder, canonical, annotator="cy", verdict="rejected", trajectory=[], milestone_steps=[],
                   note="unclear")
    r = agreement(canonical, load_annotations(folder, canonical.id))
    assert (r.annotations, r.annotators, r.verdicts) == (4, ["ann", "bo", "cy"], {"verified": 3, "rejected": 1})
    # pairs by different annotators: (1,2) (1,4) (2,3) (2,4) (3,4) -> 5; verdicts agree in (1,2) and (2,3)
    assert r.pairs == 5 and r.verdict_agreement == pytest.approx(2 / 5)
    # verified pairs by different annotators: (1,2) and (2,3), each one inserted action in len(ref) + 1
    assert r.trajectory_similarity == pytest.approx(1 - 1 / (len(ref) + 1))
    assert r.milestones_identical == 0.0
    assert r.milestone_step_mad == pytest.approx((0 + 0 + 1 + 1) / 4)
    assert r.canonical_steps == len(ref) and r.steps == [len(ref), len(ref) + 1, len(ref)]


def test_action_signatures_ignore_pixels_but_not_targets():
    ok = Element(text="OK", resource_id="android:id/button1", bounds=(600, 1200, 900, 1300))
    assert action_signature(Action(type="tap", x=700, y=1250, element=ok)) == \
        action_signature(Action(type="tap", x=705, y=1240, element=ok))
    assert action_signature(Action(type="swipe", x=540, y=2100, x2=540, y2=600)) == "swipe:up"
    assert action_signature(Action(type="key", key=4)) == "key:4"
    assert trajectory_similarity([], []) == 1.0
    assert trajectory_similarity([Action(type="key", key=4)], [Action(type="key", key=3)]) == 0.0


def test_the_queue_skips_verified_tasks_and_tasks_you_annotated(folder, canonical):
    drafts = []
    for task_id in ("q_one", "q_two", "q_three"):
        save_task(canonical.model_copy(update={"id": task_id, "provenance": Provenance()}), folder)
        drafts.append(load_task(folder / f"{task_id}.yaml"))
    tasks = [canonical, *drafts]
    queue = TaskQueue(tasks, "ann", pattern="q_*")
    assert [t.id for t in queue.tasks] == ["q_one", "q_three", "q_two"]
    assert queue.next_task().id == "q_one"
    add_annotation(folder, drafts[0], annotator="ann", verdict="rejected", trajectory=[], milestone_steps=[],
                   note="x")
    add_annotation(folder, drafts[1], annotator="bo", verdict="rejected", trajectory=[], milestone_steps=[],
                   note="y")
    assert queue.next_task().id == "q_three"
    assert queue.next_task(after="q_three").id == "q_two"  # annotated by someone else: still waits for ann
    assert queue.progress("q_two") == {"filter": "q_*", "total": 3, "annotated_by_you": 1, "waiting": 2,
                                       "position": 3}
    # the template name matches too; verified tasks wait only with include_verified
    everything = TaskQueue(tasks, "ann", pattern="code_to_new_note")
    assert [t.id for t in everything.tasks] == ["code_to_new_note_01", "q_one", "q_three", "q_two"]
    assert everything.next_task().id == "q_three"
    assert TaskQueue(tasks, "ann", pattern=canonical.id, include_verified=True).next_task().id == canonical.id
    assert TaskQueue(tasks, "ann", pattern=canonical.id).next_task() is None
    with pytest.raises(ConfigError, match=r"no task matches the queue filter 'nothing_\*'"):
        TaskQueue(tasks, "ann", pattern="nothing_*")


def test_saved_files_keep_their_mode(tmp_path, canonical, folder):
    path = folder / f"{canonical.id}.yaml"
    for mode in (0o644, 0o664, 0o600):
        os.chmod(path, mode)
        save_task(canonical, folder)
        assert stat.S_IMODE(path.stat().st_mode) == mode
    fresh = tmp_path / "new.txt"
    write_atomic(fresh, "x")
    assert stat.S_IMODE(fresh.stat().st_mode) == default_mode()
    old = os.umask(0o027)
    try:
        assert default_mode() == 0o640
        write_atomic(tmp_path / "other.txt", "y")
        assert stat.S_IMODE((tmp_path / "other.txt").stat().st_mode) == 0o640
    finally:
        os.umask(old)


def _cli(emukit_cli, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*emukit_cli, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, timeout=120)


def test_cli_accept_and_agreement(emukit_cli, tmp_path, folder, canonical):
    save_task(canonical.model_copy(update={"id": "cli_copy"}), folder)  # an id the shipped folder does not have
    (folder / f"{canonical.id}.yaml").unlink()
    canonical = load_task(folder / "cli_copy.yaml")
    steps = list(canonical.provenance.milestone_steps)
    add_annotation(folder, canonical, annotator="ann", verdict="verified", trajectory=_run(canonical, 2),
                   milestone_steps=steps)
    add_annotation(folder, canonical, annotator="bo", verdict="verified", trajectory=_run(canonical),
                   milestone_steps=steps)
    tid = canonical.id
    refused = _cli(emukit_cli, "tasks", "accept", tid, "--annotation", "1", "--tasks-dir", str(folder), cwd=tmp_path)
    assert refused.returncode == 1 and "pass --allow-longer" in refused.stdout + refused.stderr
    done = _cli(emukit_cli, "tasks", "accept", tid, "--annotation", "1", "--allow-longer", "--tasks-dir", str(folder),
                cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    n = len(canonical.provenance.reference)
    assert f"raises the step budget from {2 * n} to {2 * (n + 2)}" in done.stdout
    assert load_task(folder / f"{tid}.yaml").provenance.annotation == 1
    table = _cli(emukit_cli, "tasks", "agreement", tid, "--tasks-dir", str(folder), cwd=tmp_path)
    assert table.returncode == 0 and tid in table.stdout and "ann, bo" in table.stdout
    data = json.loads(_cli(emukit_cli, "tasks", "agreement", tid, "--json", "--tasks-dir", str(folder), cwd=tmp_path).stdout)
    assert data[0]["annotations"] == 2 and data[0]["canonical_annotation"] == 1
    assert data[0]["trajectory_similarity"] == pytest.approx(1 - 2 / (n + 2))  # two actions more in n + 2
    bad = _cli(emukit_cli, "tasks", "accept", "no_such_task", "--annotation", "1", "--tasks-dir", str(folder), cwd=tmp_path)
    assert bad.returncode == 1 and "unknown task(s) no_such_task" in bad.stdout + bad.stderr
