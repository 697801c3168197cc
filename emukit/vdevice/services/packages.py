"""PackageManager: which apps are installed, their versions, runtime permissions and app-ops, the stopped
state, and ``pm install`` / ``pm uninstall`` of the apps a benchmark downloads."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from emukit.vdevice.services.media import SHARED_STORAGE
from emukit.vdevice.state import PackageState

if TYPE_CHECKING:
    from emukit.vdevice.apps.base import App
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.state import DeviceState


def apk_dir(package: str) -> str:
    """Where an installed APK lives (``pm path`` prints the base.apk inside)."""
    return f"/data/app/{package}-1"


def apk_file(package: str) -> str:
    return f"{apk_dir(package)}/base.apk"


class UnsupportedBuild(KeyError):
    """The installed versionCode of an app is not the one its virtual app implements (``am start`` prints
    the message as its error, the launcher shows nothing new)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class PackageManager:
    """The installed packages of one device: a view of the device's ``known_apps`` (every virtual app)
    filtered by what ``state.packages`` records, plus the per-package entries of that record."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self._apps: dict[str, App] = dict(device.known_apps)  # the installed ones (see :attr:`apps`)
        self._apps_state: DeviceState | None = None  # the state object :attr:`apps` was last synced with

    @property
    def apps(self) -> dict[str, App]:
        """The installed apps by package. Deterministic mode: every virtual app, always. Hardware mode: the
        system apps and what was installed since (``state.packages`` records each install and uninstall, so
        a snapshot keeps them); the view follows the state whenever the state object is replaced (a snapshot
        load, a reload from disk)."""
        if self._apps_state is not self.device.state:
            self.sync_installed()
        return self._apps

    def sync_installed(self) -> None:
        """Make :attr:`apps` hold exactly the installed virtual apps (entries added by hand are kept)."""
        device = self.device
        packages = device.state.packages
        for pkg, app in device.known_apps.items():
            entry = packages.get(pkg)
            if entry is not None and not entry.installed:
                self._apps.pop(pkg, None)
            elif pkg not in self._apps:
                self._apps[pkg] = app
        self._apps_state = device.state

    def first_boot_packages(self) -> None:
        """Hardware mode's fresh device: the image's apps are installed with what the image grants them; the
        apps a benchmark downloads (Markor, Retro Music) are absent until ``pm install`` / ``adb install``."""
        device = self.device
        for pkg, app in device.known_apps.items():
            if app.downloaded:
                device.state.packages[pkg] = PackageState(installed=False)
            else:
                device.state.packages[pkg] = PackageState(granted=list(app.runtime_permissions))
        self.sync_installed()

    def make_data_dirs(self, package: str) -> None:
        """The app's private folders (``/data/data/<package>/shared_prefs``, ``databases``, ``files``), made at
        install as installd does."""
        for name in ("shared_prefs", "databases", "files"):
            self.device.fs.makedirs(f"/data/data/{package}/{name}")

    def app(self, package: str) -> App:
        try:
            return self.apps[package]
        except KeyError:
            raise KeyError(f"Unknown package: {package}") from None

    def packages(self) -> Iterable[App]:
        return (self.apps[p] for p in sorted(self.apps))

    def installed(self, package: str) -> bool:
        return package in self.apps

    def package_stopped(self, package: str) -> bool:
        """The package is in the stopped state (force-stopped and not launched since)."""
        entry = self.device.state.packages.get(package)
        return entry is not None and entry.stopped

    def version_code(self, package: str) -> int:
        """The installed versionCode (a stand-in's, else the app object's own)."""
        entry = self.device.state.packages.get(package)
        if entry is not None and entry.version_code is not None:
            return entry.version_code
        return self.app(package).version_code

    def version_name(self, package: str) -> str:
        entry = self.device.state.packages.get(package)
        if entry is not None and entry.version_name is not None:
            return entry.version_name
        return self.app(package).version_name

    def permission_granted(self, package: str, permission: str) -> bool:
        """Whether the runtime permission is granted. Deterministic mode: always (every app is preinstalled and
        permitted). Hardware mode: what the package manager records (``pm grant``, the permission dialog)."""
        if not self.device.hardware:
            return True
        entry = self.device.state.packages.get(package)
        return entry is None or permission in entry.granted

    def app_op_allowed(self, package: str, op: str) -> bool:
        """Whether the app-op (e.g. MANAGE_EXTERNAL_STORAGE) is in mode ``allow``. Its default mode is
        ``default``, which for an app-op permission a third-party app cannot hold means denied
        (``Environment.isExternalStorageManager``). Deterministic mode: always allowed."""
        if not self.device.hardware:
            return True
        entry = self.device.state.packages.get(package)
        return entry is None or entry.app_ops.get(op) == "allow"

    def grant_permission(self, package: str, permission: str, granted: bool = True) -> None:
        """``pm grant`` / ``pm revoke`` / the permission dialog. Revoking kills the app's process, as the
        package manager does when a runtime permission is taken away."""
        device = self.device
        with device.lock:
            entry = device.state.packages.setdefault(package, PackageState())
            if granted and permission not in entry.granted:
                entry.granted.append(permission)
            elif not granted and permission in entry.granted:
                entry.granted.remove(permission)
                if package in device.state.running:
                    device.force_stop(package)

    def set_app_op(self, package: str, op: str, mode: str) -> None:
        """``appops set``: ``default`` removes the override."""
        device = self.device
        with device.lock:
            entry = device.state.packages.setdefault(package, PackageState())
            if mode == "default":
                entry.app_ops.pop(op, None)
            else:
                entry.app_ops[op] = mode

    def reset_permissions(self, package: str) -> None:
        """``pm clear``: runtime permissions and app-ops go back to what the package had when installed
        (nothing for a downloaded app, the image's grants for a system app)."""
        device = self.device
        with device.lock:
            entry = device.state.packages.get(package)
            if entry is None:
                return
            app = self.app(package)
            entry.granted = [] if app.downloaded else list(app.runtime_permissions)
            entry.app_ops = {}

    def install(self, package: str, version_code: int, version_name: str, apk: bytes, *,
                downgrade: bool = False, grant_all: bool = False) -> str | None:
        """Install (or update) a stand-in; returns the ``INSTALL_FAILED_...: detail`` reason of a refusal,
        None on success. An update keeps the data, the grants and the app-ops; any install stops the running
        app and leaves the package in the stopped state; ``grant_all`` (``-g``) grants every runtime
        permission the manifest requests. The APK is kept at :func:`apk_file` (its mtime is the last update,
        the folder's the first install)."""
        import hashlib

        device = self.device
        with device.lock:
            app = device.known_apps.get(package)
            if app is None or not app.downloaded:
                return (f"INSTALL_FAILED_INVALID_APK: {package} is not an app this device installs "
                        f"({', '.join(p for p, a in sorted(device.known_apps.items()) if a.downloaded)})")
            entry = device.state.packages.get(package)
            updating = self.installed(package) and entry is not None and entry.installed
            if updating:
                current = self.version_code(package)
                if version_code < current and not downgrade:
                    # InstallPackageHelper / PackageManagerServiceUtils.checkDowngrade
                    return (f"INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code "
                            f"{version_code} is older than current {current}")
                device.force_stop(package)
                entry = device.state.packages[package]
            else:
                entry = PackageState(installed=True)
                device.state.packages[package] = entry
            entry.installed = True
            entry.version_code, entry.version_name = version_code, version_name
            entry.apk_sha256 = hashlib.sha256(apk).hexdigest()
            entry.stopped = True
            if grant_all:
                for perm in app.runtime_permissions:
                    if perm not in entry.granted:
                        entry.granted.append(perm)
            when = device.wall_ms() / 1000
            folder = device.fs.host(apk_dir(package))
            first = folder.stat().st_mtime if updating and folder.is_dir() else when
            device.fs.makedirs(apk_dir(package))
            device.fs.write_bytes(apk_file(package), apk)
            os.utime(device.fs.host(apk_file(package)), (when, when))
            os.utime(folder, (first, first))
            self.make_data_dirs(package)
            self.sync_installed()
            if hasattr(app, "install") and not updating:
                app.install(device)
            return None

    def uninstall(self, package: str, keep_data: bool = False) -> bool:
        """``pm uninstall [-k]``: only what was installed from an APK can go (the image's apps cannot)."""
        import shutil

        device = self.device
        with device.lock:
            app = self.apps.get(package)
            if app is None or not getattr(app, "downloaded", False):
                return False
            device.force_stop(package)
            device.state.back_stack = [a for a in device.state.back_stack if a.package != package]
            device.notification_manager.cancel_all(package)
            shutil.rmtree(device.fs.host(apk_dir(package)), ignore_errors=True)
            if not keep_data:
                shutil.rmtree(device.fs.host(f"/data/data/{package}"), ignore_errors=True)
                shutil.rmtree(device.fs.host(f"{SHARED_STORAGE}/Android/data/{package}"), ignore_errors=True)
            device.state.packages[package] = PackageState(installed=False)
            self.sync_installed()
            return True

    def install_times(self, package: str) -> tuple[int, int]:
        """(firstInstallTime, lastUpdateTime) in wall-clock seconds: an installed APK's folder and file
        times; the image's apps were installed when the image was built (the default wall clock)."""
        from emukit.vdevice.state import DEFAULT_WALL_MS

        fs = self.device.fs
        try:
            first = int(fs.host(apk_dir(package)).stat().st_mtime)
            last = int(fs.host(apk_file(package)).stat().st_mtime)
        except OSError:
            return DEFAULT_WALL_MS // 1000, DEFAULT_WALL_MS // 1000
        return first, last

    def check_runnable(self, package: str) -> None:
        """Refuse to start a build the virtual app does not implement: the profiles choose their selector
        table by versionCode, so running another build's screens under this one's code would lie."""
        app = self.apps.get(package)
        if app is None:
            return
        code = self.version_code(package)
        if code != app.version_code:
            raise UnsupportedBuild(f"{package} versionCode {code} is installed, but this device implements "
                                   f"versionCode {app.version_code} only")
