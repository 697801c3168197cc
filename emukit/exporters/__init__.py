"""Export formats built on an exported ``pairs.jsonl`` and its artifacts (docs/pair-format.md): each is one
module with a ``write(out, rows, *, eval_seed)`` function registered in :data:`FORMATS` with
``@FORMATS.register(name)``; adding one is one new module here (or in your own package, named by an
``emukit.export_formats`` entry point), and ``emukit export --format`` offers it.

* ``hf`` (:mod:`emukit.exporters.hf`): Hugging Face ``datasets`` folders, one row per pair and per branch.
* ``episodes`` (:mod:`emukit.exporters.episodes`): AndroidWorld-style episode files, one per branch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from emukit.plugins import Registry

Writer = Callable[..., dict[str, Any]]
#: export format name -> its ``write`` function (emukit/plugins.py)
FORMATS: Registry[Writer] = Registry("export format", "emukit.exporters", "emukit.export_formats")


def writer(fmt: str) -> Writer:
    """The ``write`` function of export format ``fmt``."""
    return FORMATS.get(fmt)


def split_rows(rows: list[dict[str, Any]], eval_seed: int | None) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """``({"test": ..., ["train": ...]}, dropped)``. Without ``eval_seed`` every pair is in ``test`` (the
    benchmark). With it, ``test`` holds that seed's pairs and ``train`` the other seeds' pairs minus any that
    shares a key with ``test`` on one of the five criteria of seed 002 Appendix C.2 (what ``emukit audit split``
    checks), those counted in ``dropped``."""
    from emukit.export import SPLIT_CRITERIA, row_examples, split_keys

    if eval_seed is None:
        return {"test": rows}, 0
    test = [r for r in rows if r["seed"] == eval_seed]
    keys = split_keys(ex for r in test for ex in row_examples(r))
    train, dropped = [], 0
    for r in rows:
        if r["seed"] == eval_seed:
            continue
        if any(ex["keys"][c] in keys[c] for ex in row_examples(r) for c in SPLIT_CRITERIA):
            dropped += 1
            continue
        train.append(r)
    return {"train": train, "test": test}, dropped


def read_artifact(out: Path, rel: str) -> bytes:
    return (out / rel).read_bytes()
