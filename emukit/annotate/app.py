"""The state behind the annotator's page: one task being performed on one device, and the rules for what may
be saved when.

Every device access goes through one lock, so an action, a restart, a save and a screen refresh never
interleave. The page reads a snapshot of the state (:meth:`AnnotateApp.state`) that is rebuilt under the lock
after every change, so a poll never sees half of an action; ``seq`` tells the page which snapshot is newer and
``version`` when the screenshot changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emukit.atomicio import write_atomic
from emukit.device.actions import Action, ActionType
from emukit.device.driver import Driver
from emukit.errors import EmukitError
from emukit.images import png_size
from emukit.tasks.files import budget_for, save_task, screens_dir
from emukit.tasks.schema import Task
from emukit.tasks.session import TaskSession, now

MAX_WAIT_MS = 10 * 60 * 1000
MAX_TEXT = 2000


class ApiError(EmukitError):
    """A request the page (or any client) made that cannot be honoured; ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ActionRequest(BaseModel):
    """The fields of an :class:`~emukit.device.actions.Action` a client may send (no element, no timing)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: ActionType
    x: int | None = Field(default=None, ge=0)
    y: int | None = Field(default=None, ge=0)
    x2: int | None = Field(default=None, ge=0)
    y2: int | None = Field(default=None, ge=0)
    text: str | None = Field(default=None, max_length=MAX_TEXT)
    key: int | None = Field(default=None, ge=0, le=400)
    duration_ms: int | None = Field(default=None, ge=0, le=MAX_WAIT_MS)


def _needs(req: ActionRequest, *names: str) -> None:
    missing = [n for n in names if getattr(req, n) is None]
    if missing:
        raise ApiError(400, f"a {req.type} action needs {', '.join(missing)}")


def parse_action(payload: object, screen: tuple[int, int] | None = None) -> Action:
    """Validate a client's action (a JSON object of Action fields); ``screen`` (width, height) bounds the
    coordinates. Raises :class:`ApiError` 400 naming the field and value at fault."""
    if not isinstance(payload, dict):
        raise ApiError(400, f"an action is a JSON object with a type field, got {type(payload).__name__}")
    try:
        req = ActionRequest.model_validate(payload)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'action'}: {e['msg']} (got {e.get('input')!r})"
                             for e in exc.errors())
        raise ApiError(400, f"bad action: {problems}") from None
    if req.type in ("tap", "long_press"):
        _needs(req, "x", "y")
    elif req.type in ("swipe", "drag"):
        _needs(req, "x", "y", "x2", "y2")
    elif req.type == "type":
        if not req.text:
            raise ApiError(400, "a type action needs a non-empty text")
    elif req.type == "key":
        _needs(req, "key")
    elif req.type == "wait":
        _needs(req, "duration_ms")
        if not req.duration_ms:
            raise ApiError(400, "a wait action needs duration_ms > 0")
    if screen is not None:
        width, height = screen
        for fx, fy in (("x", "y"), ("x2", "y2")):
            x, y = getattr(req, fx), getattr(req, fy)
            if (x is not None and x >= width) or (y is not None and y >= height):
                raise ApiError(400, f"({fx}, {fy}) = ({x}, {y}) lies outside the {width}x{height} screen")
    return Action(**req.model_dump(exclude_none=True))


def describe(action: Action) -> str:
    """One line for the page's trajectory list (:meth:`Action.describe`)."""
    return action.describe()


class AnnotateApp:
    """One task on one device for the annotator: perform actions, restart, save the initial state, mark the
    task verified or rejected. ``tasks_folder`` is where the task file (and ``screens/``) is written;
    ``data_dir`` where a base snapshot's fingerprint goes when a reset has to build that snapshot."""

    def __init__(self, driver: Driver, task: Task, *, tasks_folder: Path, annotator: str,
                 data_dir: Path | None = None, poll_interval_s: float = 0.8) -> None:
        if not annotator.strip():
            raise ApiError(400, "the annotator name must not be empty")
        self.session = TaskSession(driver, task, data_dir=data_dir)
        self.folder = Path(tasks_folder)
        self.annotator = annotator.strip()
        self.poll_interval_s = poll_interval_s
        self.lock = threading.Lock()
        self.version = 0  # bumped whenever the screenshot changes
        self.seq = 0  # bumped whenever the state snapshot is rebuilt
        self.last_error: str | None = None
        self.message: str | None = None
        self._digest = ""
        self._last_refresh = 0.0
        self._snapshot: dict[str, Any] = {}
        self._changed()

    @property
    def task(self) -> Task:
        return self.session.task

    # -- device operations (each under the lock) ----------------------------------------------------------
    def start(self) -> None:
        """Reset the task to its clean initial state (the annotator always starts there)."""
        with self.lock:
            self._device(self.session.reset, "resetting the task")
            self.message = "task reset to its initial state"
            self._changed()

    def poll(self) -> None:
        """Re-read the screen (changes made in the emulator's own window show up); skipped while an action
        runs or when the screen was read less than ``poll_interval_s`` ago."""
        if time.monotonic() - self._last_refresh < self.poll_interval_s:
            return
        if not self.lock.acquire(blocking=False):
            return
        try:
            try:
                self.session.refresh()
            except EmukitError as exc:
                self.last_error = f"reading the screen failed: {exc}"
            else:
                if self.last_error and self.last_error.startswith("reading the screen failed"):
                    self.last_error = None
            self._changed()
        finally:
            self.lock.release()

    def act(self, payload: object) -> dict[str, Any]:
        """Perform one action the page sent; returns its record (with the element under the finger) and the
        milestones it reached."""
        with self.lock:
            action = parse_action(payload, self.screen_size())
            try:
                done, reached = self.session.act(action)
            except EmukitError as exc:
                self.last_error = f"{action.type} failed: {exc}"
                with contextlib.suppress(EmukitError):
                    self.session.refresh()
                self._changed()
                raise ApiError(502, self.last_error) from None
            self.last_error = None
            names = {m.id: m.assertion for m in self.task.milestones}
            self.message = (f"step {len(self.session.trajectory)}: {describe(done)}" +
                            "".join(f" — reached {r}: {names[r]}" for r in reached))
            self._changed()
            return {"action": done.model_dump(mode="json", exclude_none=True, exclude={"elapsed_ms"}),
                    "reached": reached}

    def restart(self) -> None:
        """Reset the task to its initial state, dropping the trajectory and the checklist."""
        with self.lock:
            self._device(self.session.reset, "restarting the task")
            self.last_error = None
            self.message = "restarted: the task is back in its initial state, the trajectory is empty"
            self._changed()

    def save_initial(self) -> Path:
        """Save the current state as the task's initial state: the device snapshot, the screenshot under
        ``screens/<id>.png`` and the task file. Only before any action."""
        with self.lock:
            done = len(self.session.trajectory)
            if done:
                raise self._refuse(409, f"the initial state can only be saved before any action ({done} done); "
                                        "press Restart first")
            name, png = self._device(self.session.save_initial, "saving the initial state")
            path = screens_dir(self.folder) / f"{self.task.id}.png"
            write_atomic(path, png)
            rel = path.relative_to(self.folder).as_posix()
            prov = self.task.provenance.model_copy(update={"initial_screenshot": rel, "initial_snapshot": name})
            saved = self._save(self.task.model_copy(update={"provenance": prov}))
            self.last_error = None
            self.message = f"initial state saved: snapshot {name}, screenshot {rel}, task {saved.name}"
            self._changed()
            return path

    # -- verdicts ------------------------------------------------------------------------------------------
    def verify(self, note: str = "") -> Path:
        """Mark the task verified with the performed trajectory as its reference; refused (409) unless every
        milestone was reached."""
        with self.lock:
            tracker = self.session.tracker
            missing = [f"{s.id} ({s.assertion})" for s in tracker.status if s.reached_at is None]
            if missing:
                raise self._refuse(409, f"cannot mark verified: milestone(s) not reached yet: {'; '.join(missing)}")
            mismatched = tracker.screen_mismatches()
            if mismatched:
                raise self._refuse(409, "cannot mark verified: the screen_check of milestone(s) "
                                        f"{', '.join(mismatched)} does not hold on the real screen where the "
                                        "milestone was reached (a perfect prediction of that screen would fail "
                                        "it); fix the task's screen_check first")
            if tracker.premature:
                raise self._refuse(409, "cannot mark verified: milestone(s) "
                                        f"{', '.join(tracker.premature)} already hold in the initial state, so "
                                        "their checks cannot tell the task was done; fix the task first")
            trajectory = [a.model_copy(deep=True) for a in self.session.trajectory]
            n = len(trajectory)
            prov = self.task.provenance.model_copy(update={
                "status": "verified", "verified_by": self.annotator, "verified_at": now(), "method": "annotator",
                "human_steps": n, "reference": trajectory, "milestone_steps": [s.reached_at for s in tracker.status],
                "note": note.strip()})
            path = self._save(self.task.model_copy(update={"provenance": prov, "step_budget": budget_for(n)}))
            self.last_error = None
            self.message = (f"verified by {self.annotator}: {n} reference actions, milestones after "
                            f"{prov.milestone_steps}, step budget {self.task.step_budget}; saved {path.name}")
            self._changed()
            return path

    def reject(self, note: str) -> Path:
        """Mark the task rejected; the note says what is wrong with it."""
        with self.lock:
            if not note.strip():
                raise self._refuse(400, "a rejection needs a note saying what is wrong with the task")
            prov = self.task.provenance.model_copy(update={"status": "rejected", "note": note.strip()})
            path = self._save(self.task.model_copy(update={"provenance": prov}))
            self.last_error = None
            self.message = f"rejected by {self.annotator}; saved {path.name}"
            self._changed()
            return path

    # -- reading -------------------------------------------------------------------------------------------
    def screen(self) -> bytes:
        png = self.session.png
        if png is None:
            raise ApiError(503, "no screenshot yet: the device is still being reset")
        return png

    def screen_size(self) -> tuple[int, int] | None:
        return png_size(self.session.png) if self.session.png else None

    def state(self) -> dict[str, Any]:
        """The latest state snapshot, plus whether an operation is running now."""
        return {**self._snapshot, "busy": self.lock.locked()}

    # -- internals -----------------------------------------------------------------------------------------
    def _device(self, fn: Any, what: str) -> Any:
        try:
            return fn()
        except EmukitError as exc:
            self.last_error = f"{what} failed: {exc}"
            self._changed()
            raise ApiError(502, self.last_error) from None

    def _refuse(self, status: int, message: str) -> ApiError:
        self.last_error = message
        self._changed()
        return ApiError(status, message)

    def _save(self, task: Task) -> Path:
        try:
            path = save_task(task, self.folder)
        except (EmukitError, ValueError, OSError) as exc:
            raise self._refuse(500, f"saving task {task.id} in {self.folder} failed: {exc}") from None
        self.session.task = task
        return path

    def _changed(self) -> None:
        """Rebuild the state snapshot (called with the lock held)."""
        png = self.session.png
        if png is not None:
            digest = hashlib.sha256(png).hexdigest()
            if digest != self._digest:
                self._digest = digest
                self.version += 1
            self._last_refresh = time.monotonic()
        self.seq += 1
        task, session = self.task, self.session
        prov = task.provenance
        steps = len(session.trajectory)
        size = png_size(png) if png else None
        self._snapshot = {
            "seq": self.seq,
            "task": {"id": task.id, "instruction": task.instruction, "apps": task.apps, "context": task.context,
                     "template": task.template},
            "annotator": self.annotator,
            "provenance": {"status": prov.status, "method": prov.method, "verified_by": prov.verified_by,
                           "verified_at": prov.verified_at.isoformat() if prov.verified_at else None,
                           "human_steps": prov.human_steps, "milestone_steps": prov.milestone_steps,
                           "initial_screenshot": prov.initial_screenshot,
                           "initial_snapshot": prov.initial_snapshot, "note": prov.note},
            "checklist": [{"id": st.id, "assertion": st.assertion, "reached_at": st.reached_at,
                           "done": st.reached_at is not None, "screen_ok": st.screen_ok}
                          for st in session.tracker.status],
            "premature": list(session.tracker.premature),
            "all_reached": session.tracker.done,
            "steps": steps,
            "budget": task.step_budget,
            "over_budget": steps > task.step_budget,
            "trajectory": [describe(a) for a in session.trajectory],
            "version": self.version,
            "screen": {"width": size[0], "height": size[1]} if size else None,
            "last_error": self.last_error,
            "message": self.message,
        }
