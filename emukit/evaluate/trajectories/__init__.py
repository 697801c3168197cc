"""The offline reference-action track on external trajectories (GUI-CC Section 3.2: a world model rolled
out along real GUIOdyssey trajectories).

``emukit evaluate --trajectories DIR --trajectory-format guiodyssey --model SPEC --judge JUDGE``: for every
episode, the model starts from the real first screen and predicts the screen after each reference action
from its *own* previous prediction (autoregressive; the real screens are never inputs, only references).
Each step is then judged with GUI-CC's reference-action rubric (``gui-cc-rap``: the step's precondition,
the action's effect and support for the next action, each 0/1, from the model's screens before and after
and the real ones); **reference-action progress** is the longest prefix of passed steps over the episode's
length, as GUI-CC defines it. The other judge rubrics score the rollout too: ``gui-cc-transition`` per step
against the real next screen, ``gui-cc-rollout`` and ``gui-score`` on the whole rollout. Progress is judged,
so the track needs ``--judge``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.errors import ConfigError
from emukit.evaluate.metric import ScoredTrajectory
from emukit.evaluate.trajectories.base import (
    Trajectory,
    TrajectoryError,
    formats,
    read_trajectories,
    register,
)

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import ModelAdapter
    from emukit.evaluate.judge import JudgeScorer
    from emukit.evaluate.render import RenderBackend
    from emukit.wm.formats.base import WorldModelFormat

__all__ = ["Trajectory", "TrajectoryError", "TrajectoryRun", "TrajectorySolver", "evaluate_trajectories", "formats",
           "read_trajectories", "register", "write_trajectory_results"]


@dataclass
class TrajectoryRun:
    """One episode rolled out: the steps (tasks.StepRun), the per-step judgements and the progress."""

    trajectory: Trajectory
    steps: list[Any]
    stop_reason: str
    step_judgements: list[list[Any]] = field(default_factory=list)  # per step: gui-cc-rap (+ transition)
    rollout_judgements: list[Any] = field(default_factory=list)

    @property
    def passed(self) -> list[bool]:
        """Per reference step: the gui-cc-rap verdict passed (all three criteria); steps not rolled fail."""
        out = []
        for i in range(len(self.trajectory.actions)):
            verdicts = self.step_judgements[i] if i < len(self.step_judgements) else []
            rap = next((j for j in verdicts if j.rubric == "gui-cc-rap"), None)
            out.append(bool(rap and rap.error is None and rap.scores.get("S_rap") == 1.0))
        return out

    @property
    def prefix(self) -> int:
        n = 0
        for ok in self.passed:
            if not ok:
                break
            n += 1
        return n

    @property
    def progress(self) -> float:
        return self.prefix / len(self.trajectory.actions)

    def judge_means(self) -> dict[str, float]:
        values: dict[str, list[float]] = {}
        for verdicts in self.step_judgements:
            for j in verdicts:
                if j.rubric != "gui-cc-rap":
                    for k, v in j.scores.items():
                        values.setdefault(k, []).append(v)
        for j in self.rollout_judgements:
            for k, v in j.scores.items():
                values.setdefault(k, []).append(v)
        return {k: sum(v) / len(v) for k, v in values.items()}

    def record(self) -> dict[str, Any]:
        return {"id": self.trajectory.id, "source": self.trajectory.source, "instruction": self.trajectory.instruction,
                "reference_actions": len(self.trajectory.actions), "truncated": self.trajectory.truncated,
                "steps_run": len(self.steps),
                "stop_reason": self.stop_reason, "passed": self.passed, "prefix": self.prefix,
                "reference_action_progress": self.progress, "judge": self.judge_means(),
                "steps": [{**s.record(), "judge": [j.record() for j in (self.step_judgements[i]
                                                                       if i < len(self.step_judgements) else [])]}
                          for i, s in enumerate(self.steps)],
                "rollout_judge": [j.record() for j in self.rollout_judgements]}


def roll_out(traj: Trajectory, adapter: Any, fmt: Any, renderer: Any, *, render_timeout_s: float | None = None,
             max_steps: int | None = None) -> TrajectoryRun:
    """Predict every step from the model's own previous screen (see the module docstring)."""
    from emukit.evaluate.tasks import StepModel, StepRun, Verdict, screen_from_image
    from emukit.images import png_size

    first = traj.screen_png(0)
    model = StepModel(fmt, adapter, renderer, png_size(first), render_timeout_s, sample="trajectory")
    screen = screen_from_image(first, source="device")  # a real screenshot: no hierarchy comes with it
    steps: list[Any] = []
    stop = "reference finished"
    for t, action in enumerate(traj.actions[:max_steps] if max_steps else traj.actions):
        run = StepRun(t + 1, action, "device" if t == 0 else "prediction", Verdict(True, "external"))
        model.run(run, screen)
        steps.append(run)
        if run.screen is None:
            stop = f"step {t + 1}: no usable prediction ({run.prediction_status}, render {run.render_status})"
            break
        screen = run.screen
    else:
        if max_steps and max_steps < len(traj.actions):
            stop = f"max steps ({max_steps})"
    return TrajectoryRun(traj, steps, stop)


def judge_run(run: TrajectoryRun, scorer: Any) -> None:
    """The judge's verdicts: gui-cc-rap (and gui-cc-transition when selected) per rolled step, the rollout
    rubrics on the whole rollout."""
    from emukit.evaluate.judge import JudgeInput, get_rubric, rollout_input

    traj = run.trajectory
    chosen = {r.name: r for r in scorer.rubrics}
    step_rubrics = [get_rubric("gui-cc-rap")] + ([chosen["gui-cc-transition"]] if "gui-cc-transition" in chosen else [])
    jobs, owners = [], []
    frames = [traj.screen_png(0)]
    for i, step in enumerate(run.steps):
        if step.screen is None:
            break
        frames.append(step.screen.png)
        nxt = traj.actions[i + 1].describe() if i + 1 < len(traj.actions) else "(none: this is the last step)"
        item = JudgeInput(actions=(traj.actions[i].describe(), f"next reference action: {nxt}"),
                          frames=(frames[-2], frames[-1]), instruction=traj.instruction,
                          reference_current=traj.screen_png(i), reference_next=traj.screen_png(i + 1))
        for rubric in step_rubrics:
            jobs.append((rubric, item))
            owners.append(i)
    rollout_rubrics = [r for r in scorer.rubrics if r.name in ("gui-cc-rollout", "gui-score")]
    n_steps = len(frames) - 1
    if n_steps >= 1 and rollout_rubrics:
        item = rollout_input([a.describe() for a in traj.actions[:n_steps]], frames, traj.instruction)
        for rubric in rollout_rubrics:
            jobs.append((rubric, item))
            owners.append(-1)
    verdicts = scorer.judge_jobs(jobs)
    run.step_judgements = [[] for _ in range(n_steps)]
    for owner, verdict in zip(owners, verdicts, strict=True):
        (run.rollout_judgements if owner < 0 else run.step_judgements[owner]).append(verdict)


@dataclass
class TrajectoryEvalResult:
    runs: list[TrajectoryRun]
    config: dict[str, Any]
    seconds: float

    def summary(self, runs: list[TrajectoryRun] | None = None) -> dict[str, Any]:
        """The registered trajectory metrics (:mod:`emukit.evaluate.metric_defs.gui_cc`: reference-action
        progress; the judge's other dimensions, each the mean over trajectories of its mean over the rollout)
        over ``runs`` (default: every run), by the metrics' one reducer, with the step counts."""
        from emukit.evaluate.metric import ALL, compute, registered_metrics, transpose

        runs = self.runs if runs is None else runs
        metrics = registered_metrics("trajectory")
        scored = [scored_trajectory(r) for r in runs]
        figures = transpose(compute(metrics, {"trajectory": scored}, by=None), metrics, ALL, counts=False)
        others = {k: v for k, v in figures.items() if k not in ("reference_action_progress", "judge")}
        return {"trajectories": len(runs), "reference_action_progress": figures.get("reference_action_progress"),
                **others, "steps_passed": sum(sum(r.passed) for r in runs),
                "reference_steps": sum(len(r.trajectory.actions) for r in runs), "judge": figures.get("judge", {})}

    def by_source(self) -> dict[str, dict[str, Any]]:
        """The same summary per trajectory source (dataset layout), sources by name."""
        parts: dict[str, list[TrajectoryRun]] = {}
        for r in self.runs:
            parts.setdefault(r.trajectory.source, []).append(r)
        return {source: self.summary(parts[source]) for source in sorted(parts)}

    def to_json(self) -> dict[str, Any]:
        return {"emukit_trajectory_evaluation": 1, "config": self.config, "seconds": round(self.seconds, 3),
                "summary": self.summary(), "by_source": self.by_source(),
                "trajectories": [r.record() for r in self.runs]}


def evaluate_trajectories(trajectories: list[Trajectory], *, adapter: ModelAdapter, judge_scorer: JudgeScorer | None,
                          format_name: str = "code2world", renderer: RenderBackend | None = None,
                          render_timeout_s: float | None = None, max_steps: int | None = None,
                          on_run: Callable[[TrajectoryRun], None] | None = None) -> TrajectoryEvalResult:
    """Roll ``adapter`` along every trajectory and judge it (see the module docstring).

    Args:
        trajectories: the episodes (:func:`read_trajectories`).
        adapter: the world model.
        judge_scorer: the judge whose ``gui-cc-rap`` verdicts make reference-action progress (required) and
            whose other rubrics score the rollout.
        format_name: the world-model format of the requests and the rendering viewport.
        renderer: a started renderer (the caller closes it); None: one of its own, closed at the end.
        render_timeout_s: a render's time limit (default: the renderer's).
        max_steps: at most this many steps per episode (None: the whole episode).
        on_run: called with each episode's run as it is done.

    Returns:
        The runs, the configuration and the wall time; ``to_json`` gives ``trajectory-results.json``.

    Raises:
        ConfigError: no judge.
    """
    from emukit.wm import get_format

    if judge_scorer is None:
        raise ConfigError("the trajectory track needs --judge: reference-action progress is judged (GUI-CC S_rap)")
    from emukit.evaluate import compose

    solver = TrajectorySolver(get_format(format_name), adapter, judge_scorer, render_timeout_s, max_steps)
    done = compose.run(trajectories, solver, renderer=renderer, on_run=on_run)
    sources = sorted({t.source for t in trajectories})
    config = {"model": adapter.name, "format": format_name, "sample": "trajectory", "trajectory_formats": sources,
              "max_steps": max_steps,
              "judge": judge_scorer.describe()}
    return TrajectoryEvalResult(done.runs, config, done.seconds)


@dataclass
class TrajectorySolver:
    """External trajectories as a sample kind of the one evaluation loop (:mod:`emukit.evaluate.compose`): one
    episode at a time, the model rolled out from its real first screen along the reference actions
    (:func:`roll_out`), then judged (:func:`judge_run`); each episode is one scored trajectory."""

    fmt: WorldModelFormat
    adapter: ModelAdapter
    judge_scorer: JudgeScorer
    render_timeout_s: float | None = None
    max_steps: int | None = None
    kind: str = "trajectory"
    batch_size: int = 1
    render_pages: int = 1

    def solve(self, batch: list[Trajectory], renderer: RenderBackend | None) -> list[TrajectoryRun]:
        runs = []
        for traj in batch:
            run = roll_out(traj, self.adapter, self.fmt, renderer, render_timeout_s=self.render_timeout_s,
                           max_steps=self.max_steps)
            judge_run(run, self.judge_scorer)
            runs.append(run)
        return runs

    def scored(self, run: TrajectoryRun) -> dict[str, list[ScoredTrajectory]]:
        return {"trajectory": [scored_trajectory(run)]}


def scored_trajectory(run: TrajectoryRun) -> ScoredTrajectory:
    """``run`` as the trajectory metrics read it (:class:`~emukit.evaluate.metric.ScoredTrajectory`)."""
    return ScoredTrajectory(run.trajectory.id, run.trajectory.source, run.progress, run.judge_means())


def write_trajectory_results(result: TrajectoryEvalResult, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "trajectory-results.json"
    from emukit.atomicio import write_atomic

    write_atomic(path, (json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return path
