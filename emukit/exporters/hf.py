"""``emukit export --format hf``: the pairs as Hugging Face ``datasets`` folders that
``datasets.load_from_disk`` opens (docs/pair-format.md, "Hugging Face datasets").

``OUT/hf/pairs``: one row per strict pair; ``OUT/hf/branches``: one row per branch. Each is a ``DatasetDict``
whose splits come from :func:`emukit.exporters.split_rows`. Screenshots are ``Image`` features (the PNG bytes
as recorded); hierarchies are strings; nested records (actions, states, outcomes, provenance) are JSON text,
so every row has the same schema whatever the family. Needs the ``hf`` extra (``datasets``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.exporters import FORMATS, read_artifact, split_rows


def _j(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


PROVENANCE = ("template_hash", "base_snapshot", "entity", "hidden_setup", "roles", "padding", "request_hashes",
              "validation", "built_on")
BRANCH_PROVENANCE = ("state_evidence", "outcome_evidence", "warp", "shared_steps")


def _features(kind: str, ds: Any) -> Any:
    """The schema of one dataset (``ds``: the ``datasets`` module)."""
    Features, Image, Sequence, Value = ds.Features, ds.Image, ds.Sequence, ds.Value  # noqa: N806
    common = {"pair_id": Value("string"), "family": Value("string"), "template": Value("string"),
              "seed": Value("int64"), "params": Value("string"), "screen_size": Sequence(Value("int64")),
              "shared_action": Value("string"), "provenance": Value("string"), "device_kind": Value("string")}
    branch = {"history_screenshots": Sequence(Image()), "history_hierarchies": Sequence(Value("string")),
              "history_actions": Sequence(Value("string")), "next_observation": Image(),
              "next_hierarchy": Value("string"), "state": Value("string"), "outcome": Value("string"),
              "branch_provenance": Value("string")}
    if kind == "branches":
        return Features({**common, "branch": Value("string"), "role": Value("string"),
                         "boundary": Image(), "boundary_hierarchy": Value("string"), **branch})
    return Features({**common, "boundary": Image(), "boundary_hierarchy": Value("string"),
                     **{f"{name}_{k}": v for name in ("A", "B") for k, v in branch.items()}})


def _branch_fields(out: Path, b: dict[str, Any]) -> dict[str, Any]:
    return {
        "history_screenshots": [{"bytes": read_artifact(out, s["observation"]["screenshot"]), "path": None}
                                for s in b["history"]],
        "history_hierarchies": [read_artifact(out, s["observation"]["hierarchy"]).decode() for s in b["history"]],
        "history_actions": [_j(s["action"]) for s in b["history"]],
        "next_observation": {"bytes": read_artifact(out, b["next_observation"]["screenshot"]), "path": None},
        "next_hierarchy": read_artifact(out, b["next_observation"]["hierarchy"]).decode(),
        "state": _j(b["state"]), "outcome": _j(b["outcome"]),
        "branch_provenance": _j({k: b.get(k) for k in BRANCH_PROVENANCE}),
    }


def _common(row: dict[str, Any]) -> dict[str, Any]:
    return {"pair_id": row["pair_id"], "family": row["family"], "template": row["template"], "seed": row["seed"],
            "params": _j(row["params"]), "screen_size": row["screen_size"],
            "shared_action": _j(row["shared_action"]), "provenance": _j({k: row.get(k) for k in PROVENANCE}),
            "device_kind": (row.get("built_on") or {}).get("kind", "unknown")}


def pair_rows(out: Path, rows: list[dict[str, Any]]):
    for row in rows:
        a = row["branches"]["A"]
        yield {**_common(row),
               "boundary": {"bytes": read_artifact(out, a["boundary_observation"]["screenshot"]), "path": None},
               "boundary_hierarchy": read_artifact(out, a["boundary_observation"]["hierarchy"]).decode(),
               **{f"{name}_{k}": v for name in ("A", "B")
                  for k, v in _branch_fields(out, row["branches"][name]).items()}}


def branch_rows(out: Path, rows: list[dict[str, Any]]):
    for row in rows:
        roles = row.get("roles") or {"A": "A", "B": "B"}
        for name in ("A", "B"):
            b = row["branches"][name]
            yield {**_common(row), "branch": name, "role": roles[name],
                   "boundary": {"bytes": read_artifact(out, b["boundary_observation"]["screenshot"]), "path": None},
                   "boundary_hierarchy": read_artifact(out, b["boundary_observation"]["hierarchy"]).decode(),
                   **_branch_fields(out, b)}


@FORMATS.register("hf")
def write(out: Path, rows: list[dict[str, Any]], *, eval_seed: int | None = None) -> dict[str, Any]:
    """Write ``OUT/hf/pairs`` and ``OUT/hf/branches`` from the exported ``rows`` (artifacts under ``out``)."""
    try:
        import datasets as ds
    except ImportError:
        raise ConfigError("--format hf needs the 'datasets' package: pip install 'emukit[hf]'") from None
    splits, dropped = split_rows(rows, eval_seed)
    splits = {k: v for k, v in splits.items() if v}  # an empty split is left out (datasets cannot save one)
    if not splits:
        raise ConfigError("--format hf: no pairs to write")
    written: dict[str, Any] = {"dropped_for_overlap": dropped, "splits": {k: len(v) for k, v in splits.items()}}
    for kind, make in (("pairs", pair_rows), ("branches", branch_rows)):
        features = _features(kind, ds)
        parts = {split: ds.Dataset.from_list(list(make(out, part)), features=features) for split, part in splits.items()}
        target = out / "hf" / kind
        ds.DatasetDict(parts).save_to_disk(str(target))
        written[kind] = str(target)
    return written
