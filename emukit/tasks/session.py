"""A task being performed on a device: its initial state, every action, and the ordered milestone checklist
re-evaluated after each action. The annotator's web UI, ``emukit tasks verify`` and the scripted recorder all
drive a task through :class:`TaskSession`, so a reference trajectory means the same thing everywhere."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from emukit.actions import Action, Element
from emukit.apps.registry import open_app
from emukit.builder.steps import StepRunner
from emukit.device.driver import Driver
from emukit.errors import ConfigError, DeviceError, EmukitError
from emukit.hierarchy import parse_bounds
from emukit.tasks.checks import (
    DeviceView,
    Trace,
    View,
    describe_check,
    evaluate,
    recorded_operands,
)
from emukit.tasks.schema import Check, Milestone, Task
from emukit.workers import DeviceContext


def snapshot_name(task: Task) -> str:
    """The device snapshot that holds a task's initial state: the one the annotator saved, else one named
    after the task and a digest of its base and setup (so an edited setup never reuses a stale state)."""
    if task.provenance.initial_snapshot:
        return task.provenance.initial_snapshot
    digest = hashlib.sha256(json.dumps([task.base_snapshot, task.setup], sort_keys=True).encode()).hexdigest()
    return f"task_{task.id}_{digest[:8]}"


@dataclass
class MilestoneStatus:
    id: str
    assertion: str
    reached_at: int | None = None  # the number of actions after which it was first reached, in order
    screen_ok: bool | None = None  # whether its screen_check held on the real screen when it was reached


@dataclass
class MilestoneTracker:
    """Ordered milestones: milestone i can only be reached once milestones 0..i-1 are; several may be reached
    by the same action. ``premature`` lists those whose check already held in the initial state.

    On a device (the default) each milestone's ``check`` decides, and its ``screen_check`` is recorded as
    ``screen_ok`` on the screen that reached it. With ``rendered=True`` (world-model predictions, which only
    have visible text) the ``screen_check`` decides.

    ``trace`` is the run so far (:class:`~emukit.tasks.checks.Trace`): :meth:`initial` records step 0 and
    every :meth:`update` the step after one action, each with the action performed and the truth value, on
    that step's view, of every operand of the milestones' never / before checks and of their action leaves
    (the checks that decide, and on a device the screen_checks too), so a temporal check is decided from
    what was recorded at the time, never by reading the past again."""

    milestones: list[Milestone]
    rendered: bool = False
    status: list[MilestoneStatus] = field(default_factory=list)
    premature: list[str] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    operands: list[Check] = field(default_factory=list, init=False)  # what every step records

    def __post_init__(self) -> None:
        self.status = [MilestoneStatus(m.id, m.assertion) for m in self.milestones]
        read = [m.screen_check for m in self.milestones]
        if not self.rendered:
            read = [m.check for m in self.milestones] + read
        self.operands = recorded_operands(read)

    def _check(self, m: Milestone) -> Check:
        """The check that decides milestone ``m`` here."""
        return m.screen_check if self.rendered else m.check  # type: ignore[return-value]

    @property
    def reached(self) -> int:
        return sum(s.reached_at is not None for s in self.status)

    @property
    def done(self) -> bool:
        return self.reached == len(self.status)

    @property
    def progress(self) -> float:
        """The share of milestones reached (0 for a task without milestones)."""
        return self.reached / len(self.status) if self.status else 0.0

    def initial(self, view: View) -> None:
        """Record the initial state as step 0 (the history and the checklist start again) and evaluate every
        milestone on it: any that holds is premature (a check that cannot tell the task was done)."""
        self.status = [MilestoneStatus(m.id, m.assertion) for m in self.milestones]
        self.trace = Trace()
        self.trace.record(0, None, view, self.operands)
        self.premature = [m.id for m in self.milestones if evaluate(self._check(m), view, self.trace)]

    def update(self, step: int, view: View, action: Action | None = None) -> list[str]:
        """Record the state after action number ``step`` (``action``: the action performed, which action
        leaves read) and evaluate; returns the ids newly reached. Without :meth:`initial` first, step 0 is
        recorded empty, which only a tracker without temporal or action checks can do with (else
        ValueError: the initial state was never seen)."""
        if not self.trace.steps:
            if self.operands:
                raise ValueError("the milestones have never / before / action checks, which need the initial "
                                 "state: call initial(view) with it before the first update")
            self.trace.record(0, None, view, ())
        self.trace.record(step, action, view, self.operands)
        new: list[str] = []
        while not self.done:
            i = self.reached
            m = self.milestones[i]
            if not evaluate(self._check(m), view, self.trace):
                break
            self.status[i].reached_at = step
            self.trace.reached[m.id] = step
            if not self.rendered:
                self.status[i].screen_ok = evaluate(m.screen_check, view, self.trace)  # type: ignore[arg-type]
            new.append(m.id)
        return new

    def violations(self) -> dict[str, str]:
        """Milestone id -> why it can no longer be reached, for each milestone not reached yet whose check
        requires a never-check (the whole check, or one of its ``all`` parts) that is broken for good: its
        operand held at a recorded step after milestone ``since`` was reached (without ``since``: at any
        step). A never-check under ``any`` or ``not`` is not reported, since the milestone may still tick."""
        out: dict[str, str] = {}
        for m, st in zip(self.milestones, self.status, strict=True):
            if st.reached_at is not None:
                continue
            for never in _required_nevers(self._check(m)):
                since = never.never.since  # type: ignore[union-attr]
                if since is not None and since not in self.trace.reached:
                    continue
                after = self.trace.reached[since] if since is not None else -1
                held = self.trace.held(never.never.check, after=after)  # type: ignore[union-attr]
                if held:
                    what = describe_check(never.never.check)  # type: ignore[union-attr]
                    where = f", after milestone {since} (step {after})" if since is not None else ""
                    out[m.id] = f"its never-check ({what}) held at step {held[0]}{where}"
                    break
        return out

    @property
    def reached_at(self) -> list[int | None]:
        """After which action each milestone was reached (None: not yet)."""
        return [s.reached_at for s in self.status]

    def records(self) -> list[dict[str, Any]]:
        """``[{"id", "reached_at"}, ...]`` in milestone order."""
        return [{"id": s.id, "reached_at": s.reached_at} for s in self.status]

    def screen_mismatches(self) -> list[str]:
        """Milestones reached on a real screen where their ``screen_check`` did not hold (a screen check that
        a perfect prediction of that screen would fail)."""
        return [s.id for s in self.status if s.screen_ok is False]


def _required_nevers(check: Check) -> list[Check]:
    """The never-checks a check cannot hold without: itself, or those among its ``all`` parts (recursively)."""
    if check.never is not None:
        return [check]
    if check.all is not None:
        return [n for c in check.all for n in _required_nevers(c)]
    return []


def element_at(xml: str, x: int, y: int) -> Element | None:
    """The element a tap at (x, y) lands on: the smallest clickable node containing the point (else the
    smallest node with text or a description)."""
    best: tuple[int, ET.Element] | None = None
    fallback: tuple[int, ET.Element] | None = None
    for node in ET.fromstring(xml).iter("node"):
        left, top, right, bottom = parse_bounds(node.get("bounds", "[0,0][0,0]"))
        if not (left <= x < right and top <= y < bottom):
            continue
        area = (right - left) * (bottom - top)
        if node.get("clickable") == "true" or node.get("long-clickable") == "true":
            if best is None or area <= best[0]:
                best = (area, node)
        elif (node.get("text") or node.get("content-desc")) and (fallback is None or area <= fallback[0]):
            fallback = (area, node)
    chosen = best or fallback
    if chosen is None:
        return None
    node = chosen[1]
    text = node.get("text", "")
    if not text and best is not None:  # a clickable container: describe it by the text it holds
        text = next((n.get("text", "") for n in node.iter("node") if n.get("text")), "")
    return Element(text=text, resource_id=node.get("resource-id", ""), content_desc=node.get("content-desc", ""),
                   cls=node.get("class", ""), bounds=parse_bounds(node.get("bounds", "[0,0][0,0]")))


def perform(driver: Driver, runner: StepRunner, action: Action, xml: str | None = None) -> Action:
    """Execute one recorded action again (coordinates as recorded) and return the fresh record; taps and
    long presses are annotated with the element under the finger in ``xml`` (the screen they were chosen
    on) when the record has none."""
    a = action
    if a.type in ("tap", "long_press", "swipe", "drag") and (a.x is None or a.y is None):
        raise ConfigError(f"a {a.type} action needs x and y: {a.model_dump(exclude_none=True)}")
    if a.type == "tap":
        done = driver.tap(a.x, a.y)
    elif a.type == "long_press":
        done = driver.long_press(a.x, a.y, a.duration_ms or 800)
    elif a.type == "swipe":
        if a.x2 is None or a.y2 is None:
            raise ConfigError(f"a swipe needs x2 and y2: {a.model_dump(exclude_none=True)}")
        done = driver.swipe(a.x, a.y, a.x2, a.y2, a.duration_ms or 300)  # type: ignore[arg-type]
    elif a.type == "drag":
        if a.x2 is None or a.y2 is None:
            raise ConfigError(f"a drag needs x2 and y2: {a.model_dump(exclude_none=True)}")
        done = driver.drag(a.x, a.y, a.x2, a.y2, a.duration_ms or 1000, a.element)  # type: ignore[arg-type]
    elif a.type == "type":
        if not a.text:
            raise ConfigError("a type action needs text")
        done = driver.type_text(a.text)
    elif a.type == "key":
        if a.key is None:
            raise ConfigError("a key action needs a key code")
        done = driver.key(a.key)
    elif a.type == "wait":
        done = runner.wait((a.duration_ms or 0) / 1000)
    elif a.type == "open_app":
        if not a.text:
            raise ConfigError("an open_app action needs the app's launcher label in text")
        done = open_app(driver, a.text)
    else:  # pragma: no cover - the Literal type forbids it
        raise ConfigError(f"unknown action type {a.type!r}")
    if done.element is None:
        done.element = a.element
    if done.element is None and done.type in ("tap", "long_press") and xml is not None:
        done.element = element_at(xml, done.x or 0, done.y or 0)
    return done


class TaskSession:
    """One task on one device. ``reset`` restores the initial state; ``act`` performs one action, records it
    and re-evaluates the milestones; ``trajectory`` is what was done since the last reset."""

    def __init__(self, device: DeviceContext, task: Task, *, screenshots: bool = True) -> None:
        self.device = device  # its data_dir: where base-snapshot fingerprints go when a base is built
        self.driver = driver = device.driver
        self.task = task
        self.screenshots = screenshots  # False: read only the hierarchy after each action (replay, recording)
        self.runner = StepRunner(driver, f"task {task.id}")
        self.trajectory: list[Action] = []
        self.tracker = MilestoneTracker(task.milestones)
        self.xml: str | None = None
        self.png: bytes | None = None

    # -- initial state -------------------------------------------------------------------------------------
    def has_snapshot(self) -> bool:
        return self.device.has_snapshot(snapshot_name(self.task))

    def reset(self, *, use_snapshot: bool = True) -> None:
        """Restore the initial state: the task's own snapshot when the device has it, else the base snapshot
        plus the task's setup steps. Clears the trajectory and the checklist."""
        if use_snapshot and self.has_snapshot():
            self.device.load_base(snapshot_name(self.task), spec=self.task.base_snapshot)
        else:
            self.device.ensure_snapshot(self.task.base_snapshot)
            self.device.load_base(self.task.base_snapshot)
            self.runner.run(self.task.setup, setup=True)
        self.driver.wait_stable()
        self.trajectory = []
        self.tracker = MilestoneTracker(self.task.milestones)
        self.refresh()
        self.tracker.initial(DeviceView(self.driver, self.xml))

    def save_initial(self) -> tuple[str, bytes]:
        """Save the current (clean, before any action) state as the task's snapshot; returns its name and the
        initial screenshot."""
        if self.trajectory:
            raise DeviceError(f"task {self.task.id}: {len(self.trajectory)} action(s) already done; restart the "
                              "task before saving its initial state")
        name = snapshot_name(self.task)
        self.device.save_snapshot(name)
        self.png, self.xml = self.driver.capture()
        return name, self.png

    # -- acting --------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the current screen once the UI is idle: screenshot and hierarchy, or only the hierarchy when
        the session was made without screenshots (milestone checks never need the pixels)."""
        if self.screenshots:
            self.png, self.xml = self.driver.capture()
        else:
            self.driver.wait_idle()
            self.png, self.xml = None, self.driver.hierarchy()

    def act(self, action: Action) -> tuple[Action, list[str]]:
        """Perform one action; returns its record and the milestones it reached."""
        done = perform(self.driver, self.runner, action, self.xml)
        self.trajectory.append(done)
        self.refresh()
        reached = self.tracker.update(len(self.trajectory), DeviceView(self.driver, self.xml), action=done)
        return done, reached

    def replay(self, actions: Iterable[Action]) -> str | None:
        """Perform ``actions`` in order (each recorded as by :meth:`act`); the error that stopped the replay, or
        None when every action was performed."""
        for action in actions:
            try:
                self.act(action)
            except EmukitError as exc:
                return f"replay failed at action {len(self.trajectory) + 1}: {exc}"
        return None

    def observe_recorded(self, done: Action) -> list[str]:
        """Account for an action executed by someone else on this driver (the scripted recorder)."""
        if done.element is None and done.type in ("tap", "long_press") and self.xml is not None:
            done.element = element_at(self.xml, done.x or 0, done.y or 0)
        self.trajectory.append(done)
        self.refresh()
        return self.tracker.update(len(self.trajectory), DeviceView(self.driver, self.xml), action=done)

    def checklist(self) -> list[dict[str, Any]]:
        return [{"id": s.id, "assertion": s.assertion, "reached_at": s.reached_at,
                 "done": s.reached_at is not None} for s in self.tracker.status]


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)
