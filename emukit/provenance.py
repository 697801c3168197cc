"""Where a record was built: the device's kind and build, and the builds of the apps it touched.

Every stored record (a strict pair, a suite trajectory, a task verification, an annotation) carries a
:class:`BuiltOn`, read on the device once per device and run (:mod:`emukit.device.facts`), never assumed. A
dataset built on several machines can then be selected by kind and build, and a pair is re-read with the
selector tables of the app builds it was made with.

The kinds of device (:data:`DEVICE_KINDS`) and the modes of emukit's virtual device (:data:`VIRTUAL_MODES`)
are defined here and nowhere else.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

#: how emukit's virtual device behaves: "deterministic" (a logical clock that moves only when told, every app
#: preinstalled and past its first run) or "hardware" (clocks that follow the host, gestures that take their
#: real time, apps absent until installed and showing their first-run screens): docs/vdevice.md
VirtualMode = Literal["deterministic", "hardware"]
VIRTUAL_MODES: tuple[str, ...] = get_args(VirtualMode)
DEFAULT_VIRTUAL_MODE: VirtualMode = "deterministic"

#: the kind of device a record was built on; "unknown" for records stored before kinds were recorded
DeviceKind = Literal["virtual-deterministic", "virtual-hardware", "emulator", "physical", "unknown"]
DEVICE_KINDS: tuple[str, ...] = get_args(DeviceKind)
UNKNOWN: DeviceKind = "unknown"


def virtual_kind(mode: str) -> DeviceKind:
    """The device kind of an emukit virtual device in ``mode``."""
    if mode not in VIRTUAL_MODES:
        raise ValueError(f"virtual device mode {mode!r} is not one of {', '.join(VIRTUAL_MODES)}")
    return "virtual-deterministic" if mode == "deterministic" else "virtual-hardware"


class AppBuild(BaseModel):
    """One installed app as the device reports it (``dumpsys package``); both None when it is not installed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version_name: str | None = None
    version_code: int | None = None


class Display(BaseModel):
    """The display a record was captured on (``wm size`` / ``wm density``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    width: int
    height: int
    density: int


class BuiltOn(BaseModel):
    """The device a record was built on and the builds of the apps it touched: what the device is, not which
    one (a record keeps the serial beside it, ``device``), so records built on two devices of one kind, build
    and app builds carry equal provenance.

    ``apps`` maps each package the template or task touched to its installed build. ``emukit_version`` is the
    version of the emukit that wrote the record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: DeviceKind = UNKNOWN
    fingerprint: str | None = None  # ro.build.fingerprint
    api_level: int | None = None  # ro.build.version.sdk
    abi: str | None = None  # ro.product.cpu.abi
    display: Display | None = None
    apps: dict[str, AppBuild] = Field(default_factory=dict)
    emukit_version: str = ""

    @classmethod
    def unknown(cls) -> BuiltOn:
        """What a record stored before provenance was kept reads back as."""
        return cls()

    @property
    def known(self) -> bool:
        return self.kind != UNKNOWN

    def with_apps(self, apps: dict[str, AppBuild]) -> BuiltOn:
        """This device, with only ``apps`` as the apps touched."""
        return self.model_copy(update={"apps": dict(sorted(apps.items()))})

    def describe(self) -> str:
        """One line: kind, API level, fingerprint, app builds."""
        if not self.known:
            return "unknown device (stored before provenance was kept)"
        apps = ", ".join(f"{p} {b.version_code if b.version_code is not None else 'absent'}"
                         for p, b in self.apps.items())
        return (f"{self.kind}, API {self.api_level}, {self.fingerprint or 'no fingerprint'}"
                + (f"; {apps}" if apps else ""))


def mismatch(stored: BuiltOn, new: BuiltOn) -> str | None:
    """Why ``new`` cannot join records built on ``stored`` without ``--allow-mixed``, or None when it can: a
    different device kind, or a different build (versionCode) of an app both touched."""
    if stored.kind != new.kind:
        return f"device kind {new.kind} (the stored pairs were built on {stored.kind})"
    for package in sorted(set(stored.apps) & set(new.apps)):
        old, cur = stored.apps[package].version_code, new.apps[package].version_code
        if old != cur:
            return f"{package} versionCode {cur} (the stored pairs were built with {old})"
    return None


def parse_app_build(text: str, where: str = "--app-build") -> tuple[str, int]:
    """``PACKAGE=VERSIONCODE`` as (package, versionCode); ValueError naming ``where`` and the value."""
    package, sep, code = text.partition("=")
    if not sep or not package or not code.strip().isdigit():
        raise ValueError(f"{where}: {text!r} is not PACKAGE=VERSIONCODE (for example net.gsantner.markor=146)")
    return package.strip(), int(code)


def selects(built_on: BuiltOn, *, kinds: tuple[str, ...] = (), app_builds: tuple[tuple[str, int], ...] = ()) -> bool:
    """Whether a record built on ``built_on`` is selected by ``--device-kind`` (any of ``kinds``) and
    ``--app-build`` (every one of ``app_builds``; a record that did not touch the package is not selected)."""
    if kinds and built_on.kind not in kinds:
        return False
    for package, code in app_builds:
        build = built_on.apps.get(package)
        if build is None or build.version_code != code:
            return False
    return True
