"""Task-based world-model evaluation: roll a world model through a milestone task (``emukit evaluate --tasks``).

Two tracks, both starting from the task's real initial screen (screenshot and hierarchy, read once from a
device after :meth:`emukit.tasks.session.TaskSession.reset` and cached):

* **reference** (offline): the world model is rolled along the task's recorded reference trajectory. Step 1
  gets the real initial screen and reference action 1; every later step gets the model's own previous
  prediction, rendered to a PNG, as the current screen, plus the next reference action. Scored by
  *reference-action progress* (the longest prefix of reference actions whose target is present and
  actionable on the screen the action is applied to, over the number of reference actions) and *ordered
  milestone progress* (the milestones' visual ``screen_check`` on the rendered predictions, in order).
* **agent** (online): an :class:`~emukit.evaluate.agents.Agent` acts on what it sees; the world model
  predicts each next screen, which the agent sees in turn, until the agent terminates, the world model's
  output is unusable, the screen stagnates (the same rendered screen ``stagnation_k`` times in a row) or the
  task's step budget runs out. Scored by ordered milestone progress.

Sample preserving: a failed prediction or render is kept in the step records and ends the rollout; it is
never dropped. Requests are the world-model formats' observation-condition requests, built by the one request
builder (:class:`~emukit.evaluate.request.RequestBuilder`) as ``task`` samples: no pair family, the task
contract :data:`~emukit.evaluate.request.TASK_CONTRACT` in its place. See ``docs/evaluator-tasks.md``.
"""

from __future__ import annotations

import hashlib
import json
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from emukit.actions import KEY_NAMES, Action, Element
from emukit.atomicio import write_atomic
from emukit.errors import ConfigError, DeviceError
from emukit.evaluate.adapters.base import ModelAdapter, Prediction, PredictionContext, SampleKind
from emukit.evaluate.agents import Agent, ReferenceAgents, Terminate
from emukit.evaluate.metric import ScoredTask
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.request import TASK_CONTRACT, RequestBuilder
from emukit.hierarchy import parse_bounds
from emukit.images import png_size
from emukit.tasks.checks import ScreenView
from emukit.tasks.schema import Task
from emukit.tasks.session import MilestoneTracker
from emukit.wm import get_format
from emukit.wm.formats.base import WorldModelFormat

if TYPE_CHECKING:
    from emukit.evaluate.judge import JudgeScorer
    from emukit.evaluate.render import RenderBackend
    from emukit.workers import DeviceRequest

DEFAULT_STAGNATION_K = 3
TRACKS = ("reference", "agent")
ALWAYS_ACTIONABLE = ("key", "swipe", "drag", "wait", "open_app")
NodeKind = Literal["text", "value", "placeholder", "control", "label", "icon"]


# -- screens ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScreenNode:
    """One visible region of a screen: its text, kind, whether it is a control / an editable field, and its
    box in screen pixels ``(left, top, right, bottom)`` (None when unknown)."""

    text: str
    kind: NodeKind = "text"
    control: bool = False
    editable: bool = False
    box: tuple[int, int, int, int] | None = None

    @property
    def norm(self) -> str:
        return normalize_text(self.text)

    def matches(self, target: str) -> bool:
        """The region's normalised text, or one of its lines, equals the normalised ``target``."""
        want = normalize_text(target)
        if not want:
            return False
        return self.norm == want or any(normalize_text(line) == want for line in self.text.splitlines())

    def contains(self, x: int, y: int) -> bool:
        if self.box is None:
            return False
        left, top, right, bottom = self.box
        return left <= x < right and top <= y < bottom


@dataclass
class Screen:
    """A screen an action is applied to: the real initial screen (``source="device"``) or a rendered
    prediction. ``xml`` is the device hierarchy, or for a prediction one synthesised from its visible
    evidence (the regions as ``node`` elements at their screen-pixel bounds), so adapters that read the
    current hierarchy (``ref:copy-current``) see the generated screen's texts."""

    png: bytes
    xml: str
    nodes: list[ScreenNode]
    source: Literal["device", "prediction"]

    @cached_property
    def digest(self) -> str:
        return hashlib.sha256(self.png).hexdigest()

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """Visible texts in reading order (what stagnation compares, with the PNG hash)."""
        return tuple(n.norm for n in self.nodes if n.norm)

    def view(self) -> ScreenView:
        """The milestone view: text regions as texts, labels and icon descriptions as labels."""
        return ScreenView([n.text for n in self.nodes if n.kind not in ("label", "icon")],
                          [n.text for n in self.nodes if n.kind in ("label", "icon")])

    def same_as(self, other: Screen | None) -> bool:
        """Same PNG, or the same visible texts."""
        return other is not None and (self.digest == other.digest or self.texts == other.texts)


def screen_from_device(png: bytes, xml: str) -> Screen:
    """The real screen: text and content-description nodes of the hierarchy (zero-size nodes skipped), and
    every ``EditText`` as an editable field (empty or not)."""
    nodes: list[ScreenNode] = []
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ConfigError(f"the initial hierarchy is not XML: {exc}") from None
    for node in root.iter("node"):
        box = parse_bounds(node.get("bounds", "[0,0][0,0]"))
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        clickable = node.get("clickable") == "true" or node.get("long-clickable") == "true"
        editable = node.get("class", "").endswith("EditText")
        text, desc = node.get("text", "").strip(), node.get("content-desc", "").strip()
        if text or editable:
            kind: NodeKind = "value" if editable else ("control" if clickable else "text")
            nodes.append(ScreenNode(text, kind, clickable, editable, box))
        if desc and desc != text:
            nodes.append(ScreenNode(desc, "label", clickable, False, box))
    return Screen(png, xml, nodes, "device")


def screen_from_render(render: Any, fmt: WorldModelFormat, screen_size: tuple[int, int]) -> Screen:
    """A rendered prediction as a screen: its visible evidence nodes, boxes scaled from CSS px to screen px."""
    vp = fmt.viewport
    fx, fy = screen_size[0] / vp.width, screen_size[1] / vp.height
    nodes: list[ScreenNode] = []
    evidence = getattr(render, "evidence", None)
    for n in (evidence.visible_nodes if evidence is not None else []):
        box = None
        if n.box is not None:
            x, y, w, h = n.box
            box = (round(x * fx), round(y * fy), round((x + w) * fx), round((y + h) * fy))
        nodes.append(ScreenNode(n.text.strip(), n.kind, bool(n.control), bool(n.editable or n.kind in
                                                                                ("value", "placeholder")), box))
    return Screen(render.png, synth_hierarchy(nodes, screen_size), nodes, "prediction")


def screen_from_image(png: bytes, source: Literal["device", "prediction"] = "prediction") -> Screen:
    """A screen known only as an image (an image-only prediction, an external dataset's screenshot): no
    readable text."""
    return Screen(png, synth_hierarchy([], None), [], source)


def synth_hierarchy(nodes: Sequence[ScreenNode], screen_size: tuple[int, int] | None) -> str:
    """A uiautomator-like hierarchy of ``nodes`` (label nodes as content descriptions)."""
    root = ET.Element("hierarchy", rotation="0")
    if screen_size:
        top = ET.SubElement(root, "node", index="0", text="", bounds=f"[0,0][{screen_size[0]},{screen_size[1]}]")
        top.set("class", "android.widget.FrameLayout")
    else:
        top = root
    for i, n in enumerate(nodes):
        if n.box is None:
            continue
        left, t, right, bottom = n.box
        label = n.kind in ("label", "icon")
        el = ET.SubElement(top, "node", index=str(i), text="" if label else n.text,
                           bounds=f"[{left},{t}][{right},{bottom}]")
        el.set("content-desc", n.text if label else "")
        el.set("class", "android.widget.EditText" if n.editable else
               ("android.widget.Button" if n.control else "android.widget.TextView"))
        el.set("clickable", "true" if n.control else "false")
    return ET.tostring(root, encoding="unicode")


# -- target present and actionable --------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    """Whether an action's target is present and actionable on the screen it is applied to.

    ``how``: ``control`` / ``text`` / ``label`` (a region matching the target's text or description, the
    best kind found), ``editable`` (a type action or a text field target found an editable field),
    ``point`` (an element-less tap lands on a visible region), ``always`` (key, swipe, drag, wait),
    ``unidentified`` (a tap target with no text, description or field class: not checkable, counted
    actionable), ``initial`` (reference action 1 on the real initial screen), ``absent`` or ``unusable``
    (the screen is an unusable prediction)."""

    present: bool
    how: str
    matched: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"present": self.present, "how": self.how, "matched": self.matched}


def _editable(screen: Screen) -> ScreenNode | None:
    return next((n for n in screen.nodes if n.editable or n.kind in ("value", "placeholder")), None)


def target_verdict(action: Action, screen: Screen) -> Verdict:
    """Is ``action``'s target present and actionable on ``screen``?

    * key / swipe / drag / wait / open_app: always (they need no particular element; GUI-CC's open_app is
      available on any screen);
    * type: an editable field (a value, placeholder or editable region) is visible;
    * tap / long press with an element: a visible region whose text equals the element's text or content
      description (normalised; a line of a multi-line region counts), preferring a control region, then a
      text region, then a label; an element with neither but a text-field class needs an editable field;
      any other element without text is not checkable and counts as actionable;
    * tap / long press without an element: a visible region lies under the point.
    """
    if action.type in ALWAYS_ACTIONABLE:
        return Verdict(True, "always")
    if action.type == "type":
        field_node = _editable(screen)
        return Verdict(field_node is not None, "editable" if field_node else "absent",
                       field_node.text if field_node else None)
    el: Element | None = action.element
    if el is None:
        if action.x is None or action.y is None:
            return Verdict(False, "absent")
        hit = [n for n in screen.nodes if n.contains(action.x, action.y)]
        return Verdict(bool(hit), "point" if hit else "absent", hit[0].text if hit else None)
    targets = [t for t in (el.text, el.content_desc) if t.strip()]
    if not targets:
        if el.cls.endswith("EditText"):
            field_node = _editable(screen)
            return Verdict(field_node is not None, "editable" if field_node else "absent",
                           field_node.text if field_node else None)
        return Verdict(True, "unidentified")
    found = [n for n in screen.nodes if any(n.matches(t) for t in targets)]
    if not found:
        return Verdict(False, "absent")
    best = (next((n for n in found if n.control), None)
            or next((n for n in found if n.kind not in ("label", "icon")), None) or found[0])
    how = "control" if best.control else ("label" if best.kind in ("label", "icon") else "text")
    return Verdict(True, how, best.text)


# -- milestones -----------------------------------------------------------------------------------------------

# -- initial observations -------------------------------------------------------------------------------------

def initial_key(task: Task) -> str:
    """What the initial screen depends on: the task id, base snapshot, setup and saved initial snapshot."""
    data = [task.id, task.base_snapshot, task.setup, task.provenance.initial_snapshot]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:12]


class InitialCache:
    """Initial observations on disk: ``<dir>/<task id>-<key>.png`` and ``.xml`` (the key changes with the
    task's base snapshot and setup, so a stale screen is never reused)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def paths(self, task: Task) -> tuple[Path, Path]:
        stem = f"{task.id}-{initial_key(task)}"
        return self.root / f"{stem}.png", self.root / f"{stem}.xml"

    def get(self, task: Task) -> tuple[bytes, str] | None:
        png, xml = self.paths(task)
        if png.is_file() and xml.is_file():
            return png.read_bytes(), xml.read_text(encoding="utf-8")
        return None

    def put(self, task: Task, png: bytes, xml: str) -> None:
        png_path, xml_path = self.paths(task)
        write_atomic(xml_path, xml.encode("utf-8"))
        write_atomic(png_path, png)  # written last: its presence marks a complete entry


def initial_observations(tasks: Sequence[Task], cache: InitialCache, *, devices: DeviceRequest | None = None,
                         data_dir: Path | None = None,
                         on_task: Callable[[Task, bool], None] | None = None) -> dict[str, tuple[bytes, str]]:
    """``task id -> (png, xml)`` of every task's real initial screen: from the cache, else by resetting the
    task on a device (the one ``devices`` names, else the attached one, else an embedded virtual device of
    its kind with its state under ``data_dir``) and caching what it shows. ``on_task(task, from_cache)``
    reports progress."""
    out: dict[str, tuple[bytes, str]] = {}
    missing: list[Task] = []
    for task in tasks:
        hit = cache.get(task)
        if hit is None:
            missing.append(task)
        else:
            out[task.id] = hit
            if on_task:
                on_task(task, True)
    if missing:
        from emukit.settings import data_dir as default_data_dir
        from emukit.tasks.session import TaskSession
        from emukit.workers import DeviceRequest, one_device

        with one_device(devices or DeviceRequest(), data_dir or default_data_dir()) as context:
            for task in missing:
                session = TaskSession(context, task)
                session.reset()
                if not session.png or not session.xml:
                    raise DeviceError(f"task {task.id}: the device gave no initial screen after the reset")
                cache.put(task, session.png, session.xml)
                out[task.id] = (session.png, session.xml)
                if on_task:
                    on_task(task, False)
    return out


# -- one step -------------------------------------------------------------------------------------------------

@dataclass
class StepRun:
    """One step of a rollout: the action, the verdict on the screen it was applied to, the prediction, its
    render, and the milestones the generated screen reached."""

    step: int
    action: Action
    screen_in: str  # "device" or "prediction"
    verdict: Verdict
    prediction: Prediction | None = None
    request_error: str | None = None
    render: Any = None
    screen: Screen | None = None
    milestones: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def prediction_status(self) -> str:
        if self.request_error is not None:
            return "request_not_built"
        p = self.prediction
        if p is None:
            return "not_run"
        if not p.ok:
            return "failed"
        return "ok" if p.html else "image_only"

    @property
    def render_status(self) -> str:
        if self.prediction_status == "image_only":
            return "not_needed"
        return getattr(self.render, "status", "not_run") if self.render is not None else "not_run"

    @property
    def usable(self) -> bool:
        """A screen came out of it that the next step can be applied to."""
        return self.screen is not None

    def record(self) -> dict[str, Any]:
        p = self.prediction
        out: dict[str, Any] = {
            "step": self.step,
            "action": self.action.model_dump(mode="json", exclude_none=True, exclude={"elapsed_ms"}),
            "screen_in": self.screen_in, "target": self.verdict.to_dict(),
            "prediction": {"status": self.prediction_status,
                           "error": self.request_error or (p.error if p else None),
                           "cached": bool(p and p.cached)},
            "render": {"status": self.render_status, "error": getattr(self.render, "error", None)},
            "usable": self.usable, "milestones_reached": list(self.milestones),
            "seconds": {k: round(v, 4) for k, v in self.seconds.items()},
        }
        if self.screen is not None:
            out["screen"] = {"sha256": self.screen.digest, "texts": list(self.screen.texts)}
        return out


@dataclass
class StepModel:
    """What every step needs: the format, the adapter, the renderer and the screen size; ``sample`` is the kind
    of sample the steps belong to (``task``, or ``trajectory`` for an external trajectory's steps)."""

    fmt: WorldModelFormat
    adapter: ModelAdapter
    renderer: Any  # a Renderer (its render method), see emukit.evaluate.render
    screen_size: tuple[int, int]
    render_timeout_s: float | None = None
    sample: SampleKind = "task"

    @cached_property
    def requests(self) -> RequestBuilder:
        """The request builder: no pair family, the task contract."""
        return RequestBuilder(self.fmt, self.sample, contract=TASK_CONTRACT)

    def request(self, screen: Screen, action: Action) -> tuple[dict[str, Any], PredictionContext]:
        """The observation-condition request for ``action`` on ``screen``, and its prediction context."""
        return self.requests.build(screen.png, action, screen_size=self.screen_size, observation_xml=screen.xml)

    def run(self, run: StepRun, screen: Screen) -> None:
        """Predict, render and read the next screen into ``run`` (never raises for a bad prediction)."""
        t0 = time.perf_counter()
        try:
            body, ctx = self.request(screen, run.action)
        except Exception as exc:  # noqa: BLE001 - sample preserving: the step is kept as failed
            run.request_error = f"request not built: {type(exc).__name__}: {exc}"
            return
        run.seconds["request"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        run.prediction = self.adapter.predict_many([(body, ctx)])[0]
        run.seconds["predict"] = time.perf_counter() - t0
        pred = run.prediction
        if not pred.ok:
            return
        if not pred.html:
            run.screen = screen_from_image(pred.image or b"")
            return
        vp = self.fmt.viewport
        t0 = time.perf_counter()
        run.render = self.renderer.render(pred.html, (vp.width, vp.height), vp.device_scale_factor,
                                          timeout_s=self.render_timeout_s)
        run.seconds["render"] = time.perf_counter() - t0
        if run.render.status == "ok" and run.render.png:
            run.screen = screen_from_render(run.render, self.fmt, self.screen_size)


# -- tracks ---------------------------------------------------------------------------------------------------

@dataclass
class TrackRun:
    """One task on one track: the steps, the scores and why the rollout stopped."""

    task_id: str
    track: Literal["reference", "agent"]
    steps: list[StepRun]
    milestones: MilestoneTracker
    stop_reason: str
    n_reference: int = 0
    judgements: list[Any] = field(default_factory=list)  # emukit.evaluate.judge.Judgement

    @property
    def prefix(self) -> int:
        """Reference track: leading steps whose target was present and actionable."""
        n = 0
        for s in self.steps:
            if not s.verdict.present:
                break
            n += 1
        return n

    @property
    def action_progress(self) -> float | None:
        if self.track != "reference":
            return None
        return self.prefix / self.n_reference if self.n_reference else 0.0

    def record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"track": self.track, "stop_reason": self.stop_reason, "steps_run": len(self.steps),
                               "milestone_progress": self.milestones.progress,
                               "milestones_reached": self.milestones.reached,
                               "milestones_total": len(self.milestones.milestones),
                               "milestones": self.milestones.records()}
        if self.track == "reference":
            out.update({"action_progress": self.action_progress, "action_prefix": self.prefix,
                        "reference_actions": self.n_reference})
        if self.judgements:
            out["judge"] = [j.record() for j in self.judgements]
        out["steps"] = [s.record() for s in self.steps]
        return out


def reference_track(task: Task, initial: Screen, model: StepModel, *, max_steps: int | None = None) -> TrackRun:
    """Roll the model along the task's reference actions (see the module docstring)."""
    reference = list(task.provenance.reference)
    if not reference:
        raise ConfigError(f"task {task.id} has no reference trajectory (provenance.reference); record one with "
                          "emukit tasks record")
    limit = len(reference) if max_steps is None else max(1, min(max_steps, len(reference)))
    milestones = MilestoneTracker(list(task.milestones), rendered=True)
    milestones.initial(initial.view())  # step 0 of the history never / before / action checks read
    steps: list[StepRun] = []
    screen = initial
    stop = "reference finished"
    for i, action in enumerate(reference[:limit], 1):
        verdict = Verdict(True, "initial") if i == 1 else target_verdict(action, screen)
        run = StepRun(i, action, screen.source, verdict)
        steps.append(run)
        model.run(run, screen)
        if run.screen is None:
            stop = "world model output unusable"
            if i < len(reference):
                steps.append(StepRun(i + 1, reference[i], "prediction", Verdict(False, "unusable")))
            break
        run.milestones = milestones.update(i, run.screen.view(), action=action)
        screen = run.screen
    else:
        if limit < len(reference):
            stop = f"step limit {limit}"
    return TrackRun(task.id, "reference", steps, milestones, stop, len(reference))


def agent_track(task: Task, initial: Screen, model: StepModel, agent: Agent, *,
                stagnation_k: int = DEFAULT_STAGNATION_K, max_steps: int | None = None) -> TrackRun:
    """The online loop: the agent acts on the current (generated) screen until it terminates, the world
    model's output is unusable, the screen stagnates or the step budget runs out."""
    if stagnation_k < 1:
        raise ConfigError(f"stagnation K must be >= 1, got {stagnation_k}")
    budget = task.step_budget if max_steps is None else max(1, min(max_steps, task.step_budget))
    milestones = MilestoneTracker(list(task.milestones), rendered=True)
    milestones.initial(initial.view())  # step 0 of the history never / before / action checks read
    steps: list[StepRun] = []
    history: list[Action] = []
    screen = initial
    previous: Screen | None = None
    same = 0
    stop = f"step budget {budget} exhausted"
    for i in range(1, budget + 1):
        decision = agent.act(task.instruction, screen.png, i, list(history))
        if isinstance(decision, Terminate):
            stop = f"agent terminated: {decision.reason}"
            break
        run = StepRun(i, decision, screen.source, target_verdict(decision, screen))
        steps.append(run)
        model.run(run, screen)
        history.append(decision)
        if run.screen is None:
            stop = "world model output unusable"
            break
        run.milestones = milestones.update(i, run.screen.view(), action=decision)
        same = same + 1 if run.screen.same_as(previous) else 1
        previous = screen = run.screen
        if same >= stagnation_k:
            stop = f"stagnated ({stagnation_k} identical screens)"
            break
    return TrackRun(task.id, "agent", steps, milestones, stop, len(task.provenance.reference))


# -- the evaluation -------------------------------------------------------------------------------------------

@dataclass
class TaskEvalResult:
    """A finished task evaluation: per-task track runs, the means and the configuration."""

    runs: list[TrackRun]
    config: dict[str, Any]
    seconds: float
    instructions: dict[str, str] = field(default_factory=dict)
    #: task id -> what its results are grouped by: {"category": ..., "template": ...}
    groups: dict[str, dict[str, str]] = field(default_factory=dict)

    def by_track(self, track: str) -> list[TrackRun]:
        return [r for r in self.runs if r.track == track]

    def scored(self, run: TrackRun) -> ScoredTask:
        """``run`` as the task metrics read it (:func:`scored_task`)."""
        return scored_task(run, self.groups.get(run.task_id, {}))

    def summary(self) -> dict[str, Any]:
        """Mean scores per track (over tasks)."""
        return {track: self._means(runs) for track in TRACKS if (runs := self.by_track(track))}

    def grouped(self, by: str) -> dict[str, dict[str, Any]]:
        """The same means per track and per value of ``by`` (``category`` or ``template``, or any key of
        :attr:`groups`): categories in GUI-CC's order, other groups by name."""
        out: dict[str, dict[str, Any]] = {}
        for track in TRACKS:
            runs = self.by_track(track)
            if not runs:
                continue
            parts: dict[str, list[TrackRun]] = {}
            for r in runs:
                parts.setdefault(self.groups.get(r.task_id, {}).get(by, "?"), []).append(r)
            out[track] = {key: self._means(parts[key]) for key in sorted(parts, key=lambda k: _group_order(by, k))}
        return out

    def _means(self, runs: list[TrackRun]) -> dict[str, Any]:
        """The registered task metrics (:mod:`emukit.evaluate.metric_defs.gui_cc`: milestone progress, action
        progress on the reference track, mean steps on the agent track, the judge's dimensions when it scored
        them), reduced over ``runs`` (one track's, one group's) by the metrics' one reducer."""
        from emukit.evaluate.metric import ALL, compute, registered_metrics, transpose

        metrics = registered_metrics("task")
        reduced = compute(metrics, {"task": [self.scored(r) for r in runs]}, by=None)
        return {"tasks": len(runs), **transpose(reduced, metrics, ALL)}

    def to_json(self) -> dict[str, Any]:
        tasks: dict[str, dict[str, Any]] = {}
        for r in self.runs:
            entry = tasks.setdefault(r.task_id, {"task_id": r.task_id,
                                                 **self.groups.get(r.task_id, {}),
                                                 "instruction": self.instructions.get(r.task_id, "")})
            entry[r.track] = r.record()
        return {"emukit_task_evaluation": 1, "config": self.config, "seconds": round(self.seconds, 3),
                "summary": self.summary(), "by_category": self.grouped("category"),
                "by_template": self.grouped("template"), "tasks": list(tasks.values())}


def scored_task(run: TrackRun, groups: Mapping[str, str]) -> ScoredTask:
    """``run`` as the task metrics read it (:class:`~emukit.evaluate.metric.ScoredTask`): its figures, each
    judged dimension's mean over its judgements, and its task's ``groups`` (category, template)."""
    judged: dict[str, list[float]] = {}
    for j in run.judgements:
        for key, value in j.scores.items():
            judged.setdefault(key, []).append(value)
    return ScoredTask(run.task_id, run.track, groups.get("category", "?"), groups.get("template", "?"),
                      run.milestones.progress, run.action_progress, len(run.steps),
                      {k: sum(v) / len(v) for k, v in judged.items()})


def _group_order(by: str, key: str) -> tuple[int, str]:
    """Categories in GUI-CC's order (Figure 2), anything else by name."""
    from emukit.tasks.schema import CATEGORY_TITLES

    order = list(CATEGORY_TITLES)
    return (order.index(key) if by == "category" and key in order else len(order), key)


def evaluate_tasks(tasks: Iterable[Task], initial: Mapping[str, tuple[bytes, str]], *, adapter: ModelAdapter,
                   format_name: str = "code2world", tracks: Sequence[str] = ("reference",),
                   agent: Agent | ReferenceAgents | Callable[[Task], Agent] | None = None,
                   renderer: RenderBackend | None = None,
                   stagnation_k: int = DEFAULT_STAGNATION_K, max_steps: int | None = None,
                   render_timeout_s: float | None = None,
                   on_run: Callable[[TrackRun], None] | None = None,
                   judge_scorer: JudgeScorer | None = None) -> TaskEvalResult:
    """Evaluate ``adapter`` on ``tasks`` on the given tracks (see the module docstring).

    Args:
        tasks: the tasks (:func:`emukit.tasks.files.load_tasks`).
        initial: task id -> (png, xml) of the real initial screen (:func:`initial_observations`).
        adapter: the world model.
        format_name: the world-model format of the requests and the rendering viewport.
        tracks: ``reference`` (roll along the reference actions), ``agent`` (an agent acts on the generated
            screens), or both.
        agent: the agent track's agent, or a factory making one per task.
        renderer: a started renderer (the caller closes it); None: one of its own, closed at the end.
        stagnation_k: the agent track stops after this many identical generated screens in a row.
        max_steps: caps every rollout (None: the reference length / the step budget).
        render_timeout_s: a render's time limit (default: the renderer's).
        on_run: called with each track run as its task is done.
        judge_scorer: a judge whose rollout rubrics (``gui-cc-rollout``, ``gui-score``) score each generated
            rollout (:func:`judge_rollout`).

    Returns:
        The track runs, the configuration and the wall time; ``to_json`` gives ``task-results.json``.

    Raises:
        ConfigError: an unknown track, the agent track without an agent, a task without an initial screen.
    """
    unknown = [t for t in tracks if t not in TRACKS]
    if unknown or not tracks:
        raise ConfigError(f"unknown track(s) {', '.join(unknown) or '(none)'}; expected {' / '.join(TRACKS)}")
    if "agent" in tracks and agent is None:
        raise ConfigError("the agent track needs an agent")
    from emukit.evaluate import compose

    solver = TaskSolver(get_format(format_name), adapter, initial, tuple(tracks), agent, stagnation_k, max_steps,
                        render_timeout_s, judge_scorer)
    done = compose.run(tasks, solver, renderer=renderer, on_run=on_run)
    config = {"model": adapter.name, "format": format_name, "tracks": list(tracks), "sample": "task",
              "stagnation_k": stagnation_k, "max_steps": max_steps,
              "agent": getattr(agent, "name", None) if "agent" in tracks else None,
              "judge": judge_scorer.describe() if judge_scorer is not None else None}
    return TaskEvalResult(done.runs, config, done.seconds, solver.instructions, solver.groups)


@dataclass
class TaskSolver:
    """Online tasks as a sample kind of the one evaluation loop (:mod:`emukit.evaluate.compose`): one task at a
    time from its real initial screen, rolled out on each track (the reference actions, an agent acting on the
    generated screens), every step's request built by the task :class:`StepModel`, predicted, rendered and read;
    each track run is one scored task."""

    fmt: WorldModelFormat
    adapter: ModelAdapter
    initial: Mapping[str, tuple[bytes, str]]
    tracks: tuple[str, ...]
    agent: Agent | ReferenceAgents | Callable[[Task], Agent] | None
    stagnation_k: int = DEFAULT_STAGNATION_K
    max_steps: int | None = None
    render_timeout_s: float | None = None
    judge_scorer: JudgeScorer | None = None
    kind: str = "task"
    batch_size: int = 1
    render_pages: int = 1
    instructions: dict[str, str] = field(default_factory=dict)
    groups: dict[str, dict[str, str]] = field(default_factory=dict)

    def solve(self, batch: list[Task], renderer: RenderBackend | None) -> list[TrackRun]:
        runs: list[TrackRun] = []
        for task in batch:
            self.groups[task.id] = {"category": task.category, "template": task.template}
            if task.id not in self.initial:
                raise ConfigError(f"no initial observation for task {task.id}")
            png, xml = self.initial[task.id]
            first = screen_from_device(png, xml)
            try:
                size = png_size(png)
            except ValueError:
                raise ConfigError(f"task {task.id}: the initial screenshot is not a PNG") from None
            model = StepModel(self.fmt, self.adapter, renderer, size, self.render_timeout_s)
            self.instructions[task.id] = task.instruction
            if "reference" in self.tracks:
                runs.append(reference_track(task, first, model, max_steps=self.max_steps))
                judge_rollout(runs[-1], task, first, self.judge_scorer)
            if "agent" in self.tracks:
                assert self.agent is not None
                task_agent = self.agent if isinstance(self.agent, Agent) else self.agent(task)
                runs.append(agent_track(task, first, model, task_agent, stagnation_k=self.stagnation_k,
                                        max_steps=self.max_steps))
                judge_rollout(runs[-1], task, first, self.judge_scorer)
        return runs

    def scored(self, run: TrackRun) -> dict[str, list[ScoredTask]]:
        return {"task": [scored_task(run, self.groups.get(run.task_id, {}))]}


ROLLOUT_RUBRICS = ("gui-cc-rollout", "gui-score")  # tasks have no recorded next screens: no transition rubric


def judge_rollout(run: TrackRun, task: Task, first: Screen, scorer: Any) -> None:
    """Score one generated rollout with the judge's rollout rubrics: the task instruction, the actions that
    produced a screen, and the frames (the real initial screen, then each generated screen, up to the first
    step without one); nothing when no step produced a screen."""
    if scorer is None:
        return
    from emukit.evaluate.judge import rollout_input

    actions, frames = [], [first.png]
    for step in run.steps:
        if step.screen is None or not step.screen.png:
            break
        actions.append(step.action.describe())
        frames.append(step.screen.png)
    if len(frames) < 2:
        return
    item = rollout_input(actions, frames, task.instruction)
    rubrics = [r for r in scorer.rubrics if r.name in ROLLOUT_RUBRICS]
    run.judgements = scorer.judge_jobs([(r, item) for r in rubrics])


# -- outputs --------------------------------------------------------------------------------------------------

def write_task_results(result: TaskEvalResult, out_dir: Path) -> Path:
    """``<out>/task-results.json``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "task-results.json"
    path.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False, default=str) + "\n",
                    encoding="utf-8")
    return path


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def task_table(result: TaskEvalResult) -> Any:
    """A rich Table: one row per task and track, then the mean per track."""
    from rich.table import Table

    cfg = result.config
    table = Table(title=f"{cfg['model']} - {cfg['format']} - tasks (%)")
    for col, just in (("task", "left"), ("track", "left"), ("action progress", "right"),
                      ("milestones", "right"), ("milestone progress", "right"), ("steps", "right"),
                      ("stopped", "left")):
        table.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for r in result.runs:
        table.add_row(r.task_id, r.track, _pct(r.action_progress),
                      f"{r.milestones.reached}/{len(r.milestones.milestones)}", _pct(r.milestones.progress),
                      str(len(r.steps)), r.stop_reason)
    for track, s in result.summary().items():
        table.add_row(f"[bold]mean ({s['tasks']} tasks)[/bold]", track, _pct(s.get("action_progress")), "",
                      _pct(s["milestone_progress"]), "", "", style="bold")
    return table


def _group_rows(result: TaskEvalResult, by: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(group name as people read it, track, means) for every group of ``by`` and track."""
    from emukit.tasks.schema import CATEGORY_TITLES

    for track, parts in result.grouped(by).items():
        for key, means in parts.items():
            yield (CATEGORY_TITLES.get(key, key) if by == "category" else key), track, means


def _columns(result: TaskEvalResult) -> list[Any]:
    """The registered task metrics some track has a figure for (not the keyed judge: its own line), in table
    order: the columns of the summary and group tables."""
    from emukit.evaluate.metric import registered_metrics

    present = {name for s in result.summary().values() for name in s}
    return [m for m in registered_metrics("task") if not m.keyed and m.name in present]


def _cells(columns: list[Any], means: dict[str, Any]) -> list[str]:
    return [m.show(means.get(m.name)) for m in columns]


def group_table(result: TaskEvalResult, by: str) -> Any:
    """A rich table of the means per ``by`` (``category`` or ``template``) and track: a column per registered
    task metric."""
    from rich.table import Table

    columns = _columns(result)
    table = Table(title=f"{result.config['model']} - tasks by {by} (%)")
    for col, just in ((by, "left"), ("track", "left"), ("tasks", "right"), *((m.label, "right") for m in columns)):
        table.add_column(col, justify=just, overflow="fold")  # type: ignore[arg-type]
    for name, track, s in _group_rows(result, by):
        table.add_row(name, track, str(s["tasks"]), *_cells(columns, s))
    return table


def _markdown_table(first: list[str], rows: list[list[str]]) -> list[str]:
    return [f"| {' | '.join(first)} |", "|" + "---|" * len(first), *(f"| {' | '.join(r)} |" for r in rows)]


def _group_markdown(result: TaskEvalResult, by: str) -> list[str]:
    columns = _columns(result)
    rows = [[name, track, str(s["tasks"]), *_cells(columns, s)] for name, track, s in _group_rows(result, by)]
    return ["", f"## By {by}", "", *_markdown_table([by, "track", "tasks", *(m.label.lower() for m in columns)],
                                                    rows)]


def metric_definitions(result: TaskEvalResult) -> list[str]:
    """``- **label**: definition`` of every registered task metric the summary reports."""
    from emukit.evaluate.metric import registered_metrics

    present = {name for s in result.summary().values() for name in s}
    return [f"- **{m.label.format(key='<dimension>')}**: {m.definition.format_map(_Unnamed())}"
            for m in registered_metrics("task") if m.name in present]


class _Unnamed(dict):
    def __missing__(self, name: str) -> str:
        return "-" if name != "key" else "<dimension>"


def markdown_report(result: TaskEvalResult) -> str:
    """A short Markdown report: the summary, then per task and track the step-by-step verdicts."""
    cfg = result.config
    columns = _columns(result)
    lines = [f"# Task evaluation: {cfg['model']} ({cfg['format']})", "",
             *_markdown_table(["track", "tasks", *(m.label.lower() for m in columns)],
                              [[track, str(s["tasks"]), *_cells(columns, s)] for track, s in result.summary().items()]),
             "", "Metrics (%, steps as counts):", "", *metric_definitions(result)]
    judge = cfg.get("judge")
    for track, s in result.summary().items():
        if s.get("judge"):
            dims = ", ".join(f"{k} {v:.3f}" for k, v in s["judge"].items() if k != "n")
            lines += ["", f"Judge {judge.get('model') if judge else ''} on the {track} track "
                          f"({s['judge']['n']} rollouts, scores rating/5): {dims}."]
    if result.groups:
        lines += _group_markdown(result, "category") + _group_markdown(result, "template")
    for r in result.runs:
        lines += ["", f"## {r.task_id} - {r.track}", "",
                  f"{result.instructions.get(r.task_id, '')}", "",
                  f"Stopped: {r.stop_reason}. Milestones {r.milestones.reached}/{len(r.milestones.milestones)}"
                  + (f"; action progress {r.prefix}/{r.n_reference}." if r.track == "reference" else ".")
                  + "".join(f" Judge {j.rubric} v{j.version}: " + (j.error or ", ".join(
                      f"{k} {v * 5:.0f}/5" for k, v in j.scores.items())) + "." for j in r.judgements), "",
                  "| step | action | target | prediction | render | milestones |", "|---|---|---|---|---|---|"]
        for s in r.steps:
            a = s.action
            desc = a.type + (f" {a.element.describe()}" if a.element else "") + (f" {a.text!r}" if a.text else "") \
                + (f" {KEY_NAMES.get(a.key, a.key)}" if a.key is not None else "")
            target = ("yes" if s.verdict.present else "no") + f" ({s.verdict.how})"
            lines.append(f"| {s.step} | {desc.replace('|', '/')} | {target} | {s.prediction_status} | "
                         f"{s.render_status} | {', '.join(s.milestones)} |")
    return "\n".join(lines) + "\n"


def write_task_report(result: TaskEvalResult, out_dir: Path) -> Path:
    """``<out>/task-report.md``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "task-report.md"
    path.write_text(markdown_report(result), encoding="utf-8")
    return path
