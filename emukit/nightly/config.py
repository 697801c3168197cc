"""The nightly rebuild's configuration file (YAML, validated; every error names file, line and field).

Relative paths in the file are relative to the file's folder, so a config checked in next to its reports
means the same from any working directory.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emukit.errors import ConfigError
from emukit.families import FAMILIES, SUITES, Family
from emukit.workers.devices import EmbeddedDevices
from emukit.yamlmodel import load_yaml_model


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Devices(_Strict):
    """Exactly one of: AVD names to launch (KVM), serials already attached, or embedded virtual devices."""

    avds: list[str] = Field(default_factory=list, description="AVDs to launch headless for the night")
    serials: list[str] = Field(default_factory=list, description="devices already attached to adb")
    virtual: int = Field(default=0, ge=0, le=16, description="embedded virtual devices each step starts")
    #: how the embedded virtual devices behave and look (``embedded: {mode: hardware}``); the key
    #: ``vdevice_mode: MODE`` of older configs is read as ``embedded: {mode: MODE}``
    embedded: EmbeddedDevices = Field(default_factory=EmbeddedDevices)
    first_console_port: int = Field(default=5554, description="AVDs: console ports from here, 2 apart")
    first_grpc_port: int = Field(default=8554, ge=1024, le=65000, description="AVDs: gRPC ports from here, 1 apart")

    @model_validator(mode="before")
    @classmethod
    def _old_mode_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "vdevice_mode" in data:
            data = dict(data)
            mode = data.pop("vdevice_mode")
            if "embedded" in data:
                raise ValueError("give the mode once: embedded.mode (vdevice_mode is its older name)")
            data["embedded"] = {"mode": mode}
        return data

    @model_validator(mode="after")
    def _exactly_one(self) -> Devices:
        given = [k for k in ("avds", "serials", "virtual") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("give exactly one of avds, serials, virtual (got "
                             f"{', '.join(given) or 'none'})")
        if len(set(self.avds)) != len(self.avds) or len(set(self.serials)) != len(self.serials):
            raise ValueError("a device is listed twice")
        return self

    @field_validator("first_console_port")
    @classmethod
    def _even(cls, port: int) -> int:
        from emukit.device.emulator import check_console_port

        return check_console_port(port)


class Build(_Strict):
    """Pairs per family (0 or absent: not built) and the build's knobs."""

    families: dict[str, int] = Field(min_length=1)
    templates: list[str] = Field(default_factory=list, description="only these templates (default: all)")
    seed: int = 0
    max_attempts: int = Field(default=3, ge=1)

    @field_validator("families")
    @classmethod
    def _known(cls, families: dict[str, int]) -> dict[str, int]:
        for name, count in families.items():
            if name not in FAMILIES:
                raise ValueError(f"unknown family {name!r} (known: {', '.join(FAMILIES)})")
            if count < 0:
                raise ValueError(f"{name}: count must be >= 0, got {count}")
        if not any(families.values()):
            raise ValueError("every family count is 0: nothing to build")
        return families


class Suite(_Strict):
    name: Literal[SUITES]  # type: ignore[valid-type]  # the names in emukit.families.SUITES
    count: int = Field(default=20, ge=1, description="trajectories per family")
    family: Family | Literal["all"] = "all"


class Stability(_Strict):
    per_template: int = Field(default=1, ge=1)
    repeats: int = Field(default=3, ge=1)


class Replay(_Strict):
    per_template: int = Field(default=1, ge=1, description="exported pairs of each template run again")


class Audits(_Strict):
    release: bool = True
    stability: Stability | None = Field(default_factory=Stability, description="null: not run")
    replay: Replay | None = Field(default_factory=Replay,
                                  description="exported branches run again from the export alone; null: not run")
    shortcuts: bool = Field(default=True, description="label-shortcut guessers on the night's export")
    diversity: bool = Field(default=True, description="boundary diversity of the night's pairs")
    split: bool = Field(default=True, description="each suite (training side) against the night's pairs")


class Tasks(_Strict):
    verify: Literal["all", "none"] | list[str] = "all"


class Snapshots(_Strict):
    """The base snapshots attached devices and AVDs keep and check each night (embedded virtual devices
    start fresh in every step and build what they use then)."""

    check: Literal["all"] | list[str] = Field(
        default="all", description="every base spec found (shipped and yours), or these names and globs "
        "(`my_*`); a plain name that matches no spec is an error, a glob may match none")

    @field_validator("check")
    @classmethod
    def _not_empty(cls, check: Literal["all"] | list[str]) -> Literal["all"] | list[str]:
        if isinstance(check, list) and not check:
            raise ValueError("an empty list checks no base: give 'all' or at least one name")
        return check

    def select(self, specs: dict[str, str], source: Path | None = None) -> dict[str, str]:
        """The specs of ``specs`` (name -> digest) this config checks; ConfigError (naming ``source``, the
        config file) for a plain name not found."""
        if self.check == "all":
            return dict(specs)
        missing = [p for p in self.check if not _is_glob(p) and p not in specs]
        if missing:
            raise ConfigError(f"{source or 'nightly config'}: snapshots.check: no base snapshot spec named "
                              f"{', '.join(missing)} (found: {', '.join(sorted(specs))})")
        return {name: digest for name, digest in specs.items()
                if any(fnmatch.fnmatchcase(name, p) for p in self.check)}


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")


class Retention(_Strict):
    nights: int = Field(default=14, ge=1, description="night folders kept (the last good one is always kept)")


class Thresholds(_Strict):
    """A night regresses (exit 1) when, against the previous successful night, any of these is passed."""

    max_count_drop: int = Field(default=0, ge=0, description="pairs fewer per template")
    max_acceptance_drop: float = Field(default=0.10, ge=0, le=1, description="acceptance rate fall per template")
    max_boundary_drift: float = Field(default=0.0, ge=0, le=1,
                                      description="share of a template's work keys whose boundary changed "
                                                  "while its template hash did not")
    max_stability_drop: float = Field(default=0.0, ge=0, le=1, description="stable-branch share fall")
    max_time_per_pair_increase: float = Field(default=0.5, ge=0, description="relative, 0.5 = +50%")
    fail_on_template_change: bool = Field(default=False, description="a changed template hash is a regression")


class NightlyConfig(_Strict):
    reports: Path = Field(description="one folder per night (data, logs, report.html, report.json)")
    devices: Devices
    build: Build
    suites: list[Suite] = Field(default_factory=list)
    audits: Audits = Field(default_factory=Audits)
    tasks: Tasks = Field(default_factory=Tasks)
    snapshots: Snapshots = Field(default_factory=Snapshots)
    retention: Retention = Field(default_factory=Retention)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    attempt_timeout_s: float = Field(default=60.0, gt=0)
    source: Path | None = Field(default=None, exclude=True)

    @field_validator("suites")
    @classmethod
    def _distinct(cls, suites: list[Suite]) -> list[Suite]:
        names = [s.name for s in suites]
        if len(set(names)) != len(names):
            raise ValueError(f"a suite is listed twice: {names}")
        return suites

    def resolved(self) -> NightlyConfig:
        """The config with ``reports`` made absolute against the config file's folder."""
        base = self.source.parent if self.source else Path.cwd()
        reports = self.reports if self.reports.is_absolute() else (base / self.reports)
        return self.model_copy(update={"reports": reports.resolve()})


def load_config(path: Path) -> NightlyConfig:
    """Read and validate a nightly config (ConfigError: ``file:line: field: why`` per problem)."""
    cfg = load_yaml_model(Path(path), NightlyConfig, "a nightly config")
    return cfg.model_copy(update={"source": Path(path).resolve()}).resolved()
