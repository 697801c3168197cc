"""``emukit export``: write stored pairs as ``pairs.jsonl`` / ``pairs.parquet``, Hugging Face datasets,
AndroidWorld-style episodes, or the predictive-state training format (docs/pair-format.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from emukit.commands.build import default_data_dir
from emukit.commands.options import add_built_on_selection, built_on_selection
from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError
from emukit.families import FAMILY_CHOICES, selected


def _cmd_export(args: argparse.Namespace) -> int:
    from emukit.export import export_pairs, export_state_training
    from emukit.store import Store

    console = make_console(stderr=True)
    if args.format == "state-training" and args.eval_seed is None:
        console.print("[red]emukit export: --format state-training needs --eval-seed (the seed of the "
                      "evaluation pairs the training data must be disjoint from)[/red]")
        return 2
    if args.format in ("jsonl", "parquet") and args.eval_seed is not None:
        console.print("[red]emukit export: --eval-seed only applies to --format state-training, hf and "
                      "episodes[/red]")
        return 2
    if args.format == "state-training" and args.seed is not None:
        console.print("[red]emukit export: --seed does not apply to --format state-training (the training "
                      "pool is every seed but --eval-seed)[/red]")
        return 2
    family = selected(args.family)
    chosen = built_on_selection(args)
    if args.format == "state-training" and any(chosen.values()):
        console.print("[red]emukit export: --device-kind and --app-build select pairs for the pair formats, not "
                      "for --format state-training[/red]")
        return 2
    try:
        with Store(args.db, data_dir=args.data_dir) as store:
            if args.format == "state-training":
                result = export_state_training(store, args.out, eval_seed=args.eval_seed, family=family)
                console.print(f"{result['train']} training and {result['val']} validation examples written to "
                              f"{args.out} (state_train.jsonl, state_val.jsonl); {result['dropped_for_overlap']} "
                              f"dropped for overlapping the evaluation pairs of seed {args.eval_seed}")
                if result["train"] + result["val"] == 0:
                    console.print("[yellow]no training examples: are there pairs built with a seed other than "
                                  f"{args.eval_seed}?[/yellow]")
                return 0
            summary = export_pairs(store, args.out, family=family, fmt=args.format, seed=args.seed,
                                   eval_seed=args.eval_seed, **chosen)
    except (EmukitError, OSError, ValueError) as exc:
        print_error(console, "emukit export", exc)
        return 1
    console.print(f"{summary.pairs} pairs and {summary.artifacts} artifacts written to {summary.out} "
                  f"({', '.join(summary.files)})")
    if summary.pairs == 0:
        console.print("[yellow]no pairs matched (family/seed/device-kind/app-build filters, or an empty "
                      "store)[/yellow]")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export stored pairs (jsonl, parquet) or predictive-state training data")
    p.add_argument("--out", type=Path, required=True, help="output folder (created if missing)")
    p.add_argument("--data-dir", type=Path, default=default_data_dir(),
                   help="the build's data dir: artifacts and the default SQLite store (default ./data)")
    p.add_argument("--db", help="SQLAlchemy URL of the store (default sqlite:///DATA_DIR/emukit.db)")
    p.add_argument("--family", default="all", choices=FAMILY_CHOICES)
    p.add_argument("--seed", type=int, help="only pairs built with this seed (jsonl, parquet)")
    add_built_on_selection(p)
    from emukit.exporters import FORMATS

    p.add_argument("--format", default="jsonl", choices=("jsonl", "parquet", *FORMATS.names(), "state-training"),
                   help="pairs.jsonl (default), pairs.parquet, Hugging Face datasets folders (hf/pairs, "
                        "hf/branches: datasets.load_from_disk; needs emukit[hf]), AndroidWorld-style episodes "
                        "(episodes/), another registered export format (emukit/exporters/), or "
                        "state_train/state_val.jsonl")
    p.add_argument("--eval-seed", type=int,
                   help="state-training: seed of the evaluation pairs; training uses every other seed, minus "
                        "anything overlapping them on the five split criteria. hf, episodes: that seed's pairs "
                        "are the test split, the others (minus overlaps) train; without it every pair is test")
    p.set_defaults(func=_cmd_export)
