"""``emukit audit release|stability|replay|split|shortcuts|diversity``: the benchmark audits of seed 002 Appendix C (docs/audits.md).
Each prints a table and exits 1 when anything fails (2 for a usage error)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from emukit.commands.build import default_data_dir
from emukit.commands.options import (
    add_built_on_selection,
    add_device_options,
    built_on_selection,
    device_request,
)
from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError
from emukit.families import FAMILY_CHOICES, selected
from emukit.settings import adb_server_port

if TYPE_CHECKING:
    from emukit.audit.suite_replay import SuiteReplayReport, TrajectoryReplay


def _status(ok: bool) -> str:
    return "[green]PASS[/green]" if ok else "[red]FAIL[/red]"


# ------------------------------------------------------------------------------------------ release
def _cmd_release(args: argparse.Namespace) -> int:
    from emukit.audit.release import CHECKS, audit_release
    from emukit.store import Store

    console = make_console()
    try:
        with Store(args.db, data_dir=args.data_dir) as store:
            report = audit_release(store, templates_folder=args.templates, family=args.family,
                                   templates=args.template or None, **built_on_selection(args))
    except EmukitError as exc:
        print_error(make_console(stderr=True), "emukit audit release", exc)
        return 1

    table = Table(title="release audit: templates")
    for col in ("family", "template", "declared", "template file", "stored pairs", "status"):
        table.add_column(col, justify="right" if col == "stored pairs" else "left")
    for c in sorted(report.coverage, key=lambda c: (c.family, c.template)):
        table.add_row(c.family, c.template, "yes" if c.declared else "no (extra)",
                      "yes" if c.in_folder else "[red]missing[/red]",
                      str(c.stored) if c.stored else "[red]0[/red]", _status(c.ok))
    console.print(table)

    table = Table(title="release audit: families (every pair re-checked from its artifacts)")
    for col in ("family", "pairs", "pass", "fail", "failing checks", "validator"):
        table.add_column(col, justify="right" if col in ("pairs", "pass", "fail") else "left")
    for family, row in report.by_family().items():
        checks = ", ".join(f"{c}: {row['checks'][c]}" for c in CHECKS if row["checks"][c]) or "-"
        table.add_row(family, str(row["pairs"]), str(row["pass"]), str(row["fail"]), checks,
                      _status(report.family_ok(family)))
    console.print(table)

    table = Table(title="release audit: built on (device kind, system build, app builds; read on the device)")
    for col in ("device kind", "API", "fingerprint", "app builds (versionCode)", "pairs", "fail"):
        table.add_column(col, justify="right" if col in ("pairs", "fail", "API") else "left")
    for built_on, n, bad in report.by_built_on():
        apps = ", ".join(f"{p} {b.version_code if b.version_code is not None else 'absent'}"
                         for p, b in built_on.apps.items()) or "-"
        table.add_row(built_on.kind, str(built_on.api_level or "-"), built_on.fingerprint or "-", apps, str(n),
                      str(bad) if bad else "0")
    console.print(table)
    if len({b.kind for b, _n, _bad in report.by_built_on()}) > 1:
        console.print("[yellow]the audited pairs were built on more than one kind of device: select one with "
                      "--device-kind[/yellow]")

    failing = [p for p in report.pairs if not p.ok]
    for p in failing[: args.show]:
        console.print(f"[red]FAIL[/red] {p.pair_id} ({p.template})")
        for check, message in p.problems:
            console.print(f"  {check}: {message}", markup=False, highlight=False)
    if len(failing) > args.show:
        console.print(f"... and {len(failing) - args.show} more failing pairs (--show N)")
    for c in report.missing():
        where = [] if c.in_folder else ["no template file"]
        where += [] if c.stored else ["no stored pair"]
        console.print(f"[red]missing[/red] template {c.template} ({c.family}): {', '.join(where)}")
    total = len(report.pairs)
    console.print(f"{total - len(failing)}/{total} pairs pass; "
                  f"{sum(c.ok for c in report.coverage if c.declared)}/{sum(c.declared for c in report.coverage)} "
                  f"declared templates present: {'PASS' if report.ok else 'FAIL'}")
    return 0 if report.ok else 1


# ------------------------------------------------------------------------------------------ stability
def _cmd_stability(args: argparse.Namespace) -> int:
    from emukit.audit.stability import audit_stability
    from emukit.store import Store

    console = make_console()
    err = make_console(stderr=True)
    adb_port = adb_server_port()

    def on_replay(entry, replay) -> None:
        if not args.quiet:
            mark = "ok" if replay.ok else "MISMATCH"
            err.print(f"{entry.pair.pair_id} {entry.branch} #{replay.repeat + 1}: {mark} ({replay.seconds:.1f} s)",
                      markup=False, highlight=False)

    try:
        with Store(args.db, data_dir=args.data_dir) as store:
            report = audit_stability(store, data_dir=args.data_dir, per_template=args.per_template,
                                     repeats=args.repeats, devices=device_request(args),
                                     adb_port=adb_port, family=args.family, templates=args.template or None,
                                     templates_folder=args.templates, on_replay=on_replay)
    except EmukitError as exc:
        print_error(err, "emukit audit stability", exc)
        return 1
    table = Table(title=f"repeated-execution stability ({report.repeats} replays per branch, {report.wall_s:.0f} s)")
    for col in ("family", "template", "pair", "branch", "stored outcome", "outcome same", "state same",
                "boundary same", "status"):  # boundary same: informational (seed C.8 requires the outcome)
        table.add_column(col, justify="right" if col.endswith("same") else "left")
    for b in report.branches:
        n = len(b.replays)
        outcome_same = sum(r.outcome == b.stored_outcome for r in b.replays)
        state_same = sum(r.state == b.pair.branches[b.branch].state for r in b.replays)  # type: ignore[index]
        boundary_same = sum(bool(r.same_boundary) for r in b.replays)
        table.add_row(b.pair.family, b.pair.template, b.pair.pair_id, b.branch, _short(b.stored_outcome),
                      f"{outcome_same}/{report.repeats}", f"{state_same}/{report.repeats}",
                      f"{boundary_same}/{n}", _status(b.ok and n == report.repeats))
    console.print(table)
    for b in report.branches:
        for r in b.replays:
            for p in r.problems:
                console.print(f"[red]{b.pair.pair_id} {b.branch} replay {r.repeat + 1}[/red]: {p}", highlight=False)
    for e in report.errors:
        console.print(f"[red]{e}[/red]", highlight=False)
    stable = sum(b.ok and len(b.replays) == report.repeats for b in report.branches)
    console.print(f"{stable}/{len(report.branches)} branches stable over {report.executions} executions: "
                  f"{'PASS' if report.ok else 'FAIL'}")
    return 0 if report.ok else 1


def _short(outcome: dict) -> str:
    """The semantic part of an outcome, for a table cell."""
    for key in ("result", "pasted_text", "status"):
        if key in outcome:
            extra = f" {outcome['remaining_seconds']}s" if key == "status" and outcome.get("remaining_seconds") else ""
            return f"{outcome[key]}{extra}"
    if "ordered_items" in outcome:
        return " > ".join(map(str, outcome["ordered_items"]))
    return str(outcome)


# ------------------------------------------------------------------------------------------ replay
def _cmd_replay(args: argparse.Namespace) -> int:
    from emukit.audit.replay import audit_replay

    if args.suite is not None:
        return _cmd_replay_suite(args)
    console = make_console()
    err = make_console(stderr=True)
    if args.trajectory or args.templates:
        print_error(err, "emukit audit replay", "--trajectory and --templates go with --suite (an export's pairs "
                                                "are replayed from the export alone)")
        return 2
    adb_port = adb_server_port()

    def on_replay(r) -> None:
        if not args.quiet:
            err.print(f"{r.branch.key}: {'ok' if r.ok else 'DIFFERS'} ({r.seconds:.1f} s)", markup=False,
                      highlight=False)

    try:
        report = audit_replay(args.pairs, data_dir=args.data_dir, pairs=args.pair or None, family=args.family,
                              limit=args.limit, per_template=args.per_template, semantic_only=args.semantic_only,
                              devices=device_request(args), adb_port=adb_port, on_replay=on_replay)
    except EmukitError as exc:
        print_error(err, "emukit audit replay", exc)
        return 1
    table = Table(title=f"export replay: every branch run again from the export alone ({report.wall_s:.0f} s)")
    for col in ("family", "template", "pair", "branch", "observations same", "state", "outcome", "status"):
        table.add_column(col, justify="right" if col == "observations same" else "left")
    for r in report.branches:
        b = r.branch
        same = f"- ({r.semantic_because})" if r.semantic_because else f"{r.observations_same}/{r.observations}"
        table.add_row(b.family, b.template, b.pair_id, b.branch, same,
                      "differs" if any(p.startswith("state") for p in r.problems) else "same",
                      "differs" if any(p.startswith("outcome") for p in r.problems) else "same", _status(r.ok))
    console.print(table)
    for r in report.branches:
        for p in r.problems:
            console.print(f"[red]{r.branch.key}[/red]: {p}", highlight=False)
    for e in report.errors:
        console.print(f"[red]{e}[/red]", highlight=False)
    done, total = report.pairs()
    semantic = sum(1 for r in report.branches if r.semantic_because)
    what = ("state and outcome" if report.semantic_only or semantic == len(report.branches)
            else "every observation, state and outcome" if not semantic
            else f"state and outcome; observations of {len(report.branches) - semantic}/{len(report.branches)} "
                 "branches (the others' devices run their clocks)")
    console.print(f"{done}/{total} pairs reproduced ({what}): {'PASS' if report.ok else 'FAIL'}")
    return 0 if report.ok else 1


def _cmd_replay_suite(args: argparse.Namespace) -> int:
    """``emukit audit replay --suite NAME|DIR``: every stored trajectory executed again, compared step by step."""
    from emukit.audit.suite_replay import audit_suite_replay, suite_source

    console = make_console()
    err = make_console(stderr=True)
    if args.pair:
        print_error(err, "emukit audit replay", "--pair goes with --pairs; a suite's rows are chosen with "
                                                "--trajectory ID")
        return 2

    def on_replay(r: TrajectoryReplay) -> None:
        if not args.quiet:
            err.print(f"{r.trajectory.trajectory_id}: {'ok' if r.ok else 'DIFFERS'} ({r.seconds:.1f} s)",
                      markup=False, highlight=False)

    try:
        source = suite_source(args.suite, args.data_dir)
        report = audit_suite_replay(source, data_dir=args.data_dir, family=args.family,
                                    trajectories=args.trajectory or None, per_template=args.per_template,
                                    limit=args.limit, semantic_only=args.semantic_only, templates=args.templates,
                                    devices=device_request(args), adb_port=adb_server_port(),
                                    on_replay=on_replay)
    except EmukitError as exc:
        print_error(err, "emukit audit replay", exc)
        return 1
    _suite_replay_tables(console, report)
    return 0 if report.ok else 1


def _suite_replay_tables(console: Console, report: SuiteReplayReport) -> None:
    """Per trajectory, then per family; the first difference of each mismatch; the verdict."""
    table = Table(title=f"suite replay: every trajectory executed again from its row ({report.wall_s:.0f} s)")
    for col in ("family", "trajectory", "stratum", "steps same", "final obs.", "target", "validation", "status"):
        table.add_column(col, justify="right" if col == "steps same" else "left",
                         no_wrap=col in ("trajectory", "stratum", "status"))
    for r in report.trajectories:
        t = r.trajectory
        fields = {d.field for d in r.differences}
        same = "-" if r.failure else f"{r.steps_same}/{r.steps}"
        final = "-" if report.semantic_only else _cell(r, "final_observation", fields)
        table.add_row(t.family, t.trajectory_id, t.stratum, same, final, _cell(r, "target", fields),
                      _cell(r, "validation", fields), "[green]OK[/green]" if r.ok else "[red]MISMATCH[/red]")
    console.print(table)
    table = Table(title="suite replay by family")
    for col in ("family", "trajectories", "reproduced", "mismatched", "status"):
        table.add_column(col, justify="left" if col in ("family", "status") else "right")
    for family, (done, total) in report.by_family().items():
        table.add_row(family, str(total), str(done), str(total - done), _status(done == total))
    console.print(table)
    for r in report.trajectories:  # the first difference of each mismatch, in the order the trajectory made it
        if not r.ok:
            more = f" (and {len(r.differences) - 1} more)" if len(r.differences) > 1 else ""
            console.print(f"[red]MISMATCH {escape(r.trajectory.trajectory_id)}[/red] ({escape(r.trajectory.where)}): "
                          f"first at {escape(r.first())}{more}", highlight=False)
    for e in report.errors:
        console.print(f"[red]{escape(e)}[/red]", highlight=False)
    done = sum(r.ok for r in report.trajectories)
    what = ("actions, states and validation" if report.semantic_only
            else "every observation and action, states and validation")
    console.print(f"{done}/{len(report.trajectories)} trajectories reproduced ({what}): "
                  f"{'PASS' if report.ok else 'FAIL'}", highlight=False)


def _cell(replay: TrajectoryReplay, key: str, fields: set[str]) -> str:
    """``same`` / ``differs`` for one compared field of a replayed trajectory (``-``: not replayed)."""
    if replay.failure:
        return "-"
    return "differs" if any(f == key or f.startswith((f"{key}.", f"{key} ")) for f in fields) else "same"


# ------------------------------------------------------------------------------------------ split
def _cmd_split(args: argparse.Namespace) -> int:
    from emukit.audit.split import LABELS, audit_split

    console = make_console()
    try:
        report = audit_split(args.train, args.eval)
    except EmukitError as exc:
        print_error(make_console(stderr=True), "emukit audit split", exc)
        return 1
    table = Table(title="train-evaluation split integrity (seed 002 Appendix C.2)")
    for col in ("audit criterion", "train", "eval", "intersection", "status"):
        table.add_column(col, justify="left" if col in ("audit criterion", "status") else "right")
    for r in report.results:
        table.add_row(LABELS[r.criterion], str(r.train), str(r.eval), str(len(r.shared)), _status(r.ok))
    console.print(table)
    console.print(f"train: {', '.join(map(str, report.train.paths))} ({report.train.examples} examples); "
                  f"eval: {', '.join(map(str, report.eval.paths))} ({report.eval.examples} examples)",
                  highlight=False)
    for r in report.results:
        for train_ex, eval_ex in r.examples:
            console.print(f"[red]{r.criterion}[/red]: train {train_ex} ~ eval {eval_ex}", highlight=False)
    console.print("PASS: no intersection on any criterion" if report.ok
                  else f"FAIL: overlapping on {', '.join(report.failed())}")
    return 0 if report.ok else 1


# ------------------------------------------------------------------------------------------ shortcuts
def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _cmd_shortcuts(args: argparse.Namespace) -> int:
    import json

    from emukit.audit.shortcuts import GUESSERS, INFORMATIONAL, audit_shortcuts, views_from_export, views_from_records
    from emukit.store import Store

    console = make_console()
    try:
        if args.pairs is not None:
            views = views_from_export(args.pairs)
        else:
            with Store(args.db, data_dir=args.data_dir) as store:
                views = views_from_records(store.pairs(selected(args.family)))
        if selected(args.family) is not None:
            views = [v for v in views if v.family == args.family]
        report = audit_shortcuts(views, max_accuracy=args.max_accuracy / 100)
    except EmukitError as exc:
        print_error(make_console(stderr=True), "emukit audit shortcuts", exc)
        return 1
    table = Table(title=f"shortcut audit: accuracy (%) of one-feature guessers of a branch's role "
                        f"(fail at >= {args.max_accuracy:g})")
    shown = (*GUESSERS, *INFORMATIONAL)
    info = {g: f"{g} (info)" for g in INFORMATIONAL}
    for col in ("family", "pairs", "A is template B (%)", *(info.get(g, g) for g in shown), "status"):
        table.add_column(col, justify="left" if col in ("family", "status") else "right")
    for family, scores in sorted(report.by_family.items()):
        table.add_row(family, str(report.pairs[family]), _pct(report.swapped[family] / report.pairs[family]),
                      *(_pct(scores[g].accuracy) for g in shown), _status(report.family_ok(family)))
    console.print(table)
    if args.per_template:
        table = Table(title="per template")
        for col in ("family", "template", *(info.get(g, g) for g in shown)):
            table.add_column(col, justify="left" if col in ("family", "template") else "right")
        for (family, template), scores in sorted(report.by_template.items()):
            table.add_row(family, template, *(_pct(scores[g].accuracy) for g in shown))
        console.print(table)
    console.print("(info): reported, never failing: neutral moves are history content (docs/audits.md)",
                  highlight=False)
    for family, mix in sorted(report.outcome_mix.items()):
        total = sum(mix.values())
        console.print(f"{family} outcomes over branches: " + ", ".join(
            f"{k} {v} ({100 * v / total:.0f}%)" for k, v in sorted(mix.items())), highlight=False)
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=1, sort_keys=True))
        console.print(f"report: {args.json}", highlight=False)
    return 0 if report.ok else 1


# ------------------------------------------------------------------------------------------ diversity
def _cmd_diversity(args: argparse.Namespace) -> int:
    import json

    from emukit.audit.diversity import DEFAULT_MIN_DIVERSITY, audit_diversity
    from emukit.store import Store
    from emukit.templates import load_templates

    console = make_console()
    try:
        thresholds = {t.name: t.min_diversity for t in load_templates(dirs=args.templates, variants=True)
                      if t.min_diversity is not None}
        with Store(args.db, data_dir=args.data_dir) as store:
            pairs = [p for p in store.pairs(selected(args.family))
                     if not args.template or p.template in args.template]
            report = audit_diversity(pairs, lambda sha: store.artifacts.get(sha, "png"), thresholds)
    except EmukitError as exc:
        print_error(make_console(stderr=True), "emukit audit diversity", exc)
        return 1
    cols = ("pairs", "boundaries", "requests", "shared_actions", "states", "near_duplicates")

    def cells(c) -> list[str]:
        row = c.row()
        return [str(row["pairs"])] + [f"{row[k]} ({100 * row[k] / row['pairs']:.0f}%)" for k in cols[1:]]

    table = Table(title=f"diversity audit: distinct values over pairs (boundaries and requests must reach "
                        f"{100 * DEFAULT_MIN_DIVERSITY:.0f}% per family, each template's min_diversity)")
    for col in ("family", "template", *cols, "need", "status"):
        table.add_column(col, justify="left" if col in ("family", "template", "status") else "right")
    for family, c in sorted(report.families.items()):
        table.add_row(family, "(all)", *cells(c), f"{100 * report.family_threshold:.0f}%",
                      _status(report.family_ok(family)))
        for (f, t), tc in sorted(report.templates.items()):
            if f == family:
                table.add_row("", t, *cells(tc), f"{100 * report.thresholds.get(t, DEFAULT_MIN_DIVERSITY):.0f}%",
                              _status(report.template_ok(f, t)))
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=1, sort_keys=True))
        console.print(f"report: {args.json}", highlight=False)
    return 0 if report.ok else 1


def device_args(q: argparse.ArgumentParser, unit: str) -> None:
    """The device options of the audits that run on devices: ``--devices N`` fresh embedded virtual devices
    or ``--device SERIAL`` attached ones, ``--quiet`` (no line per ``unit``), ``--vdevice-mode``."""
    group = q.add_mutually_exclusive_group()
    group.add_argument("--devices", type=int, help="start N fresh embedded virtual devices (default 1)")
    group.add_argument("--device", action="append", help="use this attached device instead (repeatable)")
    q.add_argument("--quiet", action="store_true", help=f"no per-{unit} progress lines")
    add_device_options(q, pool=True)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit the stored benchmark: release, stability, replay, split, "
                                         "shortcuts, diversity")
    asub = p.add_subparsers(dest="audit_command", required=True)

    def store_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--data-dir", type=Path, default=default_data_dir(),
                       help="the build's data dir: artifacts and the default SQLite store (default ./data)")
        q.add_argument("--db", help="SQLAlchemy URL of the store (default sqlite:///DATA_DIR/emukit.db)")
        q.add_argument("--templates", type=Path, action="append", default=None, metavar="DIR",
                       help="a causal-template folder of your own, merged with the shipped templates "
                            "(repeatable; also $EMUKIT_TEMPLATES)")
        q.add_argument("--family", default="all", choices=FAMILY_CHOICES)
        q.add_argument("--template", action="append", help="only these templates (repeatable)")

    rel = asub.add_parser("release", help="re-check every stored pair from its artifacts; template coverage")
    store_args(rel)
    rel.add_argument("--show", type=int, default=20, help="failing pairs to detail (default 20)")
    add_built_on_selection(rel)
    rel.set_defaults(func=_cmd_release)

    stab = asub.add_parser("stability", help="replay selected pairs' branches on fresh devices (seed C.8)")
    store_args(stab)
    stab.add_argument("--per-template", type=int, default=1, help="pairs per template (default 1)")
    stab.add_argument("--repeats", type=int, default=3, help="replays per branch (default 3)")
    device_args(stab, "replay")
    stab.set_defaults(func=_cmd_stability)

    rep = asub.add_parser("replay", help="run exported branches again from the export alone (base snapshot from "
                                         "its spec, hidden setup, recorded actions), or a suite's trajectories "
                                         "from their rows, and compare")
    what = rep.add_mutually_exclusive_group(required=True)
    what.add_argument("--pairs", type=Path, help="an export folder (emukit export --out DIR)")
    what.add_argument("--suite", metavar="NAME|DIR",
                      help="a distribution-shift suite: its name (DATA_DIR/suites/NAME), a suite folder or one of "
                           "its <family>.jsonl files; every row is executed again from its template, seed and "
                           "work item and compared step by step")
    rep.add_argument("--pair", action="append", help="only this pair id (repeatable; --pairs)")
    rep.add_argument("--trajectory", action="append", metavar="ID",
                     help="only this trajectory id (repeatable; --suite)")
    rep.add_argument("--family", default="all", choices=FAMILY_CHOICES)
    rep.add_argument("--per-template", type=int, metavar="N",
                     help="only the first N pairs (trajectories) of each template")
    rep.add_argument("--limit", type=int,
                     help="only the first N pairs or trajectories (after the id / --family / --per-template)")
    rep.add_argument("--semantic-only", action="store_true",
                     help="compare state and outcome only (--suite: actions, states and validation flags, no "
                          "observation); for a device whose clock runs: hardware-like, real AVD")
    rep.add_argument("--templates", type=Path, action="append", default=None, metavar="DIR",
                     help="--suite: a causal-template folder of your own, merged with the shipped templates "
                          "(repeatable; also $EMUKIT_TEMPLATES)")
    rep.add_argument("--data-dir", type=Path, default=default_data_dir(),
                     help="where the devices' base-snapshot fingerprints go, and the suites a suite name is read "
                          "from (default ./data)")
    device_args(rep, "branch")
    rep.set_defaults(func=_cmd_replay)

    split = asub.add_parser("split", help="train/eval disjointness on the five criteria of seed C.2")
    split.add_argument("--train", type=Path, required=True,
                       help="training side: an export folder or a state_train.jsonl / pairs.jsonl file")
    # a side may also be a stress-suite folder or file (DATA_DIR/suites/<suite>[/<family>.jsonl])
    split.add_argument("--eval", type=Path, required=True,
                       help="evaluation side: an export folder or a pairs.jsonl / state_train.jsonl file")
    split.set_defaults(func=_cmd_split)

    short = asub.add_parser("shortcuts", help="label shortcuts: can history length, the last action or the "
                                              "branch name alone tell a branch's role?")
    store_args(short)
    short.add_argument("--pairs", type=Path, help="an export folder (or its pairs.jsonl) instead of the store")
    short.add_argument("--max-accuracy", type=float, default=60.0, metavar="PCT",
                       help="fail a family where a guesser reaches this accuracy (default 60)")
    short.add_argument("--per-template", action="store_true", help="also print every template's accuracies")
    short.add_argument("--json", type=Path, help="write the report as JSON")
    short.set_defaults(func=_cmd_shortcuts)

    div = asub.add_parser("diversity", help="distinct boundaries, requests, shared actions and states per family "
                                            "and template, and near-duplicate boundaries")
    store_args(div)
    div.add_argument("--json", type=Path, help="write the report as JSON")
    div.set_defaults(func=_cmd_diversity)
