"""Train/evaluation split integrity (seed 002 Appendix C.2): the five leakage criteria computed from exported
files on both sides, their counts and intersections.

A side is an export folder or one file: ``pairs.jsonl`` / ``pairs.parquet`` (strict pairs, one example per
branch), ``state_train.jsonl`` (predictive-state training rows) or a stress-suite file
(``DATA_DIR/suites/<suite>/<family>.jsonl``, one example per trajectory). A folder holding
``state_train.jsonl`` counts only that file (the examples used for gradient updates; ``state_val.jsonl`` is
left out, as in C.2); otherwise its ``pairs.jsonl`` or ``pairs.parquet``; a suite folder counts its
per-family files. Keys are recomputed from each row's content with
:func:`emukit.export.row_examples`, the same definitions the exporter uses.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.export import SPLIT_CRITERIA, row_examples

LABELS = {
    "record_id": "Record identifier",
    "trajectory_id": "Trajectory identifier",
    "semantic_target": "Semantic target identity",
    "content_fingerprint": "Canonical content fingerprint",
    "trajectory_signature": "Whole-trajectory signature",
}
# which file of a folder is read, in order of preference
FOLDER_FILES = ("state_train.jsonl", "pairs.jsonl", "pairs.parquet")


SUITE_FILES = ("persistent.jsonl", "clipboard.jsonl", "ordered.jsonl", "temporal.jsonl")


def resolve_side(path: Path) -> list[Path]:
    """The file(s) a side argument names: a file, or a folder's first file of :data:`FOLDER_FILES`, or a
    stress-suite folder's per-family files (``DATA_DIR/suites/<suite>``)."""
    path = Path(path)
    if path.is_dir():
        for name in FOLDER_FILES:
            if (path / name).is_file():
                return [path / name]
        suite = [path / name for name in SUITE_FILES if (path / name).is_file()]
        if suite:
            return suite
        raise ConfigError(f"{path}: no {', '.join(FOLDER_FILES)} or stress-suite files in this folder")
    if not path.is_file():
        raise ConfigError(f"{path}: no such file or folder")
    return [path]


def _normalize(row: dict[str, Any]) -> dict[str, Any]:
    """A stress-suite row (a single trajectory, docs/audits.md) as a state-training row."""
    if "suite" in row and "trajectory_id" in row and "example_id" not in row:
        return {**row, "example_id": row["trajectory_id"], "pair_id": row["trajectory_id"], "branch": "A"}
    return row


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSONL or parquet export file."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        yield from pq.read_table(path).to_pylist()
        return
    with open(path) as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}:{number}: not JSON: {exc.msg}") from None


@dataclass
class SideKeys:
    """Every key of every criterion on one side, and which examples carry each key."""

    paths: list[Path]
    examples: int = 0
    keys: dict[str, dict[str, list[str]]] = field(default_factory=lambda: {c: {} for c in SPLIT_CRITERIA})

    def count(self, criterion: str) -> int:
        return len(self.keys[criterion])


def side_keys(path: Path) -> SideKeys:
    """Split keys of one side (a folder or a file)."""
    files = resolve_side(path)
    side = SideKeys(files)
    for file in files:
        for number, row in enumerate(read_rows(file), 1):
            try:
                examples = list(row_examples(_normalize(row)))
            except (KeyError, TypeError, ValueError) as exc:
                raise ConfigError(f"{file}: row {number} is not a pairs, state-training or suite row "
                                  f"({exc!r})") from None
            for ex in examples:
                side.examples += 1
                for c in SPLIT_CRITERIA:
                    side.keys[c].setdefault(ex["keys"][c], []).append(ex["example_id"])
    return side


@dataclass
class CriterionResult:
    criterion: str
    train: int
    eval: int
    shared: list[str]  # keys on both sides
    examples: list[tuple[str, str]]  # (train example, eval example) sharing a key, a few

    @property
    def ok(self) -> bool:
        return not self.shared


@dataclass
class SplitReport:
    train: SideKeys
    eval: SideKeys
    results: list[CriterionResult]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def failed(self) -> list[str]:
        return [r.criterion for r in self.results if not r.ok]


def audit_split(train: Path, eval: Path, *, examples_per_criterion: int = 3) -> SplitReport:
    """The five criteria of seed 002 Appendix C.2 between two exports; ``ok`` when no intersection.

    Args:
        train: the training side (an export or a suite folder).
        eval: the evaluation side (an export folder).
        examples_per_criterion: shared keys shown for each criterion that intersects.

    Returns:
        Each criterion's counts and shared keys.
    """
    a, b = side_keys(train), side_keys(eval)
    results = []
    for c in SPLIT_CRITERIA:
        shared = sorted(set(a.keys[c]) & set(b.keys[c]))
        pairs = [(a.keys[c][k][0], b.keys[c][k][0]) for k in shared[:examples_per_criterion]]
        results.append(CriterionResult(c, a.count(c), b.count(c), shared, pairs))
    return SplitReport(a, b, results)
