"""The pinned app builds: which APK file each app is installed from, its versionCode, where to obtain it, and
the sha256 an install must have. Each app brings its own pin in the selector table of its build (the table's
``apk:`` section, :class:`emukit.apps.selectors.Apk`); the pinned apps are the registered profiles' packages
whose table has one.

Two lists of digests, never mixed:

* real builds: the digest pinned in the table's ``apk.sha256``, or, while none is published for a build, the one the user
  recorded on this machine with ``emukit avd pin-apks DIR`` (``$EMUKIT_HOME/apk-pins.yaml``);
* stand-ins (:mod:`emukit.provision.standin`, ``apk.standin_sha256``), accepted only by a device whose ``ro.emukit.virtual`` is ``"1"``.

A real build without any digest is refused (:class:`UnpinnedApk`), so that nothing unverified is installed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from emukit.errors import ConfigError, EmukitError

USER_PINS_NAME = "apk-pins.yaml"
PIN_COMMAND = "emukit avd pin-apks DIR"


class ApkError(EmukitError):
    """An APK file is missing, is not the pinned build, or may not go on this device."""


class UnpinnedApk(ApkError):
    """A real build whose sha256 is neither pinned nor recorded on this machine."""


class AppPin(BaseModel):
    """One pinned app build."""

    model_config = ConfigDict(extra="forbid")
    package: str
    profile: str
    version_code: int
    version_name: str
    file: str
    url: str
    sha256: str | None = None
    permissions: list[str] = Field(default_factory=list)
    app_ops: list[str] = Field(default_factory=list)


class PinSet(BaseModel):
    model_config = ConfigDict(extra="forbid")
    apps: list[AppPin]
    standins: dict[str, str | None] = Field(default_factory=dict)

    def app(self, package: str) -> AppPin:
        for pin in self.apps:
            if pin.package == package:
                return pin
        raise KeyError(f"no pinned build of {package} (pinned: {', '.join(p.package for p in self.apps)})")


@cache
def load_pins() -> PinSet:
    """The pins of every registered app installed from an APK, by package: read from the ``apk:`` section of
    its selector tables (one build per package may carry one)."""
    from emukit.apps.registry import all_profiles
    from emukit.apps.selectors import tables_of

    apps: list[AppPin] = []
    standins: dict[str, str | None] = {}
    for cls in sorted(all_profiles(), key=lambda c: c.package):
        builds = [t for t in tables_of(cls.package) if t.apk is not None]
        if len(builds) > 1:
            raise ConfigError(f"{cls.package}: more than one table pins an APK ("
                              f"{', '.join(str(t.path) for t in builds)}); pin the one build setup installs")
        for t in builds:
            assert t.apk is not None and t.build.version_code is not None
            apps.append(AppPin(package=cls.package, profile=cls.name, version_code=t.build.version_code,
                               version_name=t.build.version_name or "", file=t.apk.file, url=t.apk.url,
                               sha256=t.apk.sha256, permissions=t.apk.permissions, app_ops=t.apk.app_ops))
            standins[cls.package] = t.apk.standin_sha256
    return PinSet(apps=apps, standins=standins)


def pinned(package: str) -> AppPin:
    return load_pins().app(package)


def user_pins_path(home: Path | None = None) -> Path:
    """Where ``emukit avd pin-apks`` records the digests of the real files: ``$EMUKIT_HOME/apk-pins.yaml``."""
    from emukit.settings import home_dir

    return (home or home_dir()) / USER_PINS_NAME


def user_pins(home: Path | None = None) -> dict[str, str]:
    """package -> sha256 recorded on this machine (empty when nothing was recorded)."""
    path = user_pins_path(home)
    if not path.is_file():
        return {}
    try:
        doc = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    apps = doc.get("apps") if isinstance(doc, dict) else None
    if not isinstance(apps, dict):
        raise ConfigError(f"{path}: expected a mapping 'apps: {{package: {{sha256: ...}}}}'")
    out: dict[str, str] = {}
    for package, entry in apps.items():
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if not isinstance(digest, str) or len(digest) != 64:
            raise ConfigError(f"{path}: apps.{package}.sha256 must be 64 hex digits")
        out[str(package)] = digest.lower()
    return out


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def real_digest(pin: AppPin, home: Path | None = None) -> str | None:
    """The digest a real file must have: the shipped pin, else the one recorded on this machine."""
    return pin.sha256 or user_pins(home).get(pin.package)


def standin_digest(pin: AppPin) -> str | None:
    return load_pins().standins.get(pin.package)


def locate(folder: Path, pin: AppPin) -> Path:
    """``folder/<pinned file name>`` (stand-ins carry the same name, ``<package>_<versionCode>.apk``)."""
    path = Path(folder) / pin.file
    if not path.is_file():
        raise ApkError(f"{path}: missing; download it from {pin.url} (or, for the hardware-like virtual device, "
                       f"write the stand-ins with `emukit avd standins {folder}`)")
    return path


def check_apk(path: Path, pin: AppPin, *, virtual: bool, home: Path | None = None) -> str:
    """The sha256 of ``path`` once it is an accepted build of ``pin`` for this device, else ApkError.

    A device that is not virtual accepts only the real build's digest; the virtual device also accepts the
    pinned stand-in. A real build with no digest pinned or recorded raises :class:`UnpinnedApk`."""
    digest = sha256_file(path)
    standin = standin_digest(pin)
    real = real_digest(pin, home)
    if standin is not None and digest == standin:
        if virtual:
            return digest
        raise ApkError(f"{path}: this is emukit's stand-in for {pin.package}, which only the virtual device "
                       f"installs; download the real build from {pin.url}")
    if real is not None:
        if digest == real:
            return digest
        raise ApkError(f"{path}: sha256 {digest} is not the pinned {pin.package} {pin.version_name} "
                       f"({pin.version_code}) build ({real})")
    raise UnpinnedApk(f"{path}: no sha256 is pinned for {pin.package} {pin.version_name} ({pin.version_code}); "
                      f"compare the file with a trusted copy, then record its digest with `{PIN_COMMAND}` "
                      f"(sha256 of this file: {digest})")


def pin_apks(folder: Path, home: Path | None = None) -> dict[str, str]:
    """Record the sha256 of every pinned real build found in ``folder`` in ``$EMUKIT_HOME/apk-pins.yaml``;
    returns package -> digest. Stand-ins are refused (they have their own pins), and so is a file whose digest
    contradicts a shipped pin."""
    from emukit.provision.standin import read_standin

    pins = load_pins()
    recorded = dict(user_pins(home))
    found: dict[str, str] = {}
    for pin in pins.apps:
        path = Path(folder) / pin.file
        if not path.is_file():
            continue
        if read_standin(path.read_bytes()) is not None:
            raise ApkError(f"{path}: this is an emukit stand-in, not the real {pin.package} build; stand-ins "
                           "are pinned separately and never recorded as a real build")
        digest = sha256_file(path)
        if pin.sha256 is not None and digest != pin.sha256:
            raise ApkError(f"{path}: sha256 {digest} contradicts the shipped pin {pin.sha256}")
        found[pin.package] = digest
    if not found:
        raise ApkError(f"{folder}: none of the pinned files ({', '.join(p.file for p in pins.apps)}) is there")
    recorded.update(found)
    path = user_pins_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc = {"apps": {pkg: {"sha256": digest, "file": pins.app(pkg).file, "recorded": stamp}
                    for pkg, digest in sorted(recorded.items())}}
    path.write_text("# sha256 of the real APK files, recorded with `emukit avd pin-apks`\n"
                    + yaml.safe_dump(doc, sort_keys=True))
    return found


def write_standins(folder: Path) -> list[Path]:
    """Write the stand-in APK of every pinned app into ``folder`` (for the hardware-like virtual device)."""
    from emukit.provision.standin import write_standin

    Path(folder).mkdir(parents=True, exist_ok=True)
    return [write_standin(Path(folder), p.package, p.version_code, p.version_name) for p in load_pins().apps]
