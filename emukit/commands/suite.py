"""``emukit build-pairs --suite d-stress|interference|cross-app``: build a distribution-shift suite
(:mod:`emukit.builder.stress`) and print a summary table."""

from __future__ import annotations

import argparse
from collections import Counter

from rich.console import Console
from rich.table import Table

from emukit.builder.stress import (
    CROSS_APP_SINKS,
    DEPTHS,
    LEVELS,
    SuiteOptions,
    SuiteRunner,
    cross_app_templates,
)
from emukit.commands.options import device_request
from emukit.commands.output import print_error
from emukit.errors import ConfigError, EmukitError
from emukit.settings import adb_server_port


def run_suite(args: argparse.Namespace, console: Console) -> int:
    """``emukit build-pairs --suite d-stress|interference|cross-app``: build the suite, print a summary table."""
    from emukit.templates import load_templates

    variants = getattr(args, "variants", False)
    templates = load_templates(family=args.family, names=args.template or None,
                               dirs=getattr(args, "templates", None), variants=variants or args.suite == "cross-app")
    if args.suite == "cross-app" and not variants:  # F.2's Markor route re-hosts persistent templates
        routed = cross_app_templates(templates)
        templates = [t for t in templates if t.variant is None or t in routed]
    depths = tuple(getattr(args, "depth", None) or DEPTHS)
    levels = tuple(getattr(args, "level", None) or LEVELS)
    options = SuiteOptions(suite=args.suite, templates=templates, count_per_family=args.count, seed=args.seed,
                           data_dir=args.data_dir, devices=device_request(args),
                           max_attempts=args.max_attempts,
                           adb_port=adb_server_port(),
                           depths=depths, levels=levels,
                           attempt_timeout_s=getattr(args, "attempt_timeout", None) or 60.0)
    try:
        if options.count_per_family < 1:
            raise ConfigError(f"--count must be at least 1, got {options.count_per_family}")
        runner = SuiteRunner(options)
        for label in runner.unsupported:
            why = (f"{label} is not built by this suite yet (seed 002 F.2's routes for it are to come)"
                   if args.suite == "cross-app" else f"no state-preserving move table for {label} yet")
            console.print(f"[yellow]{args.suite}: {why}; its templates are skipped[/yellow]")
        for label, level in runner.unsupported_levels:
            console.print(f"[yellow]interference: no {level} moves for {label} yet; skipped[/yellow]")
        if not runner.items:
            console.print(f"[red]{args.suite}: nothing to build (no supported templates)[/red]")
            return 2

        def on_progress(r: SuiteRunner) -> None:
            if not args.quiet:
                console.print(f"{sum(r.stored.values())}/{len(r.items)} trajectories", highlight=False)

        runner.run(on_progress)
    except EmukitError as exc:
        print_error(console, f"emukit build-pairs --suite {args.suite}", exc)
        return 1
    table = Table(title=f"{args.suite} suite (seed {args.seed}, {runner.wall_s:.0f} s) in {runner.root}")
    for col in ("family", "template", "stratum", "stored", "wanted", "accepted now", "rejected now by reason"):
        table.add_column(col, justify="right" if col in ("stored", "wanted", "accepted now") else "left")
    wanted = Counter(runner.key(i) for i in runner.items)
    for key in sorted(wanted, key=lambda k: (k[0], k[1], stratum_order(k[2]))):
        reasons = ", ".join(f"{r}: {n}" for (f, t, s, r), n in sorted(runner.rejected.items()) if (f, t, s) == key)
        table.add_row(*key, str(runner.stored[key]), str(wanted[key]), str(runner.accepted[key]), reasons or "-")
    console.print(table)
    for line in runner.failed + runner.errors:
        console.print(f"[yellow]{line}[/yellow]", highlight=False)
    return 0 if runner.complete else 1


def stratum_order(stratum: str) -> tuple[int, int]:
    if stratum.startswith("d="):
        return 0, int(stratum[2:])
    if stratum.startswith("sink="):
        sink = stratum[5:]
        return 2, CROSS_APP_SINKS.index(sink) if sink in CROSS_APP_SINKS else 99
    return 1, LEVELS.index(stratum) if stratum in LEVELS else 99
