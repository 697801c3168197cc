"""``emukit nightly --config FILE``: one night's rebuild (see :mod:`emukit.nightly.run`), and
``emukit nightly install-timer``: the systemd user units (and cron line) that run it every night."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError

EXIT_REGRESSION = 1
EXIT_CONFIG = 2
EXIT_BUSY = 3


def _cmd_run(args: argparse.Namespace) -> int:
    from emukit.nightly.config import load_config
    from emukit.nightly.run import NightlyBusy, run_night

    console = make_console()
    if args.config is None:
        print_error(console, "emukit nightly", "give --config FILE (see docs/scale-out.md)")
        return EXIT_CONFIG
    try:
        cfg = load_config(args.config)
    except EmukitError as exc:
        print_error(console, "emukit nightly", exc)
        return EXIT_CONFIG

    def on_step(name: str, status: str) -> None:
        if not args.quiet:
            console.print(f"{name}: {status}", highlight=False, markup=False)

    try:
        result = run_night(cfg, night_id=args.night, on_step=on_step)
    except NightlyBusy as exc:
        print_error(console, "emukit nightly", exc)
        return EXIT_BUSY
    except EmukitError as exc:
        print_error(console, "emukit nightly", exc)
        return EXIT_CONFIG
    if result.findings:
        table = Table(title=f"night {result.night} against {result.previous}")
        for col in ("", "kind", "template", "detail"):
            table.add_column(col)
        for f in result.findings:
            table.add_row("REGRESSION" if f.regression else "", f.kind, f.template, f.detail)
        console.print(table)
    what = f"resumed night {result.night}" if result.resumed else f"night {result.night}"
    against = f"compared with {result.previous}" if result.previous else "no previous good night to compare with"
    console.print(f"{what}: {result.metrics.pairs} pairs; {against}; {len(result.regressions)} regression(s); "
                  f"failed steps: {', '.join(result.failed_steps) or 'none'}; skipped (done before): "
                  f"{len(result.skipped_steps)}", highlight=False, soft_wrap=True)
    console.print(f"report: {result.folder / 'report.html'} (and report.json)", highlight=False, soft_wrap=True)
    console.print("PASS" if result.ok else "FAIL", highlight=False)
    return 0 if result.ok else EXIT_REGRESSION


def _cmd_install_timer(args: argparse.Namespace) -> int:
    from emukit.nightly import timer

    console = make_console()
    env = {}
    for item in args.env or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print_error(console, "emukit nightly install-timer", f"--env {item!r}: expected NAME=VALUE")
            return EXIT_CONFIG
        env[key] = value
    try:
        from emukit.nightly.config import load_config

        load_config(args.config)  # a timer for a config that does not validate would fail every night
        u = timer.units(args.config, args.at, env=env)
    except EmukitError as exc:
        print_error(console, "emukit nightly install-timer", exc)
        return EXIT_CONFIG
    folder = args.unit_dir or timer.default_unit_dir()
    service, tm = timer.install(u, folder)
    console.print(f"wrote {service}\nwrote {tm}", highlight=False, soft_wrap=True)
    checked = timer.verify([service, tm])
    if checked is None:
        console.print("systemd-analyze not found: the units were not verified", highlight=False)
    elif not checked[0]:
        print_error(console, "systemd-analyze verify", checked[1])
        return 1
    else:
        console.print("systemd-analyze verify: ok", highlight=False)
    console.print(f"enable:  systemctl --user daemon-reload && systemctl --user enable --now {timer.UNIT}.timer\n"
                  f"         loginctl enable-linger   (so the timer runs without a login session)\n"
                  f"or cron: {u.cron}", highlight=False, soft_wrap=True, markup=False)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("nightly", help="the nightly rebuild: devices, build, audits, tasks, export, comparison "
                                       "with the previous night, report")
    p.add_argument("--config", type=Path, help="the nightly config (YAML; see docs/scale-out.md)")
    p.add_argument("--night", help="run or resume this night (YYYY-MM-DD[.N]; default: resume an unfinished "
                                   "night, else today's)")
    p.add_argument("--quiet", action="store_true", help="no line per step")
    p.set_defaults(func=_cmd_run, config=None)
    actions = p.add_subparsers(dest="nightly_action")
    q = actions.add_parser("run", help="run one night (the default)")
    q.add_argument("--config", type=Path, default=argparse.SUPPRESS)
    q.add_argument("--night", default=argparse.SUPPRESS)
    q.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS)
    q.set_defaults(func=_cmd_run)
    q = actions.add_parser("install-timer", help="write a systemd user service + timer running the night; print "
                                                 "the cron line")
    q.add_argument("--config", type=Path, required=True)
    q.add_argument("--at", default="02:00", help="local time HH:MM (default 02:00)")
    q.add_argument("--unit-dir", type=Path, help="where to write the units (default ~/.config/systemd/user)")
    q.add_argument("--env", action="append", metavar="NAME=VALUE",
                   help="environment for the night (repeatable), e.g. ANDROID_SDK_ROOT=/opt/android-sdk")
    q.set_defaults(func=_cmd_install_timer)
