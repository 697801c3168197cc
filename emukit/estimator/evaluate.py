"""``emukit estimator eval``: state Exact per family and macro on held-out strict pairs, for the family
specialists, the Joint CE network, the distilled student and the rule baseline, side by side.

The held-out pairs are an export (``pairs.jsonl``) or a store URL, built from another seed than the training
export; before anything is scored the split audit (seed 002 Appendix C.2, :func:`emukit.audit.split.
audit_split`) is run between the training export and the held-out pairs, and a split that shares any key is
refused. Each branch of each pair is one example: the estimator sees the branch's model-visible history, its
boundary observation and the pair's task context, exactly as ``emukit evaluate --condition predictive-state``
gives them; Exact is the share of examples whose estimated state equals the canonical state.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.estimator import BaselineEstimator, StateEstimator
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
                                      dict(br.state)))
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


def score(name: str, estimator: StateEstimator, examples: Sequence[HeldOutExample],
          on_example: Callable[[], None] | None = None) -> ScoreRow:
    """Exact of ``estimator`` on ``examples`` per family."""
    t0 = time.perf_counter()
    right = {f: 0 for f in FAMILIES}
    counts = {f: 0 for f in FAMILIES}
    wrong: list[dict[str, Any]] = []
    for ex in examples:
        got = estimator.estimate(ex.family, ex.history, ex.final_xml, task=ex.task)
        counts[ex.family] += 1
        if got == ex.truth:
            right[ex.family] += 1
        elif len(wrong) < 20:
            wrong.append({"example": ex.example_id, "family": ex.family, "expected": ex.truth, "got": got})
        if on_example:
            on_example()
    exact = {f: (right[f] / counts[f] if counts[f] else None) for f in FAMILIES}
    return ScoreRow(name, exact, counts, time.perf_counter() - t0, wrong)


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


def compare(ckpt: Path, held: str | Path, *, train_export: Path | None = None, device: str = "cpu",
            limit: int | None = None, variants: Sequence[str] = ("specialist", "joint", "student"),
            on_example: Callable[[], None] | None = None) -> dict[str, Any]:
    """The side-by-side comparison (see the module docstring) as a JSON-ready dict."""
    from emukit.estimator.infer import LearnedEstimator

    student = LearnedEstimator(Path(ckpt), "student", device=device)
    train_dir = Path(train_export or student.manifest["data"]["export"])
    split = check_split(train_dir, held)
    examples = held_out(held, limit=limit)
    rows = [score("rule baseline", BaselineEstimator(), examples, on_example)]
    for variant in variants:
        est = student if variant == "student" else LearnedEstimator(Path(ckpt), variant, device=device)
        label = {"specialist": "family specialists", "joint": "Joint CE", "student": "distilled student (MTD)"}
        rows.append(score(label[variant], est, examples, on_example))
    return {"checkpoint": str(ckpt), "held_out": str(held), "examples": len(examples), "split_audit": split,
            "training_seconds": student.manifest.get("seconds", {}), "train_counts": student.manifest["data"]["train"],
            "rows": [r.record() for r in rows]}
