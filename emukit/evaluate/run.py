"""The evaluation loop: pairs in, scored branches and pairs out (seed 002 Section 4.1, Appendices C.4, C.5).

For every pair and branch:

1. build the world model's request with :mod:`emukit.wm` for the format and condition — observation
   (boundary screenshot + shared action), raw history (+ the branch's earlier steps), oracle state (+ the
   state block of the ground-truth state), predictive state (+ the state block of the estimator's state,
   which reads only the branch's model-visible history);
2. under the observation condition, compare the A/B request hashes; a pair whose requests differ is refused
   (recorded as ``refused: requests differ``, counted, not scored);
3. get the prediction (model adapter with bounded concurrency, or a predictions file);
4. render it offline (:class:`emukit.evaluate.render.Renderer`, the format's viewport and scale);
5. read the family outcome with the family parser and score it against the branch's validated outcome
   (the sibling branch's outcome is passed too: Clipboard rejects the sibling payload, Ordered the sibling
   order);
6. optionally score next-observation fidelity against the recorded next screenshot.

Sample preserving: a failed request, empty or malformed output, or failed render is kept, scored incorrect
and counted by status. Nothing is retried here beyond the adapter's own retries.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from emukit.actions import Action
from emukit.evaluate.adapters.base import ModelAdapter, Prediction, PredictionContext
from emukit.evaluate.estimator import StateEstimator
from emukit.evaluate.metrics import BranchScore, FidelityScorer, compute_metrics
from emukit.evaluate.pairs import EvalBranch, EvalPair, TaskSource, entity_context, interface_context
from emukit.evaluate.predictions import PredictionsFile
from emukit.evaluate.request import RequestBuilder
from emukit.provenance import BuiltOn
from emukit.wm import get_format, render_state, request_hash, resolve_consequence
from emukit.wm.formats.base import WorldModelFormat

if TYPE_CHECKING:
    from emukit.evaluate.judge import JudgeScorer
    from emukit.evaluate.render import RenderBackend

CONDITIONS = ("observation", "raw-history", "oracle-state", "predictive-state")
REFUSED = "refused: requests differ"


@dataclass
class BranchRun:
    """Everything recorded about one branch."""

    pair_id: str
    family: str
    branch: str
    request_hash: str | None = None
    request_error: str | None = None
    prediction: Prediction | None = None
    render: Any = None  # RenderResult
    score: BranchScore | None = None
    estimated_state: dict[str, Any] | None = None
    judgements: list[Any] = field(default_factory=list)  # emukit.evaluate.judge.Judgement
    seconds: dict[str, float] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The JSON record of results.json (no images, no HTML bodies)."""
        s = self.score
        pred = self.prediction
        rend = self.render
        out: dict[str, Any] = {
            "pair_id": self.pair_id, "family": self.family, "branch": self.branch,
            "request_hash": self.request_hash, "status": s.status if s else "not_scored",
            "correct": bool(s and s.correct), "sem_correct": bool(s and s.sem_correct),
            "surface_valid": bool(s and s.surface_valid),
            "expected": s.expected if s else None, "parsed": _jsonable(s.parsed) if s else None,
            "error": self.request_error or (pred.error if pred else None),
            "cached": bool(pred and pred.cached),
        }
        if pred is not None:
            out["prediction_meta"] = _jsonable(pred.meta)
        if rend is not None:
            out["render"] = {"status": getattr(rend, "status", None), "error": getattr(rend, "error", None),
                             "fallback_used": bool(getattr(rend, "fallback_used", False)),
                             "timed_out": bool(getattr(rend, "timed_out", False)),
                             "diagnostics": _jsonable(getattr(rend, "diagnostics", {}))}
        if self.estimated_state is not None:
            out["estimated_state"] = self.estimated_state
            out["state_exact"] = s.state_exact if s else None
        if s and s.fidelity:
            out["fidelity"] = s.fidelity
        if self.judgements:
            out["judge"] = [j.record() for j in self.judgements]
        out["seconds"] = {k: round(v, 4) for k, v in self.seconds.items()}
        return out


@dataclass
class PairRun:
    """One pair: its branches, and whether it was refused."""

    pair: EvalPair
    branches: dict[str, BranchRun]
    refused: bool = False
    hashes_match_stored: bool | None = None

    def record(self) -> dict[str, Any]:
        a, b = self.branches["A"].score, self.branches["B"].score
        return {"pair_id": self.pair.pair_id, "family": self.pair.family, "template": self.pair.template,
                "refused": self.refused, "status": REFUSED if self.refused else "scored",
                "pair_correct": (not self.refused) and bool(a and b and a.correct and b.correct),
                "sem_pair_correct": (not self.refused) and bool(a and b and a.sem_correct and b.sem_correct),
                "request_hashes": {n: r.request_hash for n, r in self.branches.items()},
                "hashes_match_stored": self.hashes_match_stored, "device_kind": self.pair.built_on.kind}


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return _jsonable(value.to_dict())
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return _jsonable(asdict(value))
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return str(value)


# -- requests ---------------------------------------------------------------------------------------------------

def estimator_task(pair: TaskSource) -> dict[str, Any]:
    """Prediction-time task context for the estimator (never branch state or outcomes): the family reader's
    (:meth:`emukit.evaluate.parsers.base.FamilyReader.estimator_task`)."""
    from emukit.evaluate.parsers import reader

    return reader(pair.family).estimator_task(pair)


def build_branch_request(fmt: WorldModelFormat, pair: EvalPair, branch: EvalBranch, condition: str, *,
                         estimator: StateEstimator | None = None) -> tuple[dict[str, Any], PredictionContext,
                                                                            dict[str, Any] | None]:
    """``(request body, prediction context, estimated state or None)`` for one branch under ``condition``."""
    size = pair.size()
    action: Action = pair.shared_action
    history: list[tuple[bytes, Action]] | None = None
    state: dict[str, Any] | None = None
    estimated: dict[str, Any] | None = None
    ictx = interface_context(pair)
    if condition == "raw-history":
        history = [(obs.png(), act) for obs, act in branch.history]
    elif condition == "oracle-state":
        state = branch.state
    elif condition == "predictive-state":
        if estimator is None:
            raise ValueError("predictive-state needs an estimator")
        steps = [(obs.xml(), act) for obs, act in branch.history]
        estimated = estimator.estimate(pair.family, steps, branch.boundary.xml(), task=estimator_task(pair))
        state = estimated
    elif condition != "observation":
        raise ValueError(f"unknown condition {condition!r}; expected one of {', '.join(CONDITIONS)}")
    condition_text = consequence = None
    if state is not None:
        condition_text = render_state(pair.family, state, action=action, context=ictx)
        consequence = resolve_consequence(pair.family, state, action, ictx)
    body, ctx = RequestBuilder(fmt, "pair", family=pair.family).build(
        branch.boundary.png(), action, screen_size=size, observation_xml=branch.boundary.xml(), condition=condition,
        history=history, condition_text=condition_text, entity_context=entity_context(pair), state=state,
        interface_context=ictx, consequence=consequence)
    return body, ctx, estimated


# -- scoring ----------------------------------------------------------------------------------------------------

def expected_context(pair: EvalPair, branch: EvalBranch) -> dict[str, Any]:
    """What the family parser needs to read this branch's prediction (the parsers' own
    :func:`emukit.evaluate.parsers.expected_context`: probe fields, the sibling's payload / order as the
    counterfactual the prediction must not show, every known item)."""
    from emukit.evaluate.parsers import expected_context as parser_context

    sib = pair.sibling(branch.name)
    return parser_context(pair.family, branch.outcome, sibling_outcome=sib.outcome, state=branch.state,
                          sibling_state=sib.state)


def expected_value(pair: EvalPair, branch: EvalBranch) -> Any:
    """The branch's semantic target ``Y`` in the parser's terms: its outcome's field named by the family's
    :attr:`~emukit.families.FamilyUnit.target_key` (a list target copied, missing items read as empty)."""
    from emukit.evaluate.parsers import reader

    return reader(pair.family).target(branch.outcome)


ParseFn = Callable[[str, Any, Mapping[str, Any]], Any]
JudgeFn = Callable[[str, Any, Mapping[str, Any]], Any]


def default_scorer() -> tuple[ParseFn, JudgeFn]:
    """The family parsers: ``parse(family, evidence, context)`` and ``judge(family, parsed, outcome)``."""
    from emukit.evaluate.parsers import judge, parse

    return parse, judge


# -- the loop ---------------------------------------------------------------------------------------------------

@dataclass
class EvalResult:
    """A finished evaluation: per-pair runs and the metrics."""

    pairs: list[PairRun]
    metrics: dict[str, Any]
    config: dict[str, Any]
    seconds: float

    def branch_records(self) -> list[dict[str, Any]]:
        return [b.record() for p in self.pairs for b in p.branches.values()]

    def pair_records(self) -> list[dict[str, Any]]:
        return [p.record() for p in self.pairs]

    def built_on(self) -> list[tuple[BuiltOn, int]]:
        """(provenance, pairs) for each device kind, system build and set of app builds the evaluated pairs were
        built on, most pairs first (then in order of first appearance)."""
        counts: dict[str, int] = {}
        seen: dict[str, BuiltOn] = {}
        for run in self.pairs:
            key = run.pair.built_on.model_dump_json()
            seen.setdefault(key, run.pair.built_on)
            counts[key] = counts.get(key, 0) + 1
        return [(seen[k], n) for k, n in sorted(counts.items(), key=lambda kv: -kv[1])]


@dataclass
class PairSolver:
    """Strict pairs as a sample kind of the one evaluation loop (:mod:`emukit.evaluate.compose`): a chunk of
    pairs at a time, each branch's request built (and the A/B requests compared under the observation
    condition), predicted together, rendered together, parsed and scored; a pair's scored branches are what
    the pair metrics read (refused pairs give none)."""

    fmt: WorldModelFormat
    condition: str
    adapter: ModelAdapter | None
    predictions: PredictionsFile | None
    estimator: StateEstimator | None
    fidelity: FidelityScorer | None
    scorer: tuple[ParseFn, JudgeFn]
    render_timeout_s: float | None = None
    keep_pngs: bool = True
    judge_scorer: JudgeScorer | None = None
    batch_size: int = 16
    kind: str = "pair"
    render_pages: int = 4

    def solve(self, batch: list[EvalPair], renderer: RenderBackend | None) -> list[PairRun]:
        assert renderer is not None
        return _evaluate_chunk(batch, self.fmt, self.condition, self.adapter, self.predictions, renderer,
                               self.estimator, self.fidelity, self.scorer, self.render_timeout_s, self.keep_pngs,
                               self.judge_scorer)

    def scored(self, run: PairRun) -> dict[str, list[BranchScore]]:
        if run.refused:
            return {}
        return {"branch": [b.score for b in run.branches.values() if b.score is not None]}


def evaluate(pairs: Iterable[EvalPair], *, format_name: str, condition: str,
             adapter: ModelAdapter | None = None, predictions: PredictionsFile | None = None,
             renderer: RenderBackend | None = None, estimator: StateEstimator | None = None,
             fidelity: FidelityScorer | None = None, parse: ParseFn | None = None, judge: JudgeFn | None = None,
             render_timeout_s: float | None = None, chunk_size: int = 16,
             on_pair: Callable[[PairRun], None] | None = None, keep_pngs: bool = True,
             judge_scorer: JudgeScorer | None = None) -> EvalResult:
    """Evaluate strict pairs: build each branch's request, get the prediction, render it, score it, and reduce
    the scores to the registered metrics (:mod:`emukit.evaluate.metric`).

    Args:
        pairs: the pairs (:func:`emukit.evaluate.pairs.load_pairs` reads an export folder or a store); read
            ``chunk_size`` at a time, so a long run keeps only one chunk's screens in memory.
        format_name: the world-model format that builds the requests (``emukit.wm.FORMATS``: ``code2world``,
            ``gworld`` or a registered one).
        condition: ``observation``, ``raw-history``, ``oracle-state`` or ``predictive-state``
            (:data:`CONDITIONS`).
        adapter: the model asked for each prediction; give exactly one of ``adapter`` and ``predictions``.
        predictions: recorded predictions to score instead of asking a model.
        renderer: what renders the predictions (default: a new :class:`emukit.evaluate.render.Renderer`,
            closed at the end; a given one stays open).
        estimator: the state estimator of the predictive-state condition (default: the rule baseline).
        fidelity: DINOv2 / SigLIP cosine scorer of rendered predictions against the recorded next screens.
        parse: the family parser (default: :mod:`emukit.evaluate.parsers`); given together with ``judge``.
        judge: the family verdict on a parsed prediction (default: :mod:`emukit.evaluate.parsers`).
        render_timeout_s: a render's time limit (default: the renderer's).
        chunk_size: pairs read, predicted and rendered together.
        on_pair: called with each scored pair (progress, incremental output).
        keep_pngs: False drops rendered PNGs once scored (memory on large runs; the report then shows no
            prediction images).
        judge_scorer: a vision-language judge whose rubrics score every branch with a predicted image
            (:func:`judge_jobs` says what each rubric sees).

    Returns:
        The per-pair runs, the metrics (``results.json``'s ``metrics``), the run's config and its duration.

    Raises:
        ValueError: an unknown condition, or not exactly one of ``adapter`` and ``predictions``.
    """
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; expected one of {', '.join(CONDITIONS)}")
    if (adapter is None) == (predictions is None):
        raise ValueError("give exactly one of adapter= or predictions=")
    if condition == "predictive-state" and estimator is None:
        from emukit.evaluate.estimator import BaselineEstimator

        estimator = BaselineEstimator()
    fmt = get_format(format_name)
    if parse is None or judge is None:
        default_parse, default_judge = default_scorer()
        parse, judge = parse or default_parse, judge or default_judge
    from emukit.evaluate import compose

    solver = PairSolver(fmt, condition, adapter, predictions, estimator, fidelity, (parse, judge), render_timeout_s,
                        keep_pngs, judge_scorer, batch_size=chunk_size)
    done = compose.run(pairs, solver, renderer=renderer, on_run=on_pair)
    refused = [(r.pair.pair_id, r.pair.family) for r in done.runs if r.refused]
    metrics = compute_metrics(done.scored.get("branch", []), refused=refused)
    config = {"format": format_name, "condition": condition,
              "model": adapter.name if adapter is not None else f"predictions:{predictions.path.name}",
              "deterministic_model": bool(adapter.deterministic) if adapter is not None else None,
              "estimator": estimator.name if estimator is not None and condition == "predictive-state" else None,
              "fidelity": sorted(fidelity.encoders) if fidelity else [],
              "judge": judge_scorer.describe() if judge_scorer is not None else None}
    return EvalResult(done.runs, metrics, config, done.seconds)


def _evaluate_chunk(chunk: list[EvalPair], fmt: WorldModelFormat, condition: str, adapter: ModelAdapter | None,
                    predictions: PredictionsFile | None, renderer: RenderBackend, estimator: StateEstimator | None,
                    fidelity: FidelityScorer | None, scorer: tuple[ParseFn, JudgeFn],
                    render_timeout_s: float | None, keep_pngs: bool,
                    judge_scorer: JudgeScorer | None = None) -> list[PairRun]:
    from emukit.evaluate.render import RenderJob

    runs: list[PairRun] = []
    todo: list[tuple[BranchRun, dict[str, Any], PredictionContext]] = []
    for pair in chunk:
        branch_runs = {name: BranchRun(pair.pair_id, pair.family, name) for name in ("A", "B")}
        run = PairRun(pair, branch_runs)
        runs.append(run)
        built: dict[str, tuple[dict[str, Any], PredictionContext]] = {}
        for name, br in branch_runs.items():
            t0 = time.perf_counter()
            try:
                body, ctx, est = build_branch_request(fmt, pair, pair.branches[name], condition, estimator=estimator)
            except Exception as exc:  # noqa: BLE001 - sample preserving: the branch is scored as failed
                br.request_error = f"request not built: {type(exc).__name__}: {exc}"
                if condition == "predictive-state" and estimator is not None and br.estimated_state is None:
                    br.estimated_state = {}
                continue
            br.seconds["request"] = time.perf_counter() - t0
            br.request_hash = request_hash(body)
            br.estimated_state = est
            built[name] = (body, ctx)
        if condition == "observation" and len(built) == 2:
            run.refused = branch_runs["A"].request_hash != branch_runs["B"].request_hash
            stored = pair.request_hashes.get(fmt.name)
            run.hashes_match_stored = None if not stored else stored == branch_runs["A"].request_hash
        if run.refused:
            for br in branch_runs.values():
                br.score = BranchScore(pair.pair_id, pair.family, br.branch, status="refused", template=pair.template)
            continue
        for name, (body, ctx) in built.items():
            todo.append((branch_runs[name], body, ctx))
    # predictions (bounded concurrency inside the adapter)
    t0 = time.perf_counter()
    if adapter is not None:
        preds = adapter.predict_many([(body, ctx) for _, body, ctx in todo])
    else:
        preds = [predictions.get(br.pair_id, br.branch, condition) for br, _, _ in todo]  # type: ignore[union-attr]
    per = (time.perf_counter() - t0) / max(1, len(todo))
    for (br, _, _), pred in zip(todo, preds, strict=True):
        br.prediction = pred
        br.seconds["predict"] = per
    # renders
    vp = fmt.viewport
    jobs, owners = [], []
    for br, _, _ in todo:
        if br.prediction is not None and br.prediction.ok and br.prediction.html:
            jobs.append(RenderJob(br.prediction.html, (vp.width, vp.height), vp.device_scale_factor,
                                  render_timeout_s))
            owners.append(br)
    t0 = time.perf_counter()
    results = renderer.render_many(jobs) if jobs else []
    per = (time.perf_counter() - t0) / max(1, len(jobs))
    for br, res in zip(owners, results, strict=True):
        br.render = res
        br.seconds["render"] = per
    # scores
    by_id = {r.pair.pair_id: r for r in runs}
    for br, _, _ in todo:
        pair = by_id[br.pair_id].pair
        _score_branch(br, pair, scorer, fidelity)
    if judge_scorer is not None:
        _judge_branches([(br, by_id[br.pair_id].pair) for br, _, _ in todo], judge_scorer)
    for br, _, _ in todo:
        if not keep_pngs and br.render is not None:
            br.render.png = None
    for run in runs:  # branches whose request could not be built
        for br in run.branches.values():
            if br.score is None:
                br.score = BranchScore(br.pair_id, br.family, br.branch, status="request_not_built",
                                       expected=expected_value(run.pair, run.pair.branches[br.branch]),
                                       template=run.pair.template)
                if br.estimated_state is not None:
                    br.score.state_exact = br.estimated_state == run.pair.branches[br.branch].state
    return runs


ROLLOUT_FRAMES = 6  # the rollout rubric sees at most 6 frames: 4 history screens, the boundary, the prediction


def judge_jobs(pair: EvalPair, branch: EvalBranch, predicted_png: bytes, rubrics: Iterable[Any]) -> list[tuple[Any, Any]]:
    """What each rubric sees for one branch: the transition rubrics (GUI-CC transition, GUI-Score) the
    boundary screen, the shared action, the predicted screen (and the recorded next screen for S_ele/S_lay);
    the rollout rubric the branch's model-visible history before that (real screens: for a strict pair
    the rollout is the recorded history plus one predicted step; the last :data:`ROLLOUT_FRAMES` frames)."""
    from emukit.evaluate.judge import JudgeInput

    shared = pair.shared_action.describe()
    transition = JudgeInput(actions=(shared,), frames=(branch.boundary.png(), predicted_png),
                            reference_next=branch.next_observation.png())
    steps = branch.history[-(ROLLOUT_FRAMES - 2):]
    rollout = JudgeInput(actions=tuple(a.describe() for _, a in steps) + (shared,),
                         frames=tuple(o.png() for o, _ in steps) + (branch.boundary.png(), predicted_png))
    return [(r, rollout if r.name == "gui-cc-rollout" else transition) for r in rubrics
            if not r.needs_reference_current]  # reference-action progress belongs to external trajectories


def _judge_branches(items: list[tuple[BranchRun, EvalPair]], scorer: Any) -> None:
    from emukit.evaluate.judge import flat_scores

    jobs, owners = [], []
    for br, pair in items:
        png = br.prediction.image if br.prediction is not None and br.prediction.html is None else \
            getattr(br.render, "png", None)
        if not png or br.score is None:
            continue
        for job in judge_jobs(pair, pair.branches[br.branch], png, scorer.rubrics):
            jobs.append(job)
            owners.append(br)
    t0 = time.perf_counter()
    verdicts = scorer.judge_jobs(jobs)
    per = (time.perf_counter() - t0) / max(1, len({id(b) for b in owners}))
    for br, verdict in zip(owners, verdicts, strict=True):
        br.judgements.append(verdict)
    for br in {id(b): b for b in owners}.values():
        br.score.judge = flat_scores(br.judgements)  # type: ignore[union-attr]
        br.seconds["judge"] = per


def _failure_status(pred: Prediction | None) -> str:
    if pred is None:
        return "no_prediction"
    err = pred.error or ""
    if err.startswith("request failed") or err.startswith("adapter error") or err.startswith("generation failed"):
        return "request_failed"
    if err == "empty output":
        return "empty"
    if err.startswith("malformed"):
        return "malformed"
    if err == "missing prediction":
        return "missing"
    return "failed"


def _score_branch(br: BranchRun, pair: EvalPair, scorer: tuple[ParseFn, JudgeFn],
                  fidelity: FidelityScorer | None) -> None:
    parse, judge = scorer
    branch = pair.branches[br.branch]
    score = BranchScore(pair.pair_id, pair.family, br.branch, expected=expected_value(pair, branch),
                        template=pair.template)
    if br.estimated_state is not None:
        score.state_exact = br.estimated_state == branch.state
    br.score = score
    pred = br.prediction
    if pred is None or not pred.ok:
        score.status = _failure_status(pred)
        return
    png = None
    score.output_kind = "html" if pred.html is not None else "image"
    if pred.html is None:  # image-only prediction: no DOM, no OCR -> no semantic evidence
        score.status = "image_only"
        png = pred.image
    else:
        res = br.render
        png = getattr(res, "png", None)
        if res is None:
            score.status = "render_failed"
        else:
            status = getattr(res, "status", "ok")
            score.status = {"ok": "ok", "fallback": "render_fallback", "timeout": "render_timeout"}.get(status,
                                                                                                       "render_failed")
            t0 = time.perf_counter()
            try:
                parsed = parse(pair.family, res, expected_context(pair, branch))
                verdict = judge(pair.family, parsed, branch.outcome)
                score.parsed = {**_jsonable(parsed), "verdict": verdict.reason}
                score.sem_correct, score.surface_valid = bool(verdict.sem_correct), bool(verdict.surface_valid)
                score.correct = bool(verdict.correct)
            except Exception as exc:  # noqa: BLE001 - a parser crash must not lose the sample
                score.parsed = {"error": f"parser error: {type(exc).__name__}: {exc}"}
                score.status = "parse_failed"
            br.seconds["parse"] = time.perf_counter() - t0
    if fidelity and png:
        try:
            score.fidelity = fidelity.score(png, branch.next_observation.png())
        except Exception as exc:  # noqa: BLE001
            score.fidelity = {}
            br.seconds["fidelity_error"] = 0.0
            score.parsed = {**(score.parsed if isinstance(score.parsed, dict) else {"parsed": score.parsed}),
                            "fidelity_error": str(exc)}
