"""``emukit build-pairs``: the toolkit's main job."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from emukit import settings
from emukit.commands.options import add_device_options, device_request
from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError
from emukit.families import FAMILY_CHOICES, SUITES


def default_data_dir() -> Path:
    """The data dir when ``--data-dir`` is not given (:func:`emukit.settings.data_dir`)."""
    return settings.data_dir()


def _cmd_build_pairs(args: argparse.Namespace) -> int:
    from emukit.builder.run import BuildOptions, prepare_build
    from emukit.templates import load_templates, template_folders

    console = make_console(stderr=True)
    try:
        if args.suite:
            from emukit.commands.suite import run_suite

            return run_suite(args, console)
        templates = load_templates(family=args.family, names=args.template or None, dirs=args.templates,
                                   variants=args.variants)
        if not templates:
            folders = ", ".join(str(f) for f in template_folders(args.templates)) or "no template folder"
            print_error(console, "emukit build-pairs", f"no templates for family {args.family!r} in {folders}")
            return 2
        options = BuildOptions(templates=templates, count_per_family=args.count,
                               allocation=args.allocation, seed=args.seed,
                               data_dir=args.data_dir, db_url=args.db, devices=device_request(args),
                               max_attempts=args.max_attempts, adb_port=settings.adb_server_port(),
                               attempt_timeout_s=args.attempt_timeout, artifacts_dir=args.artifacts,
                               share_work=False if args.local_work else None,
                               queue_heartbeat_s=args.queue_heartbeat, allow_mixed=args.allow_mixed)
        build = prepare_build(options)  # every input error is reported here, before any progress is drawn
        for note in build.notes:
            console.print(note, highlight=False, soft_wrap=True)
        with Progress(TextColumn("[bold]building pairs"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                      disable=args.quiet) as progress:
            task = progress.add_task("", total=None)

            def on_progress(done: int, total: int, template: str) -> None:
                progress.update(task, completed=done, total=total, description=template)

            runner = build.run(on_progress)
    except EmukitError as exc:
        print_error(console, "emukit build-pairs", exc)
        return 1
    _summary(console, runner)
    _where(console, args, runner)
    return 0 if not runner.errors and runner.total_done >= runner.total_wanted else 1


def _where(console: Console, args: argparse.Namespace, runner) -> None:
    """Where the pairs went and what to run next."""
    store = runner.store
    data_dir = Path(args.data_dir)
    stored = runner.total_done
    new = sum(tp.accepted_now for tp in runner.progress.values())
    db = "" if args.db is None else f" --db '{store.url}'"
    data = "" if data_dir == default_data_dir() else f" --data-dir {data_dir}"
    export = data_dir / "export"
    console.print(f"{new} new pair(s) this run; {stored} of {runner.total_wanted} wanted now stored "
                  f"(seed {runner.options.seed})", highlight=False, soft_wrap=True)
    console.print(f"data dir: {data_dir.resolve()}\ndatabase: {store.url}\nartifacts: "
                  f"{Path(store.artifacts.root).resolve()}", highlight=False, soft_wrap=True)
    plan = getattr(runner, "plan", None)
    if plan is not None:
        console.print(f"shared work: plan {plan} on the store's job queue; {runner.jobs_done} job(s) done by this "
                      f"builder; {runner.orphans_removed} orphaned artifact(s) removed", highlight=False,
                      soft_wrap=True)
    env = "" if args.artifacts is None else f"EMUKIT_ARTIFACTS={args.artifacts} "
    console.print(f"next:  {env}emukit export{data}{db} --out {export}\n"
                  f"       emukit evaluate --pairs {export} --model ref:surface --condition observation",
                  highlight=False, soft_wrap=True)


def _summary(console: Console, runner) -> None:
    table = Table(title=f"strict pairs (seed {runner.options.seed}, {runner.wall_s:.0f} s)")
    for col in ("family", "template", "stored", "wanted", "accepted now", "attempted now", "rejected now by reason"):
        table.add_column(col, justify="right" if col in ("stored", "wanted", "accepted now", "attempted now")
                         else "left")
    for tp in sorted(runner.progress.values(), key=lambda p: (p.template.family, p.template.name)):
        reasons = ", ".join(f"{r}: {n}" for r, n in sorted(tp.rejected_now.items())) or "-"
        table.add_row(tp.template.family, tp.template.name, str(len(tp.done)), str(tp.wanted),
                      str(tp.accepted_now), str(tp.attempted_now), reasons)
    console.print(table)
    if runner.timings:
        keys = sorted({k for t in runner.timings for k in t if k != "pair.family"})
        medians = {k: statistics.median(t[k] for t in runner.timings if k in t) for k in keys}
        console.print("median ms per branch step: " + ", ".join(f"{k} {v:.0f}" for k, v in medians.items()))
    for err in runner.errors:
        console.print(f"[yellow]{err}[/yellow]")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build-pairs", help="build verified strict A/B pairs on devices (the main job)")
    p.add_argument("--family", default="all", choices=FAMILY_CHOICES)
    p.add_argument("--template", action="append", help="only these templates (repeatable)")
    p.add_argument("--variants", action="store_true",
                   help="also the host variants (templates re-hosting a family in another app, docs/templates.md); "
                        "a variant named with --template is built without it")
    p.add_argument("--templates", type=Path, action="append", default=None, metavar="DIR",
                   help="a causal-template folder of your own, merged with the shipped templates (repeatable; "
                        "also $EMUKIT_TEMPLATES); a name defined twice is an error")
    p.add_argument("--count", type=int, default=200, help="verified pairs per family (default 200)")
    p.add_argument("--allocation", choices=("even", "table6"), default="even",
                   help="how a family's count is spread over its templates: evenly (default) or in the "
                        "proportions of seed 002's released split (Table 6; each template's released_pairs)")
    p.add_argument("--seed", type=int, default=0)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--devices", type=int,
                       help="start N embedded virtual devices (default when none is attached: CPU cores + 1, "
                            "2 to 8)")
    group.add_argument("--device", action="append", help="use this attached device (repeatable)")
    p.add_argument("--data-dir", type=Path, default=default_data_dir(),
                   help="artifacts, base-snapshot fingerprints and the default SQLite store (default ./data)")
    p.add_argument("--db", help="SQLAlchemy URL of the store (default sqlite:///DATA_DIR/emukit.db)")
    p.add_argument("--artifacts", type=Path, default=None, metavar="DIR",
                   help="artifact root (default $EMUKIT_ARTIFACTS, else DATA_DIR/artifacts); builders on several "
                        "machines sharing one PostgreSQL store give the same shared folder")
    p.add_argument("--local-work", action="store_true",
                   help="with a PostgreSQL store, plan the work in this process instead of sharing it with "
                        "other builders through the store's job queue")
    p.add_argument("--queue-heartbeat", type=float, default=30.0, metavar="S",
                   help="sharing builders: one silent this long (killed, cut off) loses its jobs to the others "
                        "(default 30)")
    p.add_argument("--max-attempts", type=int, default=3, help="attempts per slot before it is replaced")
    p.add_argument("--attempt-timeout", type=float, default=60.0, metavar="S",
                   help="seconds one attempt may take on a device (default 60); a device that does not answer "
                        "in time is given up on for that attempt (rejection 'device_timeout', naming the device "
                        "and the step) and relaunched or retired")
    add_device_options(p, pool=True)
    p.add_argument("--allow-mixed", action="store_true",
                   help="store pairs built on another device kind or other app builds beside the pairs of the "
                        "same template and seed the store already holds (refused by default)")
    p.add_argument("--suite", choices=SUITES,
                   help="build a distribution-shift suite (seed 002 Appendix F) instead of pairs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_build_pairs)


