"""``emukit estimator data|train|eval``: a training set at scale, the learned predictive-state estimator (seed 002
Section 3.2, Appendix D) and its Table 5 side by side with the rule baseline."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from emukit.commands.options import add_device_options
from emukit.commands.output import make_console, print_error
from emukit.errors import ConfigError, EmukitError


def _device(name: str) -> str:
    if name == "auto":
        try:
            import torch
        except ImportError as exc:
            raise ConfigError(f"the learned estimator needs torch: pip install 'emukit[ml]' ({exc})") from None
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def _cmd_train(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from emukit.estimator.config import load_config
    from emukit.estimator.train import Progress as Hooks
    from emukit.estimator.train import train

    console = make_console()
    cfg = load_config(args.config)
    if args.epoch_scale is not None:
        cfg = cfg.model_copy(update={"epoch_scale": args.epoch_scale})
    device = _device(args.device)
    t0 = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TextColumn("loss {task.fields[loss]}"), TimeElapsedColumn(), console=console,
                  disable=args.quiet) as bar:
        tasks: dict[str, int] = {}

        def phase(name: str, total: int) -> None:
            tasks[name] = bar.add_task(name, total=total, loss="-")

        def step(name: str, n: int, loss: float) -> None:
            bar.update(tasks[name], completed=n, loss=f"{loss:.3f}")

        manifest = train(args.export, args.out, cfg, device=device, resume=args.resume,
                         progress=Hooks(phase=phase, step=step))
    table = Table(title=f"estimator trained into {args.out} on {device}")
    for col in ("phase", "seconds"):
        table.add_column(col)
    for name, seconds in manifest["seconds"].items():
        table.add_row(name, f"{seconds:.1f}")
    console.print(table)
    console.print(f"training examples per family: {manifest['data']['train']}; family weights "
                  f"{ {k: round(v, 4) for k, v in manifest['data']['weights'].items()} }; this run "
                  f"{time.perf_counter() - t0:.1f} s", highlight=False, soft_wrap=True)
    tokens = manifest.get("tokens", {})
    size = tokens.get("max_length", cfg.model.max_length)  # the size auto chose, or the fixed one
    console.print(f"max_length {size}" + (" (auto: sized to the training data)" if cfg.model.max_length == "auto"
                                          else ""), highlight=False)
    cut = {f: v for f, v in tokens.get("inputs", {}).items() if v.get("truncated")}
    if cut:  # an older manifest has no summary
        console.print(f"inputs cut to max_length {size} (oldest steps left out): " + "; ".join(
            f"{f} {v['truncated']} of {v['inputs']} (longest {v['max']} tokens)" for f, v in cut.items()),
            highlight=False, soft_wrap=True)
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    from emukit.commands.options import device_request
    from emukit.estimator.dataset import REPORT, DataOptions, build_training_set, summary
    from emukit.families import FAMILIES
    from emukit.settings import adb_server_port

    console = make_console()
    options = DataOptions(out=args.out, eval=args.eval, branches=args.branches, suite_share=args.suite_share,
                          seed=args.seed, rename=args.rename, devices=device_request(args),
                          adb_port=adb_server_port())
    t0 = time.perf_counter()
    report = build_training_set(options, on_stage=lambda stage: console.print(f"[bold]{stage}[/bold]"))
    table = Table(title=f"training set in {args.out} ({time.perf_counter() - t0:.0f} s; {REPORT} holds the report)")
    for col in ("source", *FAMILIES, "dropped"):
        table.add_column(col, justify="right" if col != "source" else "left")
    for source, by_family in report.examples.items():
        table.add_row(source, *(str(by_family.get(f, 0)) for f in FAMILIES), str(report.dropped.get(source, 0)))
    console.print(table)
    total = summary(report)
    console.print(f"{sum(total.values())} examples ({report.train} train, {report.val} val); split audit against "
                  f"{args.eval}: {'passed' if report.split.get('ok') else 'FAILED'}; seconds {report.seconds}",
                  highlight=False, soft_wrap=True)
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _families_line(counts: dict[str, int]) -> str:
    return ", ".join(f"{f} {n}" for f, n in counts.items())


def table5_table(row: dict[str, Any]) -> Table:
    """One estimator's Table 5 (seed 002): a row per family, Strict and a column per suite, then the macro
    (over the families scored) and Average (all four families) rows; "-" for an empty cell."""
    from emukit.estimator.evaluate import COLUMN_LABELS

    t5 = row["table5"]
    table = Table(title=f"{row['estimator']}: Strict PairCorrect, suites Exact (%)")
    table.add_column("family")
    for column in t5["columns"]:
        table.add_column(COLUMN_LABELS.get(column, column), justify="right")
    for family, cells in t5["cells"].items():
        table.add_row(family, *(_pct(cells[c]["value"]) for c in t5["columns"]))
    table.add_section()
    table.add_row("macro", *(_pct(t5["macro"][c]) for c in t5["columns"]))
    table.add_row("Average", *(_pct(t5["average"][c]) for c in t5["columns"]))
    for column, values in (t5.get("by_stratum") or {}).items():
        table.caption = (f"{table.caption}\n" if table.caption else "") + (
            f"{COLUMN_LABELS.get(column, column)} per stratum: "
            + ", ".join(f"{k} {_pct(v)}" for k, v in values.items() if k != "macro"))
    return table


def _cmd_eval(args: argparse.Namespace) -> int:
    from emukit.estimator.evaluate import STRICT, compare
    from emukit.wm.contracts import FAMILIES

    console = make_console()
    if args.pairs is None and args.suites is None:
        raise ConfigError("give --pairs HELDOUT, --suites DATA_DIR or both")
    device = _device(args.device) if args.ckpt is not None else "cpu"
    result = compare(args.ckpt, args.pairs, suites=args.suites, train_export=args.train_export, device=device,
                     limit=args.limit, template_dirs=args.templates or ())
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    for row in result["rows"]:
        console.print(table5_table(row))
    if args.pairs is not None:
        table = Table(title=f"state Exact (%) on {result['examples']} held-out branches of {args.pairs}")
        for col in ("estimator", *FAMILIES, "macro", "s"):
            table.add_column(col, justify="right" if col != "estimator" else "left")
        for row in result["rows"]:
            table.add_row(row["estimator"], *(_pct(row["exact"][f]) for f in FAMILIES), _pct(row["macro"]),
                          f"{row['seconds']:.1f}")
        console.print(table)
    units = result["units"]
    if args.pairs is not None:
        split = result["split_audit"]
        audit = (f"split audit passed ({', '.join(f'{k} 0 shared' for k in split)})" if split is not None
                 else "split audit not run (no checkpoint or --train-export)")
        console.print(f"strict: pairs per family: {_families_line(units[STRICT])}; {audit}", highlight=False,
                      soft_wrap=True)
    for column in result["columns"]:
        if column == STRICT:
            continue
        scored = _families_line(units[column]) if any(units[column].values()) else "none (no suite rows)"
        console.print(f"{column}: trajectories scored per family: {scored}", highlight=False, soft_wrap=True)
    return 0


def _run(fn):
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except EmukitError as exc:
            print_error(make_console(stderr=True), f"emukit estimator {args.action}", exc)
            return 1
        except KeyboardInterrupt:
            print_error(make_console(stderr=True), f"emukit estimator {args.action}",
                        "interrupted; the last checkpoint is kept (--resume continues)")
            return 130

    return wrapped


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("estimator", help="train and evaluate the learned predictive-state estimator")
    actions = p.add_subparsers(dest="action", required=True)

    q = actions.add_parser("data", help="build a training set at scale: strict pairs of every template and the "
                                        "d-stress and interference suites, disjoint from the evaluation rows")
    q.add_argument("--eval", type=Path, required=True,
                   help="the evaluation side the training set must not overlap (an export of the held-out pairs, a "
                        "suite folder or a state-training export): its seeds are refused, examples sharing a split "
                        "key with it dropped, and the split audit run against it")
    q.add_argument("--out", type=Path, required=True, help="the training export folder (the build under OUT/build)")
    q.add_argument("--branches", type=int, default=4000, help="examples in all (default 4000)")
    q.add_argument("--suite-share", type=float, default=0.2,
                   help="the share of the examples each suite gives (default 0.2: d-stress 20%%, interference 20%%)")
    q.add_argument("--seed", type=int, default=100, help="the build's seed (not one of the evaluation's)")
    q.add_argument("--rename", action="store_true",
                   help="rename within each row the names drawn from its template's lists (codes, titles, file "
                        "and playlist names) to fresh ones of the same shape")
    q.add_argument("--devices", type=int, default=None, help="embedded virtual devices (default: CPU cores + 1)")
    add_device_options(q, pool=True)
    q.set_defaults(func=_run(_cmd_data))

    q = actions.add_parser("train", help="family specialists, Joint CE and the distilled student (seed 002 App. D)")
    q.add_argument("--export", type=Path, required=True,
                   help="a state-training export (emukit export --format state-training --eval-seed N)")
    q.add_argument("--out", type=Path, required=True, metavar="CKPT", help="the checkpoint folder")
    q.add_argument("--config", type=Path, help="YAML overriding the defaults (docs/estimator.md)")
    q.add_argument("--device", default="auto", help="cpu, cuda, cuda:N or auto (default: cuda when present)")
    q.add_argument("--resume", action="store_true", help="continue a run interrupted in CKPT")
    q.add_argument("--epoch-scale", type=float, help="multiply every epoch count (e.g. 10 for a small export)")
    q.add_argument("--quiet", action="store_true")
    q.set_defaults(func=_run(_cmd_train))

    q = actions.add_parser("eval", help="seed 002's Table 5 per estimator: Strict PairCorrect and Exact on each "
                                        "distribution-shift suite, per family (rule baseline; with --ckpt also "
                                        "specialists, Joint CE, student)")
    q.add_argument("--ckpt", type=Path, help="a checkpoint of emukit estimator train (default: the rule baseline only)")
    q.add_argument("--pairs", help="held-out pairs (the Strict column): an export folder or store URL built from "
                                   "another seed than the training export")
    q.add_argument("--suites", type=Path, metavar="DATA_DIR",
                   help="the data dir holding suites/<suite>/<family>.jsonl (emukit build-pairs --suite NAME "
                        "--data-dir DATA_DIR): one Exact column per suite present")
    q.add_argument("--templates", type=Path, action="append", default=None, metavar="DIR",
                   help="a causal-template folder of your own the suite rows name (repeatable; also "
                        "$EMUKIT_TEMPLATES)")
    q.add_argument("--train-export", type=Path, help="the training export (default: the one the manifest names)")
    q.add_argument("--device", default="auto")
    q.add_argument("--limit", type=int, help="at most this many held-out branches, and trajectories of each suite, "
                                             "per family")
    q.add_argument("--out", type=Path, help="also write the comparison as JSON")
    q.set_defaults(func=_run(_cmd_eval))

