"""Measurement: how long the learned estimator's inputs are, in tokens, per family and per suite, against the
configured ``model.max_length`` (what the cap is sized against; docs/estimator.md).

    python tools/estimator_lengths.py --export STATE_EXPORT [--suites DATA_DIR] [--config FILE]

The tokenizer is trained on the export as ``emukit estimator train`` trains it (its ``model.vocab_size``; a
``base_model`` config uses the base model's tokenizer). Each input is serialised as the estimator serialises it
(training rows of the export; suite rows as ``emukit estimator eval`` gives them to a checkpoint) and encoded
with the same budget as training and inference (``max_length`` less the target reserve). Prints, per family,
the inputs, min / median / p95 / max whole length in tokens, and how many are cut to fit, with the steps left
out; nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emukit.estimator.config import load_config  # noqa: E402
from emukit.estimator.data import load_examples, serialize_steps  # noqa: E402
from emukit.estimator.train import TARGET_RESERVE  # noqa: E402
from emukit.estimator.model import Encoded, Tokenizer, encode, length_summary  # noqa: E402


def _print(title: str, items: list[Encoded], max_length: int) -> None:
    print(f"{title} (max_length {max_length})")
    print(f"  {'family':<11} {'inputs':>6} {'min':>5} {'median':>6} {'p95':>5} {'max':>5} {'cut':>4} "
          f"{'steps left out':>14}")
    for family, s in length_summary(items).items():
        print(f"  {family:<11} {s['inputs']:>6} {s['min']:>5} {s['median']:>6} {s['p95']:>5} {s['max']:>5} "
              f"{s['truncated']:>4} {s['steps_left_out']:>14}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--export", type=Path, required=True, help="a state-training export")
    ap.add_argument("--suites", type=Path, help="a data dir holding suites/<suite>/<family>.jsonl")
    ap.add_argument("--config", type=Path, help="an estimator config (default: the defaults)")
    args = ap.parse_args()
    cfg = load_config(args.config)
    train, _ = load_examples(args.export)
    if cfg.base_model is not None:
        tok = Tokenizer.pretrained_from(Path(cfg.base_model))
    else:
        tok = Tokenizer.train([e.input for e in train] + [e.target for e in train], cfg.model.vocab_size)
    cap = cfg.model.max_length
    _print(f"training rows of {args.export}", [encode(tok, e.example_id, e.family, e.input, e.target, cap,
                                                      TARGET_RESERVE) for e in train], cap)
    if args.suites is not None:
        from emukit.estimator.suites import load_suites

        for suite, examples in load_suites(args.suites).items():
            items = []
            for e in examples:
                prompt = serialize_steps(e.family, e.history, e.final_xml, e.task)  # as a checkpoint is given it
                items.append(encode(tok, e.example_id, e.family, prompt, None, cap, TARGET_RESERVE))
            if items:
                _print(f"suite {suite}", items, cap)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
