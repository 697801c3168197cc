"""A training set at scale for the learned estimator: ``emukit estimator data``.

One command builds, on seeds disjoint from the evaluation's, strict pairs of every shipped template (each
branch one example) and the d-stress and interference suites (each trajectory one example), and writes them
as one state-training export (``state_train.jsonl`` / ``state_val.jsonl`` and their artifacts, the format
``emukit export --format state-training`` writes, so ``emukit estimator train --export`` reads it):

* **Disjoint from the evaluation.** ``--eval`` names the evaluation side (an export of the held-out pairs, a
  suite folder, a state-training export): a training seed any of its rows was built with is refused, and a
  training example that shares any of the five keys of seed 002 Appendix C.2 with it is dropped (counted);
  the split audit (:func:`emukit.audit.split.audit_split`) is then run on the written export against it and
  must pass.
* **Sizes.** ``branches`` examples in all: a ``suite_share`` of them from each suite (per family), the rest
  strict pairs (two branches each, spread evenly over every template of each family).
* **Renaming** (``rename``): each row carries a map of the names it drew from its template's lists to fresh
  names of the same shape (:mod:`emukit.estimator.rename`), applied whenever the row is read.
* A report, ``data.json``: examples per source and family, what was dropped, the seconds of each stage and
  the split audit's counts.
"""

from __future__ import annotations

import functools
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from emukit.errors import ConfigError
from emukit.families import FAMILIES, suite_dir
from emukit.jsonl import read_objects

if TYPE_CHECKING:
    from emukit.templates.schema import Template
    from emukit.workers import DeviceRequest

#: the suites a training set draws trajectories from (cross-app is an evaluation of routes, not built here)
TRAINING_SUITES = ("d-stress", "interference")
REPORT = "data.json"
#: rounds of extra pairs built to make up for the examples dropped for sharing a key with the evaluation
TOP_UP_ROUNDS = 3


@dataclass(frozen=True)
class DataPlan:
    """How many pairs per family and how many trajectories per suite and family a training set builds."""

    pairs_per_family: int
    suite_per_family: int

    @property
    def branches(self) -> int:
        families = len(FAMILIES)
        return 2 * self.pairs_per_family * families + len(TRAINING_SUITES) * self.suite_per_family * families


def plan(branches: int, suite_share: float) -> DataPlan:
    """At least ``branches`` examples: ``suite_share`` of them from each training suite, the rest pairs."""
    if branches < 16:
        raise ConfigError(f"--branches must be at least 16, got {branches}")
    if not 0.0 <= suite_share <= 0.45:
        raise ConfigError(f"--suite-share must be between 0 and 0.45 (each of {len(TRAINING_SUITES)} suites), "
                          f"got {suite_share}")
    families = len(FAMILIES)
    suite = math.ceil(branches * suite_share / families)
    left = branches - len(TRAINING_SUITES) * suite * families
    return DataPlan(pairs_per_family=max(1, math.ceil(left / (2 * families))), suite_per_family=suite)


@dataclass
class DataOptions:
    """What ``emukit estimator data`` builds (see the module docstring)."""

    out: Path
    eval: Path
    branches: int = 4000
    suite_share: float = 0.2
    seed: int = 100
    rename: bool = False
    val_fraction: float = 0.1
    devices: DeviceRequest | None = None  # default: what emukit build-pairs starts
    adb_port: int = 5037


@dataclass
class DataReport:
    plan: DataPlan
    seconds: dict[str, float] = field(default_factory=dict)
    examples: dict[str, dict[str, int]] = field(default_factory=dict)  # source -> family -> written
    dropped: dict[str, int] = field(default_factory=dict)  # source -> dropped for sharing a key with eval
    train: int = 0
    val: int = 0
    split: dict[str, Any] = field(default_factory=dict)
    top_up_pairs_per_family: int | None = None  # pairs per family after the top-up, when one was needed

    def as_json(self, options: DataOptions) -> dict[str, Any]:
        return {"branches_wanted": options.branches, "plan": {"pairs_per_family": self.plan.pairs_per_family,
                                                               "suite_per_family": self.plan.suite_per_family},
                "seed": options.seed, "rename": options.rename, "eval": str(options.eval),
                "examples": self.examples, "dropped_for_overlap": self.dropped, "train": self.train,
                "val": self.val, "seconds": self.seconds, "split_audit": self.split,
                "top_up_pairs_per_family": self.top_up_pairs_per_family}


def eval_seeds(eval_side: Path) -> set[int]:
    """Every ``seed`` the rows of the evaluation side were built with."""
    from emukit.audit.split import read_rows, resolve_side

    return {int(row["seed"]) for path in resolve_side(eval_side) for row in read_rows(path)
            if isinstance(row.get("seed"), int)}


def build_training_set(options: DataOptions, *,
                       on_stage: Callable[[str], None] = lambda stage: None) -> DataReport:
    """Build, convert, check (see the module docstring); ConfigError for a seed of the evaluation, a build that
    falls short, or a split audit that fails."""
    from emukit.audit.split import audit_split, side_keys
    from emukit.export import write_jsonl

    out = Path(options.out)
    if (out / "state_train.jsonl").exists():
        raise ConfigError(f"{out} already holds a training set (state_train.jsonl); choose another --out")
    seeds = eval_seeds(options.eval)
    if options.seed in seeds:
        raise ConfigError(f"--seed {options.seed} is a seed of the evaluation rows in {options.eval} (their seeds: "
                          f"{', '.join(map(str, sorted(seeds)))}); choose another")
    layout = plan(options.branches, options.suite_share)
    report = DataReport(layout)
    data_dir = out / "build"
    t0 = time.monotonic()
    on_stage(f"pairs: {layout.pairs_per_family} per family, seed {options.seed}")
    _build_pairs(options, data_dir, layout.pairs_per_family)
    report.seconds["pairs"] = round(time.monotonic() - t0, 1)
    for suite in TRAINING_SUITES:
        if not layout.suite_per_family:
            continue
        t0 = time.monotonic()
        on_stage(f"{suite}: {layout.suite_per_family} trajectories per family, seed {options.seed}")
        _build_suite(options, data_dir, suite, layout.suite_per_family)
        report.seconds[suite] = round(time.monotonic() - t0, 1)

    t0 = time.monotonic()
    on_stage("export")
    eval_keys = side_keys(Path(options.eval)).keys
    per_family = layout.pairs_per_family
    train, val = _convert(options, data_dir, out, eval_keys, report)
    for _ in range(TOP_UP_ROUNDS):  # replace what the overlap with the evaluation dropped, with more pairs
        short = options.branches - len(train) - len(val)
        if short <= 0:
            break
        per_family += math.ceil(short / (2 * len(FAMILIES)))
        report.seconds["export"] = report.seconds.get("export", 0.0) + round(time.monotonic() - t0, 1)
        t0 = time.monotonic()
        on_stage(f"top-up: {short} examples short after the overlap drop; pairs: {per_family} per family")
        _build_pairs(options, data_dir, per_family)
        report.seconds["top_up"] = round(report.seconds.get("top_up", 0.0) + time.monotonic() - t0, 1)
        report.top_up_pairs_per_family = per_family
        t0 = time.monotonic()
        train, val = _convert(options, data_dir, out, eval_keys, report)
    write_jsonl(out / "state_train.jsonl", train)
    write_jsonl(out / "state_val.jsonl", val)
    report.train, report.val = len(train), len(val)
    report.seconds["export"] = round(report.seconds.get("export", 0.0) + time.monotonic() - t0, 1)

    t0 = time.monotonic()
    on_stage("split audit")
    audit = audit_split(out, Path(options.eval))
    report.split = {"ok": audit.ok, "train_examples": audit.train.examples, "eval_examples": audit.eval.examples,
                    "shared": {r.criterion: len(r.shared) for r in audit.results}}
    report.seconds["split_audit"] = round(time.monotonic() - t0, 1)
    (out / REPORT).write_text(json.dumps(report.as_json(options), indent=2, sort_keys=True) + "\n")
    if not audit.ok:
        raise ConfigError(f"{out}: the split audit against {options.eval} failed on {', '.join(audit.failed())}")
    if report.train + report.val < options.branches:
        raise ConfigError(f"{out}: {report.train + report.val} examples written, {options.branches} wanted, after "
                          f"{TOP_UP_ROUNDS} top-ups replacing the examples that share a key with {options.eval} "
                          f"(dropped: {report.dropped}); the set is written, {REPORT} says what was built")
    return report


def _convert(options: DataOptions, data_dir: Path, out: Path, eval_keys: Mapping[str, set[str]],
             report: DataReport) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every built branch and trajectory as a state-training row, split into (train, val); one that shares a
    key with the evaluation side is dropped. Fills ``report.examples`` and ``report.dropped`` afresh."""
    from emukit.export import SPLIT_CRITERIA, in_val

    report.examples, report.dropped = {}, {}
    train: list[dict[str, Any]] = []
    val: list[dict[str, Any]] = []
    for source, row in _rows(data_dir, out):
        if any(row["keys"][c] in eval_keys[c] for c in SPLIT_CRITERIA):
            report.dropped[source] = report.dropped.get(source, 0) + 1
            continue
        if options.rename:
            row["rename"] = _rename(row)
        by_family = report.examples.setdefault(source, {})
        by_family[row["family"]] = by_family.get(row["family"], 0) + 1
        (val if in_val(row, options.val_fraction) else train).append(row)
    return train, val


# -- building -------------------------------------------------------------------------------------------
def _devices(options: DataOptions) -> DeviceRequest:
    from emukit.workers import DeviceRequest

    return options.devices if options.devices is not None else DeviceRequest()


def _build_pairs(options: DataOptions, data_dir: Path, per_family: int) -> None:
    from emukit.builder.run import BuildOptions, build_pairs
    from emukit.templates import load_templates

    runner = build_pairs(BuildOptions(templates=load_templates(), count_per_family=per_family, seed=options.seed,
                                      data_dir=data_dir, devices=_devices(options), adb_port=options.adb_port))
    if runner.total_done < runner.total_wanted:
        raise ConfigError(f"the pair build stored {runner.total_done} of {runner.total_wanted} pairs "
                          f"({'; '.join(runner.errors[:3]) or 'see the build log'}); run the command again to "
                          "resume it")


def _build_suite(options: DataOptions, data_dir: Path, suite: str, per_family: int) -> None:
    from emukit.builder.stress import SuiteOptions, SuiteRunner
    from emukit.templates import load_templates

    runner = SuiteRunner(SuiteOptions(suite=suite, templates=load_templates(), count_per_family=per_family,
                                      seed=options.seed, data_dir=data_dir, devices=_devices(options),
                                      adb_port=options.adb_port))
    runner.run()
    if not runner.complete:
        raise ConfigError(f"the {suite} suite did not finish ({'; '.join((runner.failed + runner.errors)[:3])}); "
                          "run the command again to resume it")


# -- converting -----------------------------------------------------------------------------------------
def _rows(data_dir: Path, out: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(source, state-training row)`` for every branch of the stored pairs and every suite trajectory, their
    artifacts linked (or copied) under ``out/artifacts``."""
    from emukit.export import ArtifactCopier, state_examples, state_training_row
    from emukit.store import Store

    with Store(None, data_dir=data_dir) as store:
        copier = ArtifactCopier(store, out)
        for ex in state_examples(store.pairs()):
            yield "pairs", state_training_row(ex, copier)
    for suite in TRAINING_SUITES:
        yield from ((suite, row) for row in _suite_rows(data_dir, suite, out))


def _suite_rows(data_dir: Path, suite: str, out: Path) -> Iterator[dict[str, Any]]:
    from emukit.estimator.suites import row_stratum, task_source
    from emukit.export import example_keys, sha_of_ref

    root = suite_dir(data_dir, suite)
    templates = _templates()
    for family in FAMILIES:
        path = root / f"{family}.jsonl"
        if not path.is_file():
            continue
        for where, row in read_objects(path):
            template = templates.get(row.get("template", ""))
            if template is None:
                raise ConfigError(f"{where}: template: unknown template {row.get('template')!r}")
            entity = task_source(row, template, where).entity
            ident = f"{suite}/{row['trajectory_id']}"
            history = [{"observation": _copy_observation(root, s["observation"], out), "action": s["action"]}
                       for s in row["history"]]
            final = _copy_observation(root, row["final_observation"], out)
            keys = example_keys(family=family, template=row["template"], seed=row["seed"], pair_id=ident,
                                branch="A", params=row["params"], state=row["target"],
                                history=[(sha_of_ref(s["observation"]), s["action"]) for s in history],
                                final=sha_of_ref(final))
            yield {"example_id": ident, "family": family, "template": row["template"], "pair_id": ident,
                   "branch": "A", "seed": row["seed"], "params": row["params"], "entity": entity,
                   "history": history, "final_observation": final, "target": row["target"], "keys": keys,
                   "suite": suite, "stratum": row_stratum(row)}


def _copy_observation(root: Path, obs: Mapping[str, str], out: Path) -> dict[str, str]:
    """A suite observation's artifacts under ``out`` (the same relative paths: both are sha-named)."""
    from emukit.export import link_or_copy

    for rel in obs.values():
        link_or_copy(root / rel, out / rel)
    return dict(obs)


def _rename(row: Mapping[str, Any]) -> dict[str, str]:
    from emukit.estimator.rename import pooled_words, rename_map

    template = _templates().get(row["template"])
    return rename_map(pooled_words(row.get("params") or {}, template.params if template else {}, _reserved()),
                      row["example_id"])


@functools.lru_cache(maxsize=1)
def _templates() -> dict[str, Template]:
    """Every template by name, host variants included (read once)."""
    from emukit.templates import load_templates

    return {t.name: t for t in load_templates(variants=True)}


@functools.lru_cache(maxsize=1)
def _reserved() -> frozenset[str]:
    """The words never renamed (:func:`emukit.estimator.rename.reserved_words`)."""
    from emukit.estimator.rename import reserved_words

    return reserved_words(_templates().values())


def summary(report: DataReport) -> Counter[str]:
    """Examples per family over every source."""
    total: Counter[str] = Counter()
    for by_family in report.examples.values():
        total.update(by_family)
    return total
