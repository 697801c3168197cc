"""The distribution-shift suites as a sample kind of the evaluator (seed 002 Appendix F, Table 5's suite columns).

``emukit evaluate --suites DATA_DIR [--estimator baseline|CKPT]``: every trajectory of every suite built under
``DATA_DIR/suites/`` (``emukit build-pairs --suite d-stress|interference|cross-app``) is given to the state
estimator as the predictive-state condition gives a branch (the model-visible history, the final observation,
the task context, never the state); a trajectory is exact when the estimated canonical state equals its target
(single-trajectory Exact, F.2 to F.4). The suites have no shared action and no recorded next screen, so no
world-model request is made: the estimator is the model, as in ``emukit estimator eval``, whose Table 5 reads
the same registered ``exact`` metric.

``suite-results.json``: Exact per suite and family (``macro``: the unweighted mean over the families present;
seed 002's Average is that mean when all four are), per stratum (F.3's depths, F.4's levels, F.2's sinks and
clipboard routes) and per template, all by the metrics' one reducer, then every trajectory with its estimate.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.errors import ConfigError
from emukit.evaluate.estimator import StateEstimator
from emukit.evaluate.metric import ScoredUnit, compute, registered_metrics

if TYPE_CHECKING:
    from emukit.estimator.evaluate import HeldOutExample
    from emukit.evaluate.render import RenderBackend


@dataclass(frozen=True)
class SuiteSample:
    """One trajectory of one suite, as the estimator is given it."""

    suite: str
    example: HeldOutExample


@dataclass
class SuiteRun:
    """One suite trajectory estimated: the estimate (``{}`` when the estimator failed: counted wrong) and why."""

    sample: SuiteSample
    estimated: dict[str, Any]
    error: str | None = None
    seconds: float = 0.0

    @property
    def exact(self) -> bool:
        return self.error is None and self.estimated == self.sample.example.truth

    def scored(self) -> ScoredUnit:
        ex = self.sample.example
        return ScoredUnit(ex.unit or ex.example_id, ex.family, self.sample.suite, self.exact, ex.stratum, ex.template)

    def record(self) -> dict[str, Any]:
        ex = self.sample.example
        out = {"trajectory_id": ex.unit or ex.example_id, "suite": self.sample.suite, "family": ex.family,
               "template": ex.template, "stratum": ex.stratum, "exact": self.exact, "estimated": self.estimated,
               "target": ex.truth, "seconds": round(self.seconds, 4)}
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class SuiteSolver:
    """Suite trajectories as a sample kind of the one evaluation loop (:mod:`emukit.evaluate.compose`): the
    estimator's state for each trajectory (nothing is rendered); each is one scored unit."""

    estimator: StateEstimator
    kind: str = "suite"
    batch_size: int = 1
    render_pages: int = 0

    def solve(self, batch: list[SuiteSample], renderer: RenderBackend | None) -> list[SuiteRun]:
        runs = []
        for sample in batch:
            ex = sample.example
            t0 = time.perf_counter()
            try:
                got = self.estimator.estimate(ex.family, ex.history, ex.final_xml, task=ex.task)
                runs.append(SuiteRun(sample, dict(got), seconds=time.perf_counter() - t0))
            except Exception as exc:  # noqa: BLE001 - sample preserving: a failed estimate is kept, counted wrong
                runs.append(SuiteRun(sample, {}, f"estimator error: {type(exc).__name__}: {exc}",
                                     time.perf_counter() - t0))
        return runs

    def scored(self, run: SuiteRun) -> dict[str, list[ScoredUnit]]:
        return {"unit": [run.scored()]}


def _stratum_order(strata: Iterable[str]) -> list[str]:
    from emukit.estimator.suites import stratum_key

    return sorted(set(strata), key=stratum_key)


@dataclass
class SuiteEvalResult:
    """A finished suite evaluation: the runs, the configuration and the wall time."""

    runs: list[SuiteRun]
    config: dict[str, Any]
    seconds: float
    suites: list[str] = field(default_factory=list)

    def units(self, suite: str | None = None) -> list[ScoredUnit]:
        return [r.scored() for r in self.runs if suite is None or r.sample.suite == suite]

    def by_suite(self) -> dict[str, dict[str, Any]]:
        """Per suite: the trajectories, and the registered suite metrics per family, per stratum and per
        template (the one reducer each time)."""
        metrics = registered_metrics("unit")
        out: dict[str, dict[str, Any]] = {}
        for suite in self.suites:
            units = self.units(suite)
            if not units:
                continue
            samples = {"unit": units}
            out[suite] = {"trajectories": len(units), "metrics": compute(metrics, samples),
                          "by_stratum": compute(metrics, samples, by="stratum",
                                                order=_stratum_order(u.stratum for u in units)),
                          "by_template": compute(metrics, samples, by="template")}
        return out

    def to_json(self) -> dict[str, Any]:
        return {"emukit_suite_evaluation": 1, "config": self.config, "seconds": round(self.seconds, 3),
                "by_suite": self.by_suite(), "trajectories": [r.record() for r in self.runs]}


def suite_samples(data_dir: Path, *, families: Sequence[str] | None = None, limit: int | None = None,
                  template_dirs: Sequence[Path] = ()) -> tuple[list[str], list[SuiteSample]]:
    """The suites present under ``data_dir`` and their trajectories (``families``: only those; ``limit``: the
    first that many per suite and family); ConfigError naming the folder, file and line at fault."""
    from emukit.estimator.suites import load_suites

    by_suite = load_suites(Path(data_dir), limit=limit, dirs=template_dirs)
    samples = [SuiteSample(suite, ex) for suite, examples in by_suite.items() for ex in examples
               if not families or ex.family in families]
    if not samples:
        raise ConfigError(f"{data_dir}: no suite trajectories" + (f" of {', '.join(families)}" if families else ""))
    return list(by_suite), samples


def evaluate_suites(samples: Iterable[SuiteSample], *, estimator: StateEstimator, suites: Sequence[str],
                    data_dir: Path | None = None,
                    on_run: Callable[[SuiteRun], None] | None = None) -> SuiteEvalResult:
    """Estimate the state of every suite trajectory and score it (see the module docstring).

    Args:
        samples: the trajectories (:func:`suite_samples`).
        estimator: the state estimator (:func:`emukit.evaluate.estimator.load_estimator`).
        suites: the suites in the order the results list them.
        data_dir: the data dir the suites were read from (recorded in the config).
        on_run: called with each trajectory's run as it is done.

    Returns:
        The runs, the configuration and the wall time; ``to_json`` gives ``suite-results.json``.
    """
    from emukit.evaluate import compose

    done = compose.run(samples, SuiteSolver(estimator), on_run=on_run)
    config = {"estimator": estimator.name, "sample": "suite", "suites": list(suites),
              "data_dir": str(data_dir) if data_dir is not None else None}
    return SuiteEvalResult(done.runs, config, done.seconds, list(suites))


def write_suite_results(result: SuiteEvalResult, out_dir: Path) -> Path:
    """``<out>/suite-results.json``; returns its path."""
    from emukit.atomicio import write_atomic

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "suite-results.json"
    write_atomic(path, (json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def suite_table(result: SuiteEvalResult, labels: Mapping[str, str] | None = None) -> Any:
    """A rich table: a row per family, a column per suite (Exact, %), the macro row, and each suite's strata
    under it."""
    from rich.table import Table

    from emukit.families import FAMILIES

    metric = registered_metrics("unit")[0]
    by = result.by_suite()
    table = Table(title=f"{result.config['estimator']}: suite trajectories, Exact (%)")
    table.add_column("family")
    for suite in by:
        table.add_column((labels or {}).get(suite, suite), justify="right")
    for family in FAMILIES:
        table.add_row(family, *(metric.show(by[s]["metrics"]["exact"].get(family)) for s in by))
    table.add_section()
    table.add_row("macro", *(metric.show(by[s]["metrics"]["exact"].get("macro")) for s in by), style="bold")
    table.add_row("trajectories", *(str(by[s]["trajectories"]) for s in by))
    table.caption = "\n".join(
        f"{(labels or {}).get(s, s)} per stratum: "
        + ", ".join(f"{k} {metric.show(v)}" for k, v in by[s]["by_stratum"]["exact"].items() if k != "macro")
        for s in by)
    return table
