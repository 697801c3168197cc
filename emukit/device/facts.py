"""What a device says about itself, read over adb: its kind, system build, display and installed app builds
(:class:`DeviceFacts`, which makes the :class:`emukit.provenance.BuiltOn` of every record built on it), and
the system packages whose names differ between images (:func:`media_provider_package`).

Nothing here is assumed from how the device was started: the kind comes from the device's properties
(``ro.emukit.virtual`` and ``ro.emukit.virtual.mode`` on emukit's virtual device; ``ro.boot.qemu`` or, on
older images, ``ro.kernel.qemu`` on an emulator, the properties :func:`emukit.device.emulator.summarize_props`
reads too; neither on a phone), and each app's build from ``dumpsys package``.
"""

from __future__ import annotations

import re
import threading

import emukit
from emukit.device.driver import Driver
from emukit.device.emulator import parse_getprop
from emukit.errors import DeviceError
from emukit.provenance import UNKNOWN, AppBuild, BuiltOn, DeviceKind, Display, virtual_kind

_VERSION_RE = re.compile(r"versionName=(\S+)")
_CODE_RE = re.compile(r"versionCode=(\d+)")

#: MediaProvider, the mainline module that keeps the media index (``external.db``), by the name each kind of
#: image installs it under: AOSP builds the module as ``com.android.providers.media.module``
#: (aosp-mirror/platform_packages_providers_mediaprovider, AndroidManifest.xml ``package``; apex
#: ``com.android.mediaprovider``); the Google-signed mainline build that Google APIs and Play images ship is
#: ``com.google.android.providers.media.module`` (the pinned image's, docs/vdevice.md "MediaStore")
MEDIA_PROVIDER_PACKAGES = ("com.google.android.providers.media.module", "com.android.providers.media.module")


def installed_build(driver: Driver, package: str) -> AppBuild:
    """The installed build of ``package`` (``dumpsys package``: versionName, versionCode); both None when it
    is not installed."""
    out = driver.shell(f"dumpsys package {package}").text
    name, code = _VERSION_RE.search(out), _CODE_RE.search(out)
    return AppBuild(version_name=name.group(1) if name else None,
                    version_code=int(code.group(1)) if code else None)


def device_kind(props: dict[str, str]) -> DeviceKind:
    """The kind of device whose ``getprop`` dump is ``props``."""
    if props.get("ro.emukit.virtual") == "1":
        mode = props.get("ro.emukit.virtual.mode", "")
        try:
            return virtual_kind(mode)
        except ValueError:
            return UNKNOWN
    if "1" in (props.get("ro.boot.qemu"), props.get("ro.kernel.qemu")):
        return "emulator"
    return "physical"


def media_provider_package(driver: Driver) -> str | None:
    """The MediaProvider module installed on the device (one of :data:`MEDIA_PROVIDER_PACKAGES`), or None."""
    out = driver.shell("pm list packages providers.media.module").text
    listed = {line.strip().removeprefix("package:") for line in out.splitlines() if line.strip()}
    return next((p for p in MEDIA_PROVIDER_PACKAGES if p in listed), None)


def media_index_path(package: str) -> str:
    """MediaProvider's index of the primary external volume (``DatabaseHelper.EXTERNAL_DATABASE_NAME``) in the data
    folder of the module ``package``."""
    return f"/data/data/{package}/databases/external.db"


def media_index(driver: Driver) -> str:
    """The path of the MediaStore index on the device, in the data folder of the MediaProvider module it has
    (:func:`media_provider_package`); DeviceError naming the packages looked for when it has none."""
    package = media_provider_package(driver)
    if package is None:
        raise DeviceError(f"{driver.serial}: no MediaProvider module is installed (looked for "
                          f"{', '.join(MEDIA_PROVIDER_PACKAGES)} in `pm list packages`)")
    return media_index_path(package)


class DeviceFacts:
    """The provenance of one device for one run: the system part read once, each app's build read the first
    time a record touches it (an app installed later in the run is read then, not before). Thread-safe."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        self._base: BuiltOn | None = None
        self._apps: dict[str, AppBuild] = {}
        self._lock = threading.Lock()

    def base(self) -> BuiltOn:
        """The device's kind, build and display (no apps)."""
        with self._lock:
            if self._base is None:
                props = parse_getprop(self.driver.shell("getprop").text)
                sdk = props.get("ro.build.version.sdk", "")
                w, h, dpi = self.driver.screen()
                self._base = BuiltOn(kind=device_kind(props),
                                     fingerprint=props.get("ro.build.fingerprint") or None,
                                     api_level=int(sdk) if sdk.isdigit() else None,
                                     abi=props.get("ro.product.cpu.abi") or None,
                                     display=Display(width=w, height=h, density=dpi),
                                     emukit_version=emukit.__version__)
            return self._base

    def app(self, package: str) -> AppBuild:
        """The installed build of ``package`` (read once)."""
        with self._lock:
            build = self._apps.get(package)
        if build is None:
            build = installed_build(self.driver, package)
            with self._lock:
                build = self._apps.setdefault(package, build)
        return build

    def built_on(self, packages: list[str] | tuple[str, ...] | set[str]) -> BuiltOn:
        """The provenance of a record that touched ``packages``."""
        return self.base().with_apps({p: self.app(p) for p in sorted(set(packages))})
