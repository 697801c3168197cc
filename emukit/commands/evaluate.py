"""``emukit evaluate``: score a world model on strict pairs (see docs/evaluator.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emukit.errors import EmukitError


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from emukit.commands.output import make_console
    from emukit.evaluate.adapters import create_adapter
    from emukit.evaluate.estimator import load_estimator
    from emukit.evaluate.metrics import FidelityScorer
    from emukit.evaluate.pairs import load_pairs
    from emukit.evaluate.predictions import PredictionsFile
    from emukit.evaluate.report import (
        counts_line,
        metrics_table,
        write_report,
        write_results,
    )
    from emukit.evaluate.run import evaluate

    console = make_console()
    if (args.model is None) == (args.predictions is None):
        print("emukit evaluate: give exactly one of --model SPEC or --predictions FILE", file=sys.stderr)
        return 2
    out = Path(args.out)
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
                          render_timeout_s=args.render_timeout, on_pair=progress)
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
    console.print(f"results: {results}\nreport:  {report}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="score a world model on strict A/B pairs",
                       description="Build each branch's request, get the model's prediction, render it offline, "
                                   "read the family outcome and score BranchExact / PairCorrect.")
    p.add_argument("--pairs", required=True, help="an export folder (pairs.jsonl) or a store URL")
    p.add_argument("--data-dir", type=Path, default=None, help="artifact root of a non-SQLite store URL")
    p.add_argument("--model", default=None,
                   help="openai:BASE_URL#MODEL | http(s)://BASE_URL#MODEL | hf:LOCAL_PATH | ref:copy-current | "
                        "ref:surface")
    p.add_argument("--predictions", type=Path, default=None, help="score predictions made elsewhere (JSONL)")
    p.add_argument("--predictions-model", default=None, help="only lines of this model in --predictions")
    p.add_argument("--condition", required=True,
                   choices=("observation", "raw-history", "oracle-state", "predictive-state"))
    p.add_argument("--format", default="code2world", choices=("code2world", "gworld"),
                   help="request format and rendering viewport (default code2world)")
    p.add_argument("--out", default="eval-out", help="output folder (results.json, report.html, cache/)")
    p.add_argument("--estimator", default="baseline",
                   help="predictive-state estimator: baseline or module.path:ClassName")
    p.add_argument("--fidelity-dinov2", type=Path, default=None, help="local DINOv2 checkpoint folder")
    p.add_argument("--fidelity-siglip", type=Path, default=None, help="local SigLIP checkpoint folder")
    p.add_argument("--family", action="append", choices=("persistent", "clipboard", "ordered", "temporal"),
                   help="only these families (repeatable)")
    p.add_argument("--limit", type=int, default=None, help="at most this many pairs")
    p.add_argument("--concurrency", type=int, default=4, help="model requests in flight (HTTP adapters)")
    p.add_argument("--retries", type=int, default=4, help="HTTP retries after the first attempt")
    p.add_argument("--request-timeout", type=float, default=600.0, help="seconds per HTTP request")
    p.add_argument("--render-timeout", type=float, default=None, help="hard per-page render deadline (s)")
    p.add_argument("--quiet", action="store_true", help="no per-pair progress lines")
    p.set_defaults(func=_cmd_evaluate)
