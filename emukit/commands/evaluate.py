"""``emukit evaluate``: score a world model on strict pairs (see docs/evaluator.md), or with ``--tasks`` on
milestone tasks (see docs/evaluator-tasks.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emukit.errors import EmukitError
from emukit.families import FAMILIES


def _slug(text: str) -> str:
    """A file-name-safe form of a model spec or mode (``ref:surface`` -> ``ref-surface``)."""
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:60] or "model"


def default_out(args: argparse.Namespace) -> Path:
    """``--out`` when given, else ``DATA_DIR/evaluations/<model>_<format>_<condition or tasks>``: under the data
    dir, never the current directory, and one folder per setting so runs do not overwrite each other (a rerun
    of the same setting reuses its response cache)."""
    from emukit.commands.build import default_data_dir

    if args.out is not None:
        return Path(args.out)
    model = args.model or (Path(args.predictions).stem if args.predictions else "model")
    if getattr(args, "suites", None) is not None:
        model, mode = Path(str(args.estimator)).name, "suites"
        return Path(args.data_dir or default_data_dir()) / "evaluations" / "_".join(_slug(x) for x in (model, mode))
    mode = f"tasks-{args.track}" if args.tasks is not None else \
        (f"trajectories-{args.trajectory_format}" if getattr(args, "trajectories", None) else (args.condition or ""))
    return Path(args.data_dir or default_data_dir()) / "evaluations" / "_".join(
        _slug(x) for x in (model, args.format, mode) if x)


def _settle_formats(args: argparse.Namespace) -> str | None:
    """``--format`` names the world model's output format, or, with ``--trajectories``, the dataset layout
    (the names never overlap): ``--format androidcontrol`` is ``--trajectory-format androidcontrol`` with the
    default ``code2world`` output. Returns the reason the combination is refused, or None."""
    from emukit.evaluate.trajectories.base import formats

    if args.format in formats():
        if args.trajectories is None:
            return f"--format {args.format} is a dataset layout: give it with --trajectories DIR"
        if args.trajectory_format not in (None, args.format):
            return (f"--format {args.format} and --trajectory-format {args.trajectory_format} disagree; give the "
                    "layout once (and --format code2world|gworld for the world model's output)")
        args.trajectory_format, args.format = args.format, "code2world"
    if args.trajectory_format is None:
        args.trajectory_format = "guiodyssey"
    return None


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from emukit.commands.output import make_console
    from emukit.evaluate.adapters import create_adapter
    from emukit.evaluate.estimator import load_estimator
    from emukit.evaluate.metrics import FidelityScorer
    from emukit.evaluate.pairs import load_pairs
    from emukit.evaluate.predictions import PredictionsFile
    from emukit.evaluate.report import (
        built_on_lines,
        counts_line,
        metrics_table,
        write_report,
        write_results,
    )
    from emukit.evaluate.run import evaluate

    problem = _settle_formats(args)
    if problem:
        print(f"emukit evaluate: {problem}", file=sys.stderr)
        return 2
    if args.tasks is not None:
        return _cmd_evaluate_tasks(args)
    if args.trajectories is not None:
        return _cmd_evaluate_trajectories(args)
    if args.suites is not None:
        return _cmd_evaluate_suites(args)
    console = make_console()
    if args.pairs is None or args.condition is None:
        print("emukit evaluate: give --pairs PATH and --condition (or --tasks for the task mode)", file=sys.stderr)
        return 2
    if (args.model is None) == (args.predictions is None):
        print("emukit evaluate: give exactly one of --model SPEC or --predictions FILE", file=sys.stderr)
        return 2
    out = default_out(args)
    adapter = predictions = None
    try:
        if args.model is not None:
            adapter = create_adapter(args.model, cache_dir=out / "cache", concurrency=args.concurrency,
                                     max_retries=args.retries, timeout_s=args.request_timeout)
        else:
            predictions = PredictionsFile(args.predictions, model=args.predictions_model)
        estimator = load_estimator(args.estimator) if args.condition == "predictive-state" else None
        fidelity = FidelityScorer(dinov2=args.fidelity_dinov2, siglip=args.fidelity_siglip) \
            if (args.fidelity_dinov2 or args.fidelity_siglip) else None
        judge_scorer = _judge_scorer(args, out)
        pairs = load_pairs(args.pairs, data_dir=args.data_dir)
        if args.family:
            pairs = (p for p in pairs if p.family in set(args.family))
        if args.limit:
            import itertools

            pairs = itertools.islice(pairs, args.limit)
        done = [0]

        def progress(run) -> None:
            done[0] += 1
            if not args.quiet:
                console.print(f"[dim]{done[0]:4d} {run.pair.pair_id}: "
                              f"{'refused' if run.refused else run.record()['pair_correct']}[/dim]")

        result = evaluate(pairs, format_name=args.format, condition=args.condition, adapter=adapter,
                          predictions=predictions, estimator=estimator, fidelity=fidelity,
                          render_timeout_s=args.render_timeout, on_pair=progress, judge_scorer=judge_scorer)
    except EmukitError as exc:
        print(f"emukit evaluate: {exc}", file=sys.stderr)
        return 1
    finally:
        if adapter is not None:
            adapter.close()
    results = write_results(result, out)
    report = write_report(result, out)
    console.print(metrics_table(result))
    console.print(counts_line(result))
    for line in built_on_lines(result):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"results: {results}\nreport:  {report}", highlight=False, soft_wrap=True)
    return 0


def _cmd_evaluate_suites(args: argparse.Namespace) -> int:
    """``emukit evaluate --suites DATA_DIR``: the estimator on every suite trajectory (emukit.evaluate.suites)."""
    from emukit.commands.output import make_console, print_error
    from emukit.estimator.evaluate import COLUMN_LABELS
    from emukit.evaluate.estimator import load_estimator
    from emukit.evaluate.suites import evaluate_suites, suite_samples, suite_table, write_suite_results

    console = make_console()
    prog = "emukit evaluate --suites"
    if args.model is not None or args.pairs is not None or args.predictions is not None or args.condition:
        print_error(console, prog, "the suites are scored by the state estimator (--estimator); --model, --pairs, "
                                   "--predictions and --condition belong to the pair mode")
        return 2
    out = default_out(args)
    try:
        suites, samples = suite_samples(args.suites, families=args.family, limit=args.limit)
        estimator = load_estimator(args.estimator)
        done = [0]

        def progress(run) -> None:
            done[0] += 1
            if not args.quiet and done[0] % 50 == 0:
                console.print(f"[dim]{done[0]}/{len(samples)} trajectories[/dim]", highlight=False)

        result = evaluate_suites(samples, estimator=estimator, suites=suites, data_dir=args.suites, on_run=progress)
    except EmukitError as exc:
        print_error(console, prog, exc)
        return 1
    path = write_suite_results(result, out)
    console.print(suite_table(result, COLUMN_LABELS))
    console.print(f"{len(result.runs)} trajectories in {result.seconds:.1f} s\nresults: {path}", highlight=False,
                  soft_wrap=True)
    return 0


def _task_ids(value: str) -> list[str] | None:
    """``all`` -> None (every task), else the comma-separated ids."""
    if value.strip() == "all":
        return None
    return [t.strip() for t in value.split(",") if t.strip()]


def _judge_scorer(args: argparse.Namespace, out: Path):
    """The ``--judge`` scorer (None without ``--judge``); its cache lives in ``OUT/judge-cache``."""
    if not args.judge:
        return None
    from emukit.evaluate.judge import JudgeScorer

    return JudgeScorer(args.judge, rubrics=[r.strip() for r in args.judge_rubrics.split(",") if r.strip()],
                       cache_dir=out / "judge-cache", concurrency=args.judge_concurrency, max_retries=args.retries,
                       timeout_s=args.request_timeout)


def _cmd_evaluate_trajectories(args: argparse.Namespace) -> int:
    from emukit.commands.output import make_console, print_error
    from emukit.evaluate.adapters import create_adapter
    from emukit.evaluate.trajectories import (
        evaluate_trajectories,
        read_trajectories,
        write_trajectory_results,
    )

    console = make_console()
    prog = "emukit evaluate --trajectories"
    if args.model is None or args.pairs is not None or args.condition or args.predictions is not None:
        print_error(console, prog, "give --model SPEC (and --judge); --pairs, --condition and --predictions belong "
                                   "to the pair mode")
        return 2
    if not args.judge:
        print_error(console, prog, "give --judge BASE_URL#MODEL: reference-action progress is judged (GUI-CC S_rap)")
        return 2
    out = default_out(args)
    adapter = None
    try:
        trajectories = read_trajectories(args.trajectories, args.trajectory_format, limit=args.limit)
        adapter = create_adapter(args.model, cache_dir=out / "cache", concurrency=1, max_retries=args.retries,
                                 timeout_s=args.request_timeout)

        def progress(run) -> None:
            if not args.quiet:
                console.print(f"[dim]{run.trajectory.id}: {run.prefix}/{len(run.trajectory.actions)} reference "
                              f"steps supported, {run.stop_reason}[/dim]", highlight=False)

        result = evaluate_trajectories(trajectories, adapter=adapter, judge_scorer=_judge_scorer(args, out),
                                       format_name=args.format, render_timeout_s=args.render_timeout,
                                       max_steps=args.max_steps, on_run=progress)
    except EmukitError as exc:
        print_error(console, prog, exc)
        return 1
    finally:
        if adapter is not None:
            adapter.close()
    path = write_trajectory_results(result, out)
    s = result.summary()
    console.print(f"{s['trajectories']} trajectories: reference-action progress "
                  f"{100 * (s['reference_action_progress'] or 0):.1f}% ({s['steps_passed']}/{s['reference_steps']} "
                  f"steps supported); judge: " + (", ".join(f"{k} {v:.3f}" for k, v in s["judge"].items()) or "-"),
                  highlight=False)
    console.print(f"results: {path}", highlight=False)
    return 0


def _cmd_evaluate_tasks(args: argparse.Namespace) -> int:
    from emukit.commands.build import default_data_dir
    from emukit.commands.output import make_console, print_error
    from emukit.evaluate.adapters import create_adapter
    from emukit.evaluate.agents import create_agent
    from emukit.evaluate.tasks import (
        InitialCache,
        TrackRun,
        evaluate_tasks,
        group_table,
        initial_observations,
        task_table,
        write_task_report,
        write_task_results,
    )
    from emukit.commands.options import device_request
    from emukit.tasks.files import load_tasks
    from emukit.tasks.schema import Task

    console = make_console()
    prog = "emukit evaluate --tasks"
    usage = [name for name, given in (("--pairs", args.pairs is not None), ("--condition", args.condition),
                                      ("--predictions", args.predictions is not None)) if given]
    if usage:
        print_error(console, prog, f"{', '.join(usage)} belong to the pair mode; the task mode takes --model")
        return 2
    if args.model is None:
        print_error(console, prog, "give --model SPEC")
        return 2
    ids = _task_ids(args.tasks)
    if ids == []:
        print_error(console, prog, "give --tasks all or one or more comma-separated task ids")
        return 2
    if args.stagnation_k < 1 or (args.max_steps is not None and args.max_steps < 1):
        print_error(console, prog, "--stagnation-k and --max-steps must be at least 1")
        return 2
    tracks = ("reference", "agent") if args.track == "both" else (args.track,)
    out = default_out(args)
    adapter = None
    try:
        tasks = load_tasks(ids=ids, dirs=args.tasks_dir)
        if ids is None:  # every task: those without a reference trajectory (drafts) cannot be rolled out
            skipped = [t.id for t in tasks if not t.provenance.reference]
            tasks = [t for t in tasks if t.provenance.reference]
            if skipped:
                console.print(f"skipped (no reference trajectory): {', '.join(skipped)}", highlight=False)
        if not tasks:
            print_error(console, prog, "no tasks with a reference trajectory on the task search path")
            return 1

        def seen(task: Task, cached: bool) -> None:
            if not args.quiet:
                console.print(f"[dim]{task.id}: initial screen {'from the cache' if cached else 'captured'}[/dim]")

        initial = initial_observations(tasks, InitialCache(out / "initial"), devices=device_request(args),
                                       data_dir=args.data_dir or default_data_dir(), on_task=seen)
        adapter = create_adapter(args.model, cache_dir=out / "cache", concurrency=1, max_retries=args.retries,
                                 timeout_s=args.request_timeout)
        agent = create_agent(args.agent, timeout_s=args.request_timeout) if "agent" in tracks else None

        def progress(run: TrackRun) -> None:
            if not args.quiet:
                console.print(f"[dim]{run.task_id} {run.track}: {run.milestones.reached}/"
                              f"{len(run.milestones.milestones)} milestones, {len(run.steps)} steps, "
                              f"{run.stop_reason}[/dim]", highlight=False)

        result = evaluate_tasks(tasks, initial, adapter=adapter, format_name=args.format, tracks=tracks,
                                agent=agent, stagnation_k=args.stagnation_k, max_steps=args.max_steps,
                                render_timeout_s=args.render_timeout, on_run=progress,
                                judge_scorer=_judge_scorer(args, out))
    except EmukitError as exc:
        print_error(console, prog, exc)
        return 1
    finally:
        if adapter is not None:
            adapter.close()
    results = write_task_results(result, out)
    report = write_task_report(result, out)
    console.print(task_table(result))
    console.print(group_table(result, "category"))
    console.print(group_table(result, "template"))
    console.print(f"{len(tasks)} tasks in {result.seconds:.1f} s", highlight=False)
    console.print(f"results: {results}\nreport:  {report}", highlight=False)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.options import add_device_options

    p = sub.add_parser("evaluate", help="score a world model on strict A/B pairs or on milestone tasks",
                       description="Pairs: build each branch's request, get the model's prediction, render it "
                                   "offline, read the family outcome and score BranchExact / PairCorrect. "
                                   "Tasks (--tasks): roll the model along each task's reference actions and/or "
                                   "let an agent act on its generated screens; score reference-action progress "
                                   "and ordered milestone progress.")
    p.add_argument("--pairs", default=None, help="an export folder (pairs.jsonl) or a store URL")
    p.add_argument("--data-dir", type=Path, default=None,
                   help="the data dir (default $EMUKIT_DATA or ./data): where --out defaults to, the artifact "
                        "root of a non-SQLite store URL and, with --tasks, the embedded virtual device state")
    p.add_argument("--model", default=None,
                   help="openai:BASE_URL#MODEL | http(s)://BASE_URL#MODEL | hf:LOCAL_PATH | ref:copy-current | "
                        "ref:surface")
    p.add_argument("--predictions", type=Path, default=None, help="score predictions made elsewhere (JSONL)")
    p.add_argument("--predictions-model", default=None, help="only lines of this model in --predictions")
    p.add_argument("--condition", default=None,
                   choices=("observation", "raw-history", "oracle-state", "predictive-state"),
                   help="the prediction condition (pair mode; required there)")
    from emukit.evaluate.trajectories.base import formats as trajectory_formats
    from emukit.wm.formats import FORMATS

    p.add_argument("--format", default="code2world", choices=(*FORMATS.names(), *trajectory_formats()),
                   help="request format and rendering viewport (default code2world); with --trajectories, the "
                        "dataset layout may be given here too (then the output format is code2world)")
    p.add_argument("--out", default=None,
                   help="output folder: results.json, report.html, cache/ (default: DATA_DIR/evaluations/"
                        "MODEL_FORMAT_CONDITION, DATA_DIR being --data-dir, $EMUKIT_DATA or ./data)")
    p.add_argument("--estimator", default="baseline",
                   help="predictive-state estimator: baseline, a checkpoint of emukit estimator train (CKPT, "
                        "CKPT:joint, CKPT:specialist) or module.path:ClassName")
    p.add_argument("--fidelity-dinov2", type=Path, default=None, help="local DINOv2 checkpoint folder")
    p.add_argument("--fidelity-siglip", type=Path, default=None, help="local SigLIP checkpoint folder")
    p.add_argument("--judge", default=None, metavar="BASE_URL#MODEL",
                   help="score every predicted screen with a vision-language judge behind an OpenAI-compatible "
                        "endpoint (GUI-CC and GUI-Score rubrics; see docs/evaluator-judge.md)")
    p.add_argument("--judge-rubrics", default="gui-cc-transition,gui-cc-rollout,gui-score",
                   help="comma-separated rubrics (default: all three)")
    p.add_argument("--judge-concurrency", type=int, default=4, help="judge requests in flight")
    p.add_argument("--family", action="append", choices=FAMILIES,
                   help="only these families (repeatable)")
    p.add_argument("--limit", type=int, default=None,
                   help="at most this many pairs (--suites: trajectories per suite and family)")
    p.add_argument("--concurrency", type=int, default=4, help="model requests in flight (HTTP adapters)")
    p.add_argument("--retries", type=int, default=4, help="HTTP retries after the first attempt")
    p.add_argument("--request-timeout", type=float, default=600.0, help="seconds per HTTP request")
    p.add_argument("--render-timeout", type=float, default=None, help="hard per-page render deadline (s)")
    p.add_argument("--quiet", action="store_true", help="no per-pair / per-task progress lines")
    x = p.add_argument_group("trajectory mode (the offline reference-action track on external datasets)")
    x.add_argument("--trajectories", type=Path, default=None, metavar="DIR",
                   help="a locally downloaded dataset folder in its published layout (docs/evaluator-judge.md)")
    x.add_argument("--trajectory-format", default=None, choices=trajectory_formats(),
                   help="the dataset's layout: %(choices)s (default guiodyssey; --format LAYOUT says the same "
                        "when the world model's output format is code2world)")
    x = p.add_argument_group("suite mode (seed 002 Appendix F: the state estimator on the distribution-shift suites)")
    x.add_argument("--suites", type=Path, default=None, metavar="DATA_DIR",
                   help="the data dir holding suites/ (emukit build-pairs --suite NAME): score --estimator's state "
                        "on every suite trajectory (single-trajectory Exact per suite, family, stratum, template)")
    t = p.add_argument_group("task mode")
    t.add_argument("--tasks", default=None, metavar="all|ID[,ID...]",
                   help="evaluate on milestone tasks instead of pairs (see docs/evaluator-tasks.md)")
    t.add_argument("--tasks-dir", type=Path, action="append", default=None, metavar="DIR",
                   help="a task folder of your own, merged with the shipped tasks (repeatable; also "
                        "$EMUKIT_TASKS)")
    t.add_argument("--track", default="reference", choices=("reference", "agent", "both"),
                   help="reference: roll along the reference actions (offline); agent: an agent acts on the "
                        "generated screens (online); default reference")
    t.add_argument("--agent", default="scripted",
                   help="the agent track's agent: scripted (plays the reference) or openai:BASE_URL#MODEL")
    t.add_argument("--device", default=None,
                   help="device for the initial screens (default: the attached one, else an embedded virtual "
                        "device); not needed once they are cached under OUT/initial")
    add_device_options(t)
    t.add_argument("--stagnation-k", type=int, default=3,
                   help="the agent track stops after this many identical generated screens in a row")
    t.add_argument("--max-steps", type=int, default=None,
                   help="cap every rollout at this many steps (default: reference length / step budget)")
    p.set_defaults(func=_cmd_evaluate)
