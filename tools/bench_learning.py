"""Benchmark: learning curves of the learned estimator (docs/estimator.md, "Learning curves").

State Exact per family and macro against training-set size and against optimiser steps, for the family
specialists, Joint CE and the distilled student, beside the rule baseline, on held-out strict pairs (Exact per
branch) and on the d-stress and interference suites (Exact per trajectory), with the wall time of each
training:

    python tools/bench_learning.py --train TRAIN --pairs HELDOUT --suites DATA --out OUT
        [--sizes 200,400,800] [--fractions 0.33,0.67] [--limit 10] [--config FILE]

* ``TRAIN``: a training set of ``emukit estimator data`` (or any state-training export). Each size is a subset
  of its training rows (an export of its own, the artifacts hard-linked), the same number from each family as
  far as they go, nested (a smaller subset is part of every larger one: rows taken in the order of a hash of
  their id). The validation rows are not used.
* ``HELDOUT``: an export of held-out pairs built on another seed; ``DATA``: the data dir of the evaluation
  suites (``suites/<suite>/<family>.jsonl``), also on another seed. The split audit between each subset and
  ``HELDOUT`` must pass (``emukit.estimator.evaluate.compare`` runs it).
* Each size trains every phase with the configuration (``--config``: YAML as ``emukit estimator train`` takes;
  default: the defaults). Within each phase the network is also kept after each of ``--fractions`` of its
  steps; the largest size is scored at those points too (every phase at the same fraction: the student of a
  fraction was distilled from the fully trained specialists, as the teacher cache is made once).
* ``--limit``: at most this many held-out branches, and trajectories of each suite, per family.

Writes ``OUT/curves.json`` (every point: size, fraction, optimiser steps per phase, training seconds, the
comparison of ``emukit estimator eval``) and prints a table per column. Not a test: it trains for real and takes
as long as the sizes ask.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emukit.estimator.config import load_config  # noqa: E402
from emukit.estimator.evaluate import STRICT, compare  # noqa: E402
from emukit.estimator.model import save_model  # noqa: E402
from emukit.estimator.train import Progress, train  # noqa: E402
from emukit.export import link_or_copy  # noqa: E402
from emukit.families import FAMILIES  # noqa: E402

COLUMNS = (STRICT, "d-stress", "interference")


def subset(train_export: Path, size: int, out: Path) -> dict[str, int]:
    """A state-training export of ``size`` training rows of ``train_export`` under ``out`` (artifacts linked);
    returns the rows per family."""
    rows: dict[str, list[tuple[str, str]]] = {f: [] for f in FAMILIES}
    for line in (train_export / "state_train.jsonl").read_text().splitlines():
        row = json.loads(line)
        rows[row["family"]].append((hashlib.sha256(row["example_id"].encode()).hexdigest(), line))
    for family in rows:
        rows[family].sort()
    taken: dict[str, int] = {f: 0 for f in FAMILIES}
    while sum(taken.values()) < size and any(taken[f] < len(rows[f]) for f in FAMILIES):
        for family in FAMILIES:  # round robin: the same count from each family while they last
            if taken[family] < len(rows[family]) and sum(taken.values()) < size:
                taken[family] += 1
    out.mkdir(parents=True, exist_ok=True)
    lines = [line for f in FAMILIES for _, line in rows[f][:taken[f]]]
    (out / "state_train.jsonl").write_text("\n".join(lines) + "\n")
    (out / "state_val.jsonl").write_text("")
    if not (out / "artifacts").exists():  # hard links (the export's artifact paths must stay inside it)
        shutil.copytree(train_export / "artifacts", out / "artifacts",
                        copy_function=lambda src, dst: link_or_copy(Path(src), Path(dst)))
    return taken


class Snapshots:
    """Keeps each phase's network after each fraction of its steps (``Progress.network``)."""

    def __init__(self, folder: Path, fractions: list[float]) -> None:
        self.folder = folder
        self.fractions = fractions
        self.steps: dict[str, dict[str, int]] = {}  # fraction label -> phase -> step
        self.losses: dict[str, list[tuple[int, float]]] = {}

    def step(self, name: str, step: int, loss: float) -> None:
        self.losses.setdefault(name, []).append((step, round(loss, 4)))

    def network(self, name: str, step: int, total: int, model: Any) -> None:
        for fraction in self.fractions:
            if step == max(1, round(fraction * total)) and step < total:
                save_model(model, self.folder / label(fraction) / name)
                self.steps.setdefault(label(fraction), {})[name] = step


def label(fraction: float) -> str:
    return f"{fraction:.2f}"


def view(ckpt: Path, phases: Path, out: Path) -> Path:
    """A checkpoint folder that reads as ``ckpt`` but with the networks under ``phases`` (symlinks)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for item in ckpt.iterdir():
        if (phases / item.name).is_dir():
            os.symlink((phases / item.name).resolve(), out / item.name)
        elif item.name != "partial":
            os.symlink(item.resolve(), out / item.name)
    return out


def score(ckpt: Path, args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.monotonic()
    result = compare(ckpt, args.pairs, suites=args.suites, limit=args.limit)
    result["eval_seconds"] = round(time.monotonic() - t0, 1)
    return result


def figures(row: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per column: Exact per family and macro (strict: per held-out branch; a suite: per trajectory)."""
    out: dict[str, dict[str, float | None]] = {}
    for column in COLUMNS:
        if column == STRICT:
            values = dict(row.get("exact", {}))
            values["macro"] = row.get("macro")
        else:
            cells = row["table5"]["cells"]
            values = {f: cells[f][column]["value"] for f in FAMILIES}
            values["macro"] = row["table5"]["macro"][column]
        out[column] = values
    return out


def print_table(points: list[dict[str, Any]]) -> None:
    for column in COLUMNS:
        print(f"\n{column}: state Exact (%) per family and macro")
        print(f"  {'size':>5} {'frac':>5} {'steps':>6} {'train s':>8}  {'estimator':<24}"
              + "".join(f"{f[:6]:>8}" for f in (*FAMILIES, "macro")))
        for point in points:
            for row in point["comparison"]["rows"]:
                values = figures(row)[column]
                cells = "".join(f"{v * 100:>8.1f}" if isinstance(v, (int, float)) else f"{'-':>8}"
                                for v in (values.get(f) for f in (*FAMILIES, "macro")))
                steps = point["steps"].get("student", "")
                print(f"  {point['size']:>5} {point['fraction']:>5} {steps:>6} {point['train_seconds']:>8.0f}  "
                      f"{row['estimator'][:24]:<24}{cells}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, required=True, help="a training set (emukit estimator data)")
    ap.add_argument("--pairs", type=Path, required=True, help="held-out pairs: an export built on another seed")
    ap.add_argument("--suites", type=Path, required=True, help="the data dir of the evaluation suites")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sizes", default="200,400,800", help="training rows per run, comma-separated")
    ap.add_argument("--fractions", default="0.33,0.67", help="points within each phase of the largest size")
    ap.add_argument("--limit", type=int, default=10, help="held-out branches and suite trajectories per family")
    ap.add_argument("--config", type=Path, help="YAML overriding the training defaults")
    args = ap.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    fractions = sorted(float(f) for f in args.fractions.split(",") if f)
    cfg = load_config(args.config)
    points: list[dict[str, Any]] = []
    started = time.monotonic()
    training_seconds = 0.0
    for size in sizes:
        data = args.out / f"data-{size}"
        counts = subset(args.train, size, data)
        ckpt = args.out / f"ckpt-{size}"
        if ckpt.exists():
            shutil.rmtree(ckpt)
        largest = size == sizes[-1]
        snaps = Snapshots(args.out / f"steps-{size}", fractions if largest else [])
        t0 = time.monotonic()
        manifest = train(data, ckpt, cfg, progress=Progress(step=snaps.step, network=snaps.network))
        seconds = time.monotonic() - t0
        training_seconds += seconds
        totals = {name: max(s for s, _ in losses) for name, losses in snaps.losses.items()}
        print(f"size {size} ({counts}): trained in {seconds:.0f} s; steps {totals}", flush=True)
        final_loss = {name: losses[-1][1] for name, losses in snaps.losses.items()}
        if largest:
            for fraction in fractions:
                folder = view(ckpt, snaps.folder / label(fraction), args.out / f"view-{size}-{label(fraction)}")
                points.append({"size": size, "fraction": label(fraction), "steps": snaps.steps[label(fraction)],
                               "train_seconds": round(seconds, 1), "rows_per_family": counts,
                               "comparison": score(folder, args)})
                print(f"  scored fraction {label(fraction)}", flush=True)
        points.append({"size": size, "fraction": "1.00", "steps": totals, "train_seconds": round(seconds, 1),
                       "rows_per_family": counts, "final_loss": final_loss,
                       "max_length": manifest.get("tokens", {}).get("max_length"),
                       "phase_seconds": manifest.get("seconds", {}),
                       "comparison": score(ckpt, args)})
        print(f"  scored size {size}", flush=True)
        (args.out / "curves.json").write_text(json.dumps(
            {"config": json.loads(cfg.model_dump_json()), "sizes": sizes, "fractions": fractions, "limit": args.limit,
             "training_seconds": round(training_seconds, 1), "wall_seconds": round(time.monotonic() - started, 1),
             "points": points}, indent=1, sort_keys=True) + "\n")
    print_table(points)
    print(f"\ntraining {training_seconds:.0f} s in all; wall {time.monotonic() - started:.0f} s; "
          f"{args.out / 'curves.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
