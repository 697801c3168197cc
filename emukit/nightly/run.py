"""One night: launch the devices, check base snapshots, build, audit, verify, export, compare, report.

A night lives in ``REPORTS/<night id>/`` (the id is the UTC date, ``2026-12-04``; a second night the same day
is ``2026-12-04.2``): ``data/`` (the night's store, artifacts, fingerprints and suites: every night rebuilds
from nothing), ``logs/<step>.log``, ``state.json`` (each step's status, exit code and seconds, written after
every step), ``metrics.json``, ``report.json`` and ``report.html``. Every step is one ``emukit`` command run
as a child process, so its output, exit code and time are the step's own.

* ``REPORTS/nightly.lock`` (``flock``) keeps two nights from overlapping; a second start is refused with the
  holder's pid.
* A night that was killed midway has ``state.json`` status ``running`` and no live lock holder: the next
  start resumes it, skipping the steps that finished (``build-pairs`` itself resumes from its store).
* Devices: ``avds`` are launched for the night (headless, KVM) and stopped at its end; ``serials`` are used
  as attached; ``virtual: N`` lets each step start ``N`` embedded virtual devices of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from emukit.atomicio import write_atomic
from emukit.errors import ConfigError, EmukitError
from emukit.families import suite_dir
from emukit.nightly.compare import Finding, NightMetrics, compare, store_metrics
from emukit.nightly.config import NightlyConfig

STATE = "state.json"
REPORT_JSON = "report.json"
LOCK = "nightly.lock"
_NIGHT_ID = re.compile(r"^\d{4}-\d{2}-\d{2}(\.\d+)?$")
_STABLE = re.compile(r"(\d+)/(\d+) branches stable")


class NightlyBusy(EmukitError):
    """Another night holds the lock."""


@dataclass
class Step:
    name: str
    argv: list[str]  # emukit's arguments (after ``emukit``)
    needed_for_metrics: bool = False


@dataclass
class NightResult:
    night: str
    folder: Path
    resumed: bool
    failed_steps: list[str]
    findings: list[Finding]
    previous: str | None
    metrics: NightMetrics
    skipped_steps: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Finding]:
        return [f for f in self.findings if f.regression]

    @property
    def ok(self) -> bool:
        return not self.failed_steps and not self.regressions


# -- the lock and the night folder --------------------------------------------------------------------------

def _lock(reports: Path) -> int:
    from emukit.device.ownership import _try_lock

    path = reports / LOCK
    fd = _try_lock(path)
    if fd is None:
        holder = path.with_suffix(".json")
        who = holder.read_text(encoding="utf-8").strip() if holder.exists() else "unknown"
        raise NightlyBusy(f"{path}: another night is running ({who}); wait for it to finish")
    write_atomic(path.with_suffix(".json"), json.dumps({"pid": os.getpid(), "started": _now()}) + "\n")
    return fd


def _save_state(folder: Path, state: dict[str, Any]) -> None:
    write_atomic(folder / STATE, json.dumps(state, indent=2) + "\n")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def nights(reports: Path) -> list[Path]:
    """Night folders, oldest first."""
    if not reports.is_dir():
        return []
    found = [p for p in reports.iterdir() if p.is_dir() and _NIGHT_ID.match(p.name)]
    return sorted(found, key=lambda p: (p.name.split(".")[0], int(p.name.split(".")[1]) if "." in p.name else 1))


def previous_good(reports: Path, besides: str) -> Path | None:
    """The latest night, other than ``besides``, whose report says it passed."""
    for night in reversed(nights(reports)):
        report = _read_json(night / REPORT_JSON)
        if night.name != besides and report is not None and report.get("ok") is True:
            return night
    return None


def _pick_night(reports: Path, night_id: str | None, today: str) -> tuple[Path, bool]:
    """(folder, resumed): the named night, else an unfinished one, else a new one for today."""
    if night_id is not None:
        if not _NIGHT_ID.match(night_id):
            raise ConfigError(f"--night {night_id!r}: expected YYYY-MM-DD or YYYY-MM-DD.N")
        folder = reports / night_id
        state = _read_json(folder / STATE)
        return folder, state is not None and state.get("status") == "running"
    for night in reversed(nights(reports)):
        state = _read_json(night / STATE)
        if state is not None and state.get("status") == "running":
            return night, True
    folder, n = reports / today, 1
    while folder.exists():
        n += 1
        folder = reports / f"{today}.{n}"
    return folder, False


# -- the steps ---------------------------------------------------------------------------------------------

def _spec_hashes() -> dict[str, str]:
    from emukit.snapshots import spec_files

    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in sorted(spec_files().items())}


def _templates_by_family(cfg: NightlyConfig) -> dict[str, list[str]]:
    from emukit.templates import load_templates

    names = cfg.build.templates or None
    found = load_templates(names=names)
    if names:
        missing = sorted(set(names) - {t.name for t in found})
        if missing:
            raise ConfigError(f"{cfg.source}: build.templates: unknown template(s) {', '.join(missing)}")
    out: dict[str, list[str]] = {}
    for t in found:
        out.setdefault(t.family, []).append(t.name)
    return out


def plan_steps(cfg: NightlyConfig, data: Path, export: Path, serials: list[str],
               snapshot_work: list[tuple[str, str, str]]) -> list[Step]:
    """The night's commands, in order. ``snapshot_work``: (action, snapshot, serial) for attached devices."""
    if serials:
        devices = [a for s in serials for a in ("--device", s)]
    else:
        devices = ["--devices", str(cfg.devices.virtual)]
    embedded = cfg.devices.embedded
    mode = ["--vdevice-mode", embedded.mode]
    if embedded.screen is not None:
        mode += ["--vdevice-screen", "{}x{}@{}".format(*embedded.screen)]
    dd = ["--data-dir", str(data)]
    steps = [Step(f"snapshot-{action}-{name}-{serial}", ["snapshots", action, name, "--device", serial, *dd])
             for action, name, serial in snapshot_work]
    by_family = _templates_by_family(cfg)
    built = [a for f, n in cfg.build.families.items() if n for t in by_family.get(f, []) for a in ("--template", t)]
    for family, count in cfg.build.families.items():
        if not count:
            continue
        if family not in by_family:
            raise ConfigError(f"{cfg.source}: build.families.{family}: no template of this family is selected")
        only = [a for t in by_family[family] for a in ("--template", t)] if cfg.build.templates else []
        steps.append(Step(f"build-{family}", ["build-pairs", "--family", family, "--count", str(count), *only,
                                              "--seed", str(cfg.build.seed), "--max-attempts",
                                              str(cfg.build.max_attempts), "--attempt-timeout",
                                              f"{cfg.attempt_timeout_s:g}", *devices, *mode, *dd, "--quiet"],
                          needed_for_metrics=True))
    for suite in cfg.suites:
        steps.append(Step(f"suite-{suite.name}", ["build-pairs", "--suite", suite.name, "--family", suite.family,
                                                  "--count", str(suite.count), "--seed", str(cfg.build.seed),
                                                  *devices, *mode, *dd, "--quiet"]))
    if cfg.audits.release:
        steps.append(Step("audit-release", ["audit", "release", *built, *dd]))
    if cfg.audits.stability is not None:
        st = cfg.audits.stability
        steps.append(Step("audit-stability", ["audit", "stability", *built, "--per-template", str(st.per_template),
                                              "--repeats", str(st.repeats), *devices, *mode, *dd, "--quiet"],
                          needed_for_metrics=True))
    steps.append(Step("export", ["export", *dd, "--out", str(export)]))
    if cfg.audits.replay is not None:
        # the replay compares observations only where the pair's recorded device kind and the replaying
        # device's are both deterministic virtual devices (clocks elsewhere run): the audit reads both kinds
        # itself; the replay devices keep their fingerprints apart from the build's
        steps.append(Step("audit-replay", ["audit", "replay", "--pairs", str(export), "--per-template",
                                           str(cfg.audits.replay.per_template), *devices, *mode,
                                           "--data-dir", str(data / "replay"), "--quiet"]))
    if cfg.audits.shortcuts:
        steps.append(Step("audit-shortcuts", ["audit", "shortcuts", "--pairs", str(export)]))
    if cfg.audits.diversity:
        steps.append(Step("audit-diversity", ["audit", "diversity", *built, *dd]))
    if cfg.audits.split:
        for suite in cfg.suites:
            steps.append(Step(f"audit-split-{suite.name}", ["audit", "split", "--train",
                                                            str(suite_dir(data, suite.name)), "--eval", str(export)]))
    if cfg.tasks.verify != "none":
        ids = ["--all"] if cfg.tasks.verify == "all" else list(cfg.tasks.verify)
        device = ["--device", serials[0]] if serials else ["--embedded"]  # never an unrelated attached device
        negatives = ["--negatives"] if cfg.tasks.verify == "all" else []  # every template's wrong runs must fail
        steps.append(Step("tasks-verify", ["tasks", "verify", *ids, *negatives, *device, *mode, *dd, "--quiet"]))
    return steps


def _snapshot_work(serials: list[str], data: Path, before: Path | None, specs: dict[str, str],
                   before_specs: dict[str, str]) -> list[tuple[str, str, str]]:
    """Attached devices keep their snapshots from night to night: a spec that changed (or has no fingerprint
    yet) is rebuilt, the others verified against their fingerprints (a failed verify rebuilds; see run)."""
    from emukit.snapshots import fingerprint_path

    work = []
    for serial in serials:
        for name, digest in specs.items():
            old = before / "data" if before else None
            if old is not None and (src := fingerprint_path(old, serial, name)).exists() \
                    and before_specs.get(name) == digest:
                dst = fingerprint_path(data, serial, name)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
                work.append(("verify", name, serial))
            else:
                work.append(("build", name, serial))
    return work


def _run_step(step: Step, logs: Path, env: dict[str, str]) -> tuple[int, float]:
    logs.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with open(logs / f"{step.name}.log", "a", encoding="utf-8") as log:
        log.write(f"$ emukit {' '.join(step.argv)}\n")
        log.flush()
        code = subprocess.run([sys.executable, "-m", "emukit", *step.argv], stdout=log, stderr=subprocess.STDOUT,
                              env=env, check=False).returncode
    return code, time.monotonic() - started


# -- one night ---------------------------------------------------------------------------------------------

def run_night(cfg: NightlyConfig, *, night_id: str | None = None,
              on_step: Callable[[str, str], None] | None = None) -> NightResult:
    """Run (or resume) a night; see the module docstring. Raises NightlyBusy when a night is running."""
    reports = cfg.reports
    reports.mkdir(parents=True, exist_ok=True)
    fd = _lock(reports)
    pool = None
    try:
        folder, resumed = _pick_night(reports, night_id, datetime.now(UTC).date().isoformat())
        data, logs, export = folder / "data", folder / "logs", folder / "export"
        data.mkdir(parents=True, exist_ok=True)
        state = _read_json(folder / STATE) or {"night": folder.name, "started": _now(), "steps": {}}
        state.update(status="running", config=cfg.model_dump(mode="json"))
        state.setdefault("resumed_at", [])
        if resumed:
            state["resumed_at"].append(_now())
        _save_state(folder, state)
        before = previous_good(reports, folder.name)
        before_metrics = (NightMetrics.model_validate_json((before / "metrics.json").read_text())
                          if before is not None and (before / "metrics.json").exists() else None)

        specs = cfg.snapshots.select(_spec_hashes(), cfg.source)  # a name not found fails before any launch
        serials = list(cfg.devices.serials)
        if cfg.devices.avds:
            pool, serials = _launch_avds(cfg)
        work = _snapshot_work(serials, data, before, specs, before_metrics.snapshot_specs if before_metrics else {})
        steps = plan_steps(cfg, data, export, serials, work)
        env = {**os.environ}
        failed: list[str] = []
        skipped: list[str] = []
        for step in steps:
            done = state["steps"].get(step.name, {})
            if done.get("status") == "ok":
                skipped.append(step.name)
                continue
            if on_step:
                on_step(step.name, "start")
            code, seconds = _run_step(step, logs, env)
            rebuilt = False
            if code and step.name.startswith("snapshot-verify-"):  # a base that no longer matches: rebuild it
                rebuild = Step(step.name, ["snapshots", "build", *step.argv[2:]])  # logged with the verify
                code, more = _run_step(rebuild, logs, env)
                seconds, rebuilt = seconds + more, True
            total = done.get("seconds", 0.0) + seconds
            state["steps"][step.name] = {"status": "ok" if code == 0 else "failed", "exit": code,
                                         "seconds": round(total, 2), "argv": step.argv,
                                         "runs": done.get("runs", 0) + 1, **({"rebuilt": True} if rebuilt else {})}
            _save_state(folder, state)
            if code:
                failed.append(step.name)
            if on_step:
                on_step(step.name, "ok" if code == 0 else f"failed ({code})")

        metrics = _metrics(cfg, data, logs, state, specs)
        write_atomic(folder / "metrics.json", metrics.model_dump_json(indent=2) + "\n")
        findings = compare(metrics, before_metrics, cfg.thresholds) if before_metrics else []
        result = NightResult(night=folder.name, folder=folder, resumed=resumed, failed_steps=failed,
                             findings=findings, previous=before.name if before else None, metrics=metrics,
                             skipped_steps=skipped)
        from emukit.nightly.report import write_report

        write_report(result, state, cfg)
        state["status"] = "finished"
        state["finished"] = _now()
        _save_state(folder, state)
        prune(reports, cfg.retention.nights)
        return result
    finally:
        if pool is not None:
            pool.close()
        os.close(fd)


def _metrics(cfg: NightlyConfig, data: Path, logs: Path, state: dict[str, Any], specs: dict[str, str]
             ) -> NightMetrics:
    metrics = NightMetrics(snapshot_specs=specs)
    if (data / "emukit.db").exists():
        metrics.templates = store_metrics(None, data)
    metrics.build_seconds = round(sum(s["seconds"] for name, s in state["steps"].items()
                                      if name.startswith("build-")), 2)
    log = logs / "audit-stability.log"
    if log.exists():
        found = _STABLE.findall(log.read_text(encoding="utf-8", errors="replace"))
        if found:
            metrics.stable_branches, metrics.stability_branches = (int(x) for x in found[-1])
    return metrics


def _launch_avds(cfg: NightlyConfig):
    """Launch the configured AVDs headless (KVM) for the night; (pool, serials)."""
    from emukit.device.adbserver import AdbServer
    from emukit.device.emulator import EmulatorConfig
    from emukit.device.launcher import DeviceLauncher, EmulatorLauncher
    from emukit.device.pool import DevicePool
    from emukit.settings import adb_server_port

    server = AdbServer(adb_server_port())
    server.start()
    launchers: list[DeviceLauncher] = [
        EmulatorLauncher(EmulatorConfig(avd_name=name, console_port=cfg.devices.first_console_port + 2 * i,
                                        grpc_port=cfg.devices.first_grpc_port + i), server)
        for i, name in enumerate(cfg.devices.avds)]
    pool = DevicePool(launchers)
    return pool, pool.start()


def prune(reports: Path, keep: int) -> list[str]:
    """Delete night folders beyond the newest ``keep`` (never a running night, never the last good one)."""
    all_nights = nights(reports)
    good = previous_good(reports, besides="")
    removed = []
    for night in all_nights[:-keep] if len(all_nights) > keep else []:
        state = _read_json(night / STATE) or {}
        if night == good or state.get("status") == "running":
            continue
        shutil.rmtree(night, ignore_errors=True)
        removed.append(night.name)
    return removed
