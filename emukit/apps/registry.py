"""Which profile drives which installed app: by package and versionName."""

from __future__ import annotations

import re

from emukit.apps.base import AppProfile
from emukit.device.driver import Driver
from emukit.errors import DeviceError

_VERSION_RE = re.compile(r"versionName=(\S+)")


def all_profiles() -> list[type[AppProfile]]:
    """Every profile class, most specific first."""
    from emukit.apps.clock import ClockProfile
    from emukit.apps.files import FilesProfile
    from emukit.apps.launcher import LauncherProfile
    from emukit.apps.music import MusicProfile
    from emukit.apps.notes import MarkorProfile
    from emukit.apps.settings import SettingsProfile

    return [FilesProfile, MarkorProfile, MusicProfile, ClockProfile, SettingsProfile, LauncherProfile]


def installed_version(driver: Driver, package: str) -> str | None:
    """The installed versionName of ``package`` (``dumpsys package``), or None when not installed."""
    out = driver.shell(f"dumpsys package {package}").text
    m = _VERSION_RE.search(out)
    return m.group(1) if m else None


def profile_for(driver: Driver, name: str) -> AppProfile:
    """The profile called ``name`` (files, notes, music, clock, settings, launcher) matching the installed build."""
    candidates = [p for p in all_profiles() if p.name == name]
    if not candidates:
        raise KeyError(f"no app profile named {name!r}")
    version = installed_version(driver, candidates[0].package)
    if version is None:
        raise DeviceError(f"{driver.serial}: {candidates[0].package} is not installed")
    for cls in candidates:
        if cls.matches(version):
            return cls(driver, version)
    raise DeviceError(f"{driver.serial}: no {name} profile supports {candidates[0].package} {version}")
