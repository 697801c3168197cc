"""The state behind the annotator's page: one task being performed on one device, and the rules for what may
be saved when.

Every device access goes through one lock, so an action, a restart, an undo, a save and a screen refresh never
interleave. The page reads a snapshot of the state (:meth:`AnnotateApp.state`) that is rebuilt under the lock
after every change, so a poll never sees half of an action; ``seq`` tells the page which snapshot is newer and
``version`` when the screenshot changed.

Safety rules (enforced here, whatever client sends the request):

- **Tokens.** Each app (one ``emukit annotate`` server run) has a ``server_token`` and each task it shows a
  ``task_token``; a request carrying another run's or task's token is refused (:meth:`check_tokens`), so a tab
  left open across a server restart or a move to the next task can never act on the wrong task.
- **One controlling tab.** The first tab to reach the run controls it; any other tab is read-only until it
  takes control (:meth:`take_control`), so two tabs never drive one run.
- **Verdicts never overwrite.** A verification or rejection is a new annotation beside the others
  (:mod:`emukit.tasks.annotations`); the task's canonical reference changes only by :meth:`accept`, which
  the page asks the annotator to confirm. A verification needs the current review (:meth:`review`): the page
  shows its flags and sends back its token.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from emukit.actions import Action, ActionType
from emukit.apps.launcher import PACKAGE as LAUNCHER_PACKAGE
from emukit.apps.registry import launcher_labels
from emukit.atomicio import write_atomic
from emukit.errors import ConfigError, EmukitError
from emukit.images import png_size
from emukit.tasks import annotations as notes
from emukit.tasks.files import save_task, screens_dir
from emukit.tasks.schema import Task
from emukit.tasks.session import TaskSession
from emukit.tasks.verify import task_packages
from emukit.workers import DeviceContext

if TYPE_CHECKING:
    from emukit.annotate.queue import TaskQueue

MAX_WAIT_MS = 10 * 60 * 1000
MAX_TEXT = 2000
MAX_NOTE = 4000
CONTROL_IDLE_S = 20.0  # a controlling tab not heard from for this long (closed, asleep) gives up control
#: the shade, system dialogs and the home screen belong to every task (GUI-CC's navigate_home is one of its actions;
#: a task's ``apps`` name only the apps it is about)
SYSTEM_PACKAGES = ("com.android.systemui", "android", LAUNCHER_PACKAGE)


class ApiError(EmukitError):
    """A request the page (or any client) made that cannot be honoured; ``status`` is the HTTP status and
    ``extra`` fields go into the JSON answer beside the error."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


class ActionRequest(BaseModel):
    """The fields of an :class:`~emukit.actions.Action` a client may send (no element, no timing)."""

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
    elif req.type == "open_app":
        known = launcher_labels()
        if not req.text or req.text not in known:
            raise ApiError(400, f"an open_app action names an app by its launcher label (got {req.text!r}; known: "
                                f"{', '.join(sorted(known))})")
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


@dataclass(frozen=True)
class StepRecord:
    """What the screen was after one step (step 0: the initial state): digests of the screenshot and the
    hierarchy, and the focused app's package (None: a system window such as the shade)."""

    png: str
    xml: str
    package: str | None


def _digest(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


class AnnotateApp:
    """Tasks on one device for one annotator: perform actions, undo, restart, save the initial state, review
    the run, save it as an annotation (verified or rejected), accept an annotation as canonical and, with a
    ``queue``, move on to the next task. ``tasks_folder`` is where the first task's file (``screens/``,
    ``annotations/``) is written (queued tasks: their own folder); a base snapshot a reset has to build records
    its fingerprint under the device context's ``data_dir``."""

    def __init__(self, device: DeviceContext, task: Task, *, tasks_folder: Path, annotator: str,
                 poll_interval_s: float = 0.8, queue: TaskQueue | None = None) -> None:
        if not annotator.strip():
            raise ApiError(400, "the annotator name must not be empty")
        self.device = device
        self.driver = device.driver
        self.session = TaskSession(device, task)
        self.folder = Path(tasks_folder)
        self.annotator = annotator.strip()
        self.poll_interval_s = poll_interval_s
        self.queue = queue  # None: one task
        self.lock = threading.Lock()
        self.server_token = secrets.token_urlsafe(16)
        self.task_token = secrets.token_urlsafe(12)
        self.run = ""  # a new id for every reset of the task (an undo stays in the same run)
        self.note = ""  # the annotator's note on the current run
        self.records: list[StepRecord] = []  # one per step, the initial state first
        self.saved: int | None = None  # the annotation number this run was saved as
        self.controller: str | None = None
        self._controller_seen = 0.0
        self.version = 0  # bumped whenever the screenshot changes
        self.seq = 0  # bumped whenever the state snapshot is rebuilt
        self.last_error: str | None = None
        self.message: str | None = None
        self._digest = ""
        self._last_refresh = 0.0
        self._snapshot: dict[str, Any] = {}
        self._annotations: list[notes.Annotation] = []
        self._queue_progress: dict[str, Any] | None = None
        self._load_annotations()
        self._changed()

    @property
    def task(self) -> Task:
        return self.session.task

    # -- tokens and tabs -----------------------------------------------------------------------------------
    def check_tokens(self, server: str | None, task: str | None, *, required: bool) -> None:
        """Refuse (409) a request from a page of another server run or another task; ``required``: a request
        without tokens is refused too (every request that changes something)."""
        if server is None and task is None and not required:
            return
        if server != self.server_token:
            raise ApiError(409, "this page belongs to an earlier or another emukit annotate run; nothing it sends "
                                f"is applied. This server now annotates task {self.task.id}: reload the page",
                           stale="server")
        if task != self.task_token:
            raise ApiError(409, f"this page shows a task this server has moved on from; nothing it sends is "
                                f"applied. The server now annotates task {self.task.id}: reload the page",
                           stale="task")

    def seen(self, tab: str | None) -> None:
        """Note that ``tab`` is alive; it takes control when no tab has it (or the one that had it went
        quiet)."""
        if not tab:
            return
        now = time.monotonic()
        if self.controller is None or (self.controller != tab and now - self._controller_seen > CONTROL_IDLE_S):
            self.controller = tab
        if self.controller == tab:
            self._controller_seen = now

    def require_control(self, tab: str | None) -> None:
        if not tab:
            raise ApiError(400, "send the tab id (X-Emukit-Tab header) with every request that acts")
        self.seen(tab)
        if self.controller != tab:
            raise ApiError(409, "read-only: another tab controls this run; press \"Take control\" to act from "
                                "this one", readonly=True)

    def take_control(self, tab: str | None) -> None:
        if not tab:
            raise ApiError(400, "send the tab id (X-Emukit-Tab header) to take control")
        with self.lock:
            previous, self.controller = self.controller, tab
            self._controller_seen = time.monotonic()
            if previous not in (None, tab):
                self.message = "this tab took control; the other tab is read-only now"
            self._changed()

    # -- device operations (each under the lock) ----------------------------------------------------------
    def start(self) -> None:
        """Reset the task to its clean initial state (the annotator always starts there)."""
        with self.lock:
            self._reset("resetting the task")
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
                self._record()
            except EmukitError as exc:
                self.last_error = f"{action.type} failed: {exc}"
                with contextlib.suppress(EmukitError):
                    self.session.refresh()
                self._changed()
                raise ApiError(502, self.last_error) from None
            self.saved = None
            self.last_error = None
            names = {m.id: m.assertion for m in self.task.milestones}
            self.message = (f"step {len(self.session.trajectory)}: {describe(done)}" +
                            "".join(f" — reached {r}: {names[r]}" for r in reached))
            self._changed()
            return {"action": done.model_dump(mode="json", exclude_none=True, exclude={"elapsed_ms"}),
                    "reached": reached}

    def restart(self, confirm: bool = False) -> None:
        """Reset the task to its initial state, dropping the trajectory, the checklist and the note: a new run.
        With actions recorded, only when ``confirm`` (the page asks first)."""
        with self.lock:
            done = len(self.session.trajectory)
            if done and not confirm:
                raise self._refuse(409, f"restarting discards the {done} recorded action(s) and the note; confirm "
                                        "the restart")
            self._reset("restarting the task")
            self.last_error = None
            self.message = "restarted: the task is back in its initial state, the trajectory is empty"
            self._changed()

    def undo(self, n: int = 1) -> dict[str, Any]:
        """Take back the last ``n`` actions: restore the initial state and replay the others as recorded. The
        run, its note and its checklist carry on; returns whether the replayed screen is the one recorded
        after the kept steps (``same_screen``)."""
        with self.lock:
            done = len(self.session.trajectory)
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= done:
                raise self._refuse(400, f"undo takes 1 to {done} action(s) (the recorded ones), got {n!r}")
            keep = [a.model_copy(deep=True) for a in self.session.trajectory[: done - n]]
            target = self.records[len(keep)] if len(self.records) > len(keep) else None
            run, note = self.run, self.note
            self._reset("undoing (restoring the initial state)")
            self.run, self.note = run, note
            for i, action in enumerate(keep, 1):
                try:
                    self.session.act(action)
                    self._record()
                except EmukitError as exc:
                    self.last_error = f"undo: replaying action {i} of {len(keep)} ({describe(action)}) failed: {exc}"
                    self._changed()
                    raise ApiError(502, self.last_error) from None
            same = target is not None and self.records[-1] == target
            self.saved = None
            self.last_error = None if same else (
                f"undo replayed {len(keep)} action(s) but the screen differs from the one recorded after step "
                f"{len(keep)}: check the screen before going on")
            self.message = f"undid {n} action(s): replayed {len(keep)} from the initial state"
            self._changed()
            return {"undone": n, "replayed": len(keep), "same_screen": same}

    def set_note(self, note: str, run: str) -> None:
        """Keep the annotator's note on the server, tied to the run it was written for."""
        with self.lock:
            if run != self.run:
                raise self._refuse(409, "this note was written for an earlier run of the task (it was restarted "
                                        "since) and is not kept")
            if len(note) > MAX_NOTE:
                raise self._refuse(400, f"the note has {len(note)} characters, at most {MAX_NOTE}")
            self.note = note
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

    # -- review and verdicts -------------------------------------------------------------------------------
    def review(self) -> dict[str, Any]:
        """The run compared with the canonical reference, and what the annotator should look at before saving
        it: over budget, actions that changed nothing, apps outside the task's, milestones the run contradicts
        or has not reached. ``token`` must come back with :meth:`verify`."""
        with self.lock:
            return self._review()

    def verify(self, note: str | None = None, review_token: str | None = None) -> Path:
        """Save the run as this annotator's verified annotation (a new file; the task's canonical reference is
        not touched). Refused (409) unless every milestone was reached and ``review_token`` is the current
        review's (the annotator saw its flags)."""
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
            review = self._review()
            if review_token != review["token"]:
                raise self._refuse(409, "review the run before saving it (the review was not sent, or the run "
                                        "changed since it was shown)", review=review)
            if self.saved is not None:
                raise self._refuse(409, f"this run is already saved as annotation {self.saved}")
            a = self._annotate("verified", self.note if note is None else note,
                               [f["message"] for f in review["flags"]])
            n = len(a.trajectory)
            self.message = (f"saved as annotation {a.number} by {self.annotator}: {n} actions, milestones after "
                            f"{a.milestone_steps}. The canonical reference is unchanged"
                            + (f" ({review['canonical']['steps']} actions)" if review["canonical"] else "")
                            + ": Accept makes this run canonical")
            self._changed()
            return Path(a.source_path)

    def reject(self, note: str | None = None) -> Path:
        """Save a rejection (a new annotation); the note says what is wrong with the task."""
        with self.lock:
            text = (self.note if note is None else note).strip()
            if not text:
                raise self._refuse(400, "a rejection needs a note saying what is wrong with the task")
            a = self._annotate("rejected", text, [])
            self.message = (f"rejection saved as annotation {a.number} by {self.annotator}; the task's status is "
                            "unchanged until an annotation is accepted")
            self._changed()
            return Path(a.source_path)

    def accept(self, number: int, *, confirm: bool, allow_longer: bool = False) -> Path:
        """Make annotation ``number`` the task's canonical verdict (:func:`emukit.tasks.annotations.
        accept_annotation`); only with ``confirm``. A longer reference than the canonical one is refused
        (409, ``longer``) unless ``allow_longer``."""
        with self.lock:
            if not confirm:
                raise self._refuse(409, f"accepting annotation {number} replaces the task's canonical reference; "
                                        "confirm it")
            try:
                done = notes.accept_annotation(self.folder, self.task, number, allow_longer=allow_longer)
            except ConfigError as exc:
                longer = "--allow-longer" in str(exc)
                message = str(exc).replace("; pass --allow-longer to accept a longer reference anyway",
                                           ": confirm again to accept the longer reference") if longer else str(exc)
                raise self._refuse(409, message, longer=longer) from None
            self.session.task = done.task
            self._load_annotations()
            self.last_error = None
            self.message = "; ".join(done.messages)
            self._changed()
            return done.path

    def next_task(self, confirm: bool = False) -> str:
        """Move on to the queue's next task (a run with unsaved actions only with ``confirm``); returns its id.
        The pages of the previous task are refused from now on (a new task token)."""
        if self.queue is None:
            raise ApiError(409, "there is no task queue (start emukit annotate with --queue)")
        with self.lock:
            done = len(self.session.trajectory)
            if done and self.saved is None and not confirm:
                raise self._refuse(409, f"the current run ({done} action(s)) is not saved; confirm to leave it")
            task = self.queue.next_task(after=self.task.id)
            if task is None:
                raise self._refuse(409, f"nothing left in the queue: {self.queue.summary()}")
            self.session = TaskSession(self.device, task)
            self.folder = Path(task.source_path).parent
            self.task_token = secrets.token_urlsafe(12)
            self._load_annotations()
            self._reset(f"resetting task {task.id}")
            self.message = f"next task: {task.id} ({self.queue.summary()})"
            self._changed()
            return task.id

    # -- reading -------------------------------------------------------------------------------------------
    def screen(self) -> bytes:
        png = self.session.png
        if png is None:
            raise ApiError(503, "no screenshot yet: the device is still being reset")
        return png

    def screen_size(self) -> tuple[int, int] | None:
        return png_size(self.session.png) if self.session.png else None

    def elements(self) -> dict[str, Any]:
        """The nodes of the current hierarchy with bounds (for the element under the cursor)."""
        import xml.etree.ElementTree as ET

        from emukit.hierarchy import parse_bounds

        with self.lock:
            xml, version = self.session.xml, self.version
        out = []
        if xml:
            for node in ET.fromstring(xml).iter("node"):
                bounds = parse_bounds(node.get("bounds", "[0,0][0,0]"))
                if bounds[2] <= bounds[0] or bounds[3] <= bounds[1]:
                    continue
                out.append({"bounds": bounds, "resource_id": node.get("resource-id", ""),
                            "text": node.get("text", ""), "content_desc": node.get("content-desc", ""),
                            "cls": node.get("class", ""),
                            "clickable": node.get("clickable") == "true" or node.get("long-clickable") == "true"})
        return {"version": version, "elements": out}

    def state(self, tab: str | None = None) -> dict[str, Any]:
        """The latest state snapshot, plus whether an operation is running now and who controls the run."""
        control = "none" if self.controller is None else ("you" if tab and tab == self.controller else "other")
        return {**self._snapshot, "busy": self.lock.locked(), "control": control}

    # -- internals -----------------------------------------------------------------------------------------
    def _reset(self, what: str) -> None:
        self._device(self.session.reset, what)
        self.run = uuid.uuid4().hex[:12]
        self.note = ""
        self.saved = None
        self.records = []
        self._record()

    def _record(self) -> None:
        """The record of the step just taken (or of the initial state)."""
        try:
            app = self.driver.focused_app()
        except EmukitError:
            app = None
        self.records.append(StepRecord(_digest(self.session.png), _digest(self.session.xml),
                                       app[0] if app else None))

    def _allowed_packages(self) -> set[str]:
        from emukit.apps.registry import package_of

        allowed = set(SYSTEM_PACKAGES)
        for name in self.task.apps:
            with contextlib.suppress(ConfigError):
                allowed.add(package_of(name))
        return allowed

    def _canonical(self) -> dict[str, Any] | None:
        prov = self.task.provenance
        if prov.status != "verified" or not prov.reference:
            return None
        return {"steps": len(prov.reference), "milestone_steps": list(prov.milestone_steps),
                "annotation": prov.annotation, "verified_by": prov.verified_by}

    def _review(self) -> dict[str, Any]:
        session, tracker = self.session, self.session.tracker
        steps = len(session.trajectory)
        flags: list[dict[str, Any]] = []

        def flag(kind: str, message: str, step: int | None = None) -> None:
            flags.append({"kind": kind, "message": message, "step": step})

        if steps > self.task.step_budget:
            flag("over_budget", f"{steps} actions, over the step budget of {self.task.step_budget}")
        canonical = self._canonical()
        comparison: dict[str, Any] | None = None
        if canonical is not None:
            ref = self.task.provenance.reference
            comparison = {"steps_difference": steps - canonical["steps"],
                          "similarity": round(notes.trajectory_similarity(session.trajectory, ref), 3),
                          "milestone_steps": [s.reached_at for s in tracker.status],
                          "canonical_milestone_steps": canonical["milestone_steps"]}
            if steps > canonical["steps"]:
                flag("longer", f"{steps} actions, {steps - canonical['steps']} more than the canonical reference "
                               f"({canonical['steps']})")
        reached_at = {s.reached_at for s in tracker.status}
        for i in range(1, min(len(self.records), steps + 1)):  # a step that reached a milestone changed something
            same = self.records[i].png == self.records[i - 1].png and self.records[i].xml == self.records[i - 1].xml
            if same and i not in reached_at:
                flag("no_change", f"step {i} ({describe(session.trajectory[i - 1])}) changed nothing on the screen "
                                  "and reached no milestone", i)
        allowed = self._allowed_packages()
        focus = [(i, rec.package) for i, rec in enumerate(self.records[1: steps + 1], 1)]
        for package, run in itertools.groupby(focus, key=lambda step: step[1]):  # one flag per stretch
            if package and package not in allowed:
                at = [i for i, _ in run]
                when = f"step {at[0]}" if len(at) == 1 else f"steps {at[0]}-{at[-1]}"
                flag("outside_apps", f"after {when} the focused app is {package}, not one of the task's apps "
                                     f"({', '.join(self.task.apps)})", at[0])
        for mid, why in tracker.violations().items():
            flag("contradicted", f"milestone {mid}: {why}")
        undone = self._goal_undone()
        if undone:
            flag("contradicted", undone)
        for s in tracker.status:
            if s.reached_at is None:
                flag("missing", f"milestone {s.id} ({s.assertion}) is not reached")
        basis = [self.run, steps, [f["message"] for f in flags], self.task_token]
        token = hashlib.sha256(repr(basis).encode()).hexdigest()[:16]
        return {"steps": steps, "budget": self.task.step_budget, "canonical": canonical, "comparison": comparison,
                "flags": flags, "can_verify": tracker.done and not tracker.premature
                and not tracker.screen_mismatches(), "token": token}

    def _goal_undone(self) -> str | None:
        """Why the run contradicts the task's goal at its end: the last milestone was reached before the last
        action but its check no longer holds now (None when it still holds or was not reached early)."""
        from emukit.tasks.checks import DeviceView, evaluate

        tracker, steps = self.session.tracker, len(self.session.trajectory)
        last, status = self.task.milestones[-1], tracker.status[-1]
        if status.reached_at is None or status.reached_at >= steps or self.session.xml is None:
            return None
        try:
            holds = evaluate(last.check, DeviceView(self.driver, self.session.xml), tracker.trace)
        except (EmukitError, ValueError):
            return None
        if holds:
            return None
        return (f"milestone {last.id} ({last.assertion}) was reached after step {status.reached_at} but no longer "
                f"holds at the end of the run (step {steps})")

    def _annotate(self, verdict: notes.Verdict, note: str, review: list[str]) -> notes.Annotation:
        if self.saved is not None:
            raise self._refuse(409, f"this run is already saved as annotation {self.saved}")
        self.note = note
        try:
            a = notes.add_annotation(self.folder, self.task, annotator=self.annotator, verdict=verdict,
                                     trajectory=self.session.trajectory,
                                     milestone_steps=self.session.tracker.reached_at, note=note, run=self.run,
                                     review=review, built_on=self.device.facts.built_on(task_packages(self.task)))
        except (ConfigError, OSError) as exc:
            raise self._refuse(500, f"saving the annotation of task {self.task.id} in {self.folder} failed: "
                                    f"{exc}") from None
        self.saved = a.number
        self.last_error = None
        self._load_annotations()
        return a

    def _load_annotations(self) -> None:
        """Re-read this task's annotations and the queue's progress (only when they can have changed: at the
        start, after a save or an accept, on a new task; not on every poll)."""
        try:
            self._annotations = notes.load_annotations(self.folder, self.task.id)
        except ConfigError as exc:
            self._annotations = []
            self.last_error = f"reading the annotations failed: {exc}"
        self._queue_progress = self.queue.progress(self.task.id) if self.queue is not None else None

    def _device(self, fn: Any, what: str) -> Any:
        try:
            return fn()
        except EmukitError as exc:
            self.last_error = f"{what} failed: {exc}"
            self._changed()
            raise ApiError(502, self.last_error) from None

    def _refuse(self, status: int, message: str, **extra: Any) -> ApiError:
        self.last_error = message
        self._changed()
        return ApiError(status, message, **extra)

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
        violations = session.tracker.violations()
        self._snapshot = {
            "seq": self.seq,
            "task": {"id": task.id, "instruction": task.instruction, "apps": task.apps, "context": task.context,
                     "template": task.template},
            "annotator": self.annotator,
            "tokens": {"server": self.server_token, "task": self.task_token},
            "run": self.run,
            "note": self.note,
            "saved": self.saved,
            "provenance": {"status": prov.status, "method": prov.method, "verified_by": prov.verified_by,
                           "verified_at": prov.verified_at.isoformat() if prov.verified_at else None,
                           "human_steps": prov.human_steps, "milestone_steps": prov.milestone_steps,
                           "initial_screenshot": prov.initial_screenshot,
                           "initial_snapshot": prov.initial_snapshot, "note": prov.note,
                           "annotation": prov.annotation},
            "annotations": [{"number": a.number, "annotator": a.annotator, "at": a.at.isoformat(),
                             "verdict": a.verdict, "steps": a.steps} for a in self._annotations],
            "checklist": [{"id": st.id, "assertion": st.assertion, "reached_at": st.reached_at,
                           "done": st.reached_at is not None, "screen_ok": st.screen_ok,
                           "violated": violations.get(st.id)}
                          for st in session.tracker.status],
            "premature": list(session.tracker.premature),
            "all_reached": session.tracker.done,
            "steps": steps,
            "budget": task.step_budget,
            "over_budget": steps > task.step_budget,
            "trajectory": [describe(a) for a in session.trajectory],
            "queue": self._queue_progress,
            "open_app_labels": sorted(launcher_labels()),
            "version": self.version,
            "screen": {"width": size[0], "height": size[1]} if size else None,
            "last_error": self.last_error,
            "message": self.message,
        }
