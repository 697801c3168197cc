"""``emukit estimator train|eval``: the learned predictive-state estimator (seed 002 Section 3.2, Appendix D)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.table import Table

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
    return 0


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _cmd_eval(args: argparse.Namespace) -> int:
    from emukit.estimator.evaluate import compare
    from emukit.wm.contracts import FAMILIES

    console = make_console()
    result = compare(args.ckpt, args.pairs, train_export=args.train_export, device=_device(args.device),
                     limit=args.limit)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    table = Table(title=f"state Exact (%) on {result['examples']} held-out branches of {args.pairs}")
    for col in ("estimator", *FAMILIES, "macro", "s"):
        table.add_column(col, justify="right" if col != "estimator" else "left")
    for row in result["rows"]:
        table.add_row(row["estimator"], *(_pct(row["exact"][f]) for f in FAMILIES), _pct(row["macro"]),
                      f"{row['seconds']:.1f}")
    console.print(table)
    counts = result["rows"][0]["counts"]
    console.print(f"held-out branches per family: {counts}; split audit passed "
                  f"({', '.join(f'{k} 0 shared' for k in result['split_audit'])})", highlight=False, soft_wrap=True)
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

    q = actions.add_parser("eval", help="state Exact per family: specialists, Joint CE, student, rule baseline")
    q.add_argument("--ckpt", type=Path, required=True)
    q.add_argument("--pairs", required=True, help="held-out pairs: an export folder built from another seed")
    q.add_argument("--train-export", type=Path, help="the training export (default: the one the manifest names)")
    q.add_argument("--device", default="auto")
    q.add_argument("--limit", type=int, help="at most this many held-out branches per family")
    q.add_argument("--out", type=Path, help="also write the comparison as JSON")
    q.set_defaults(func=_run(_cmd_eval))

