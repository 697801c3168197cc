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

from emukit.families import selected
from emukit.records import BranchRecord, Observation, PairRecord
from emukit.store import Store

SPLIT_CRITERIA = ("record_id", "trajectory_id", "semantic_target", "content_fingerprint", "trajectory_signature")


def _sha(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def link_or_copy(src: Path, dst: Path) -> None:
    """``dst`` (its folder made), a hard link to ``src`` where possible, else a copy; left alone if present."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists():
        try:
            os.link(src, dst)
        except OSError:
            shutil.copyfile(src, dst)


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
            link_or_copy(src, self.out / rel)
            self.copied.add(sha)
        return rel

    def observation(self, obs: Observation) -> dict[str, str]:
        return {"screenshot": self.ref(obs.screenshot, "png"), "hierarchy": self.ref(obs.hierarchy, "xml")}

    def screen_size(self, pair: PairRecord) -> list[int]:
        """The [width, height] of the device the pair was built on: the size of its first branch's boundary
        screenshot (every screenshot of a pair comes from one device)."""
        first = pair.branches[min(pair.branches)]
        return png_size(self.store.artifacts.path(first.boundary_observation.screenshot, "png"))


def png_size(path: Path) -> list[int]:
    """[width, height] from a PNG's header (IHDR, the first chunk), without decoding the image."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG file")
    return [int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")]


def branch_json(branch: BranchRecord, copier: ArtifactCopier) -> dict[str, Any]:
    return {
        "history": [{"observation": copier.observation(s.observation), "action": s.action.canonical()}
                    for s in branch.history],
        "boundary_observation": copier.observation(branch.boundary_observation),
        "state": branch.state,
        "outcome": branch.outcome,
        "next_observation": copier.observation(branch.next_observation),
        "state_evidence": branch.state_evidence,
        "outcome_evidence": branch.outcome_evidence,
        "warp": branch.warp.model_dump(mode="json") if branch.warp else None,
        "shared_steps": [a.canonical() for a in branch.shared_steps],
    }


class _Backfill:
    """The entity and hidden setup of pairs stored before records kept them, from their template, only when
    the template's content hash is still the one that built the pair (else left empty: the evaluator warns)."""

    def __init__(self) -> None:
        self._templates: dict[str, Any] | None = None

    def __call__(self, pair: PairRecord) -> PairRecord:
        if pair.entity:
            return pair
        if self._templates is None:
            from emukit.errors import ConfigError
            from emukit.templates.loader import load_templates

            try:
                self._templates = {t.name: t for t in load_templates(variants=True)}
            except ConfigError:
                self._templates = {}
        template = self._templates.get(pair.template)
        if template is None or template.content_hash() != pair.template_hash:
            return pair
        from emukit.builder.pair import PairContext, pair_entity

        ctx = PairContext(template, pair.params, pair.seed, 0, pair.attempt)
        return pair.model_copy(update={"entity": pair_entity(ctx), "hidden_setup": ctx.sub(template.setup)})


def pair_json(pair: PairRecord, copier: ArtifactCopier) -> dict[str, Any]:
    """One line of ``pairs.jsonl`` (docs/pair-format.md)."""
    return {
        "pair_id": pair.pair_id, "family": pair.family, "template": pair.template, "params": pair.params,
        "template_hash": pair.template_hash,
        "base_snapshot": {"name": pair.base_snapshot, "fingerprint": pair.base_fingerprint},
        "entity": pair.entity, "hidden_setup": pair.hidden_setup, "roles": pair.roles,
        "padding": pair.padding,
        "seed": pair.seed, "screen_size": copier.screen_size(pair), "shared_action": pair.shared_action.canonical(),
        "request_hashes": pair.request_hashes,
        "branches": {name: branch_json(br, copier) for name, br in sorted(pair.branches.items())},
        "validation": pair.validation.model_dump(),
        "built_on": pair.built_on.model_dump(mode="json"),
    }


@dataclass
class ExportSummary:
    out: Path
    pairs: int
    artifacts: int
    files: list[str]


def export_pairs(store: Store, out: Path, *, family: str | None = None, fmt: str = "jsonl",
                 seed: int | None = None, eval_seed: int | None = None, kinds: tuple[str, ...] = (),
                 app_builds: tuple[tuple[str, int], ...] = ()) -> ExportSummary:
    """Write every stored pair (optionally one family / seed, built on one of ``kinds`` of device, with every
    ``app_builds`` (package, versionCode)) and its artifacts into ``out``; the ``hf`` and ``episodes``
    formats (:mod:`emukit.exporters`) are written beside ``pairs.jsonl`` from its rows, split by ``eval_seed``
    when given. Every row carries the pair's ``built_on``."""
    from emukit.exporters import FORMATS, writer

    if fmt not in ("jsonl", "parquet", *FORMATS):
        raise ValueError(f"unknown export format {fmt!r} (jsonl, parquet, {', '.join(FORMATS)})")
    out.mkdir(parents=True, exist_ok=True)
    copier = ArtifactCopier(store, out)
    backfill = _Backfill()
    rows = [pair_json(backfill(p), copier)
            for p in store.pairs(selected(family), kinds=kinds, app_builds=app_builds)
            if seed is None or p.seed == seed]
    rows.sort(key=lambda r: r["pair_id"])
    files = []
    if fmt == "jsonl" or fmt in FORMATS:
        write_jsonl(out / "pairs.jsonl", rows)
        files.append("pairs.jsonl")
        if fmt in FORMATS:
            written = writer(fmt)(out, rows, eval_seed=eval_seed)
            files.append(f"{fmt}/: {json.dumps(written, sort_keys=True)}")
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        flat = [{k: json.dumps(v, sort_keys=True) if isinstance(v, dict | list) else v for k, v in r.items()}
                for r in rows]  # nested fields as JSON text, one column each
        pq.write_table(pa.Table.from_pylist(flat), out / "pairs.parquet")
        files.append("pairs.parquet")
    return ExportSummary(out, len(rows), len(copier.copied), files)


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """``rows`` as JSON lines (sorted keys), written beside ``path`` and renamed into place."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as fh:
        fh.writelines(json.dumps(row, sort_keys=True) + "\n" for row in rows)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------- predictive-state data
def example_keys(*, family: str, template: str, seed: int, pair_id: str, branch: str, params: dict[str, Any],
                 state: dict[str, Any], history: list[tuple[dict[str, str], dict[str, Any]]],
                 final: dict[str, str]) -> dict[str, str]:
    """The five split keys of one branch example (seed 002 Appendix C.2). ``history`` is
    ``[(observation, canonical action), ...]`` and ``final`` the boundary observation, observations as
    ``{"screenshot": sha256, "hierarchy": sha256}``. Pure: the same keys come from a stored record
    (:func:`state_examples`) and from an exported JSON row (:func:`row_examples`)."""
    actions = [a for _, a in history]
    visible = {"history": [{"observation": {"screenshot": o["screenshot"], "hierarchy": o["hierarchy"]},
                            "action": a} for o, a in history],
               "final": {"screenshot": final["screenshot"], "hierarchy": final["hierarchy"]}}
    return {
        "record_id": f"{pair_id}/{branch}",
        "trajectory_id": f"{template}/{seed}/{pair_id}/{branch}",
        "semantic_target": _sha([family, template, params, state]),
        "content_fingerprint": _sha(visible),
        "trajectory_signature": _sha([family, actions]),
    }


def state_examples(pairs: Iterable[PairRecord]) -> Iterator[dict[str, Any]]:
    """One example per branch: model-visible history up to the boundary -> canonical state, with the five
    split keys (artifact references are sha256 here; exported files use paths)."""
    for pair in pairs:
        for name, br in sorted(pair.branches.items()):
            history = [(s.observation.model_dump(), s.action.canonical()) for s in br.history]
            yield {
                "example_id": f"{pair.pair_id}/{name}", "family": pair.family, "template": pair.template,
                "pair_id": pair.pair_id, "branch_name": name, "seed": pair.seed, "params": pair.params,
                "entity": pair.entity, "branch": br, "target": br.state,
                "keys": example_keys(family=pair.family, template=pair.template, seed=pair.seed,
                                     pair_id=pair.pair_id, branch=name, params=pair.params, state=br.state,
                                     history=history, final=br.boundary_observation.model_dump()),
            }


def sha_of_ref(ref: str | dict[str, str]) -> Any:
    """The sha256 an exported artifact path (``artifacts/ab/cd/<sha>.png``) names; observations map to
    ``{"screenshot": sha, "hierarchy": sha}``."""
    if isinstance(ref, dict):
        return {k: sha_of_ref(v) for k, v in ref.items()}
    return ref.rsplit("/", 1)[-1].split(".", 1)[0]


def row_examples(row: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Split-key examples of one exported row: a ``pairs.jsonl`` line gives one per branch, a
    ``state_train.jsonl`` / ``state_val.jsonl`` line gives one. Keys are recomputed from the row's content;
    a key the row lacks the fields for (rows written before ``pair_id``/``seed``/``params``/``branch`` were
    exported) falls back to the ``keys`` the row carries."""
    if "branches" in row:  # a strict pair
        branches = row["branches"]
        if isinstance(branches, str):  # a parquet row
            branches = json.loads(branches)
        params = json.loads(row["params"]) if isinstance(row.get("params"), str) else row.get("params", {})
        for name, br in sorted(branches.items()):
            history = [(sha_of_ref(s["observation"]), s["action"]) for s in br["history"]]
            yield {"example_id": f"{row['pair_id']}/{name}",
                   "keys": example_keys(family=row["family"], template=row["template"], seed=row["seed"],
                                        pair_id=row["pair_id"], branch=name, params=params, state=br["state"],
                                        history=history, final=sha_of_ref(br["boundary_observation"]))}
        return
    stored = row.get("keys", {})
    history = [(sha_of_ref(s["observation"]), s["action"]) for s in row["history"]]
    final = sha_of_ref(row["final_observation"])
    if all(k in row for k in ("pair_id", "seed", "branch", "params")):
        keys = example_keys(family=row["family"], template=row["template"], seed=row["seed"],
                            pair_id=row["pair_id"], branch=row["branch"], params=row["params"],
                            state=row["target"], history=history, final=final)
    else:
        keys = dict(stored)
        partial = example_keys(family=row["family"], template=row["template"], seed=0, pair_id="", branch="",
                               params={}, state=row["target"], history=history, final=final)
        keys["content_fingerprint"] = partial["content_fingerprint"]
        keys["trajectory_signature"] = partial["trajectory_signature"]
        keys.setdefault("record_id", row["example_id"])
        keys.setdefault("trajectory_id", f"{row['template']}/{row.get('seed', '?')}/{row['example_id']}")
        keys.setdefault("semantic_target", _sha([row["family"], row["template"], row.get("params", {}),
                                                 row["target"]]))
    yield {"example_id": row["example_id"], "keys": keys}


def split_keys(examples: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {c: set() for c in SPLIT_CRITERIA}
    for ex in examples:
        for c in SPLIT_CRITERIA:
            keys[c].add(ex["keys"][c])
    return keys


def state_training_row(ex: dict[str, Any], copier: ArtifactCopier) -> dict[str, Any]:
    """A ``state_train.jsonl`` row of one :func:`state_examples` example, its artifacts copied by ``copier``."""
    br: BranchRecord = ex["branch"]
    return {"example_id": ex["example_id"], "family": ex["family"], "template": ex["template"],
            "pair_id": ex["pair_id"], "branch": ex["branch_name"], "seed": ex["seed"], "params": ex["params"],
            "entity": ex["entity"],
            "history": [{"observation": copier.observation(s.observation), "action": s.action.canonical()}
                        for s in br.history],
            "final_observation": copier.observation(br.boundary_observation), "target": ex["target"],
            "keys": ex["keys"]}


def in_val(row: dict[str, Any], val_fraction: float) -> bool:
    """Whether a training row goes to the validation split: by a hash of its trajectory, so a trajectory's
    examples stay on one side."""
    bucket = int(hashlib.sha256(row["keys"]["trajectory_id"].encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return bucket < val_fraction


def export_state_training(store: Store, out: Path, *, eval_seed: int, val_fraction: float = 0.1,
                          family: str | None = None) -> dict[str, Any]:
    """Training pool = branches of pairs built with other seeds, minus anything that collides with the
    evaluation pairs (``eval_seed``) on any of the five criteria; split train/val by trajectory."""
    fam = selected(family)
    everything = list(store.pairs(fam))
    eval_keys = split_keys(state_examples(p for p in everything if p.seed == eval_seed))
    copier = ArtifactCopier(store, out)
    train, val, dropped = [], [], 0
    for ex in state_examples(p for p in everything if p.seed != eval_seed):
        if any(ex["keys"][c] in eval_keys[c] for c in SPLIT_CRITERIA):
            dropped += 1
            continue
        row = state_training_row(ex, copier)
        (val if in_val(row, val_fraction) else train).append(row)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "state_train.jsonl", train)
    write_jsonl(out / "state_val.jsonl", val)
    return {"train": len(train), "val": len(val), "dropped_for_overlap": dropped, "eval_seed": eval_seed}
