"""``emukit avd create NAME``: the pinned AVD (Android 14 Google APIs x86_64 system image, Pixel 6 hardware
profile) made with the SDK's ``avdmanager``.

The system image is ``google_apis`` (not ``google_apis_playstore``): only its adbd runs as root (``adb root``),
which the probes, the time warp and setup need. The SDK packages it needs are checked first, and a missing
one is reported with the exact ``sdkmanager`` command that installs it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from emukit.device.sdk import AndroidSdk, avd_home, find_sdk, read_avd
from emukit.errors import DeviceError

SYSTEM_IMAGE = "system-images;android-34;google_apis;x86_64"
HARDWARE_PROFILE = "pixel_6"  # avdmanager's id of the Pixel 6 definition (1080x2400, 420 dpi)
SCREEN = (1080, 2400, 420)


class MissingSdkPackages(DeviceError):
    """The SDK lacks packages; ``command`` is the sdkmanager line that installs them."""

    def __init__(self, sdk: Path, packages: list[str]) -> None:
        self.packages = packages
        self.command = "sdkmanager " + " ".join(f'"{p}"' for p in packages)
        super().__init__(f"the Android SDK at {sdk} lacks {', '.join(packages)}; install with: {self.command}")


class AvdResult(BaseModel):
    name: str
    created: bool  # False: an AVD of that name existed and --force was not given
    ini: Path
    command: list[str] = []
    output: str = ""


def image_dir(sdk_root: Path, package: str = SYSTEM_IMAGE) -> Path:
    """``<sdk>/system-images/android-34/google_apis/x86_64`` for ``system-images;android-34;google_apis;x86_64``."""
    return Path(sdk_root).joinpath(*package.split(";"))


def missing_packages(sdk: AndroidSdk, package: str = SYSTEM_IMAGE) -> list[str]:
    """The SDK packages ``avd create`` and a later headless run need that are not installed, in install order."""
    missing: list[str] = []
    for name, probe in (("cmdline-tools;latest", sdk.avdmanager), ("platform-tools", sdk.adb),
                        ("emulator", sdk.emulator)):
        try:
            probe()
        except DeviceError:
            missing.append(name)
    folder = image_dir(sdk.root, package)
    if not (folder / "source.properties").is_file() and not (folder / "system.img").is_file():
        missing.append(package)
    return missing


def create_avd(name: str, sdk_root: Path | None = None, *, force: bool = False,
               env: Mapping[str, str] | None = None, timeout: float = 300.0) -> AvdResult:
    """Create AVD ``name`` from :data:`SYSTEM_IMAGE` with the :data:`HARDWARE_PROFILE` profile.

    Raises :class:`MissingSdkPackages` (naming the ``sdkmanager`` command) before running anything when a
    package is missing; an existing AVD of that name is kept unless ``force``."""
    sdk = AndroidSdk(Path(sdk_root).expanduser(), env) if sdk_root else find_sdk(env=env)
    missing = missing_packages(sdk)
    if missing:
        raise MissingSdkPackages(sdk.root, missing)
    ini = avd_home(sdk.env) / f"{name}.ini"
    if ini.exists() and not force:
        return AvdResult(name=name, created=False, ini=ini)
    cmd = [str(sdk.avdmanager()), "create", "avd", "--name", name, "--package", SYSTEM_IMAGE,
           "--device", HARDWARE_PROFILE]
    if force:
        cmd.append("--force")
    try:
        # avdmanager asks "Do you wish to create a custom hardware profile? [no]": answer no
        proc = subprocess.run(cmd, input="no\n", env=sdk.tool_env(), capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DeviceError(f"{' '.join(cmd)} failed: {exc}") from exc
    out = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise DeviceError(f"{' '.join(cmd)} exited with {proc.returncode}: {out[-500:]}")
    if not ini.exists():
        raise DeviceError(f"{' '.join(cmd)} finished but {ini} was not written: {out[-500:]}")
    return AvdResult(name=name, created=True, ini=ini, command=cmd, output=out)


def describe(ini: Path) -> str:
    """One line on the AVD at ``ini``: image and screen, from its ``config.ini``."""
    try:
        info = read_avd(ini)
    except DeviceError as exc:
        return str(exc)
    return (f"{info.name}: {info.sysdir or '?'} ({info.tag_id or '?'}, {info.abi or '?'}), "
            f"{info.lcd_width or '?'}x{info.lcd_height or '?'}, device {info.device_name or '?'}")
