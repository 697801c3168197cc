"""``emukit estimator eval``: the estimators side by side (the rule baseline, and for a checkpoint the family
specialists, the Joint CE network and the distilled student) in the layout of seed 002's Table 5 / Table 22:
a row per family, the columns Strict (PairCorrect on held-out strict pairs) and one per distribution-shift
suite (single-trajectory Exact), then the macro row and the paper's Average row.

The held-out pairs are an export (``pairs.jsonl``) or a store URL, built from another seed than the training
export; with a checkpoint, before anything is scored the split audit (seed 002 Appendix C.2,
:func:`emukit.audit.split.audit_split`) is run between the training export and the held-out pairs, and a
split that shares any key is refused. Each branch of each pair is one example: the estimator sees the branch's
model-visible history, its boundary observation and the pair's task context, exactly as ``emukit evaluate
--condition predictive-state`` gives them; a pair is correct (PairCorrect) when the estimated state of both
of its branches equals the branch's canonical state, and state Exact per branch is reported beside it. The
suites' rows become examples of the same kind (:func:`emukit.estimator.suites.suite_example`); a trajectory is
correct (Exact) when its estimated state equals its ``target``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.estimator import BaselineEstimator, StateEstimator
from emukit.evaluate.metric import ScoredUnit
from emukit.families import SUITES
from emukit.wm.contracts import FAMILIES


@dataclass
class HeldOutExample:
    """One branch of a held-out pair, as the estimator is given it."""

    example_id: str
    family: str
    history: list[tuple[str, Any]]
    final_xml: str
    task: dict[str, Any]
    truth: dict[str, Any]
    #: what is scored as one: the pair both branches belong to (PairCorrect), or the suite trajectory (Exact)
    unit: str = ""
    #: a suite trajectory's stratum (``d=8``, ``low``, ``sink=joplin``, ``route=markor->joplin``; "" for a pair)
    stratum: str = ""
    template: str = ""


def held_out(spec: str | Path, *, limit: int | None = None) -> list[HeldOutExample]:
    """The branches of the held-out pairs ``spec`` (an export folder or a store URL); ``limit``: at most that
    many branches per family (the first pairs of each)."""
    from emukit.evaluate.pairs import load_pairs
    from emukit.evaluate.run import estimator_task

    out: list[HeldOutExample] = []
    taken: dict[str, int] = {}
    for pair in load_pairs(spec):
        if limit is not None and taken.get(pair.family, 0) >= limit:
            continue
        taken[pair.family] = taken.get(pair.family, 0) + len(pair.branches)
        task = estimator_task(pair)
        for name, br in sorted(pair.branches.items()):
            out.append(HeldOutExample(f"{pair.pair_id}/{name}", pair.family,
                                      [(obs.xml(), act) for obs, act in br.history], br.boundary.xml(), dict(task),
                                      dict(br.state), unit=pair.pair_id, template=pair.template))
    if not out:
        raise ConfigError(f"{spec}: no held-out pairs to evaluate on")
    return out


@dataclass
class ScoreRow:
    """One estimator's Exact per family (None: no example of that family), macro over the families present."""

    estimator: str
    exact: dict[str, float | None]
    counts: dict[str, int]
    seconds: float
    wrong: list[dict[str, Any]] = field(default_factory=list)

    @property
    def macro(self) -> float | None:
        values = [v for v in self.exact.values() if v is not None]
        return statistics.fmean(values) if values else None

    def record(self) -> dict[str, Any]:
        return {"estimator": self.estimator, "exact": self.exact, "macro": self.macro, "counts": self.counts,
                "seconds": round(self.seconds, 2), "wrong_examples": self.wrong[:5]}


@dataclass(frozen=True)
class Outcome:
    """One example as an estimator did on it."""

    example: HeldOutExample
    got: dict[str, Any]

    @property
    def exact(self) -> bool:
        return self.got == self.example.truth


def estimate_all(estimator: StateEstimator, examples: Sequence[HeldOutExample],
                 on_example: Callable[[], None] | None = None) -> list[Outcome]:
    """``estimator``'s state for every example, in order (each estimated once)."""
    out = []
    for ex in examples:
        out.append(Outcome(ex, estimator.estimate(ex.family, ex.history, ex.final_xml, task=ex.task)))
        if on_example:
            on_example()
    return out


def _wrong(outcomes: Sequence[Outcome], at_most: int = 20) -> list[dict[str, Any]]:
    return [{"example": o.example.example_id, "family": o.example.family, "expected": o.example.truth,
             "got": o.got} for o in outcomes if not o.exact][:at_most]


def branch_row(name: str, outcomes: Sequence[Outcome], seconds: float) -> ScoreRow:
    """State Exact per family over ``outcomes`` (one per example)."""
    right = {f: 0 for f in FAMILIES}
    counts = {f: 0 for f in FAMILIES}
    for o in outcomes:
        counts[o.example.family] += 1
        right[o.example.family] += o.exact
    exact = {f: (right[f] / counts[f] if counts[f] else None) for f in FAMILIES}
    return ScoreRow(name, exact, counts, seconds, _wrong(outcomes))


def score(name: str, estimator: StateEstimator, examples: Sequence[HeldOutExample],
          on_example: Callable[[], None] | None = None) -> ScoreRow:
    """Exact of ``estimator`` on ``examples`` per family."""
    t0 = time.perf_counter()
    outcomes = estimate_all(estimator, examples, on_example)
    return branch_row(name, outcomes, time.perf_counter() - t0)


# -- Table 5 ----------------------------------------------------------------------------------------------------

#: the Strict column (PairCorrect on held-out pairs); the other columns are the suites
STRICT = "strict"
#: the column headers of seed 002's Table 5, in its order
COLUMN_LABELS = {STRICT: "Strict", "cross-app": "Cross-app", "d-stress": "d-Stress", "interference": "Interf."}


def table_columns() -> tuple[str, ...]:
    """Strict, then every suite (Table 5's order first; a suite registered later after them)."""
    known = [c for c in COLUMN_LABELS if c != STRICT and c in SUITES]
    return (STRICT, *known, *(s for s in SUITES if s not in known))


@dataclass(frozen=True)
class Cell:
    """One family in one column: ``right`` of ``n`` units correct (a unit: a pair, or a trajectory)."""

    right: int = 0
    n: int = 0

    @property
    def value(self) -> float | None:
        return self.right / self.n if self.n else None

    def record(self) -> dict[str, Any]:
        return {"value": self.value, "right": self.right, "n": self.n}


def unit_of(example: HeldOutExample) -> tuple[str, str]:
    """(family, unit): what ``example`` is scored as part of (its pair, or the suite trajectory itself)."""
    return example.family, example.unit or example.example_id


def scored_units(outcomes: Sequence[Outcome], column: str) -> list[ScoredUnit]:
    """The units of one column as the registered ``exact`` metric reads them (:class:`~emukit.evaluate.metric.
    ScoredUnit`): a pair is exact when every one of its branches is, a suite trajectory when its one example is."""
    units: dict[tuple[str, str], ScoredUnit] = {}
    for o in outcomes:
        key = unit_of(o.example)
        seen = units.get(key)
        units[key] = ScoredUnit(key[1], key[0], column, (seen.exact if seen else True) and o.exact,
                                o.example.stratum, o.example.template)
    return list(units.values())


def unit_cells(units: Sequence[ScoredUnit]) -> dict[str, Cell]:
    """Per family: how many units are exact (a pair: both branches, PairCorrect; a suite trajectory: its one
    example, Exact), of how many units."""
    return {f: Cell(sum(u.exact for u in units if u.family == f), sum(1 for u in units if u.family == f))
            for f in FAMILIES}


def strata(units: Sequence[ScoredUnit]) -> dict[str, float | None]:
    """The registered ``exact`` metric of one suite column's units per stratum (F.3's depths, F.4's levels, F.2's
    sinks and routes), over every family's trajectories of that stratum, by the metrics' one reducer
    (``macro``: the unweighted mean over the strata); empty for a column without strata (the strict pairs)."""
    from emukit.estimator.suites import stratum_key
    from emukit.evaluate.metric import compute, registered_metrics

    units = [u for u in units if u.stratum]
    if not units:
        return {}
    order = sorted({u.stratum for u in units}, key=stratum_key)
    return compute(registered_metrics("unit"), {"unit": units}, by="stratum", order=order)["exact"]


@dataclass
class Table5:
    """One estimator's Table 5: ``cells[family][column]`` (an empty cell: nothing of that family in that
    column)."""

    estimator: str
    cells: dict[str, dict[str, Cell]]
    columns: tuple[str, ...]
    #: per suite column, Exact per stratum (:func:`strata`)
    by_stratum: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def macro(self, column: str) -> float | None:
        """The unweighted mean over the families scored in ``column`` (None when none is)."""
        values = [v for f in FAMILIES if (v := self.cells[f][column].value) is not None]
        return statistics.fmean(values) if values else None

    def average(self, column: str) -> float | None:
        """The paper's Average row: the mean over all the families, only when every one is scored in
        ``column`` (otherwise None: a mean over fewer families is not comparable with it)."""
        values = [self.cells[f][column].value for f in FAMILIES]
        return None if any(v is None for v in values) else statistics.fmean(values)  # type: ignore[arg-type]

    def record(self) -> dict[str, Any]:
        return {"columns": list(self.columns),
                "cells": {f: {c: self.cells[f][c].record() for c in self.columns} for f in FAMILIES},
                "macro": {c: self.macro(c) for c in self.columns},
                "average": {c: self.average(c) for c in self.columns},
                "by_stratum": self.by_stratum}


def table5(name: str, outcomes: Mapping[str, Sequence[Outcome]]) -> Table5:
    """The Table 5 of one estimator from its outcomes per column (:func:`table_columns`; a column missing
    from ``outcomes`` is left empty)."""
    columns = table_columns()
    unknown = set(outcomes) - set(columns)
    if unknown:
        raise ConfigError(f"unknown Table 5 column(s) {', '.join(sorted(unknown))}; expected {', '.join(columns)}")
    units = {c: scored_units(outcomes.get(c, ()), c) for c in columns}  # each column's units, scored once
    per_column = {c: unit_cells(units[c]) for c in columns}
    by_stratum = {c: got for c in columns if (got := strata(units[c]))}
    return Table5(name, {f: {c: per_column[c][f] for c in columns} for f in FAMILIES}, columns, by_stratum)


def check_split(train_export: Path, held: str | Path) -> dict[str, Any]:
    """Run the split audit between the training export and the held-out pairs; ConfigError when any of the
    five criteria is shared. Returns the per-criterion counts."""
    from emukit.audit.split import audit_split

    if not Path(train_export).exists():
        raise ConfigError(f"the training export {train_export} (from the checkpoint's manifest) is gone: the split "
                          "audit needs it; pass --train-export")
    if not Path(str(held)).exists():
        raise ConfigError(f"{held}: the split audit reads exported held-out pairs (an export folder); export the "
                          "store's evaluation pairs with emukit export first")
    report = audit_split(Path(train_export), Path(str(held)))
    if not report.ok:
        raise ConfigError(f"the split audit between {train_export} and {held} fails on "
                          f"{', '.join(report.failed())}: the held-out pairs overlap the training data")
    return {r.criterion: {"train": r.train, "eval": r.eval, "shared": len(r.shared)} for r in report.results}


def unit_counts(examples: Mapping[str, Sequence[HeldOutExample]]) -> dict[str, dict[str, int]]:
    """Per column (every one of :func:`table_columns`) and family: how many units (pairs, trajectories) there
    are to score."""
    out = {}
    for column in table_columns():
        exs = examples.get(column, ())
        units = {unit_of(e) for e in exs}
        out[column] = {f: sum(1 for fam, _ in units if fam == f) for f in FAMILIES}
    return out


def _learned(ckpt: Path, variants: Sequence[str], device: str) -> list[tuple[str, StateEstimator]]:
    """Each variant of the checkpoint, labelled as Table 5 names it."""
    from emukit.estimator.infer import LearnedEstimator

    label = {"specialist": "family specialists", "joint": "Joint CE", "student": "distilled student (MTD)"}
    unknown = [v for v in variants if v not in label]
    if unknown:
        raise ConfigError(f"estimator variant {unknown[0]!r}: expected one of {', '.join(label)}")
    return [(label[v], LearnedEstimator(Path(ckpt), v, device=device)) for v in variants]


def compare(ckpt: Path | None, held: str | Path | None, *, suites: Path | None = None,
            train_export: Path | None = None, device: str = "cpu", limit: int | None = None,
            variants: Sequence[str] = ("specialist", "joint", "student"), template_dirs: Sequence[Path] = (),
            on_example: Callable[[], None] | None = None) -> dict[str, Any]:
    """The side-by-side comparison (see the module docstring) as a JSON-ready dict: ``rows`` holds, per
    estimator, its state Exact per held-out branch (``exact``, ``macro``, ``counts``) and its ``table5``
    (every cell's value, right and n; the macro and Average rows); ``units`` the pairs and trajectories per
    column and family. ``ckpt`` None: the rule baseline only. ``held`` None: no Strict column; ``suites``:
    the data dir holding ``suites/`` (None: no suite column)."""
    from emukit.estimator.suites import load_suites

    if held is None and suites is None:
        raise ConfigError("nothing to evaluate on: give held-out pairs, suites or both")
    estimators: list[tuple[str, StateEstimator]] = [("rule baseline", BaselineEstimator())]
    manifest = None
    if ckpt is not None:
        from emukit.estimator.infer import LearnedEstimator

        manifest = LearnedEstimator(Path(ckpt)).manifest  # the networks load when first used
        estimators += _learned(Path(ckpt), variants, device)
    split = None
    if held is not None and (manifest is not None or train_export is not None):
        split = check_split(Path(train_export or manifest["data"]["export"]), held)  # type: ignore[index]
    examples: dict[str, list[HeldOutExample]] = {}
    if held is not None:
        examples[STRICT] = held_out(held, limit=limit)
    if suites is not None:
        examples.update(load_suites(Path(suites), limit=limit, dirs=template_dirs))
    rows = []
    for name, estimator in estimators:
        t0 = time.perf_counter()
        outcomes = {c: estimate_all(estimator, exs, on_example) for c, exs in examples.items()}
        seconds = time.perf_counter() - t0
        table = {**table5(name, outcomes).record(),
                 "wrong_examples": {c: _wrong(outs, at_most=5) for c, outs in outcomes.items()}}
        rows.append({**branch_row(name, outcomes.get(STRICT, []), seconds).record(), "table5": table})
    result: dict[str, Any] = {
        "checkpoint": str(ckpt) if ckpt is not None else None, "held_out": str(held) if held is not None else None,
        "suites": str(suites) if suites is not None else None,
        "examples": len(examples.get(STRICT, [])), "columns": list(table_columns()),
        "units": unit_counts(examples), "split_audit": split, "rows": rows}
    if manifest is not None:
        result["training_seconds"] = manifest.get("seconds", {})
        result["train_counts"] = manifest["data"]["train"]
    return result
