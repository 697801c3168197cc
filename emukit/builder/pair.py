"""Build one strict pair: run branch A and branch B of a template from the same base snapshot, record
everything model-visible, read ground truth at the boundary, execute the shared action, read the semantic
outcome, and check the five acceptance criteria of seed 002 Appendix C.1.2."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from emukit.actions import Action
from emukit.apps.registry import resolve_query
from emukit.device.adbwire import DeadlinePassed
from emukit.device.driver import Driver
from emukit.errors import DeviceError, EmukitError
from emukit.probes import probe
from emukit.provenance import BuiltOn
from emukit.records import (
    BranchRecord,
    Observation,
    PairRecord,
    Step,
    Validation,
    WarpRecord,
)
from emukit.templates.sampler import substitute
from emukit.templates.schema import Template
from emukit.timewarp import warp
from emukit.wm import FORMATS, get_format, request_hash
from emukit.workers import DeviceContext

# the notification shade pulled down after a wait: from the top of the status bar to 7/12 of the screen's
# height, in the middle (percentages of the screen; 540,10 -> 540,1400 on a 1080x2400 screen)
SHADE_SWIPE: dict[str, Any] = {"x1": "50%", "y1": "0.42%", "x2": "50%", "y2": "58.33%", "duration_ms": 300}


class Rejected(EmukitError):
    """An attempt that cannot become a strict pair; ``reason`` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class Artifacts:
    """Content-addressed blobs collected while building a pair: sha256 -> (bytes, extension)."""

    blobs: dict[str, tuple[bytes, str]] = field(default_factory=dict)

    def add(self, data: bytes, ext: str) -> str:
        sha = hashlib.sha256(data).hexdigest()
        self.blobs.setdefault(sha, (data, ext))
        return sha

    def keep_only(self, shas: set[str]) -> None:
        """Drop every blob not in ``shas``."""
        self.blobs = {sha: blob for sha, blob in self.blobs.items() if sha in shas}

    def observation(self, png: bytes, xml: str) -> Observation:
        return Observation(screenshot=self.add(png, "png"), hierarchy=self.add(xml.encode(), "xml"))


class _HistoryRecorder:
    """Driver recorder: the observation before each action, then the action (the model-visible history)."""

    def __init__(self, artifacts: Artifacts) -> None:
        self.artifacts = artifacts
        self.steps: list[Step] = []
        self._pending: Observation | None = None
        self.capture_ms = 0.0

    def before(self, driver: Driver, action: Action) -> None:
        t0 = time.perf_counter()
        png, xml = driver.capture()
        self._pending = self.artifacts.observation(png, xml)
        self.capture_ms += (time.perf_counter() - t0) * 1000

    def after(self, driver: Driver, action: Action) -> None:
        assert self._pending is not None
        self.steps.append(Step(observation=self._pending, action=action))
        self._pending = None


@dataclass
class PairContext:
    """Everything fixed for one attempt."""

    template: Template
    params: dict[str, Any]
    seed: int
    slot: int
    attempt: int
    base_fingerprint: dict[str, Any] = field(default_factory=dict)  # content_fingerprint of the base
    #: recorded branch -> the template branch it runs (:func:`branch_roles`); the identity by default
    roles: dict[str, str] = field(default_factory=lambda: {"A": "A", "B": "B"})
    #: neutral moves before the convergence steps of each recorded branch (set by :func:`run_branch`)
    padding: dict[str, int] = field(default_factory=dict)
    #: steps each recorded branch recorded before its convergence steps, padding included
    branch_steps: dict[str, int] = field(default_factory=dict)
    #: the device the attempt ran on and the builds of the apps the template touches
    built_on: BuiltOn = field(default_factory=BuiltOn.unknown)

    @property
    def pair_id(self) -> str:
        return f"{self.template.name}-{self.seed}-{self.slot}"

    def sub(self, obj: Any) -> Any:
        return substitute(obj, self.params, f"{self.template.source_path}")


SWAPPED = {"A": "B", "B": "A"}
IDENTITY = {"A": "A", "B": "B"}


def branch_roles(template: str, seed: int, slot: int) -> dict[str, str]:
    """Which template branch each recorded branch runs in slot ``slot`` of (template, seed): swapped in
    exactly one slot of each consecutive pair of slots (2k, 2k+1), which one drawn from (template, seed, k).
    So over a template's pairs "A" is the template's A branch half the time (within one pair), and neither the
    recorded name nor the slot's parity says which (docs/building.md, "Which branch is A")."""
    block = slot // 2
    coin = hashlib.sha256(f"{template}|{seed}|{block}|roles".encode()).digest()[0] & 1
    return dict(SWAPPED if (slot % 2) ^ coin else IDENTITY)


def _resolve_shared(driver: Driver, ctx: PairContext) -> tuple[Action, float]:
    """The concrete shared action on this branch (selectors resolved on the boundary screen)."""
    spec = ctx.sub(ctx.template.shared_action.model_dump(exclude_none=True))
    kind = spec["type"]
    if kind == "wait":
        seconds = float(spec["seconds"])
        return Action(type="wait", duration_ms=round(seconds * 1000)), seconds
    element = None
    if "target" in spec:
        element = driver.find(**resolve_query(driver, spec.pop("target")))
        if element is None:
            raise Rejected("missing_target", f"shared action target not on the boundary screen: {spec}")
        spec["x"], spec["y"] = element.center
    fields = {k: v for k, v in spec.items() if k in ("x", "y", "x2", "y2", "text", "key", "duration_ms")}
    return Action(type=kind, element=element, **fields), 0.0


def _execute_shared(driver: Driver, action: Action, seconds: float) -> tuple[WarpRecord | None, list[Action]]:
    """Do the shared action; returns the warp record (a ``wait``) and every step done, in order."""
    record = None
    steps = [action]
    if action.type == "wait":
        record = warp(driver, seconds)
        from emukit.builder.steps import on_screen

        pull = on_screen(SHADE_SWIPE, driver.screen()[:2])
        driver.swipe(pull["x1"], pull["y1"], pull["x2"], pull["y2"], pull["duration_ms"])
        steps.append(Action(type="swipe", x=pull["x1"], y=pull["y1"], x2=pull["x2"], y2=pull["y2"],
                            duration_ms=pull["duration_ms"]))
    elif action.type == "tap":
        driver.tap(action.x, action.y)
    elif action.type == "long_press":
        driver.long_press(action.x, action.y, action.duration_ms or 800)
    elif action.type == "swipe":
        driver.swipe(action.x, action.y, action.x2, action.y2, action.duration_ms or 300)  # type: ignore[arg-type]
    elif action.type == "type":
        driver.type_text(action.text or "")
    elif action.type == "key":
        driver.key(action.key or 0)
    return record, steps


def run_branch(device: DeviceContext, ctx: PairContext, name: str, artifacts: Artifacts, pad: int = 0, *,
               pad_to: int | None = None) -> BranchRecord:
    """Execute one branch from the base snapshot up to the shared action's outcome. Between the branch's
    own steps and the convergence steps come ``pad`` neutral moves (:data:`NEUTRAL_MOVE`), or with
    ``pad_to`` as many as bring the steps recorded so far to that number; a template without convergence
    steps gets its ``pad`` neutral moves first instead (``pad_to`` does not apply). The neutral moves done and
    the steps recorded before convergence (padding included) go to ``ctx.padding`` / ``ctx.branch_steps``."""
    from emukit.builder.outcomes import read_outcome
    from emukit.builder.steps import StepRunner

    t = ctx.template
    driver = device.driver
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    device.load_base(t.base_snapshot)
    timings["snapshot_load"] = (time.perf_counter() - t0) * 1000
    role = ctx.roles[name]
    runner = StepRunner(driver, f"{t.source_path}: {role}" + (f" (recorded as {name})" if role != name else ""))
    t0 = time.perf_counter()
    runner.run(ctx.sub(t.setup), setup=True)
    timings["setup"] = (time.perf_counter() - t0) * 1000
    recorder = _HistoryRecorder(artifacts)
    driver.recorder = recorder
    t0 = time.perf_counter()
    try:
        at_start = not t.converge  # no convergence steps: padding at the end would be the last action
        if at_start:
            runner.run([NEUTRAL_MOVE] * pad)
        runner.run(ctx.sub(t.branches[role]))  # type: ignore[index]
        if not at_start:
            if pad_to is not None:
                pad = max(0, pad_to - len(recorder.steps))
            runner.run([NEUTRAL_MOVE] * pad)
        ctx.padding[name], ctx.branch_steps[name] = pad, len(recorder.steps)
        runner.run(ctx.sub(t.converge))
    finally:
        driver.recorder = None
    timings["actions"] = (time.perf_counter() - t0) * 1000 - recorder.capture_ms
    t0 = time.perf_counter()
    first = driver.wait_stable()
    second = driver.recapture(first)
    boundary, recaptured = artifacts.observation(*first), artifacts.observation(*second)
    timings["captures"] = recorder.capture_ms + (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    state_params = {k: v for k, v in ctx.sub(t.state).items() if k != "family"}
    state = probe(driver, t.family, **state_params)
    timings["probes"] = (time.perf_counter() - t0) * 1000
    shared, seconds = _resolve_shared(driver, ctx)
    t0 = time.perf_counter()
    warp_record, shared_steps = _execute_shared(driver, shared, seconds)
    next_png, next_xml = driver.wait_stable()
    timings["shared_action"] = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    outcome_spec = ctx.sub(t.outcome.model_dump(exclude_none=True))
    outcome, evidence = read_outcome(driver, t.family, outcome_spec, next_xml, state_params)
    probed_at = state.evidence.get("elapsed_realtime_ms")
    if probed_at is not None:  # the probe timed its reading: how much real time the device saw pass since
        evidence = {**evidence, "elapsed_drift_ms": driver.elapsed_realtime_ms() - int(probed_at)}
    timings["probes"] += (time.perf_counter() - t0) * 1000
    return BranchRecord(
        name=name, history=recorder.steps, boundary_observation=boundary, boundary_recaptured=recaptured,
        state=state.canonical, state_evidence=state.evidence, shared_action=shared,
        next_observation=artifacts.observation(next_png, next_xml), outcome=outcome, outcome_evidence=evidence,
        warp=warp_record or (runner.warps[-1] if runner.warps else None), timings_ms=timings,
        shared_steps=shared_steps)


_REQUEST_MEMO: dict[str, dict[str, str]] = {}


def request_hashes(png: bytes, action: Action, family: str, formats: list[str] | None = None) -> dict[str, str]:
    """SHA-256 of the canonical observation-only request per world-model format: every registered format
    (:data:`emukit.wm.formats.FORMATS`), or the ``formats`` named (the ones a stored pair recorded).

    Building a request is a pure function of (screenshot bytes, model-visible action, family), so results
    are memoised by a digest of exactly those inputs: branch B, whose boundary equals A's, costs nothing."""
    names = sorted(formats) if formats is not None else FORMATS.names()
    key = hashlib.sha256(png + b"\0" + json.dumps([action.canonical(), family, names],
                                                   sort_keys=True).encode()).hexdigest()
    cached = _REQUEST_MEMO.get(key)
    if cached is None:
        cached = {name: request_hash(get_format(name).build_request(png, action, family=family)) for name in names}
        if len(_REQUEST_MEMO) > 4096:
            _REQUEST_MEMO.clear()
        _REQUEST_MEMO[key] = cached
    return dict(cached)


#: the neutral move that pads the shorter branch of a pair to its sibling's length: a tap on the middle of
#: the status bar, which SystemUI does nothing with (only a swipe down opens the shade). One recorded step.
NEUTRAL_MOVE: dict[str, Any] = {"tap": {"x": "50%", "y": "0.5%"}}
#: template -> the template branch ("A"/"B") that recorded more steps before convergence, as last seen here
_LONGER: dict[str, str] = {}
#: template without convergence steps -> how many steps its shorter branch lacked last time here
_DELTA: dict[str, int] = {}


def run_branches(device: DeviceContext, ctx: PairContext) -> tuple[dict[str, BranchRecord], Artifacts]:
    """The device part of an attempt: both branches from the base snapshot, the shorter one padded with
    neutral moves just before its convergence steps up to the longer one's length (so history length says
    nothing about the outcome: docs/building.md, "No label shortcuts"); raises :class:`Rejected` when an
    action cannot be done or the lengths cannot be matched.

    The branch that was longer last time runs first; the second then pads itself to the first's count. Only
    when the second turns out longer, or the convergence steps recorded different numbers of steps, is a
    branch run again with the padding that evens them; so the recorded pair is the same whatever ran
    before, and most attempts run each branch once."""
    artifacts = Artifacts()
    name = ctx.template.name
    longer_role = _LONGER.get(name, "A")
    first = next(n for n, r in ctx.roles.items() if r == longer_role)
    second = "B" if first == "A" else "A"
    branches = {first: _run_guarded(device, ctx, first, artifacts, 0)}
    n_first = ctx.branch_steps[first]
    if ctx.template.converge:  # the second pads itself just before converging
        branches[second] = _run_guarded(device, ctx, second, artifacts, pad_to=n_first)
        natural = ctx.branch_steps[second] - ctx.padding[second]
        if natural > n_first:  # the first was the shorter one: run it again, padded
            _LONGER[name] = ctx.roles[second]
            branches[first] = _run_guarded(device, ctx, first, artifacts, pad_to=natural)
    else:  # padding comes first: guess it from the difference measured last time, run again if wrong
        guess = _DELTA.get(name, 0)
        branches[second] = _run_guarded(device, ctx, second, artifacts, guess)
        natural = ctx.branch_steps[second] - guess
        if natural <= n_first:
            _DELTA[name] = n_first - natural
            if n_first - natural != guess:
                branches[second] = _run_guarded(device, ctx, second, artifacts, n_first - natural)
        else:  # the second is the longer: unpadded, and the first padded to it
            _LONGER[name], _DELTA[name] = ctx.roles[second], natural - n_first
            if guess:
                branches[second] = _run_guarded(device, ctx, second, artifacts, 0)
            branches[first] = _run_guarded(device, ctx, first, artifacts, natural - n_first)
    lengths = {n: len(b.history) for n, b in branches.items()}
    if lengths["A"] != lengths["B"]:  # the convergence recorded different numbers of steps (a scroll back)
        short = min(lengths, key=lambda n: lengths[n])
        branches[short] = _run_guarded(device, ctx, short, artifacts,
                                       ctx.padding[short] + abs(lengths["A"] - lengths["B"]))
        lengths = {n: len(b.history) for n, b in branches.items()}
    if lengths["A"] != lengths["B"]:
        raise Rejected("unequal_lengths", f"histories of {lengths['A']} and {lengths['B']} steps after padding "
                                          f"{ctx.padding}")
    artifacts.keep_only(_observations(branches.values()))  # a branch run again leaves blobs no one refers to
    return {n: branches[n] for n in ("A", "B")}, artifacts


def _observations(branches: Any) -> set[str]:
    shas: set[str] = set()
    for b in branches:
        for obs in [s.observation for s in b.history] + [b.boundary_observation, b.boundary_recaptured,
                                                           b.next_observation]:
            shas.update((obs.screenshot, obs.hierarchy))
    return shas


def _run_guarded(device: DeviceContext, ctx: PairContext, name: str, artifacts: Artifacts, pad: int = 0, *,
                 pad_to: int | None = None) -> BranchRecord:
    """:func:`run_branch`, with a device error turned into the rejection it stands for."""
    try:
        return run_branch(device, ctx, name, artifacts, pad, pad_to=pad_to)
    except (Rejected, DeadlinePassed):
        raise  # a deadline that passed is the device not answering: the caller gives the device up
    except DeviceError as exc:
        # an action that could not be done on a working device (a fault, a crashed app, a missing
        # element) is retried with the next attempt; a device that stopped answering is replaced
        if device.usable():
            raise Rejected("action_failed", f"branch {name}: {exc}") from exc
        raise Rejected("device_error", f"branch {name}: {device.serial} stopped answering: {exc}") from exc


def assemble_pair(ctx: PairContext, branches: dict[str, BranchRecord], artifacts: Artifacts,
                  device: str) -> PairRecord:
    """The host part of an attempt (no device needed): request hashes and the five acceptance criteria;
    returns the verified pair or raises :class:`Rejected`."""
    from emukit.builder.validate import outcomes_differ, states_differ, validate_branch

    t = ctx.template
    a, b = branches["A"], branches["B"]
    stable = a.boundary_observation == a.boundary_recaptured and b.boundary_observation == b.boundary_recaptured
    shared_a, shared_b = a.shared_action.canonical(), b.shared_action.canonical()
    hashes_a = request_hashes(artifacts.blobs[a.boundary_observation.screenshot][0], a.shared_action, t.family)
    hashes_b = request_hashes(artifacts.blobs[b.boundary_observation.screenshot][0], b.shared_action, t.family)
    match = (a.boundary_observation == b.boundary_observation and shared_a == shared_b and hashes_a == hashes_b)
    spec = ctx.sub(t.outcome.model_dump(exclude_none=True))
    wait = float(ctx.sub(t.shared_action.seconds) or 0) if t.shared_action.type == "wait" else 0.0
    problems = {n: validate_branch(t.family, br.state, br.outcome, br.outcome_evidence, spec,
                                   ctx.sub(t.expect[ctx.roles[n]].model_dump()), wait)  # type: ignore[index]
                for n, br in branches.items()}
    validation = Validation(stable_boundary=stable, observation_match=match,
                            state_differs=states_differ(a.state, b.state),
                            outcome_differs=outcomes_differ(t.family, a.outcome, b.outcome),
                            validator_pass=not problems["A"] and not problems["B"])
    if not validation.accepted:
        detail = "; ".join(f"{n}: {p}" for n, ps in problems.items() for p in ps)
        if not match:
            detail = (f"boundary A {a.boundary_observation.screenshot[:12]} vs "
                      f"B {b.boundary_observation.screenshot[:12]}"
                      f"{'' if shared_a == shared_b else f', shared actions {shared_a} vs {shared_b}'}; " + detail)
        raise Rejected(validation.failed()[0], detail)
    return PairRecord(pair_id=ctx.pair_id, family=t.family, template=t.name, template_hash=t.content_hash(),
                      params=ctx.params, seed=ctx.seed, base_snapshot=t.base_snapshot, shared_action=a.shared_action,
                      request_hashes=hashes_a, branches={"A": a, "B": b}, validation=validation,
                      device=device, attempt=ctx.attempt, entity=pair_entity(ctx),
                      hidden_setup=ctx.sub(t.setup), base_fingerprint=dict(ctx.base_fingerprint),
                      roles=dict(ctx.roles), padding=dict(ctx.padding),  # type: ignore[arg-type]
                      built_on=ctx.built_on)


def pair_entity(ctx: PairContext) -> dict[str, Any]:
    """The tracked entity of a pair: the state probe's arguments and the outcome probe's spec, parameters
    substituted (the same for both branches: task context, not branch information)."""
    t = ctx.template
    return {"state_probe": {k: v for k, v in ctx.sub(t.state).items() if k != "family"},
            "outcome_probe": ctx.sub(t.outcome.model_dump(exclude_none=True))}


def build_pair(device: DeviceContext, ctx: PairContext) -> tuple[PairRecord, Artifacts]:
    """Run both branches on ``device``; return the verified pair or raise :class:`Rejected`."""
    branches, artifacts = run_branches(device, ctx)
    return assemble_pair(ctx, branches, artifacts, device.serial), artifacts
