"""Distribution-shift suites of seed 002 Appendix F: single trajectories (not pairs) with their canonical state.

``d-stress`` (F.3): a template's state-setting steps (branch A), then exactly ``d`` in {4, 8, 16, 32}
state-preserving model-visible actions, then the template's convergence steps (the final neutral context).
``interference`` (F.4): the same construction at a fixed depth (``d = 8``) whose actions come, by level
(``low`` / ``medium`` / ``high``), increasingly close to the tracked state without changing it (per family: its
module of :mod:`emukit.builder.stress_tables`).
``cross-app`` (F.2), with no inserted segment (``d = 0``): persistent Copy / Move / Delete histories realised in
Markor (its host variants) and ending in Markor's own query context, 67 / 67 / 66 per 200; ordered and temporal
state produced in its own app (Retro Music, the Clock: the template's setting steps), then the final neutral
observation moves to another app (:data:`CROSS_APP_SINKS`: HOME, then the sink opened from All apps), ordered in
F.2's 80 / 120 playing-queue / playlist split, sinks equally; clipboard payloads copied in a route's source app
(its host variant's setting steps), then HOME, the sink opened from All apps and the sink's paste query context
(``<sink>.paste_menu``), over F.2's 12 directed routes (:data:`CROSS_APP_CLIPBOARD_ROUTES`) evenly.

Every trajectory is checked on the device: the canonical state probed at the boundary must equal the state
probed right after the setting steps (and the template's expected A state), the inserted segment must hold
exactly ``d`` recorded actions, and the boundary must be stable. What passes is written as an export-like
folder ``DATA_DIR/suites/<suite>/<family>.jsonl`` with content-addressed ``artifacts/`` beside it (paths in
the rows are relative to the suite folder).

The state-preserving actions come from a small declarative table per family (registered in
:data:`~emukit.builder.stress_tables.STRESS_TABLES`, built from :mod:`emukit.builder.stress_model`), each
validated by :func:`validate_table` when this module is imported: each move is a list of raw model-visible
steps (one action each), the selectors that must be on screen for it to apply, and optionally a pool of
distractor names it picks one of.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.apps.registry import (
    check_ref,
    profile_class,
    resolve_query,
)
from emukit.builder.pair import (
    Artifacts,
    PairContext,
    Rejected,
    _HistoryRecorder,
)
from emukit.builder.run import SNAPSHOT_TIMEOUT_FACTOR
from emukit.builder.steps import X_KEYS, Y_KEYS, StepRunner, screen_fraction
from emukit.builder.stress_model import FamilyTable, Move
from emukit.builder.stress_tables import HOST_TABLES, STRESS_TABLES, host_table
from emukit.builder.touched import template_packages
from emukit.device.adbserver import AdbServer
from emukit.device.adbwire import DeadlinePassed
from emukit.device.driver import SELECTOR_KEYS, Driver
from emukit.device.facts import DeviceFacts
from emukit.errors import ConfigError, DeviceError, EmukitError
from emukit.families import SUITES, suite_dir
from emukit.probes import probe
from emukit.records import Observation
from emukit.store.artifacts import ArtifactStore
from emukit.templates.sampler import rng_for, sample_params, substitute
from emukit.templates.schema import RAW_ACTIONS, Template, _check_step
from emukit.workers import (
    DeviceContext,
    DeviceRequest,
    WorkerPool,
    close_pool,
    make_pool,
)

#: seed 002 F.2: the apps the final neutral observation moves to for the Ordered Collection and Temporal
#: Deadline families (the producing app stays Retro Music / the Clock), equally
CROSS_APP_SINKS = ("tasks", "joplin", "calendar", "broccoli")
#: F.2: 80 playing-queue and 120 playlist trajectories per 200 Ordered Collection trajectories
CROSS_APP_ORDERED_SHARE = {"playing_queue": 80, "playlist": 120}
#: F.2: 67 Copy, 67 Move and 66 Delete trajectories per 200 Persistent Artifact trajectories, realised in Markor
CROSS_APP_PERSISTENT_SHARE = {"copy": 67, "move": 67, "delete": 66}
#: F.2: the persistent histories are realised through Markor and end in a Markor query context
CROSS_APP_PERSISTENT_HOST = "notes"
#: F.2: the clipboard routes' apps, in the order the seed names them (profile names)
CROSS_APP_CLIPBOARD_APPS = ("sms", "chrome", "tasks", "joplin", "calendar", "broccoli")
#: F.2's 12 directed source -> sink routes, source and sink always distinct: each app to the next one and to the
#: one three further on (in :data:`CROSS_APP_CLIPBOARD_APPS`' order, cyclically), so every app is the source of two
#: routes and the sink of two, and no route is taken both ways round by the first rule
CROSS_APP_CLIPBOARD_ROUTES = tuple(
    (CROSS_APP_CLIPBOARD_APPS[i], CROSS_APP_CLIPBOARD_APPS[(i + step) % len(CROSS_APP_CLIPBOARD_APPS)])
    for step in (1, 3) for i in range(len(CROSS_APP_CLIPBOARD_APPS)))
#: the families the cross-app suite builds (all four of F.2's)
CROSS_APP_FAMILIES = ("persistent", "clipboard", "ordered", "temporal")
DEPTHS = (4, 8, 16, 32)
LEVELS = ("low", "medium", "high")
LEVEL_SHARE = {"low": 70, "medium": 70, "high": 60}  # seed 002 F.4: 70 / 70 / 60 of 200 per family
INTERFERENCE_DEPTH = 8  # seed 002 F.4: history depth fixed at d = 8 while similarity varies
_FIELD = re.compile(r"\{([a-z_]+)\}")


# ------------------------------------------------------------------------------------------ the tables' checks
def validate_table(table: FamilyTable) -> None:
    """Raise ConfigError unless every move is raw model-visible steps with known selectors and placeholders,
    moves have unique names, and every level is defined."""
    where = f"stress table {table.family}"
    if not set(table.levels) <= set(LEVELS):
        raise ConfigError(f"{where}: unknown level(s) {sorted(set(table.levels) - set(LEVELS))}; levels are "
                          f"{', '.join(LEVELS)}")
    if not table.neutral:
        raise ConfigError(f"{where}: no neutral moves")
    if not fill_step(table):
        raise ConfigError(f"{where}: needs a neutral move that always applies (no requires, no pool), to fill "
                          "any depth")
    for group, moves in [("neutral", table.neutral), *table.levels.items()]:
        names = [m.name for m in moves]
        if len(names) != len(set(names)):
            raise ConfigError(f"{where}: duplicate move names in {group}")
        for m in moves:
            if not m.steps:
                raise ConfigError(f"{where}: move {m.name} has no steps")
            for step in m.steps:
                try:
                    _check_step(step)
                except ValueError as exc:
                    raise ConfigError(f"{where}: move {m.name}: {exc}") from None
                (kind, args), = step.items()
                if kind not in RAW_ACTIONS - {"wait", "type", "drag"} or "." in kind:
                    raise ConfigError(f"{where}: move {m.name}: {kind!r} is not a single state-preserving "
                                      "action (tap, long_press, swipe, key, back, home)")
                if kind in ("tap", "long_press") and isinstance(args, dict) and not ({"x", "y"} <= set(args)):
                    _check_selector(where, m.name, args)
                elif kind in ("tap", "long_press", "swipe") and isinstance(args, dict):
                    _check_coords(where, m.name, args)
            for sel in m.requires:
                _check_selector(where, m.name, sel)
            fields = set(_FIELD.findall(json.dumps([m.steps, m.requires])))
            if fields - {"name"} or (fields and not m.pool) or (m.pool and "name" not in fields):
                raise ConfigError(f"{where}: move {m.name}: placeholders {sorted(fields)} need pool + {{name}}")
    if table.distractors is not None and not callable(table.distractors):
        raise ConfigError(f"{where}: distractors must be a function, not {table.distractors!r}")


def _check_selector(where: str, move: str, sel: dict[str, Any]) -> None:
    """Known selector fields; a ``sel`` reference names an entry of its app's selector table."""
    unknown = set(sel) - SELECTOR_KEYS - {"sel", "fmt", "at_dp"}
    if unknown:
        raise ConfigError(f"{where}: move {move}: unknown selector field(s) {sorted(unknown)}")
    if "sel" in sel:
        try:
            check_ref(sel["sel"])
        except ConfigError as exc:
            raise ConfigError(f"{where}: move {move}: {exc}") from None


def _check_coords(where: str, move: str, args: dict[str, Any]) -> None:
    """A move's gesture takes its coordinates from the screen size: each is a percentage of the screen
    (``"50%"``), never a pixel position of one screen."""
    for key in X_KEYS + Y_KEYS:
        if key not in args:
            continue
        try:
            fraction = screen_fraction(args[key])
        except ValueError as exc:
            raise ConfigError(f"{where}: move {move}: {exc}") from None
        if fraction is None:
            raise ConfigError(f"{where}: move {move}: {key}={args[key]!r} is a fixed pixel position; give it "
                              "as a percentage of the screen (\"50%\") so the move fits every screen size")


# ------------------------------------------------------------------------------------------ one trajectory
@dataclass
class WorkItem:
    template: Template
    index: int  # slot within (suite, family)
    depth: int
    level: str | None
    sink: str | None = None  # cross-app: the app (profile name) the final neutral observation is in

    @property
    def trajectory_id(self) -> str:
        return f"{self.template.name}-{self.index}"


@dataclass
class Trajectory:
    """An accepted trajectory: its row (paths still sha256 observations) and the blobs it refers to."""

    row: dict[str, Any]
    artifacts: Artifacts


def _fill(obj: Any, name: str | None) -> Any:
    if name is None:
        return obj
    return substitute(obj, {"name": name}, "stress move")


def _applies(driver: Driver, move: Move, name: str | None) -> bool:
    return all(driver.exists(**resolve_query(driver, _fill(sel, name))) for sel in move.requires)


def _choose(driver: Driver, moves: tuple[Move, ...], budget: int, pools: dict[str, list[str]],
            rng: random.Random) -> tuple[Move, str | None] | None:
    """A move (and distractor name) that fits ``budget`` and applies on the current screen, in a seeded
    random order; None when none does."""
    order = list(moves)
    rng.shuffle(order)
    for move in order:
        if move.length > budget:
            continue
        names: list[str | None] = list(pools.get(move.pool, [])) if move.pool else [None]
        rng.shuffle(names)
        for name in names:
            if _applies(driver, move, name):
                return move, name
    return None


def run_trajectory(device: DeviceContext, suite: str, item: WorkItem, seed: int, attempt: int) -> Trajectory:
    """Execute one suite trajectory on ``device``; raise :class:`Rejected` if it cannot be accepted."""
    t = item.template
    driver = device.driver
    table = table_for(t)
    if table is None and item.sink is None:
        raise ConfigError(f"no stress table for {t.name} (family {t.family!r}"
                          + (f", host {t.variant.app!r})" if t.variant else ")"))
    rng = rng_for(f"{suite}:{t.name}", seed, item.index, attempt)
    params = sample_params(t, rng)
    ctx = PairContext(t, params, seed, item.index, attempt)
    state_params = {k: v for k, v in ctx.sub(t.state).items() if k != "family"}
    expected = ctx.sub(t.expect["A"].model_dump())["state"]  # type: ignore[index]
    setting_steps = ctx.sub(t.branches["A"])  # type: ignore[index]
    pools: dict[str, list[str]] = {}
    extra_setup: list[dict[str, Any]] = []
    level_moves: tuple[Move, ...] = ()
    if item.level is not None and table is not None:
        level_moves = table.levels[item.level]
        if item.level != "low" and table.distractors:
            pools, extra_setup = table.distractors(state_params, params, setting_steps, rng)
    device.ensure_snapshot(t.base_snapshot)
    device.load_base(t.base_snapshot)
    runner = StepRunner(driver, f"{t.source_path}: {suite} {item.trajectory_id}")
    runner.run(extra_setup + ctx.sub(t.setup), setup=True)
    artifacts = Artifacts()
    recorder = _HistoryRecorder(artifacts)
    driver.recorder = recorder
    moves: list[str] = []
    interfering = 0
    clip_route = item.sink is not None and t.family == "clipboard"
    try:
        clip_before = probe(driver, t.family, **state_params).canonical if clip_route else None
        runner.run(setting_steps)
        n_setting = len(recorder.steps)
        state_set = probe(driver, t.family, **state_params).canonical
        in_front_after_setting = driver.current_app()[0] if clip_route else None
        budget = item.depth
        while budget > 0:
            pick = _choose(driver, level_moves, budget, pools, rng) if level_moves else None
            if pick is not None and item.level is not None:
                interfering += 1
            elif table is not None:
                pick = _choose(driver, table.neutral, budget, pools, rng)
            if pick is None:
                raise Rejected("no_move", f"no state-preserving move fits {budget} actions on this screen")
            move, name = pick
            before = len(recorder.steps)
            runner.run(_fill(list(move.steps), name))
            done = len(recorder.steps) - before
            if done != move.length:
                raise Rejected("move_length", f"move {move.name} recorded {done} actions, expected {move.length}")
            moves.append(move.name if name is None else f"{move.name}({name})")
            budget -= done
        n_segment = len(recorder.steps) - n_setting
        runner.run(_converge(ctx, item))
    finally:
        driver.recorder = None
    first = driver.wait_stable()
    second = driver.recapture(first)
    boundary, recaptured = artifacts.observation(*first), artifacts.observation(*second)
    state_final = probe(driver, t.family, **state_params).canonical
    validation = {
        "stable_boundary": boundary == recaptured,
        "segment_length": n_segment == item.depth,
        "state_preserved": state_final == state_set,
        "expected_state": all(state_set.get(k) == v for k, v in expected.items()),
        "interference": item.level in (None, "low") or interfering > 0,
    }
    if item.sink is not None:  # the final observation really is the sink app's
        validation["sink_in_front"] = driver.current_app()[0] == profile_class(item.sink).package
    if clip_route and item.sink is not None:
        # the payload came through the source app: the clipboard did not hold it before the setting steps (which
        # act in the source app only) and did right after them, with the source app still in front
        validation["payload_via_source"] = (clip_before != state_set and in_front_after_setting
                                            == profile_class(producer_app(t)).package)
        # the sink's query context is what the final observation shows: its text toolbar offers Paste
        validation["sink_query_context"] = driver.exists(**resolve_query(driver, {"sel": f"{item.sink}:text_paste"}))
    failed = [k for k, ok in validation.items() if not ok]
    if failed:
        raise Rejected(failed[0], f"state after setting {state_set}, at the boundary {state_final}, expected "
                                  f"{expected}; segment {n_segment}/{item.depth} actions, {interfering} interfering")
    row = {
        "trajectory_id": f"{suite}-{item.trajectory_id}-s{seed}", "suite": suite, "family": t.family,
        "template": t.name, "template_hash": t.content_hash(), "params": params, "seed": seed, "slot": item.index,
        "attempt": attempt, "d": item.depth, "level": item.level,
        "history": [{"observation": s.observation.model_dump(), "action": s.action.canonical()}
                    for s in recorder.steps],
        "final_observation": boundary.model_dump(), "target": state_final, "state_after_setting": state_set,
        "segment": {"start": n_setting, "length": n_segment, "moves": moves, "interfering": interfering,
                    "distractors": pools},
        "validation": validation, "device": driver.serial,
        "built_on": device.facts.built_on(trajectory_packages(t, item)).model_dump(mode="json"),
    }
    if item.sink is not None:
        apps = {role: app for role, app in (("producer", producer_app(t)), ("sink", item.sink))}
        row["route"] = {**apps, "builds": route_builds(device.facts, list(apps.values()))}
    return Trajectory(row, artifacts)


def trajectory_packages(template: Template, item: WorkItem) -> tuple[str, ...]:
    """The packages a trajectory touches: its template's, and the sink app's on a cross-app route."""
    packages = set(template_packages(template))
    if item.sink is not None:
        packages.add(profile_class(item.sink).package)
    return tuple(sorted(packages))


def route_builds(facts: DeviceFacts, apps: list[str]) -> dict[str, dict[str, Any]]:
    """The build of each app of a route as the device reports it (versionName and versionCode, None where it
    is not installed; read once per device, :class:`emukit.device.facts.DeviceFacts`), by package: a row says
    which builds it was made with."""
    out: dict[str, dict[str, Any]] = {}
    for app in apps:
        package = profile_class(app).package
        build = facts.app(package)
        out[package] = {"app": app, "version_name": build.version_name, "version_code": build.version_code}
    return out


def cross_app_converge(sink: str) -> list[dict[str, Any]]:
    """The cross-app suite's convergence: leave the producing app the way a person does (HOME) and open the sink
    app from the launcher's All apps; its first screen is the final neutral observation."""
    return [{"home": {}}, {f"{sink}.open_from_all_apps": {}}]


def _converge(ctx: PairContext, item: WorkItem) -> list[dict[str, Any]]:
    """A work item's convergence: the template's own when the final observation is in the producing app (the
    d-stress and interference suites; the cross-app persistent route, which ends in Markor's own query context),
    else :func:`cross_app_converge` to the sink."""
    t = item.template
    if item.sink is None or item.sink == producer_app(t):
        return ctx.sub(t.converge)
    if t.family == "clipboard":  # the sink's own query context of a paste: a text field with "Paste" showing
        return [*cross_app_converge(item.sink), {f"{item.sink}.paste_menu": {}}]
    return cross_app_converge(item.sink)


def producer_app(template: Template) -> str:
    """The profile name of the app a template's state is produced in (a host variant's app, else the family's
    primary app)."""
    if template.variant is not None:
        return template.variant.app
    return {"persistent": "files", "clipboard": "notes", "ordered": "music", "temporal": "clock"}[template.family]


# ------------------------------------------------------------------------------------------ the suite
def plan(suite: str, templates: list[Template], count_per_family: int, *, depths: tuple[int, ...] = DEPTHS,
         levels: tuple[str, ...] = LEVELS, interference_depth: int = INTERFERENCE_DEPTH) -> list[WorkItem]:
    """Work items: per family, ``count`` trajectories split evenly over ``depths`` (d-stress) or over ``levels``
    in the seed's 70/70/60 proportion (interference); templates of the family taken round-robin by name."""
    by_family: dict[str, list[Template]] = {}
    for t in sorted(templates, key=lambda t: t.name):
        by_family.setdefault(t.family, []).append(t)
    items: list[WorkItem] = []
    if suite == "cross-app":
        for family, in_family in sorted(by_family.items()):
            items += _plan_cross_app(family, in_family, count_per_family)
        return items
    for family, in_family in sorted(by_family.items()):
        # templates whose moves come from one table (the family's, or a host's) are planned together; a
        # family's count is shared among its hosts in proportion to their templates (largest remainder)
        by_host: dict[str | None, list[Template]] = {}
        for t in in_family:
            by_host.setdefault(t.variant.app if t.variant else None, []).append(t)
        hosts = sorted(by_host, key=lambda h: (h is not None, h or ""))
        counts = _shares(count_per_family, [len(by_host[h]) for h in hosts])
        for host, count in zip(hosts, counts, strict=True):
            items += _plan_group(suite, family, host, by_host[host], count, depths, levels, interference_depth)
    return items


def cross_app_templates(templates: list[Template]) -> list[Template]:
    """The templates the cross-app suite builds from, those of :data:`CROSS_APP_FAMILIES` whose state is produced
    where F.2 says: persistent templates re-hosted in Markor (:data:`CROSS_APP_PERSISTENT_HOST`), clipboard ones
    hosted in the routes' apps (:data:`CROSS_APP_CLIPBOARD_APPS`: each the source of its routes), ordered and
    temporal ones in their own apps (Retro Music and the Clock stay the producers; other host variants are left
    out)."""
    def routed(t: Template) -> bool:
        host = t.variant.app if t.variant is not None else None
        if t.family == "persistent":
            return host == CROSS_APP_PERSISTENT_HOST
        if t.family == "clipboard":
            return host in CROSS_APP_CLIPBOARD_APPS
        return host is None

    return [t for t in templates if t.family in CROSS_APP_FAMILIES and routed(t)]


def persistent_operation(template: Template) -> str:
    """``copy``, ``move`` or ``delete``: the file operation a persistent template's history performs (from the
    Table 6 template a host variant re-hosts, else its own name)."""
    name = template.variant.of if template.variant is not None and template.variant.of else template.name
    op = name.split("_", 1)[0]
    if op not in CROSS_APP_PERSISTENT_SHARE:
        raise ConfigError(f"{template.source_path}: cannot tell the file operation of {template.name!r} "
                          f"(expected a name starting with copy_, move_ or delete_)")
    return op


def collection_type(template: Template) -> str:
    """``playlist`` for an ordered template tracking a named playlist, else ``playing_queue``."""
    return "playlist" if template.state.get("playlist") else "playing_queue"


def _plan_cross_app(family: str, group: list[Template], count: int) -> list[WorkItem]:
    """F.2's split of one family: ordered in the 80 / 120 playing-queue / playlist proportion (largest
    remainder), its templates round-robin within each collection type; temporal round-robin over its templates;
    each sink an equal share of the family (50 per 200) and of each template."""
    group = [t for t in cross_app_templates(group) if t.family == family]
    if not group:
        return []
    if family == "persistent":  # all in Markor: the producer is the sink (its own query context)
        ops = [k for k in CROSS_APP_PERSISTENT_SHARE if any(persistent_operation(t) == k for t in group)]
        counts = _shares(count, [CROSS_APP_PERSISTENT_SHARE[k] for k in ops])
        sequence = [t for op, n in zip(ops, counts, strict=True)
                    for t in _round_robin([t for t in group if persistent_operation(t) == op], n)]
        return [WorkItem(t, i, 0, None, CROSS_APP_PERSISTENT_HOST) for i, t in enumerate(sequence)]
    if family == "clipboard":  # F.2's 12 routes, evenly (largest remainder), each from its source's template
        by_source = {producer_app(t): t for t in group}
        routes = [r for r in CROSS_APP_CLIPBOARD_ROUTES if r[0] in by_source and r[1] in by_source]
        counts = _shares(count, [1] * len(routes))
        sequence_routes = [r for r, n in zip(routes, counts, strict=True) for _ in range(n)]
        return [WorkItem(by_source[src], i, 0, None, sink) for i, (src, sink) in enumerate(sequence_routes)]
    if family == "ordered":
        kinds = [k for k in CROSS_APP_ORDERED_SHARE if any(collection_type(t) == k for t in group)]
        counts = _shares(count, [CROSS_APP_ORDERED_SHARE[k] for k in kinds])
        sequence = [t for kind, n in zip(kinds, counts, strict=True)
                    for t in _round_robin([t for t in group if collection_type(t) == kind], n)]
    else:
        sequence = _round_robin(group, count)
    # sinks in turn over the slots taken template by template: each sink gets an equal share of the family and
    # of every template (a template's slots are consecutive in this order), so no sink goes with one template
    names = [t.name for t in group]
    order = sorted(range(len(sequence)), key=lambda i: (names.index(sequence[i].name), i))
    sinks = [""] * len(sequence)
    for rank, i in enumerate(order):
        sinks[i] = CROSS_APP_SINKS[rank % len(CROSS_APP_SINKS)]
    return [WorkItem(t, i, 0, None, sinks[i]) for i, t in enumerate(sequence)]


def _round_robin(group: list[Template], n: int) -> list[Template]:
    return [group[i % len(group)] for i in range(n)]


def _shares(total: int, weights: list[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` (largest remainder, ties to the first)."""
    whole = sum(weights)
    out = [total * w // whole for w in weights]
    order = sorted(range(len(weights)), key=lambda i: (-(total * weights[i] % whole), i))
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def _plan_group(suite: str, family: str, host: str | None, group: list[Template], count_per_family: int,
                depths: tuple[int, ...], levels: tuple[str, ...], interference_depth: int) -> list[WorkItem]:
    """The work items of one family's templates that share a move table (``host``: None for the family's)."""
    items: list[WorkItem] = []
    table = table_of(family) if host is None else host_table(family, host)
    if table is None:  # no move table: nothing can be built for these templates
        return items
    fam_levels = tuple(lv for lv in levels if lv in table.levels)
    step = fill_step(table)
    wanted = depths if suite == "d-stress" else (interference_depth,)
    bad = [d for d in wanted if d % step]
    if bad:
        raise ConfigError(f"{table.label}: depth(s) {bad} cannot be filled with its neutral moves (multiples "
                          f"of {step} only)")
    if suite == "d-stress":
        base, extra = divmod(count_per_family, len(depths))
        strata = [(d, None, base + (1 if i < extra else 0)) for i, d in enumerate(depths)]
    elif not fam_levels:
        return items
    else:
        share = {lv: LEVEL_SHARE[lv] for lv in fam_levels}
        total = sum(share.values())
        counts = {lv: count_per_family * s // total for lv, s in share.items()}
        # largest remainder first (ties in level order), so small counts still cover every level
        by_remainder = sorted(fam_levels, key=lambda lv: (-(count_per_family * share[lv] % total),
                                                          fam_levels.index(lv)))
        for lv in by_remainder[: count_per_family - sum(counts.values())]:
            counts[lv] += 1
        strata = [(interference_depth, lv, counts[lv]) for lv in fam_levels]
    index = 0
    for depth, level, n in strata:
        for _ in range(n):
            items.append(WorkItem(group[index % len(group)], index, depth, level))
            index += 1
    return items


@dataclass
class SuiteOptions:
    """What a distribution-shift suite build builds and where (``emukit build-pairs --suite``).

    Attributes:
        suite: the suite (:data:`emukit.families.SUITES`).
        templates: the templates its trajectories come from.
        count_per_family: trajectories wanted per family.
        seed: the build's seed.
        data_dir: the data folder (the suite is written under it: :func:`suite_dir`).
        devices: which devices, how many, and the embedded virtual devices' kind and screen.
        max_attempts: attempts of one trajectory before it is given up.
        adb_port: the adb server's port.
        attempt_timeout_s: see :attr:`BuildOptions.attempt_timeout_s` (a trajectory gets 5x: it loads snapshots).
        depths: the d-stress depths.
        levels: the interference levels.
        interference_depth: the depth of an interference trajectory.
    """

    suite: str
    templates: list[Template]
    count_per_family: int = 200
    seed: int = 0
    data_dir: Path = Path("data")
    devices: DeviceRequest = field(default_factory=DeviceRequest)  # which devices, how many, embedded kind
    max_attempts: int = 3
    adb_port: int = 5037
    attempt_timeout_s: float = 60.0  # see BuildOptions.attempt_timeout_s (a trajectory gets 5x: it loads snapshots)
    depths: tuple[int, ...] = DEPTHS
    levels: tuple[str, ...] = LEVELS
    interference_depth: int = INTERFERENCE_DEPTH


def read_suite(data_dir: Path, suite: str, family: str) -> list[dict[str, Any]]:
    """Stored rows of one suite and family (artifact paths relative to :func:`suite_dir`)."""
    path = suite_dir(data_dir, suite) / f"{family}.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class SuiteRunner:
    """Runs the work items of one suite over a device pool and appends accepted rows to the family files."""

    def __init__(self, options: SuiteOptions) -> None:
        if options.suite not in SUITES:
            raise ConfigError(f"unknown suite {options.suite!r}; expected one of {', '.join(SUITES)}")
        self.options = options
        self.root = suite_dir(options.data_dir, options.suite)
        self.artifacts = ArtifactStore(self.root / "artifacts")
        self.lock = threading.Lock()
        if options.suite == "cross-app":
            # F.2's producers only; the families whose routes are not built yet are reported, not built
            # (templates of a built family hosted elsewhere than F.2 says are not this suite's: left out)
            supported = cross_app_templates(options.templates)
            self.unsupported = sorted({t.family for t in options.templates if t.family not in CROSS_APP_FAMILIES})
        else:
            # families (or "family in app" for host variants) with no move table: reported, not built
            self.unsupported = sorted({_label(t) for t in options.templates if table_for(t) is None})
            supported = [t for t in options.templates if table_for(t) is not None]
        # (table, level) pairs asked for whose interfering moves are not defined: reported, not built
        tables = {tb.label: tb for t in supported if (tb := table_for(t)) is not None}
        self.unsupported_levels = sorted(
            (label, lv) for label, table in tables.items() for lv in options.levels
            if options.suite == "interference" and lv not in table.levels)
        self.items = plan(options.suite, supported, options.count_per_family, depths=options.depths,
                          levels=options.levels, interference_depth=options.interference_depth)
        self.done: set[str] = set()
        for family in {t.family for t in supported}:
            self.done |= {r["trajectory_id"] for r in read_suite(options.data_dir, options.suite, family)}
        self.pending: list[tuple[WorkItem, int]] = [(i, 0) for i in self.items if self._row_id(i) not in self.done]
        self._on_progress = None
        self.accepted: Counter = Counter()  # (family, template, stratum) -> n stored now
        self.stored: Counter = Counter()  # ... -> n stored in total
        self.rejected: Counter = Counter()  # (family, template, stratum, reason) -> n
        self.failed: list[str] = []
        self.errors: list[str] = []
        self.wall_s = 0.0
        for i in self.items:
            if self._row_id(i) in self.done:
                self.stored[self.key(i)] += 1

    def _row_id(self, item: WorkItem) -> str:
        return f"{self.options.suite}-{item.trajectory_id}-s{self.options.seed}"

    @staticmethod
    def stratum(item: WorkItem) -> str:
        if item.sink is not None and item.template.family == "clipboard":
            return f"route={producer_app(item.template)}->{item.sink}"
        if item.sink is not None:
            return f"sink={item.sink}"
        return item.level if item.level is not None else f"d={item.depth}"

    def key(self, item: WorkItem) -> tuple[str, str, str]:
        return item.template.family, item.template.name, self.stratum(item)

    def _store(self, traj: Trajectory) -> None:
        """Artifacts first (content-addressed, idempotent), then one appended line per trajectory."""
        self.artifacts.put_many(traj.artifacts.blobs)
        row = dict(traj.row)

        def rel(obs: dict[str, str]) -> dict[str, str]:
            o = Observation(**obs)
            return {"screenshot": f"artifacts/{o.screenshot[:2]}/{o.screenshot[2:4]}/{o.screenshot}.png",
                    "hierarchy": f"artifacts/{o.hierarchy[:2]}/{o.hierarchy[2:4]}/{o.hierarchy}.xml"}

        row["history"] = [{"observation": rel(s["observation"]), "action": s["action"]} for s in row["history"]]
        row["final_observation"] = rel(row["final_observation"])
        path = self.root / f"{row['family']}.jsonl"
        line = json.dumps(row, sort_keys=True) + "\n"
        with self.lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())

    def _take(self) -> tuple[WorkItem, int] | None:
        with self.lock:
            return self.pending.pop(0) if self.pending else None

    def _attempt(self, device: DeviceContext, job: tuple[WorkItem, int]) -> None:
        """One attempt at one trajectory on a leased device (the worker pool's job). A rejected attempt goes
        back to the front of the queue with the next attempt number, up to ``max_attempts``; a device that
        timed out or stopped answering is given up (the pool replaces it)."""
        o = self.options
        item, attempt = job
        driver = device.driver
        traj: Trajectory | None = None
        retry = False
        try:
            with driver.deadline(SNAPSHOT_TIMEOUT_FACTOR * o.attempt_timeout_s,
                                 f"{o.suite} {self._row_id(item)} attempt {attempt}"):
                traj = run_trajectory(device, o.suite, item, o.seed, attempt)
        except DeadlinePassed as exc:  # the device stopped answering: give it up
            with self.lock:
                self.rejected[(*self.key(item), "device_timeout")] += 1
            device.retire(str(exc)[:200])
            retry = True
        except Rejected as rej:
            with self.lock:
                self.rejected[(*self.key(item), rej.reason)] += 1
            retry = True
        except DeviceError as exc:
            usable = device.usable()
            with self.lock:
                self.rejected[(*self.key(item), "action_failed" if usable else "device_error")] += 1
            if not usable:
                device.retire(str(exc)[:200])
            retry = True
        except EmukitError as exc:  # a template or table problem: retrying will not help
            with self.lock:
                self.failed.append(f"{self._row_id(item)}: {exc}")
        if retry and attempt + 1 < o.max_attempts:
            with self.lock:
                self.pending.insert(0, (item, attempt + 1))
            return
        if retry:
            with self.lock:
                self.failed.append(f"{self._row_id(item)}: gave up after {o.max_attempts} attempts")
        elif traj is not None:
            self._store(traj)
            with self.lock:
                self.accepted[self.key(item)] += 1
                self.stored[self.key(item)] += 1
        if self._on_progress is not None:
            self._on_progress(self)

    def _pool_failed(self, exc: DeviceError) -> None:
        with self.lock:
            self.errors.append(f"device pool: {exc}")

    def run(self, on_progress=None) -> None:
        o = self.options
        if not self.pending:
            return
        self._on_progress = on_progress
        server = AdbServer(o.adb_port)
        server.start()
        pool, workers = make_pool(o.devices, server, o.data_dir)
        t0 = time.monotonic()
        try:
            pool.start()
            WorkerPool(pool, workers, adb_port=o.adb_port, data_dir=o.data_dir, name="suite-worker",
                       on_pool_error=self._pool_failed).run(self._take, self._attempt)
        finally:
            close_pool(pool, server)
            self.wall_s = time.monotonic() - t0

    @property
    def complete(self) -> bool:
        return not self.failed and not self.errors and sum(self.stored.values()) >= len(self.items)


def build_suite(options: SuiteOptions, on_progress=None) -> SuiteRunner:
    """Build (or resume) one suite; returns the runner with its counts."""
    if options.count_per_family < 1:
        raise ConfigError(f"--count must be at least 1, got {options.count_per_family}")
    bad = [d for d in options.depths if d < 1]
    if bad:
        raise ConfigError(f"depths must be positive, got {bad}")
    unknown = set(options.levels) - set(LEVELS)
    if unknown:
        raise ConfigError(f"unknown interference level(s) {sorted(unknown)}; expected {', '.join(LEVELS)}")
    runner = SuiteRunner(options)
    runner.run(on_progress)
    return runner


def fill_step(table: FamilyTable) -> int:
    """The granularity of depths the always-applicable neutral moves can fill exactly (gcd of their lengths;
    0 when there is none): every depth must be a multiple of it."""
    return math.gcd(*[m.length for m in table.neutral if not m.requires and not m.pool])


def table_of(family: str) -> FamilyTable | None:
    """The family's registered move table; None when no module registers one (the family is reported, not
    built)."""
    if family not in STRESS_TABLES:
        return None
    return STRESS_TABLES[family]


def table_for(template: Template) -> FamilyTable | None:
    """The move table a template's trajectories use: its host's (a variant's app) or its family's."""
    if template.variant is not None:
        return host_table(template.family, template.variant.app)
    return table_of(template.family)


def _label(template: Template) -> str:
    return template.family if template.variant is None else f"{template.family} in {template.variant.app}"


for _family in STRESS_TABLES:  # the tables are code: a broken entry fails at import, not mid-build
    validate_table(STRESS_TABLES[_family])
for _host in HOST_TABLES.values():
    validate_table(_host)
