"""A task being performed on a device: its initial state, every action, and the ordered milestone checklist
re-evaluated after each action. The annotator's web UI, ``emukit tasks verify`` and the scripted recorder all
drive a task through :class:`TaskSession`, so a reference trajectory means the same thing everywhere."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.builder.pair import load_base
from emukit.builder.steps import StepRunner
from emukit.device.actions import Action, Element
from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver, parse_bounds
from emukit.errors import ConfigError, DeviceError
from emukit.tasks.checks import DeviceView, View, evaluate
from emukit.tasks.schema import Milestone, Task


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
    have visible text) the ``screen_check`` decides."""

    milestones: list[Milestone]
    rendered: bool = False
    status: list[MilestoneStatus] = field(default_factory=list)
    premature: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = [MilestoneStatus(m.id, m.assertion) for m in self.milestones]

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

    def initial(self, view: DeviceView) -> None:
        """Evaluate every milestone on the initial state: any that holds is premature (a check that cannot
        tell the task was done)."""
        self.premature = [m.id for m in self.milestones if evaluate(m.check, view)]

    def update(self, step: int, view: View) -> list[str]:
        """Evaluate after action number ``step``; returns the ids newly reached."""
        new: list[str] = []
        while not self.done:
            i = self.reached
            m = self.milestones[i]
            if not evaluate(m.screen_check if self.rendered else m.check, view):  # type: ignore[arg-type]
                break
            self.status[i].reached_at = step
            if not self.rendered:
                self.status[i].screen_ok = evaluate(m.screen_check, view)  # type: ignore[arg-type]
            new.append(m.id)
        return new

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
        raise ConfigError(f"an open_app action names an app by its label ({a.text!r}); it comes from an external "
                          "trajectory and is not replayed on a device (emukit launches apps by package)")
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

    def __init__(self, driver: Driver, task: Task, data_dir: Path | None = None, *,
                 screenshots: bool = True) -> None:
        self.driver = driver
        self.task = task
        self.screenshots = screenshots  # False: read only the hierarchy after each action (replay, recording)
        self.data_dir = data_dir  # where base-snapshot fingerprints go when a base is built (default: data/)
        self.runner = StepRunner(driver, f"task {task.id}")
        self.trajectory: list[Action] = []
        self.tracker = MilestoneTracker(task.milestones)
        self.xml: str | None = None
        self.png: bytes | None = None

    # -- initial state -------------------------------------------------------------------------------------
    def has_snapshot(self) -> bool:
        with ConsoleClient.for_serial(self.driver.serial) as console:
            return snapshot_name(self.task) in console.snapshot_list()

    def reset(self, *, use_snapshot: bool = True) -> None:
        """Restore the initial state: the task's own snapshot when the device has it, else the base snapshot
        plus the task's setup steps. Clears the trajectory and the checklist."""
        if use_snapshot and self.has_snapshot():
            load_base(self.driver, snapshot_name(self.task), spec=self.task.base_snapshot)
        else:
            from emukit.commands.build import default_data_dir
            from emukit.snapshots import ensure_snapshot

            ensure_snapshot(self.driver, self.task.base_snapshot, self.data_dir or default_data_dir())
            load_base(self.driver, self.task.base_snapshot)
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
        with ConsoleClient.for_serial(self.driver.serial) as console:
            console.snapshot_save(name)
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
        reached = self.tracker.update(len(self.trajectory), DeviceView(self.driver, self.xml))
        return done, reached

    def observe_recorded(self, done: Action) -> list[str]:
        """Account for an action executed by someone else on this driver (the scripted recorder)."""
        if done.element is None and done.type in ("tap", "long_press") and self.xml is not None:
            done.element = element_at(self.xml, done.x or 0, done.y or 0)
        self.trajectory.append(done)
        self.refresh()
        return self.tracker.update(len(self.trajectory), DeviceView(self.driver, self.xml))

    def checklist(self) -> list[dict[str, Any]]:
        return [{"id": s.id, "assertion": s.assertion, "reached_at": s.reached_at,
                 "done": s.reached_at is not None} for s in self.tracker.status]


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)
