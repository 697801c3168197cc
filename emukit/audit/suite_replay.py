"""Replay a distribution-shift suite (``emukit audit replay --suite NAME|DIR``): every stored trajectory of
``DATA_DIR/suites/<suite>/<family>.jsonl`` is executed again on a device from its row alone, and the result is
compared with the row step by step.

1. The row names its template and the template's content hash: the template is found on the template search
   path and must still hash to ``template_hash`` (a missing or changed template is refused before any device
   starts, naming the row and the field).
2. The row's work item (the template, ``slot``, depth ``d``, ``level``, and the sink of its ``route``) runs
   through :func:`emukit.builder.stress.run_trajectory` with the row's ``suite``, ``seed`` and ``attempt``: the
   parameters, the moves and their order come from the same seeded generator, so a device that behaves the
   same makes the same trajectory.
3. The replayed row is compared with the stored one in the order the trajectory made it: ``params``, every
   ``history`` step (the action, and the observation before it by the SHA-256 digests its stored artifact
   paths name), ``final_observation``, ``state_after_setting``, ``segment``, ``target``, ``validation``,
   ``route``, then every other field but ``device`` (where it was built).

A trajectory reproduces when nothing differs. ``semantic_only`` leaves the observations out (a device whose
clock runs shows other times on its screens): the actions, the states and the validation flags must still be
equal. A replay that the device rejects (a validation flag false, no move that fits) is a mismatch naming the
reason.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit import resources
from emukit.audit.devicejobs import run_on_devices
from emukit.builder.pair import Rejected
from emukit.builder.run import SNAPSHOT_TIMEOUT_FACTOR
from emukit.builder.stress import LEVELS, WorkItem, run_trajectory, suite_dir
from emukit.errors import ConfigError, DeviceError, EmukitError
from emukit.families import FAMILIES, SUITES, selected
from emukit.hashing import artifact_sha
from emukit.jsonl import read_objects
from emukit.templates import load_template, template_folders
from emukit.templates.schema import Template
from emukit.workers import DeviceContext, DeviceRequest

#: what a row must hold to be executed again and compared
REQUIRED = ("trajectory_id", "suite", "family", "template", "template_hash", "params", "seed", "slot", "attempt",
            "d", "level", "history", "final_observation", "target", "validation")
#: fields compared first, in the order the trajectory makes them; every other field follows by name
ORDER = ("params", "history", "final_observation", "state_after_setting", "segment", "target", "validation",
         "route")
#: fields not compared: the device the row was built on (its serial, and its kind and builds: the replay runs on
#: whatever device it is given; ``route.builds`` still compares the app builds a cross-app route depends on)
NOT_COMPARED = frozenset({"device", "built_on"})
OBSERVATION_KEYS = ("screenshot", "hierarchy")


class _Absent:
    """A field or a history step only one side has."""

    def __repr__(self) -> str:
        return "absent"


ABSENT = _Absent()


# ------------------------------------------------------------------------------------------ the stored rows
@dataclass(frozen=True)
class StoredTrajectory:
    """One stored suite row, checked and ready to be executed again. ``expected`` is the row with every
    observation given by its digests (``{"screenshot": sha256, "hierarchy": sha256}``), as a replay makes it."""

    where: str  # "<file>:<line>"
    row: dict[str, Any]
    template: Template
    expected: dict[str, Any]

    @property
    def trajectory_id(self) -> str:
        return str(self.row["trajectory_id"])

    @property
    def family(self) -> str:
        return str(self.row["family"])

    @property
    def sink(self) -> str | None:
        route = self.row.get("route")
        return str(route["sink"]) if isinstance(route, Mapping) and route.get("sink") else None

    @property
    def stratum(self) -> str:
        """``sink=<app>`` (cross-app), the interference level, else ``d=<depth>``."""
        if self.sink is not None:
            return f"sink={self.sink}"
        return str(self.row["level"]) if self.row["level"] is not None else f"d={self.row['d']}"

    def work_item(self) -> WorkItem:
        r = self.row
        return WorkItem(self.template, int(r["slot"]), int(r["d"]), r["level"], self.sink)


def suite_source(value: str | Path, data_dir: Path) -> Path:
    """The folder (or family file) ``--suite`` names: a suite name is ``DATA_DIR/suites/<name>``, anything else a
    path (a suite folder, or one of its ``<family>.jsonl`` files)."""
    if str(value) in SUITES:
        return suite_dir(Path(data_dir), str(value))
    return Path(value)


def suite_files(source: Path, family: str | None = None) -> list[Path]:
    """The family files to replay: ``source`` itself when it is a ``.jsonl`` file, else the ``<family>.jsonl``
    files of the suite folder (one ``family`` only when given). ConfigError when there is none."""
    source = Path(source)
    if source.is_file():
        if source.suffix != ".jsonl":
            raise ConfigError(f"{source}: expected a suite folder or one of its <family>.jsonl files")
        return [source]
    if not source.is_dir():
        raise ConfigError(f"{source}: no such suite folder (a suite name, {', '.join(SUITES)}, is read from "
                          "DATA_DIR/suites/<suite>, which `emukit build-pairs --suite` writes)")
    wanted = [selected(family)] if selected(family) else list(FAMILIES)
    files = [source / f"{name}.jsonl" for name in wanted if (source / f"{name}.jsonl").is_file()]
    if not files:
        which = f"{family}.jsonl" if selected(family) else "<family>.jsonl file"
        raise ConfigError(f"{source}: no {which} to replay")
    return files


class TemplateIndex:
    """The templates suite rows name, read from the template search path (``--templates`` folders,
    ``$EMUKIT_TEMPLATES``, the shipped ones) when first needed."""

    def __init__(self, dirs: list[Path] | None = None) -> None:
        self.roots = template_folders(dirs)
        self._paths = resources.files_by_stem("template", self.roots, recursive=True)
        self._loaded: dict[str, Template] = {}

    def resolve(self, name: str, content_hash: str, where: str) -> Template:
        """The template ``name``, which must hash to ``content_hash``; ConfigError naming ``where`` and the row's
        field otherwise."""
        path = self._paths.get(name)
        if path is None:
            roots = ", ".join(str(r) for r in self.roots) or "no template folder"
            raise ConfigError(f"{where}: field 'template': no template {name!r} on the template search path "
                              f"({roots}); give its folder with --templates")
        if name not in self._loaded:
            try:
                self._loaded[name] = load_template(path)
            except ConfigError as exc:
                raise ConfigError(f"{where}: field 'template': {exc}") from None
        template = self._loaded[name]
        now = template.content_hash()
        if now != content_hash:
            raise ConfigError(f"{where}: field 'template_hash': the row was built from {name} @ {content_hash[:12]}, "
                              f"but {path} is now @ {now[:12]}; a changed template does not execute the row's "
                              "trajectory again")
        return template


def _int_field(row: Mapping[str, Any], key: str, where: str) -> None:
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{where}: field {key!r}: expected a non-negative integer, got {value!r}")


def _digests(obs: Any, where: str) -> dict[str, str]:
    """``{"screenshot": sha256, "hierarchy": sha256}`` of a stored observation (artifact paths)."""
    if not isinstance(obs, Mapping):
        raise ConfigError(f"{where}: expected an observation object, got {obs!r}")
    out = {}
    for key in OBSERVATION_KEYS:
        try:
            out[key] = artifact_sha(str(obs.get(key)))
        except ValueError as exc:
            raise ConfigError(f"{where}.{key}: {exc}") from None
    return out


def expected_row(row: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``row`` with every observation given by the digests its artifact paths name; ConfigError naming the
    field that is not a trajectory's."""
    history = row["history"]
    if not isinstance(history, list):
        raise ConfigError(f"{where}: field 'history': expected a list of steps")
    steps = []
    for i, step in enumerate(history):
        if not isinstance(step, Mapping) or not isinstance(step.get("action"), Mapping):
            raise ConfigError(f"{where}: field 'history[{i}]': expected {{observation, action}}, got {step!r}")
        steps.append({"observation": _digests(step.get("observation"), f"{where}: field 'history[{i}].observation"),
                      "action": dict(step["action"])})
    final = _digests(row["final_observation"], f"{where}: field 'final_observation'")
    return {**row, "history": steps, "final_observation": final}


def check_row(row: Mapping[str, Any], where: str) -> None:
    """ConfigError naming the first field a replay cannot do without, or one that is not a work item's."""
    for key in REQUIRED:
        if key not in row:
            raise ConfigError(f"{where}: missing field {key!r} (not a suite row of `emukit build-pairs --suite`)")
    if row["suite"] not in SUITES:
        raise ConfigError(f"{where}: field 'suite': {row['suite']!r} is not one of {', '.join(SUITES)}")
    for key in ("seed", "slot", "attempt", "d"):
        _int_field(row, key, where)
    if row["level"] is not None and row["level"] not in LEVELS:
        raise ConfigError(f"{where}: field 'level': {row['level']!r} is not one of {', '.join(LEVELS)} or null")
    route = row.get("route")
    if route is not None and not (isinstance(route, Mapping) and isinstance(route.get("sink"), str)):
        raise ConfigError(f"{where}: field 'route': expected {{producer, sink, builds}}, got {route!r}")


def load_trajectories(source: Path, *, family: str | None = None, trajectories: list[str] | None = None,
                      per_template: int | None = None, limit: int | None = None,
                      templates: list[Path] | None = None) -> list[StoredTrajectory]:
    """The stored rows of ``source`` (:func:`suite_files`), optionally only the ``trajectories`` ids, the first
    ``per_template`` rows of each template and the first ``limit`` rows, in file order. Every row is checked
    (:func:`check_row`) and its template resolved (:class:`TemplateIndex`) before anything runs."""
    index = TemplateIndex(templates)
    wanted = set(trajectories or [])
    found: list[StoredTrajectory] = []
    per: Counter[str] = Counter()
    for path in suite_files(source, family):
        for where, row in read_objects(path):
            if wanted and row.get("trajectory_id") not in wanted:
                continue
            if per_template is not None and per[str(row.get("template"))] >= per_template:
                continue
            if limit is not None and len(found) >= limit:
                break
            check_row(row, where)
            at = f"{where} ({row['trajectory_id']})"
            template = index.resolve(str(row["template"]), str(row["template_hash"]), at)
            found.append(StoredTrajectory(where, row, template, expected_row(row, at)))
            per[str(row["template"])] += 1
    missing = sorted(wanted - {t.trajectory_id for t in found})
    if missing:
        raise ConfigError(f"{source}: no trajectory {', '.join(missing)}")
    if not found:
        raise ConfigError(f"{source}: no trajectories to replay" + (f" of family {family}" if selected(family) else ""))
    return found


# ------------------------------------------------------------------------------------------ the comparison
@dataclass(frozen=True)
class Difference:
    """One field of the replayed row that is not the stored one (``history[3].action``, ``target``, ...)."""

    field: str
    stored: Any
    replayed: Any

    @property
    def step(self) -> int | None:
        """The history step it is in, if any."""
        if not self.field.startswith("history["):
            return None
        return int(self.field[len("history["):].split("]", 1)[0])

    def describe(self) -> str:
        return f"{self.field}: stored {_short(self.stored)}, replayed {_short(self.replayed)}"


def _short(value: Any, width: int = 160) -> str:
    text = "absent" if value is ABSENT else json.dumps(value, sort_keys=True)
    return text if len(text) <= width else text[: width - 3] + "..."


@dataclass
class TrajectoryReplay:
    """One stored trajectory executed again: what differs (nothing: reproduced) and what was compared."""

    trajectory: StoredTrajectory
    device: str = ""
    differences: list[Difference] = field(default_factory=list)
    failure: str = ""  # the replay did not make a trajectory (rejected on the device, a device error)
    steps: int = 0  # history steps compared
    steps_same: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.failure and not self.differences

    def first(self) -> str:
        """What differs first (empty when the trajectory reproduces)."""
        if self.failure:
            return self.failure
        return self.differences[0].describe() if self.differences else ""


def _observation_difference(where: str, stored: Mapping[str, str], replayed: Mapping[str, str]) -> Difference | None:
    differ = [k for k in OBSERVATION_KEYS if stored.get(k) != replayed.get(k)]
    if not differ:
        return None
    return Difference(f"{where} ({' and '.join(differ)})", {k: stored.get(k, "")[:12] for k in differ},
                      {k: replayed.get(k, "")[:12] for k in differ})


def compare_history(stored: list[dict[str, Any]], replayed: list[dict[str, Any]], *,
                    semantic_only: bool) -> tuple[list[Difference], int]:
    """The differences step by step (in each step the observation before the action, then the action) and how
    many steps are the same; a step only one side has is a difference of its own."""
    found: list[Difference] = []
    same = 0
    for i in range(max(len(stored), len(replayed))):
        if i >= len(stored) or i >= len(replayed):
            found.append(Difference(f"history[{i}]", stored[i]["action"] if i < len(stored) else ABSENT,
                                    replayed[i]["action"] if i < len(replayed) else ABSENT))
            continue
        step: list[Difference] = []
        if not semantic_only:
            obs = _observation_difference(f"history[{i}].observation", stored[i]["observation"],
                                          replayed[i]["observation"])
            step += [obs] if obs else []
        if stored[i]["action"] != replayed[i]["action"]:
            step.append(Difference(f"history[{i}].action", stored[i]["action"], replayed[i]["action"]))
        found += step
        same += not step
    return found, same


def compare_rows(stored: Mapping[str, Any], replayed: Mapping[str, Any], *,
                 semantic_only: bool) -> tuple[list[Difference], int, int]:
    """(differences in :data:`ORDER`, history steps compared, history steps the same) between a stored row
    (:func:`expected_row`) and a replayed one (both with observation digests)."""
    found: list[Difference] = []
    rest = sorted((set(stored) | set(replayed)) - set(ORDER) - NOT_COMPARED)
    steps = same = 0
    for key in (*ORDER, *rest):
        if key == "history":
            history, same = compare_history(stored.get("history", []), replayed.get("history", []),
                                            semantic_only=semantic_only)
            found += history
            steps = max(len(stored.get("history", [])), len(replayed.get("history", [])))
        elif key == "final_observation":
            if not semantic_only:
                obs = _observation_difference(key, stored[key], replayed[key])
                found += [obs] if obs else []
        else:
            found += compare_values(key, stored.get(key, ABSENT), replayed.get(key, ABSENT))
    return found, steps, same


def compare_values(name: str, stored: Any, replayed: Any) -> list[Difference]:
    """The differences of one field; an object field by its keys (``params.gap``, ``validation.stable_boundary``),
    so a mismatch names the value that differs."""
    if stored == replayed:
        return []
    if isinstance(stored, Mapping) and isinstance(replayed, Mapping):
        return [Difference(f"{name}.{key}", stored.get(key, ABSENT), replayed.get(key, ABSENT))
                for key in sorted(set(stored) | set(replayed)) if stored.get(key, ABSENT) != replayed.get(key, ABSENT)]
    return [Difference(name, stored, replayed)]


# ------------------------------------------------------------------------------------------ one replay
def _rejection(exc: Rejected, stored: StoredTrajectory) -> str:
    """A rejection on replay, in the stored row's terms: a validation flag the row has true, else the reason."""
    if exc.reason in stored.row["validation"]:
        return (f"validation.{exc.reason}: stored {json.dumps(stored.row['validation'][exc.reason])}, false on "
                f"replay ({exc.detail})")
    return f"rejected on replay: {exc}"


def replay_trajectory(device: DeviceContext, stored: StoredTrajectory, *, semantic_only: bool = False,
                      attempt_timeout_s: float = 60.0) -> TrajectoryReplay:
    """Execute ``stored``'s trajectory again on ``device`` and compare it with the row (module docstring); the
    attempt has the build's deadline (``attempt_timeout_s`` times the snapshot factor)."""
    replay = TrajectoryReplay(stored, device.serial)
    t0 = time.monotonic()
    try:
        with device.driver.deadline(SNAPSHOT_TIMEOUT_FACTOR * attempt_timeout_s, f"replay of {stored.trajectory_id}"):
            made = run_trajectory(device, str(stored.row["suite"]), stored.work_item(), int(stored.row["seed"]),
                                  int(stored.row["attempt"]))
    except Rejected as exc:
        replay.failure = _rejection(exc, stored)
        return replay
    except (DeviceError, EmukitError) as exc:
        replay.failure = f"failed on replay: {exc}"
        return replay
    finally:
        replay.seconds = time.monotonic() - t0
    replayed = json.loads(json.dumps(made.row))  # the row as it would be stored (JSON types)
    replay.differences, replay.steps, replay.steps_same = compare_rows(stored.expected, replayed,
                                                                       semantic_only=semantic_only)
    return replay


# ------------------------------------------------------------------------------------------ the audit
@dataclass
class SuiteReplayReport:
    source: Path
    trajectories: list[TrajectoryReplay]
    semantic_only: bool
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.errors and bool(self.trajectories) and all(t.ok for t in self.trajectories)

    def by_family(self) -> dict[str, tuple[int, int]]:
        """family -> (trajectories reproduced, trajectories replayed), in the families' order."""
        counts: dict[str, list[int]] = {}
        for t in self.trajectories:
            entry = counts.setdefault(t.trajectory.family, [0, 0])
            entry[0] += t.ok
            entry[1] += 1
        order = {name: i for i, name in enumerate(FAMILIES)}
        return {f: (c[0], c[1]) for f, c in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 99), kv[0]))}


def audit_suite_replay(source: Path, *, data_dir: Path, family: str | None = None,
                       trajectories: list[str] | None = None, per_template: int | None = None,
                       limit: int | None = None, semantic_only: bool = False, templates: list[Path] | None = None,
                       devices: DeviceRequest | None = None, adb_port: int = 5037,
                       attempt_timeout_s: float = 60.0,
                       on_replay: Callable[[TrajectoryReplay], None] | None = None) -> SuiteReplayReport:
    """Execute the selected stored trajectories of a suite again and compare each with its row.

    Args:
        source: the suite folder (its ``trajectories.jsonl`` and artifacts).
        data_dir: where the replay devices keep their snapshots.
        family: only this family's trajectories.
        trajectories: only these trajectory ids.
        per_template: at most this many trajectories of each template.
        limit: at most this many trajectories.
        semantic_only: compare state and outcome only, never observations.
        templates: template folders to read besides the shipped ones.
        devices: the devices to replay on (default: one fresh embedded virtual device).
        adb_port: the adb server's port.
        attempt_timeout_s: the time limit of one trajectory's execution.
        on_replay: called with each trajectory's result (progress).

    Returns:
        Each trajectory's replay and what differed.
    """
    stored = load_trajectories(Path(source), family=family, trajectories=trajectories, per_template=per_template,
                               limit=limit, templates=templates)

    def work(device: DeviceContext, item: StoredTrajectory) -> TrajectoryReplay:
        return replay_trajectory(device, item, semantic_only=semantic_only, attempt_timeout_s=attempt_timeout_s)

    run = run_on_devices(stored, work, data_dir=Path(data_dir), devices=devices,
                         adb_port=adb_port, failed=lambda r: not r.ok,
                         on_result=lambda _t, r: on_replay(r) if on_replay else None)
    done = [r for r in run.results if r is not None]
    errors = list(run.errors)
    if len(done) < len(stored):
        errors.append(f"{len(stored) - len(done)} of {len(stored)} trajectories were not replayed")
    return SuiteReplayReport(Path(source), done, semantic_only, errors, run.wall_s)
