"""Replay an export (``emukit audit replay --pairs DIR``): every selected branch of ``pairs.jsonl`` is run
again on a device from what the export records, and nothing else (no template is read):

1. the base snapshot it names, built from its spec on the device's clean snapshot when the device lacks it
   (fresh devices by default: the hermetic build of docs/real-devices.md), whose content fingerprint must
   equal the one the export records;
2. the recorded ``hidden_setup`` steps;
3. every recorded history action, as recorded (coordinates, text, keys, waits through the logical-time
   warp), the observation before each compared with the exported one;
4. the boundary observation, then the ground-truth state read with the recorded ``entity.state_probe``;
5. the recorded ``shared_steps`` (a temporal pair's wait and shade pull included), the next observation, and
   the outcome read with ``entity.outcome_probe``.

A branch reproduces when the state and the outcome equal the exported ones and, unless ``semantic_only`` or
either device's clock runs, every observation is byte-identical to the exported artifact. Whether a clock runs
is read from the pair's recorded device kind (``built_on.kind``) and from the replaying device itself
(:func:`compares_observations`): a hardware-like virtual device, a real AVD or a phone shows times that differ. This is what a researcher checks to
trust that a pair's history is complete: everything that made its hidden state is in the export.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from emukit.actions import Action
from emukit.audit.devicejobs import run_on_devices
from emukit.builder.outcomes import read_outcome
from emukit.builder.steps import StepRunner
from emukit.errors import ConfigError, DeviceError, EmukitError
from emukit.evaluate.pairs import PairLoadError, parse_action
from emukit.hashing import artifact_sha
from emukit.jsonl import read_objects
from emukit.probes import probe
from emukit.provenance import BuiltOn
from emukit.snapshots import CONTENT_KEYS, fingerprint_differences
from emukit.workers import DeviceContext, DeviceRequest

BRANCHES = ("A", "B")


@dataclass(frozen=True)
class ExportedBranch:
    """What the replay of one exported branch needs, read from its ``pairs.jsonl`` line."""

    pair_id: str
    family: str
    template: str
    branch: str
    base_snapshot: str
    base_fingerprint: dict[str, Any]
    hidden_setup: list[dict[str, Any]]
    state_probe: dict[str, Any]
    outcome_probe: dict[str, Any]
    history: list[tuple[str, str, Action]]  # (screenshot sha256, hierarchy sha256, action)
    boundary: tuple[str, str]
    state: dict[str, Any]
    shared_steps: list[Action]
    next_observation: tuple[str, str]
    outcome: dict[str, Any]
    built_on: BuiltOn = field(default_factory=BuiltOn.unknown)

    @property
    def key(self) -> str:
        return f"{self.pair_id}/{self.branch}"


@dataclass
class BranchReplay:
    """One exported branch run again: what differed (empty: reproduced) and what was compared."""

    branch: ExportedBranch
    device: str = ""
    problems: list[str] = field(default_factory=list)
    observations: int = 0  # observations compared (history, boundary, next)
    observations_same: int = 0
    seconds: float = 0.0
    #: why the observations were not compared (None: they were): ``--semantic-only``, or a recorded or
    #: replaying device whose clocks run (:func:`compares_observations`)
    semantic_because: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass
class ReplayReport:
    branches: list[BranchReplay]
    semantic_only: bool
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.branches) and all(b.ok for b in self.branches)

    def pairs(self) -> tuple[int, int]:
        """(pairs reproduced, pairs replayed): a pair reproduces when both its branches do."""
        by_pair: dict[str, bool] = {}
        for b in self.branches:
            by_pair[b.branch.pair_id] = by_pair.get(b.branch.pair_id, True) and b.ok
        return sum(by_pair.values()), len(by_pair)


def _sha_of(ref: Any, where: str) -> str:
    """The sha256 an artifact reference names (``artifacts/ab/cd/<sha256>.png``)."""
    if not isinstance(ref, str) or not ref:
        raise PairLoadError(f"{where}: expected an artifact path, got {ref!r}")
    try:
        return artifact_sha(ref)
    except ValueError as exc:
        raise PairLoadError(f"{where}: {exc}") from None


def _obs(data: Any, where: str) -> tuple[str, str]:
    if not isinstance(data, Mapping):
        raise PairLoadError(f"{where}: expected an observation object")
    return _sha_of(data.get("screenshot"), f"{where}.screenshot"), _sha_of(data.get("hierarchy"), f"{where}.hierarchy")


def branches_of(line: Mapping[str, Any], where: str) -> list[ExportedBranch]:
    """Both branches of one exported pair line; PairLoadError names the field a replay cannot do without
    (an export written before pairs carried their provenance cannot be replayed)."""
    for key in ("pair_id", "family", "branches", "base_snapshot", "hidden_setup", "entity"):
        if key not in line:
            raise PairLoadError(f"{where}: missing field {key!r} (exports written before pairs carried their "
                                "provenance cannot be replayed; re-export the store)")
    where = f"{where} ({line['pair_id']})"
    base = line["base_snapshot"]
    entity = line["entity"]
    if not isinstance(base, Mapping) or not base.get("name"):
        raise PairLoadError(f"{where}.base_snapshot: expected {{name, fingerprint}}, got {base!r}")
    if not isinstance(entity, Mapping) or not isinstance(entity.get("outcome_probe"), Mapping):
        raise PairLoadError(f"{where}.entity: no outcome_probe (the pair's template changed before it was exported)")
    if not isinstance(line["hidden_setup"], list):
        raise PairLoadError(f"{where}.hidden_setup: expected a list of steps")
    try:
        built_on = BuiltOn.model_validate(line.get("built_on") or {})
    except ValidationError as exc:
        raise PairLoadError(f"{where}.built_on: {exc.errors()[0]['msg']}") from None
    out = []
    for name in BRANCHES:
        raw = line["branches"].get(name) if isinstance(line["branches"], Mapping) else None
        bw = f"{where}.branches.{name}"
        if not isinstance(raw, Mapping):
            raise PairLoadError(f"{bw}: missing")
        for key in ("history", "boundary_observation", "state", "shared_steps", "next_observation", "outcome"):
            if key not in raw:
                raise PairLoadError(f"{bw}: missing field {key!r}")
        history = [(*_obs(step.get("observation"), f"{bw}.history[{i}].observation"),
                    parse_action(step.get("action"), f"{bw}.history[{i}].action"))
                   for i, step in enumerate(raw["history"])]
        out.append(ExportedBranch(
            pair_id=str(line["pair_id"]), family=str(line["family"]), template=str(line.get("template", "")),
            branch=name, base_snapshot=str(base["name"]), base_fingerprint=dict(base.get("fingerprint") or {}),
            hidden_setup=list(line["hidden_setup"]), state_probe=dict(entity.get("state_probe") or {}),
            outcome_probe=dict(entity["outcome_probe"]), history=history,
            boundary=_obs(raw["boundary_observation"], f"{bw}.boundary_observation"), state=dict(raw["state"]),
            shared_steps=[parse_action(a, f"{bw}.shared_steps[{i}]") for i, a in enumerate(raw["shared_steps"])],
            next_observation=_obs(raw["next_observation"], f"{bw}.next_observation"), outcome=dict(raw["outcome"]),
            built_on=built_on))
    return out


#: the device kinds whose screens are a function of their inputs alone (no running clock): only between two
#: of these are a replay's observations expected to equal the recorded ones byte for byte; "unknown" (a pair
#: exported before kinds were recorded) keeps the comparison it always had
EXACT_KINDS = ("virtual-deterministic", "unknown")


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def compares_observations(recorded: BuiltOn, replaying: BuiltOn) -> str | None:
    """None when a replay on ``replaying`` can be compared with a branch recorded on ``recorded`` observation
    by observation; else why not (a clock runs on one of them: real AVDs, phones, hardware-mode devices)."""
    if recorded.kind not in EXACT_KINDS:
        return f"recorded on {_a(recorded.kind)} device"
    if replaying.kind != "virtual-deterministic":
        return f"replayed on {_a(replaying.kind)} device"
    return None


def load_branches(export: Path, *, pairs: list[str] | None = None, family: str | None = None,
                  limit: int | None = None, per_template: int | None = None) -> list[ExportedBranch]:
    """The branches of ``export``'s pairs (optionally only the ``pairs`` ids, one ``family``, the first
    ``per_template`` pairs of each template and the first ``limit`` pairs, in file order); ConfigError for a
    missing file, an unknown pair id, a bad line."""
    path = Path(export) / "pairs.jsonl"
    if not path.is_file():
        raise PairLoadError(f"{export}: no pairs.jsonl (expected an export folder, see docs/pair-format.md)")
    wanted = set(pairs or [])
    found: list[ExportedBranch] = []
    seen: set[str] = set()
    per: Counter[str] = Counter()
    for where, line in read_objects(path, PairLoadError):
        if wanted and line.get("pair_id") not in wanted:
            continue
        if family not in (None, "all") and line.get("family") != family:
            continue
        if per_template is not None and per[str(line.get("template"))] >= per_template:
            continue
        if limit is not None and len(seen) >= limit:
            break
        seen.add(str(line.get("pair_id")))
        per[str(line.get("template"))] += 1
        found += branches_of(line, where)
    missing = sorted(wanted - seen)
    if missing:
        raise ConfigError(f"{path}: no pair {', '.join(missing)}")
    if not found:
        raise ConfigError(f"{path}: no pairs to replay" + (f" of family {family}" if family else ""))
    return found


def _digest(png: bytes, xml: str) -> tuple[str, str]:
    return hashlib.sha256(png).hexdigest(), hashlib.sha256(xml.encode()).hexdigest()


def _compare(replay: BranchReplay, observed: list[tuple[str, tuple[str, str], tuple[str, str]]]) -> None:
    """Count the observations identical to the exported ones; one problem names the first that is not."""
    differ = [(what, got, want) for what, got, want in observed if got != want]
    replay.observations, replay.observations_same = len(observed), len(observed) - len(differ)
    if differ:
        what, got, want = differ[0]
        parts = [n for n, g, w in zip(("screenshot", "hierarchy"), got, want, strict=True) if g != w]
        replay.problems.append(f"observations: {len(differ)} of {len(observed)} differ from the export, the first "
                               f"{what} ({' and '.join(parts)}; hierarchy {want[1][:12]} exported, {got[1][:12]} "
                               "replayed)")


def base_differences(device: DeviceContext, branch: ExportedBranch,
                     checked: dict[tuple[str, str], list[str]] | None = None) -> list[str]:
    """The content-fingerprint keys in which the base snapshot just loaded on ``device`` differs from the one
    the export records, measured on the device (a snapshot built here, or one the device already had: an
    AVD keeps its bases). A snapshot load restores the same content every time, so ``checked`` keeps the
    answer per (device, snapshot)."""
    key = (device.serial, branch.base_snapshot)
    if checked is not None and key in checked:
        return checked[key]
    actual = device.measured_fingerprint(branch.base_snapshot)
    expected = {k: branch.base_fingerprint.get(k) for k in CONTENT_KEYS}
    found = fingerprint_differences(expected, {k: actual.get(k) for k in CONTENT_KEYS})
    if checked is not None:
        checked[key] = found
    return found


def replay_branch(device: DeviceContext, branch: ExportedBranch, *, semantic_only: bool = False,
                  checked: dict[tuple[str, str], list[str]] | None = None) -> BranchReplay:
    """Run one exported branch again on ``device`` (see the module docstring); ``checked``: base snapshots
    already compared (:func:`base_differences`)."""
    from emukit.tasks.session import perform

    driver = device.driver
    replay = BranchReplay(branch, device.serial)
    t0 = time.monotonic()
    observed: list[tuple[str, tuple[str, str], tuple[str, str]]] = []
    try:
        device.ensure_snapshot(branch.base_snapshot)
        device.load_base(branch.base_snapshot)
        if branch.base_fingerprint:
            for problem in base_differences(device, branch, checked):
                replay.problems.append(f"base snapshot {branch.base_snapshot}: {problem}")
        runner = StepRunner(driver, f"{branch.key} hidden_setup")
        runner.run(branch.hidden_setup, setup=True)
        runner.where = f"{branch.key} history"
        for i, (png_sha, xml_sha, action) in enumerate(branch.history):
            png, xml = driver.capture()
            observed.append((f"before history[{i}] ({action.type})", _digest(png, xml), (png_sha, xml_sha)))
            perform(driver, runner, action, xml)
        png, xml = driver.wait_stable()
        observed.append(("boundary", _digest(png, xml), branch.boundary))
        state = probe(driver, branch.family, **branch.state_probe).canonical  # type: ignore[arg-type]
        for step in branch.shared_steps:
            perform(driver, runner, step)
        png, xml = driver.wait_stable()
        observed.append(("next", _digest(png, xml), branch.next_observation))
        outcome, _evidence = read_outcome(driver, branch.family, dict(branch.outcome_probe), xml,
                                          branch.state_probe)
    except (DeviceError, EmukitError) as exc:
        replay.problems.append(f"failed: {exc}")
        return replay
    finally:
        replay.seconds = time.monotonic() - t0
    replay.semantic_because = ("--semantic-only" if semantic_only
                               else compares_observations(branch.built_on, device.facts.base()))
    if replay.semantic_because is None:
        _compare(replay, observed)
    if state != branch.state:
        replay.problems.append(f"state {state} != exported {branch.state}")
    if outcome != branch.outcome:
        replay.problems.append(f"outcome {outcome} != exported {branch.outcome}")
    return replay


def audit_replay(export: Path, *, data_dir: Path, pairs: list[str] | None = None, family: str | None = None,
                 limit: int | None = None, per_template: int | None = None, semantic_only: bool = False,
                 devices: DeviceRequest | None = None, adb_port: int = 5037,
                 on_replay: Callable[[BranchReplay], None] | None = None) -> ReplayReport:
    """Replay the selected exported branches from the export alone, and report each branch.

    Args:
        export: the export folder (``pairs.jsonl`` and its artifacts).
        data_dir: where the replay devices keep their snapshots and fingerprints.
        pairs: only these pair ids.
        family: only this family's pairs.
        limit: at most this many pairs.
        per_template: at most this many pairs of each template.
        semantic_only: compare state and outcome only, never observations (else observations are compared
            where the recorded and the replaying device kinds are both deterministic virtual devices).
        devices: the devices to replay on (default: one fresh embedded virtual device).
        adb_port: the adb server's port.
        on_replay: called with each branch's result (progress).

    Returns:
        Each branch's replay and what differed.
    """
    branches = load_branches(Path(export), pairs=pairs, family=family, limit=limit, per_template=per_template)

    checked: dict[tuple[str, str], list[str]] = {}  # (serial, snapshot) -> differences; one device per thread

    def work(device: DeviceContext, branch: ExportedBranch) -> BranchReplay:
        return replay_branch(device, branch, semantic_only=semantic_only, checked=checked)

    run = run_on_devices(branches, work, data_dir=Path(data_dir), devices=devices,
                         adb_port=adb_port, failed=lambda r: bool(r.problems),
                         on_result=lambda _b, r: on_replay(r) if on_replay else None)
    done = [r for r in run.results if r is not None]
    errors = list(run.errors)
    if len(done) < len(branches):
        errors.append(f"{len(branches) - len(done)} of {len(branches)} branches were not replayed")
    return ReplayReport(done, semantic_only, errors, run.wall_s)
