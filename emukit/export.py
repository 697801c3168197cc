"""Export stored pairs: ``pairs.jsonl`` (or ``pairs.parquet``) plus the artifacts they reference, and the
predictive-state training format (history -> canonical state) with train/val splits disjoint from the
evaluation pairs by the five criteria of seed 002 Appendix C.2. See docs/pair-format.md."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from emukit.records import BranchRecord, Observation, PairRecord
from emukit.store import Store

SCREEN_SIZE = [1080, 2400]
SPLIT_CRITERIA = ("record_id", "trajectory_id", "semantic_target", "content_fingerprint", "trajectory_signature")


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ArtifactCopier:
    """Copies (hard-links when possible) referenced artifacts into ``out/artifacts``; returns relative paths."""

    def __init__(self, store: Store, out: Path) -> None:
        self.store = store
        self.out = out
        self.copied: set[str] = set()

    def ref(self, sha: str, ext: str) -> str:
        rel = f"artifacts/{sha[:2]}/{sha[2:4]}/{sha}.{ext}"
        if sha not in self.copied:
            src = self.store.artifacts.path(sha, ext)
            dst = self.out / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not dst.exists():
                try:
                    os.link(src, dst)
                except OSError:
                    shutil.copyfile(src, dst)
            self.copied.add(sha)
        return rel

    def observation(self, obs: Observation) -> dict[str, str]:
        return {"screenshot": self.ref(obs.screenshot, "png"), "hierarchy": self.ref(obs.hierarchy, "xml")}


def branch_json(branch: BranchRecord, copier: ArtifactCopier) -> dict[str, Any]:
    return {
        "history": [{"observation": copier.observation(s.observation), "action": s.action.canonical()}
                    for s in branch.history],
        "boundary_observation": copier.observation(branch.boundary_observation),
        "state": branch.state,
        "outcome": branch.outcome,
        "next_observation": copier.observation(branch.next_observation),
    }


def pair_json(pair: PairRecord, copier: ArtifactCopier) -> dict[str, Any]:
    """One line of ``pairs.jsonl`` (docs/pair-format.md)."""
    return {
        "pair_id": pair.pair_id, "family": pair.family, "template": pair.template, "params": pair.params,
        "seed": pair.seed, "screen_size": SCREEN_SIZE, "shared_action": pair.shared_action.canonical(),
        "request_hashes": pair.request_hashes,
        "branches": {name: branch_json(br, copier) for name, br in sorted(pair.branches.items())},
        "validation": pair.validation.model_dump(),
    }


@dataclass
class ExportSummary:
    out: Path
    pairs: int
    artifacts: int
    files: list[str]


def export_pairs(store: Store, out: Path, *, family: str | None = None, fmt: str = "jsonl",
                 seed: int | None = None) -> ExportSummary:
    """Write every stored pair (optionally one family / seed) and its artifacts into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    copier = ArtifactCopier(store, out)
    rows = [pair_json(p, copier) for p in store.pairs(None if family in (None, "all") else family)
            if seed is None or p.seed == seed]
    rows.sort(key=lambda r: r["pair_id"])
    files = []
    if fmt == "jsonl":
        _write_jsonl(out / "pairs.jsonl", rows)
        files.append("pairs.jsonl")
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        flat = [{**{k: v for k, v in r.items() if k not in ("params", "shared_action", "request_hashes",
                                                            "branches", "validation", "screen_size")},
                 **{k: json.dumps(r[k], sort_keys=True) for k in ("params", "shared_action", "request_hashes",
                                                                   "branches", "validation", "screen_size")}}
                for r in rows]
        pq.write_table(pa.Table.from_pylist(flat), out / "pairs.parquet")
        files.append("pairs.parquet")
    else:
        raise ValueError(f"unknown export format {fmt!r} (jsonl, parquet)")
    return ExportSummary(out, len(rows), len(copier.copied), files)


def _write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as fh:
        for row in rows:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------- predictive-state data
def state_examples(pairs: Iterable[PairRecord]) -> Iterator[dict[str, Any]]:
    """One example per branch: model-visible history up to the boundary -> canonical state, with the five
    split keys (artifact references are sha256 here; exported files use paths)."""
    for pair in pairs:
        for name, br in sorted(pair.branches.items()):
            actions = [s.action.canonical() for s in br.history]
            visible = {"history": [{"observation": s.observation.model_dump(), "action": a}
                                   for s, a in zip(br.history, actions, strict=True)],
                       "final": br.boundary_observation.model_dump()}
            yield {
                "example_id": f"{pair.pair_id}/{name}", "family": pair.family, "template": pair.template,
                "branch": br, "target": br.state,
                "keys": {
                    "record_id": f"{pair.pair_id}/{name}",
                    "trajectory_id": f"{pair.template}/{pair.seed}/{pair.pair_id}/{name}",
                    "semantic_target": _sha([pair.family, pair.template, pair.params, br.state]),
                    "content_fingerprint": _sha(visible),
                    "trajectory_signature": _sha([pair.family, actions]),
                },
            }


def split_keys(examples: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {c: set() for c in SPLIT_CRITERIA}
    for ex in examples:
        for c in SPLIT_CRITERIA:
            keys[c].add(ex["keys"][c])
    return keys


def export_state_training(store: Store, out: Path, *, eval_seed: int, val_fraction: float = 0.1,
                          family: str | None = None) -> dict[str, Any]:
    """Training pool = branches of pairs built with other seeds, minus anything that collides with the
    evaluation pairs (``eval_seed``) on any of the five criteria; split train/val by trajectory."""
    fam = None if family in (None, "all") else family
    everything = list(store.pairs(fam))
    eval_keys = split_keys(state_examples(p for p in everything if p.seed == eval_seed))
    copier = ArtifactCopier(store, out)
    train, val, dropped = [], [], 0
    for ex in state_examples(p for p in everything if p.seed != eval_seed):
        if any(ex["keys"][c] in eval_keys[c] for c in SPLIT_CRITERIA):
            dropped += 1
            continue
        br: BranchRecord = ex["branch"]
        row = {"example_id": ex["example_id"], "family": ex["family"], "template": ex["template"],
               "history": [{"observation": copier.observation(s.observation), "action": s.action.canonical()}
                           for s in br.history],
               "final_observation": copier.observation(br.boundary_observation), "target": ex["target"],
               "keys": ex["keys"]}
        bucket = int(hashlib.sha256(ex["keys"]["trajectory_id"].encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        (val if bucket < val_fraction else train).append(row)
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "state_train.jsonl", train)
    _write_jsonl(out / "state_val.jsonl", val)
    return {"train": len(train), "val": len(val), "dropped_for_overlap": dropped, "eval_seed": eval_seed}
