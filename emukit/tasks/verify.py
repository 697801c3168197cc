"""Replay a task's reference trajectory from its initial state and check its milestones
(``emukit tasks verify``), and record a reference trajectory from a task template's scripted solution."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from emukit.actions import Action
from emukit.device.driver import Driver
from emukit.errors import EmukitError
from emukit.provenance import BuiltOn
from emukit.tasks.files import budget_for, solution_steps
from emukit.tasks.schema import Task, TaskTemplate
from emukit.tasks.session import TaskSession, now
from emukit.workers import DeviceContext


@dataclass
class VerifyResult:
    task_id: str
    steps: int
    budget: int
    expected: list[int]
    reached: list[int | None]
    problems: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    device: str = ""  # the serial it was verified on
    #: the device it was verified on and the builds of the task's apps, read on the device
    built_on: BuiltOn = field(default_factory=BuiltOn.unknown)

    @property
    def ok(self) -> bool:
        return not self.problems


def task_packages(task: Task) -> tuple[str, ...]:
    """The packages of the apps a task names (``apps``: profile names)."""
    from emukit.apps.registry import package_of

    return tuple(sorted({package_of(app) for app in task.apps}))


def verify_task(device: DeviceContext, task: Task) -> VerifyResult:
    """Every milestone reached, in order, exactly after the action the reference recorded (never before its
    time), none already true in the initial state, and the reference within the step budget."""
    t0 = time.perf_counter()
    prov = task.provenance
    result = VerifyResult(task.id, len(prov.reference), task.step_budget, list(prov.milestone_steps),
                          [None] * len(task.milestones), device=device.serial,
                          built_on=device.facts.built_on(task_packages(task)))
    if prov.status != "verified":
        result.problems.append(f"status is {prov.status}, not verified")
    if not prov.reference:
        result.problems.append("no reference trajectory")
        return result
    if len(prov.reference) > task.step_budget:
        result.problems.append(f"reference has {len(prov.reference)} actions, budget {task.step_budget}")
    session = TaskSession(device, task, screenshots=False)
    try:
        session.reset()
    except EmukitError as exc:  # nothing performed yet: the replay fails at its first action
        result.problems.append(f"replay failed at action 1: {exc}")
    else:
        if session.tracker.premature:
            result.problems.append(f"already true in the initial state: {', '.join(session.tracker.premature)}")
        error = session.replay(prov.reference)
        if error is not None:
            result.problems.append(error)
    result.reached = session.tracker.reached_at
    for mid in session.tracker.screen_mismatches():
        result.problems.append(f"milestone {mid}: its screen_check does not hold on the real screen that reached it")
    for m, want, got in zip(task.milestones, prov.milestone_steps, result.reached, strict=False):
        if got is None:
            result.problems.append(f"milestone {m.id} never reached (expected after action {want})")
        elif got < want:
            result.problems.append(f"milestone {m.id} reached after action {got}, before its time ({want})")
        elif got > want:
            result.problems.append(f"milestone {m.id} reached after action {got}, late (expected {want})")
    result.wall_s = time.perf_counter() - t0
    return result


class _SessionRecorder:
    """Feeds every action the scripted solution executes into the task session."""

    def __init__(self, session: TaskSession) -> None:
        self.session = session

    def before(self, driver: Driver, action: Action) -> None:
        """Nothing to do: the session reads the screen after each action."""

    def after(self, driver: Driver, action: Action) -> None:
        self.session.observe_recorded(action)


def record_reference(device: DeviceContext, template: TaskTemplate, task: Task, *, by: str) -> Task:
    """Run the template's scripted solution from the task's initial state, recording each action and the
    action after which each milestone is reached; returns the task marked verified (method ``scripted``) with
    its step budget set from the reference length. Raises when the solution misses a milestone."""
    session = TaskSession(device, task, screenshots=False)
    session.reset(use_snapshot=False)
    driver = device.driver
    if session.tracker.premature:
        raise EmukitError(f"task {task.id}: milestone(s) {', '.join(session.tracker.premature)} already hold in "
                          "the initial state")
    driver.recorder = _SessionRecorder(session)
    try:
        session.runner.run(solution_steps(template, task))
    finally:
        driver.recorder = None
    steps = session.tracker.reached_at
    if None in steps:
        missing = [m.id for m, s in zip(task.milestones, steps, strict=True) if s is None]
        raise EmukitError(f"task {task.id}: the scripted solution ({len(session.trajectory)} actions) never "
                          f"reached milestone(s) {', '.join(missing)}")
    mismatched = session.tracker.screen_mismatches()
    if mismatched:
        raise EmukitError(f"task {task.id}: the screen_check of milestone(s) {', '.join(mismatched)} does not hold "
                          "on the real screen where the milestone is reached")
    n = len(session.trajectory)
    prov = task.provenance.model_copy(update={
        "status": "verified", "verified_by": by, "verified_at": now(), "method": "scripted",
        "human_steps": n, "reference": session.trajectory, "milestone_steps": steps, "note": "",
        "built_on": device.facts.built_on(task_packages(task))})
    return task.model_copy(update={"provenance": prov, "step_budget": budget_for(n, template.budget_factor)})
