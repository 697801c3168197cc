"""Repeated-execution stability (seed 002 Appendix C.8): deterministically select stored pairs (one per
template by default), replay both branches ``repeats`` times on devices started for the audit, each execution
from the template's base snapshot with the pair's stored parameters, and require every replay's semantic
outcome and canonical state to equal the stored ones (and the family validator to pass). No world model is
involved. Temporal templates replay through the same logical-time warp as the build.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.audit.devicejobs import run_on_devices
from emukit.audit.release import TemplateResolver
from emukit.builder.pair import Artifacts, PairContext, Rejected, run_branch
from emukit.builder.validate import validate_branch
from emukit.errors import DeviceError, EmukitError
from emukit.families import selected
from emukit.records import PairRecord
from emukit.store import Store
from emukit.templates.sampler import substitute
from emukit.templates.schema import Template
from emukit.workers import DeviceContext, DeviceRequest


def select_pairs(store: Store, *, per_template: int = 1, family: str | None = None,
                 templates: list[str] | None = None) -> list[PairRecord]:
    """``per_template`` stored pairs of every template, chosen by the SHA-256 of (template, pair_id): the same
    store always gives the same pairs, independent of build order or slot numbers."""
    by_template: dict[str, list[PairRecord]] = defaultdict(list)
    for pair in store.pairs(selected(family)):
        if templates and pair.template not in templates:
            continue
        by_template[pair.template].append(pair)
    chosen: list[PairRecord] = []
    for name in sorted(by_template):
        group = sorted(by_template[name],
                       key=lambda p: hashlib.sha256(f"{p.template}|{p.pair_id}".encode()).hexdigest())
        chosen += group[:per_template]
    return chosen


@dataclass
class Replay:
    repeat: int
    device: str
    outcome: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    same_boundary: bool | None = None  # informational: boundary capture identical to the stored one
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class BranchStability:
    pair: PairRecord
    branch: str
    replays: list[Replay] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.replays) and all(r.ok for r in self.replays)

    @property
    def stored_outcome(self) -> dict[str, Any]:
        return self.pair.branches[self.branch].outcome  # type: ignore[index]


@dataclass
class StabilityReport:
    branches: list[BranchStability]
    repeats: int
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def executions(self) -> int:
        return sum(len(b.replays) for b in self.branches)

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.branches) and all(
            b.ok and len(b.replays) == self.repeats for b in self.branches)


def replay_branch(device: DeviceContext, pair: PairRecord, template: Template, branch: str,
                  repeat: int) -> Replay:
    """One fresh controlled execution of a stored branch, compared with what was stored."""
    stored = pair.branches[branch]  # type: ignore[index]
    replay = Replay(repeat, device.serial)
    t0 = time.monotonic()
    try:
        device.ensure_snapshot(template.base_snapshot)
        ctx = PairContext(template, pair.params, pair.seed, 0, pair.attempt, roles=dict(pair.roles))
        got = run_branch(device, ctx, branch, Artifacts(), pair.padding.get(branch, 0))  # type: ignore[call-overload]
    except Rejected as exc:
        replay.problems.append(f"rejected: {exc}")
        return replay
    except (DeviceError, EmukitError) as exc:
        replay.problems.append(f"failed: {exc}")
        return replay
    finally:
        replay.seconds = time.monotonic() - t0
    replay.outcome, replay.state = got.outcome, got.state
    replay.same_boundary = got.boundary_observation == stored.boundary_observation
    if got.outcome != stored.outcome:
        replay.problems.append(f"outcome {got.outcome} != stored {stored.outcome}")
    if got.state != stored.state:
        replay.problems.append(f"state {got.state} != stored {stored.state}")
    if got.shared_action.canonical() != stored.shared_action.canonical():
        replay.problems.append(f"shared action {got.shared_action.canonical()} != stored "
                               f"{stored.shared_action.canonical()}")

    def sub(obj: Any) -> Any:
        return substitute(obj, pair.params, f"{pair.template} ({pair.pair_id})")

    spec = sub(template.outcome.model_dump(exclude_none=True))
    wait = float(sub(template.shared_action.seconds) or 0) if template.shared_action.type == "wait" else 0.0
    for p in validate_branch(pair.family, got.state, got.outcome, got.outcome_evidence, spec,
                             sub(template.expect[pair.roles[branch]].model_dump()), wait):  # type: ignore[index]
        replay.problems.append(f"validator: {p}")
    return replay


def audit_stability(store: Store, *, data_dir: Path, per_template: int = 1, repeats: int = 3,
                    devices: DeviceRequest | None = None, adb_port: int = 5037,
                    family: str | None = None, templates: list[str] | None = None,
                    templates_folder: Path | list[Path] | None = None,
                    on_replay: Callable[[BranchStability, Replay], None] | None = None) -> StabilityReport:
    """Replay the selected pairs' branches ``repeats`` times each (see the module docstring).

    Args:
        store: the store whose pairs are replayed.
        data_dir: where the audit's devices keep their snapshots.
        per_template: pairs of each template replayed.
        repeats: replays of each branch.
        devices: its attached serials if given, else its count (default 1) of embedded virtual devices started
            fresh (wiped) for the audit and stopped afterwards.
        adb_port: the adb server's port.
        family: only this family's pairs.
        templates: only these templates' pairs.
        templates_folder: where the templates are read (default: the shipped ones).
        on_replay: called with each replay (progress).

    Returns:
        Each branch's replays and whether they all agree.

    Raises:
        EmukitError: ``repeats`` or ``per_template`` below 1.
    """
    if repeats < 1 or per_template < 1:
        raise EmukitError("--repeats and --per-template must be at least 1")
    resolver = TemplateResolver(store, templates_folder)
    report = StabilityReport([], repeats)
    jobs: list[tuple[BranchStability, Template, int]] = []
    for pair in select_pairs(store, per_template=per_template, family=family, templates=templates):
        template = resolver.get(pair.template, pair.template_hash)
        for name in ("A", "B"):
            entry = BranchStability(pair, name)
            report.branches.append(entry)
            if template is None:
                report.errors.append(f"{pair.pair_id}: template {pair.template} @ {pair.template_hash[:12]} is "
                                     "neither in the store nor in the templates folder")
                continue
            for r in range(repeats):
                jobs.append((entry, template, r))
    if not jobs:
        return report

    def work(device: DeviceContext, job: tuple[BranchStability, Template, int]) -> Replay:
        entry, template, r = job
        return replay_branch(device, entry.pair, template, entry.branch, r)

    def done(job: tuple[BranchStability, Template, int], replay: Replay) -> None:
        entry = job[0]
        with lock:
            entry.replays.append(replay)
            entry.replays.sort(key=lambda x: x.repeat)
        if on_replay is not None:
            on_replay(entry, replay)

    lock = threading.Lock()
    run = run_on_devices(jobs, work, data_dir=Path(data_dir), devices=devices, adb_port=adb_port,
                         failed=lambda replay: bool(replay.problems), on_result=done)
    report.errors += run.errors
    report.wall_s = run.wall_s
    return report
