"""``emukit tasks list|stats|verify|record|accept|agreement``: the online milestone tasks and their annotations."""

from __future__ import annotations

import argparse
import getpass
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from emukit.commands.output import make_console, print_error
from emukit.errors import ConfigError, EmukitError

if TYPE_CHECKING:
    from emukit.workers import DeviceRequest
    from emukit.tasks.negatives import Negative, NegativeResult
    from emukit.tasks.schema import Task
    from emukit.tasks.verify import VerifyResult


def _tasks_on_path(args: argparse.Namespace) -> list[Task]:
    """The tasks on the search path (ConfigError naming the folders looked in when there is none)."""
    from emukit.tasks.files import load_tasks, task_folders

    tasks = load_tasks(dirs=args.tasks_dir)
    if not tasks:
        folders = ", ".join(str(f) for f in task_folders(args.tasks_dir)) or "none found"
        raise ConfigError(f"no tasks on the search path ({folders})")
    return tasks


def _cmd_list(args: argparse.Namespace) -> int:
    from emukit.tasks.annotations import load_annotations
    from emukit.tasks.files import task_folders

    console = make_console()
    tasks = _tasks_on_path(args)
    table = Table(title=f"{len(tasks)} milestone tasks")
    for col in ("id", "template", "context", "apps", "milestones", "steps", "budget", "status", "annotations"):
        table.add_column(col, no_wrap=col == "id", overflow="fold")
    for t in tasks:
        notes = load_annotations(Path(t.source_path).parent, t.id)
        canonical = f" (#{t.provenance.annotation} canonical)" if t.provenance.annotation else ""
        table.add_row(t.id, t.template, t.context, ", ".join(t.apps), str(len(t.milestones)),
                      str(len(t.provenance.reference)), str(t.step_budget), t.provenance.status,
                      f"{len(notes)}{canonical}" if notes else "-")
    console.print(table)
    console.print("folders: " + ", ".join(str(f) for f in task_folders(args.tasks_dir)), highlight=False,
                  soft_wrap=True)
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from emukit.tasks.schema import CATEGORY_TITLES
    from emukit.tasks.stats import task_stats

    console = make_console()
    stats = task_stats(_tasks_on_path(args))
    if args.json:
        console.print_json(stats.model_dump_json())
        return 0
    o = stats.overall
    table = Table(title="Online tasks (GUI-CC Figure 2)")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for name, value in (("# Tasks", str(o.tasks)), ("# Apps", str(len(o.apps))),
                        ("# App categories", str(len(o.categories))), ("# Templates", str(len(o.templates))),
                        ("Avg. budget", f"{o.budget.avg:.2f}"), ("Min / max budget", f"{o.budget.min} / {o.budget.max}"),
                        ("Avg. milestones", f"{o.milestones.avg:.2f}"),
                        ("Min / max milestones", f"{o.milestones.min} / {o.milestones.max}"),
                        ("Avg. reference steps (min-max)", o.reference_steps.text()),
                        ("Verified", f"{o.verified} / {o.tasks}")):
        table.add_row(name, value)
    console.print(table)
    for title, groups, first in (("per category", stats.by_category, "category"),
                                 ("per template", stats.by_template, "template")):
        table = Table(title=title)
        for col in (first, "tasks", "apps", "templates" if first == "category" else "category",
                    "budget avg (min-max)", "milestones avg (min-max)", "reference steps"):
            table.add_column(col, justify="left" if col in (first, "apps", "category") else "right",
                             no_wrap=col == first)
        for key, g in groups.items():
            third = (str(len(g.templates)) if first == "category"
                     else ", ".join(CATEGORY_TITLES[c] for c in g.categories))
            table.add_row(CATEGORY_TITLES[key] if first == "category" else key, str(g.tasks), ", ".join(g.apps),
                          third, g.budget.text(), g.milestones.text(), g.reference_steps.text())
        console.print(table)
    return 0


def _device_choice(args: argparse.Namespace) -> DeviceRequest:
    """The devices of a parallel run: the ``--device`` given, else ``--devices N`` embedded virtual devices
    (``--embedded`` alone: CPU cores + 1); neither leaves the choice to the pool: every attached device, else
    embedded ones."""
    from emukit.commands.options import device_request
    from emukit.workers import default_device_count

    return device_request(args, embedded_count=default_device_count())


def _verify_on_pool(args: argparse.Namespace, tasks: list[Task], negatives: list[tuple[Task, Negative]],
                    on_result: Callable[[object, object], None],
                    ) -> tuple[list[VerifyResult], list[NegativeResult], float]:
    """Verify ``tasks`` and replay the ``negatives`` ((task, Negative) pairs), spread over one device pool
    (:func:`_device_choice`). Returns the verification results in the tasks' order, the negatives' results in
    theirs (a job whose device failed gets a result naming why) and the wall time."""
    import time

    from emukit.audit.devicejobs import run_on_devices
    from emukit.errors import DeviceError
    from emukit.settings import adb_server_port
    from emukit.tasks.negatives import NegativeResult, run_negative
    from emukit.tasks.verify import VerifyResult, verify_task

    def unverified(task: Task, why: str) -> VerifyResult:
        return VerifyResult(task.id, len(task.provenance.reference), task.step_budget,
                            list(task.provenance.milestone_steps), [None] * len(task.milestones), problems=[why])

    def work(device, job):
        kind, payload = job
        if kind == "verify":
            try:
                return verify_task(device, payload)
            except DeviceError as exc:
                return unverified(payload, f"device: {exc}")
        task, negative = payload
        try:
            return run_negative(device, task, negative)
        except DeviceError as exc:
            return NegativeResult(negative, [None] * len(task.milestones), [], problems=[f"device: {exc}"])

    def failed(result) -> bool:
        return not result.ok if isinstance(result, VerifyResult) else bool(result.problems)

    jobs = [("verify", t) for t in tasks] + [("negative", n) for n in negatives]
    t0 = time.perf_counter()
    run = run_on_devices(jobs, work, data_dir=args.data_dir, devices=_device_choice(args),
                         adb_port=adb_server_port(), failed=failed,
                         on_result=lambda job, result: on_result(job[1], result), attached_first=True)
    why = "; ".join(run.errors) or "no device ran it"
    verified = [r if r is not None else unverified(t, f"not verified: {why}")
                for t, r in zip(tasks, run.results[:len(tasks)], strict=True)]
    rejected = [r if r is not None else NegativeResult(n[1], [], [], problems=[f"not run: {why}"])
                for n, r in zip(negatives, run.results[len(tasks):], strict=True)]
    return verified, rejected, time.perf_counter() - t0


def _write_verify_report(path: Path, tasks: list[Task], results: list[VerifyResult]) -> None:
    """``--report FILE``: one JSON object per verified task, with the device it was verified on."""
    import json

    from emukit.atomicio import write_atomic

    rows = [{"task_id": r.task_id, "ok": r.ok, "steps": r.steps, "budget": r.budget, "expected": r.expected,
             "reached": r.reached, "problems": r.problems, "wall_s": round(r.wall_s, 3), "device": r.device,
             "built_on": r.built_on.model_dump(mode="json"), "task_digest": task_digest(t)}
            for t, r in zip(tasks, results, strict=True)]
    write_atomic(Path(path), "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows).encode())


def task_digest(task: Task) -> str:
    from emukit.tasks.annotations import task_digest as digest

    return digest(task)


def _cmd_verify(args: argparse.Namespace) -> int:
    from emukit.tasks.files import load_tasks, task_folders
    from emukit.tasks.negatives import template_negatives
    from emukit.tasks.verify import VerifyResult

    console = make_console()
    if bool(args.all) == bool(args.task_ids):
        print_error(console, "emukit tasks verify", "give --all or one or more TASK_IDs")
        return 2
    tasks = load_tasks(ids=None if args.all else args.task_ids, dirs=args.tasks_dir)
    if not tasks:
        where = ", ".join(str(f) for f in task_folders(args.tasks_dir)) or "no task folder"
        print_error(console, "emukit tasks verify", f"no tasks in {where}")
        return 1
    negatives: list[tuple[Task, Negative]] = []
    if args.negatives:  # siblings come from the whole search path, so one task id still gets its sibling
        everything = tasks if args.all else load_tasks(dirs=args.tasks_dir)
        wanted = {t.template for t in tasks}
        negatives = [(t, n) for t, n in template_negatives(everything) if t.template in wanted]

    def progress(subject, r) -> None:
        if args.quiet:
            return
        if isinstance(r, VerifyResult):
            where = f" on {r.device} ({r.built_on.kind})" if r.device else ""
            console.print(f"{r.task_id}: {'ok' if r.ok else 'FAIL'} ({r.wall_s:.1f} s{where})", highlight=False)
        else:
            console.print(f"{r.negative.task_id} negative {r.negative.kind}: "
                          f"{'rejected' if r.rejected else 'ACCEPTED'} ({r.wall_s:.1f} s)", highlight=False)

    results, rejected, wall = _verify_on_pool(args, tasks, negatives, progress)
    table = Table(title="task verification (reference replayed from the initial state)")
    for col in ("task", "result", "actions", "budget", "milestones reached after action", "expected", "s",
                "problems"):
        table.add_column(col, no_wrap=col == "task", overflow="fold")
    failed = 0
    for task, r in zip(tasks, results, strict=True):
        failed += not r.ok
        table.add_row(task.id, "[green]PASS[/green]" if r.ok else "[red]FAIL[/red]", str(r.steps),
                      str(r.budget), " ".join("-" if s is None else str(s) for s in r.reached),
                      " ".join(map(str, r.expected)), f"{r.wall_s:.1f}", "; ".join(r.problems))
    console.print(table)
    console.print(f"{len(tasks) - failed}/{len(tasks)} tasks pass in {wall:.1f} s wall", highlight=False)
    if args.report is not None:
        _write_verify_report(args.report, tasks, results)
        console.print(f"report: {args.report}", highlight=False)
    if not negatives:
        return 1 if failed else 0
    neg = Table(title="generated negatives (each must leave a milestone unreached)")
    for col in ("task", "negative", "from", "result", "milestones missed", "note"):
        neg.add_column(col, overflow="fold")
    accepted = 0
    for r in rejected:
        ok = r.rejected and not r.problems
        accepted += not ok
        neg.add_row(r.negative.task_id, r.negative.kind, r.negative.source,
                    "[green]rejected[/green]" if ok else "[red]ACCEPTED[/red]" if not r.problems else "[red]ERROR[/red]",
                    ", ".join(r.missed) or "-", "; ".join(r.problems) or (r.replay_error or ""))
    console.print(neg)
    console.print(f"{len(rejected) - accepted}/{len(rejected)} negatives rejected", highlight=False)
    return 1 if failed or accepted else 0


def _cmd_record(args: argparse.Namespace) -> int:
    from emukit import resources
    from emukit.tasks.files import (
        instances,
        load_task_templates,
        locate_task,
        save_task,
    )
    from emukit.tasks.verify import record_reference
    from emukit.commands.options import device_request
    from emukit.workers import one_device

    console = make_console()
    templates = load_task_templates(names=args.template or None, dirs=args.tasks_dir)
    new_folder = resources.writable("tasks", args.tasks_dir)
    by = args.by or f"{getpass.getuser()} (scripted solution)"
    written = 0
    with one_device(device_request(args), args.data_dir, force_embedded=args.embedded) as device:
        for template in templates:
            for task in instances(template, args.count or template.count, args.seed):
                existing = locate_task(task.id, dirs=args.tasks_dir)
                if existing is not None and not args.overwrite:
                    console.print(f"{task.id}: exists ({existing}), kept (use --overwrite to record again)",
                                  highlight=False, soft_wrap=True)
                    continue
                folder = existing.parent if existing is not None else new_folder
                resources.check_writable("tasks", folder / f"{task.id}.yaml")
                task = record_reference(device, template, task, by=by)
                save_task(task, folder)
                written += 1
                console.print(f"{task.id}: {len(task.provenance.reference)} actions, milestones after "
                              f"{task.provenance.milestone_steps}, budget {task.step_budget}", highlight=False)
    console.print(f"{written} task(s) written", highlight=False)
    return 0


def _cmd_accept(args: argparse.Namespace) -> int:
    from emukit.tasks.annotations import accept_annotation
    from emukit.tasks.files import load_tasks

    console = make_console()
    task = load_tasks(ids=[args.task_id], dirs=args.tasks_dir)[0]
    done = accept_annotation(Path(task.source_path).parent, task, args.annotation, allow_longer=args.allow_longer)
    for line in done.messages:
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"saved {done.path}", highlight=False, soft_wrap=True)
    return 0


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cmd_agreement(args: argparse.Namespace) -> int:
    import json

    from emukit.tasks.annotations import agreement, load_annotations
    from emukit.tasks.files import load_tasks

    console = make_console()
    tasks = load_tasks(ids=args.task_ids or None, dirs=args.tasks_dir)
    rows = [agreement(t, load_annotations(Path(t.source_path).parent, t.id)) for t in tasks]
    if not args.all:
        rows = [r for r in rows if r.annotations]
    if args.json:
        print(json.dumps([r.record() for r in rows], indent=2))
        return 0
    if not rows:
        console.print("no task has annotations yet (emukit annotate saves them; --all lists every task)",
                      highlight=False)
        return 0
    table = Table(title="annotator agreement per task (pairs of annotations by different annotators)")
    for col in ("task", "annotations", "annotators", "verdicts", "steps", "canonical", "pairs", "same verdict",
                "trajectory similarity", "same milestone steps", "milestone step MAD"):
        table.add_column(col, no_wrap=col == "task", overflow="fold")
    for r in rows:
        canonical = "-" if r.canonical_steps is None else (
            f"{r.canonical_steps}" + (f" (#{r.canonical_annotation})" if r.canonical_annotation else ""))
        table.add_row(r.task_id, str(r.annotations), ", ".join(r.annotators),
                      " ".join(f"{k} {v}" for k, v in sorted(r.verdicts.items())),
                      " ".join(map(str, r.steps)) or "-", canonical, str(r.pairs), _fmt(r.verdict_agreement),
                      _fmt(r.trajectory_similarity), _fmt(r.milestones_identical), _fmt(r.milestone_step_mad))
    console.print(table)
    return 0


def _run(fn):
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except EmukitError as exc:
            print_error(make_console(), f"emukit tasks {args.action}", exc)
            return 1

    return wrapped


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.build import default_data_dir
    from emukit.commands.options import WAIT_HELP, add_device_options, screen_arg

    p = sub.add_parser("tasks", help="online milestone tasks: list, verify, record reference trajectories")
    actions = p.add_subparsers(dest="action", required=True)

    def common(q: argparse.ArgumentParser, device: bool = True) -> None:
        q.add_argument("--tasks-dir", "--tasks", dest="tasks_dir", type=Path, action="append", default=None,
                       metavar="DIR", help="a task folder of your own, merged with the shipped tasks "
                                           "(repeatable; also $EMUKIT_TASKS); new tasks are written to the "
                                           "first one")
        if device:
            q.add_argument("--device", help="device serial (default: the one attached, else an embedded "
                                            "virtual device)")
            q.add_argument("--embedded", action="store_true",
                           help="start an embedded virtual device even when devices are attached")
            q.add_argument("--data-dir", type=Path, default=default_data_dir())
            add_device_options(q)

    q = actions.add_parser("list", help="a table of the tasks")
    common(q, device=False)
    q.set_defaults(func=_run(_cmd_list))

    q = actions.add_parser("stats", help="GUI-CC's Figure 2 statistics of the tasks: overall, per category and "
                                         "per template")
    common(q, device=False)
    q.add_argument("--json", action="store_true", help="print the statistics as JSON")
    q.set_defaults(func=_run(_cmd_stats))

    q = actions.add_parser("verify", help="replay reference trajectories and check every milestone")
    q.add_argument("task_ids", nargs="*", metavar="TASK_ID")
    q.add_argument("--all", action="store_true", help="every task on the search path")
    q.add_argument("--devices", type=int, default=None, metavar="N",
                   help="verify in parallel on N embedded virtual devices (default: every attached device, else "
                        "one more than the CPU cores, at most 8)")
    q.add_argument("--negatives", action="store_true",
                   help="also replay each template's generated wrong trajectories (emukit.tasks.negatives): "
                        "every one must leave a milestone unreached")
    q.add_argument("--quiet", action="store_true")
    q.add_argument("--wait", type=float, default=0.0, metavar="S", help=WAIT_HELP)
    q.add_argument("--report", type=Path, default=None, metavar="FILE",
                   help="also write each task's result as a JSON line, with the device it was verified on "
                        "(kind, build fingerprint, app builds)")
    q.add_argument("--vdevice-screen", type=screen_arg, default=None, metavar="WxH@DPI",
                   help="display of the embedded virtual devices this command starts (default 1080x2400@420)")
    common(q)
    q.set_defaults(func=_run(_cmd_verify))

    q = actions.add_parser("record", help="instantiate task templates and record their scripted solutions as "
                                          "reference trajectories")
    q.add_argument("--template", action="append", help="only this task template (repeatable)")
    q.add_argument("--count", type=int, default=None,
                   help="tasks per template (default: each template's own count, the shipped set's size)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--overwrite", action="store_true")
    q.add_argument("--by", help="provenance.verified_by (default: the user, scripted)")
    common(q)
    q.set_defaults(func=_run(_cmd_record))

    q = actions.add_parser("accept", help="make one annotation the task's canonical reference (or rejection)")
    q.add_argument("task_id", metavar="TASK_ID")
    q.add_argument("--annotation", type=int, required=True, metavar="N",
                   help="the annotation number (annotations/<TASK_ID>/<N>.yaml; emukit tasks agreement lists them)")
    q.add_argument("--allow-longer", action="store_true",
                   help="accept a reference longer than the canonical one (the step budget grows with it)")
    common(q, device=False)
    q.set_defaults(func=_run(_cmd_accept))

    q = actions.add_parser("agreement", help="how annotators' trajectories and milestone steps agree, per task")
    q.add_argument("task_ids", nargs="*", metavar="TASK_ID")
    q.add_argument("--all", action="store_true", help="list tasks without annotations too")
    q.add_argument("--json", action="store_true", help="print JSON instead of a table")
    common(q, device=False)
    q.set_defaults(func=_run(_cmd_agreement))
