"""The virtual device's system: one object that owns the filesystem, the state model, the apps, the window
manager, the clock and the snapshots. Protocol front ends (ADB transport, console, uiautomator2 server,
shell) call into it under ``device.lock``.

Screen memo: building the composed window tree, its hierarchy dump and its render key costs a few
milliseconds per request, and most requests only read the screen. The front ends therefore mark each request
as reading (:meth:`VirtualDevice.ui_reading`: screencap, uiautomator2 queries and dumps) or as possibly
changing the device (:meth:`VirtualDevice.ui_changing`: every other shell command, RPC, console command,
sync session and gRPC write). A change advances :attr:`VirtualDevice.ui_epoch` when it starts and when it
ends; within reading requests the window manager reuses what it computed for the same (epoch, clocks).
Direct in-process calls are outside both scopes and always compute afresh.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from emukit.screens import (  # noqa: F401 - re-exported
    DEFAULT_SCREEN,
    Screen,
    check_screen,
    format_screen,
    parse_screen,
)
from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.faults import Faults
from emukit.vdevice.fs import DeviceFS
from emukit.vdevice.state import (
    Activity,
    ClipState,
    DeviceState,
    PackageState,
    PendingAlarm,
)

# The display of this process's virtual device. The UI modules (theme and everything laid out from it) read
# these when they load, so :func:`configure_screen` sets them before the first device is made.
SCREEN_W, SCREEN_H, DENSITY = DEFAULT_SCREEN
SHARED_STORAGE = "/storage/emulated/0"
STANDARD_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications",
                    "Pictures", "Podcasts", "Ringtones")

DEFAULT_PROPS = {
    "ro.build.version.release": "14",
    "ro.build.version.sdk": "34",
    "ro.product.model": "sdk_gphone64_x86_64",
    "ro.product.name": "sdk_gphone64_x86_64",
    "ro.product.device": "emu64x",
    "ro.product.manufacturer": "Google",
    "ro.product.brand": "google",
    "ro.product.cpu.abi": "x86_64",
    "ro.build.characteristics": "emulator",
    "ro.kernel.qemu": "1",
    "ro.boot.qemu": "1",
    "ro.hardware": "ranchu",
    "ro.build.type": "userdebug",
    "ro.build.tags": "dev-keys",
    "ro.build.fingerprint": "google/sdk_gphone64_x86_64/emu64x:14/UE1A.230829.036/emukit:userdebug/dev-keys",
    "ro.serialno": "EMULATOR34X1X1X0",
    "ro.sf.lcd_density": str(DENSITY),
    "sys.boot_completed": "1",
    "dev.bootcomplete": "1",
    "init.svc.bootanim": "stopped",
    "persist.sys.timezone": "UTC",
    "ro.emukit.virtual": "1",
}

DEFAULT_SETTINGS = {
    "global": {"auto_time": "1", "auto_time_zone": "1", "window_animation_scale": "1.0",
               "transition_animation_scale": "1.0", "animator_duration_scale": "1.0",
               "adb_enabled": "1", "airplane_mode_on": "0", "device_provisioned": "1"},
    # screen_brightness_mode 0 (SCREEN_BRIGHTNESS_MODE_MANUAL): SettingsProvider's def_screen_brightness_automatic_mode
    # is false (aosp-mirror/platform_frameworks_base 0073d092, packages/SettingsProvider/res/values/defaults.xml:36,
    # loaded by DatabaseHelper.loadSystemSettings)
    "system": {"time_12_24": "24", "screen_brightness": "128", "screen_brightness_mode": "0", "font_scale": "1.0"},
    "secure": {"default_input_method": "com.android.inputmethod.latin/.LatinIME",
               "android_id": "7b1e0d2c9a4f6e35"},
}


# How the virtual device behaves. "deterministic" (the default): a logical clock that moves only when told,
# every app preinstalled and past its first run. "hardware": what a real AVD does to a pipeline: clocks that
# follow the host in real time (status bar, countdowns and the caret tick), gestures that take their real
# duration, apps absent until installed and showing their first-run screens and permission prompts.
MODES = ("deterministic", "hardware")
ACTION_TIME_SET = "android.intent.action.TIME_SET"
ACTION_TIMEZONE_CHANGED = "android.intent.action.TIMEZONE_CHANGED"
ACTION_LOCKED_BOOT_COMPLETED = "android.intent.action.LOCKED_BOOT_COMPLETED"
ACTION_BOOT_COMPLETED = "android.intent.action.BOOT_COMPLETED"
# Implicit broadcasts that still reach manifest receivers since Android 8 ("Implicit broadcast exceptions" of
# the Android developer guide: the boot broadcasts, TIME_SET, TIMEZONE_CHANGED, LOCALE_CHANGED, ...).
IMPLICIT_EXEMPT = frozenset({ACTION_TIME_SET, ACTION_TIMEZONE_CHANGED, ACTION_LOCKED_BOOT_COMPLETED,
                             ACTION_BOOT_COMPLETED, "android.intent.action.LOCALE_CHANGED"})
_UI_MODULE = "emukit.vdevice.ui.theme"  # the first module to read the display (every layout imports it)


def current_screen() -> Screen:
    """The display of this process's virtual device."""
    return SCREEN_W, SCREEN_H, DENSITY


def configure_screen(screen: Screen) -> None:
    """Give this process's virtual device the display ``screen`` (width, height, dpi).

    The display is fixed for the life of the process: the UI modules lay themselves out from it when they
    load (theme sizes, system bars, keyboard), so this must run before the first device is made; asking for
    another display afterwards raises RuntimeError."""
    global SCREEN_W, SCREEN_H, DENSITY
    check_screen(screen)
    if screen == current_screen():
        return
    if _UI_MODULE in sys.modules:
        raise RuntimeError(f"the virtual display is already {format_screen(current_screen())} in this process; "
                           f"{format_screen(screen)} must be set before the UI modules load")
    SCREEN_W, SCREEN_H, DENSITY = screen


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


class VirtualDevice:
    """A complete virtual phone. All mutations happen with :attr:`lock` held.

    ``screen`` (width, height, dpi; default :data:`DEFAULT_SCREEN`, or what :func:`configure_screen` set) is
    the display; everything the device reports (``wm size``, ``dumpsys display``, uiautomator's device info,
    screenshots, bounds) follows it."""

    def __init__(self, state_dir: Path, *, avd_name: str = "emukit_virtual", clock_mode: str = "logical",
                 wipe: bool = False, screen: Screen | None = None, mode: str = "deterministic") -> None:
        if mode not in MODES:
            raise ValueError(f"virtual device mode {mode!r} is not one of {', '.join(MODES)}")
        if screen is not None:
            configure_screen(screen)
        from emukit.vdevice.apps.registry import default_apps
        from emukit.vdevice.snapshots import SnapshotStore
        from emukit.vdevice.ui.wm import WindowManager

        self.screen: Screen = current_screen()
        self.state_dir = Path(state_dir).resolve()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.avd_name = avd_name
        self.mode = mode
        self.hardware = mode == "hardware"  # see MODES; fixed for the life of the process, like the display
        self.clock_mode = "realtime" if self.hardware else clock_mode
        self.lock = threading.RLock()
        self.faults = Faults()
        self.fs = DeviceFS(self.state_dir / "fs")
        self.known_apps: dict[str, App] = {app.package: app for app in default_apps()}  # every virtual app
        self._apps: dict[str, App] = dict(self.known_apps)  # the installed ones (see :attr:`apps`)
        self._apps_state: DeviceState | None = None
        self.snapshots = SnapshotStore(self)
        self.state = DeviceState()
        self._host_anchor = time.monotonic()
        self._firing_alarms = False  # AlarmManager is delivering (no re-entry from the clock it reads)
        self.ui_epoch = 0  # advanced around every request that may change what the screen shows
        self._epoch_lock = threading.Lock()
        self._reading = threading.local()
        self.u2_ports: dict[int, int] = {}  # tcp ports served by a running uiautomator2 server
        from emukit.vdevice.logd import LogBuffers

        self.logs = LogBuffers(self.wall_ms)  # logd's ring buffers, in memory (adbd's reboot: empties them)
        state_file = self.state_dir / "state.json"
        if wipe or not state_file.exists():
            self._first_boot()
        else:
            self.state = DeviceState.model_validate_json(state_file.read_text())
            self.state.props["ro.sf.lcd_density"] = str(self.screen[2])  # the display belongs to the process
        self.fs.virtual["/proc/uptime"] = self._proc_uptime
        self.wm = WindowManager(self)

    # ------------------------------------------------------------------ boot and persistence
    def _first_boot(self) -> None:
        import shutil

        if self.fs.root.exists():
            shutil.rmtree(self.fs.root)
        self.fs.root.mkdir(parents=True)
        self.state = DeviceState(props=dict(DEFAULT_PROPS),
                                 settings={k: dict(v) for k, v in DEFAULT_SETTINGS.items()})
        self.state.props["ro.kernel.qemu.avd_name"] = self.avd_name
        self.state.props["ro.sf.lcd_density"] = str(self.screen[2])
        for folder in ("/system/bin", "/data/local/tmp", "/data/system", "/proc", "/dev", "/etc",
                       "/storage/emulated", "/sdcard/../mnt"):
            self.fs.makedirs(folder)
        for name in STANDARD_FOLDERS:
            self.fs.makedirs(f"{SHARED_STORAGE}/{name}")
        self.fs.symlink(SHARED_STORAGE, "/sdcard")
        self.fs.write_bytes("/etc/hosts", b"127.0.0.1       localhost\n::1             ip6-localhost\n")
        if self.hardware:
            self._first_boot_packages()
        for app in self.apps.values():
            self.fs.makedirs(f"/data/data/{app.package}/shared_prefs")
            self.fs.makedirs(f"/data/data/{app.package}/databases")
            self.fs.makedirs(f"/data/data/{app.package}/files")
        launcher = self.launcher_package
        self.state.back_stack = [Activity(package=launcher, activity=self.apps[launcher].launcher_activity)]
        self.state.running = [launcher]
        for app in self.apps.values():
            if hasattr(app, "install"):
                app.install(self)
        self._stamp_tree(self.state.clock.wall_ms // 1000)
        self.persist()

    def _stamp_tree(self, when: int) -> None:
        """Give every path of a fresh device the same logical mtime, so listings are deterministic."""
        for dirpath, dirnames, filenames in os.walk(self.fs.root):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                os.utime(path, (when, when), follow_symlinks=False)
        os.utime(self.fs.root, (when, when))

    def persist(self) -> None:
        """Write the state model next to the filesystem (atomic rename)."""
        path = self.state_dir / "state.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.state.model_dump_json(indent=1))
        os.replace(tmp, path)

    # ------------------------------------------------------------------ screen memo scopes
    def ui_changed(self) -> None:
        """Forget every memoised screen (called before and after anything that may change it)."""
        with self._epoch_lock:
            self.ui_epoch += 1

    @contextmanager
    def ui_changing(self) -> Iterator[None]:
        """Scope of a request that may change the device: memoised screens are invalid during and after it."""
        self.ui_changed()
        try:
            yield
        finally:
            self.ui_changed()

    @contextmanager
    def ui_reading(self) -> Iterator[None]:
        """Scope of a request that only reads the screen: this thread may reuse memoised screens."""
        depth = getattr(self._reading, "depth", 0)
        self._reading.depth = depth + 1
        try:
            yield
        finally:
            self._reading.depth = depth

    def ui_memo_key(self) -> tuple[int, int, int] | None:
        """Key for memoised screen data while this thread serves a reading request, else None."""
        if not getattr(self._reading, "depth", 0):
            return None
        return self.ui_epoch, self.wall_ms(), self.elapsed_ms()

    # ------------------------------------------------------------------ clock
    def wall_ms(self) -> int:
        self._sync_realtime()
        return self.state.clock.wall_ms

    def elapsed_ms(self) -> int:
        self._sync_realtime()
        return self.state.clock.elapsed_ms

    def _sync_realtime(self) -> None:
        if self.clock_mode != "realtime":
            return
        now = time.monotonic()
        delta = int((now - self._host_anchor) * 1000)
        if delta > 0:
            self._host_anchor += delta / 1000
            self.state.clock.wall_ms += delta
            self.state.clock.elapsed_ms += delta
            self._time_changed()

    def advance(self, ms: int) -> None:
        """Move both clocks forward by ``ms`` (what a real device does while you wait)."""
        if ms < 0:
            raise ValueError("time only moves forward")
        with self.lock:
            self.state.clock.wall_ms += ms
            self.state.clock.elapsed_ms += ms
            self._time_changed()

    def set_wall_ms(self, wall_ms: int) -> None:
        """Set the wall clock (``date``); elapsed-realtime is unaffected, as on Android.

        The system then broadcasts ``android.intent.action.TIME_SET`` (``Intent.ACTION_TIME_CHANGED``, sent by
        AlarmManagerService when the clock is set), an ordinary broadcast without
        FLAG_INCLUDE_STOPPED_PACKAGES, so packages in the stopped state (after ``am force-stop``) do not
        receive it; it is one of the implicit broadcasts manifest receivers still get (:data:`IMPLICIT_EXEMPT`)."""
        with self.lock:
            self._sync_realtime()
            self.state.clock.wall_ms = wall_ms
            self._time_changed()
            self.send_broadcast(ACTION_TIME_SET)

    def _time_changed(self) -> None:
        for app in self.apps.values():
            app.on_time_changed(self)
        self._fire_due_alarms()

    def _proc_uptime(self) -> bytes:
        secs = self.elapsed_ms() / 1000
        return f"{secs:.2f} {secs * 1.7:.2f}\n".encode()

    def after_snapshot_load(self, wall_before_ms: int) -> None:
        """The clocks after a snapshot load. Deterministic: both as saved (the snapshot is the whole device).
        Hardware: elapsed-realtime goes on from the snapshot's value, as an emulator's guest clock does after
        ``avd snapshot load``, while the wall clock stays with the host (shifted by whatever ``date`` set), so
        it never jumps back to the moment of the save."""
        if not self.hardware:
            return
        self._host_anchor = time.monotonic()
        self.state.clock.wall_ms = wall_before_ms

    # ------------------------------------------------------------------ AlarmManager and broadcasts
    def set_alarm(self, package: str, tag: str, when_ms: int, type: str = "ELAPSED_REALTIME_WAKEUP") -> None:
        """``AlarmManager.setExact*``: one alarm per (package, PendingIntent action); setting it again replaces
        it (the same PendingIntent with FLAG_UPDATE_CURRENT). An alarm already due fires at once."""
        with self.lock:
            self.state.alarms = [a for a in self.state.alarms if not (a.package == package and a.tag == tag)]
            self.state.alarms.append(PendingAlarm(package=package, tag=tag, type=type, when_ms=when_ms))
            self.state.alarms.sort(key=self._alarm_elapsed)
            self._fire_due_alarms()

    def cancel_alarms(self, package: str, tag: str | None = None) -> None:
        """``AlarmManager.cancel``: the package's alarm for ``tag`` (every alarm of the package when None)."""
        with self.lock:
            self.state.alarms = [a for a in self.state.alarms
                                 if not (a.package == package and (tag is None or a.tag == tag))]

    def _alarm_elapsed(self, alarm: PendingAlarm) -> int:
        """The alarm's trigger time on the elapsed-realtime clock (RTC alarms are converted at the current
        offset between the clocks, as AlarmManagerService does when it queues them)."""
        clock = self.state.clock
        if alarm.type.startswith("RTC"):
            return alarm.when_ms - clock.wall_ms + clock.elapsed_ms
        return alarm.when_ms

    def _fire_due_alarms(self) -> None:
        """Deliver every alarm whose time has come, earliest first; delivering one may set the next (which
        is delivered in the same pass when it is due too). The receiving app's process is started for it."""
        if self._firing_alarms or not self.state.alarms:
            return
        with self.lock:
            self._firing_alarms = True
            try:
                while True:
                    now = self.state.clock.elapsed_ms
                    due = [a for a in self.state.alarms if self._alarm_elapsed(a) <= now]
                    if not due:
                        return
                    alarm = min(due, key=self._alarm_elapsed)
                    self.state.alarms.remove(alarm)
                    app = self.apps.get(alarm.package)
                    hook = getattr(app, "on_alarm", None)
                    if app is None or hook is None:
                        continue
                    self.ensure_process(alarm.package)
                    hook(self, alarm)
            finally:
                self._firing_alarms = False

    def package_stopped(self, package: str) -> bool:
        """The package is in the stopped state (force-stopped and not launched since)."""
        entry = self.state.packages.get(package)
        return entry is not None and entry.stopped

    def send_broadcast(self, action: str | None, *, component: tuple[str, str] | None = None,
                       package: str | None = None, include_stopped: bool = False,
                       extras: dict[str, str] | None = None) -> list[str]:
        """Deliver a broadcast to the apps' manifest receivers; returns the receiving components.

        An app declares ``receivers`` (receiver class -> the actions of its intent filter) and handles them in
        ``on_broadcast(device, receiver, action, extras)``. As ActivityManager delivers them: an explicit
        component reaches that receiver whatever its filter; ``package`` limits the targets to one app; a
        package in the stopped state is skipped unless the intent carries FLAG_INCLUDE_STOPPED_PACKAGES
        (``--include-stopped-packages``, ``Intent.FLAG_INCLUDE_STOPPED_PACKAGES``), and delivering to it starts
        its process, which takes it out of the stopped state (:meth:`ensure_process`); an implicit broadcast
        reaches manifest receivers only for the actions exempt from the Android 8 limits
        (:data:`IMPLICIT_EXEMPT`)."""
        delivered: list[str] = []
        with self.lock:
            for pkg in sorted(self.apps):
                app = self.apps[pkg]
                receivers: dict[str, tuple[str, ...]] = getattr(app, "receivers", {}) or {}
                hook = getattr(app, "on_broadcast", None)
                if not receivers or hook is None:
                    continue
                if component is not None and component[0] != pkg:
                    continue
                if package is not None and package != pkg:
                    continue
                if self.package_stopped(pkg) and not include_stopped:
                    continue
                for receiver, actions in receivers.items():
                    if component is not None:
                        if app.full_activity(component[1]) != app.full_activity(receiver):
                            continue
                    elif action not in actions or (package is None and action not in IMPLICIT_EXEMPT):
                        continue
                    self.ensure_process(pkg)
                    hook(self, receiver, action, dict(extras or {}))
                    delivered.append(f"{pkg}/{app.full_activity(receiver)}")
        return delivered

    # ------------------------------------------------------------------ packages and activities
    @property
    def launcher_package(self) -> str:
        return "com.google.android.apps.nexuslauncher"

    def app(self, package: str) -> App:
        try:
            return self.apps[package]
        except KeyError:
            raise KeyError(f"Unknown package: {package}") from None

    # ------------------------------------------------------------------ package manager
    @property
    def apps(self) -> dict[str, App]:
        """The installed apps by package. Deterministic mode: every virtual app, always. Hardware mode: the
        system apps and what was installed since (``state.packages`` records each install and uninstall, so
        a snapshot keeps them); the view follows the state whenever the state object is replaced (a snapshot
        load, a reload from disk)."""
        if self._apps_state is not self.state:
            self._sync_installed()
        return self._apps

    def _sync_installed(self) -> None:
        """Make :attr:`apps` hold exactly the installed virtual apps (entries added by hand are kept)."""
        packages = self.state.packages
        for pkg, app in self.known_apps.items():
            entry = packages.get(pkg)
            if entry is not None and not entry.installed:
                self._apps.pop(pkg, None)
            elif pkg not in self._apps:
                self._apps[pkg] = app
        self._apps_state = self.state

    def _first_boot_packages(self) -> None:
        """Hardware mode's fresh device: the image's apps are installed with what the image grants them; the
        apps a benchmark downloads (Markor, Retro Music) are absent until ``pm install`` / ``adb install``."""
        for pkg, app in self.known_apps.items():
            if app.downloaded:
                self.state.packages[pkg] = PackageState(installed=False)
            else:
                self.state.packages[pkg] = PackageState(granted=list(app.runtime_permissions))
        self._sync_installed()

    def installed(self, package: str) -> bool:
        return package in self.apps

    def version_code(self, package: str) -> int:
        """The installed versionCode (a stand-in's, else the app object's own)."""
        entry = self.state.packages.get(package)
        if entry is not None and entry.version_code is not None:
            return entry.version_code
        return self.app(package).version_code

    def version_name(self, package: str) -> str:
        entry = self.state.packages.get(package)
        if entry is not None and entry.version_name is not None:
            return entry.version_name
        return self.app(package).version_name

    def permission_granted(self, package: str, permission: str) -> bool:
        """Whether the runtime permission is granted. Deterministic mode: always (every app is preinstalled and
        permitted). Hardware mode: what the package manager records (``pm grant``, the permission dialog)."""
        if not self.hardware:
            return True
        entry = self.state.packages.get(package)
        return entry is None or permission in entry.granted

    def app_op_allowed(self, package: str, op: str) -> bool:
        """Whether the app-op (e.g. MANAGE_EXTERNAL_STORAGE) is in mode ``allow``. Its default mode is
        ``default``, which for an app-op permission a third-party app cannot hold means denied
        (``Environment.isExternalStorageManager``). Deterministic mode: always allowed."""
        if not self.hardware:
            return True
        entry = self.state.packages.get(package)
        return entry is None or entry.app_ops.get(op) == "allow"

    def grant_permission(self, package: str, permission: str, granted: bool = True) -> None:
        """``pm grant`` / ``pm revoke`` / the permission dialog. Revoking kills the app's process, as the
        package manager does when a runtime permission is taken away."""
        with self.lock:
            entry = self.state.packages.setdefault(package, PackageState())
            if granted and permission not in entry.granted:
                entry.granted.append(permission)
            elif not granted and permission in entry.granted:
                entry.granted.remove(permission)
                if package in self.state.running:
                    self.force_stop(package)

    def set_app_op(self, package: str, op: str, mode: str) -> None:
        """``appops set``: ``default`` removes the override."""
        with self.lock:
            entry = self.state.packages.setdefault(package, PackageState())
            if mode == "default":
                entry.app_ops.pop(op, None)
            else:
                entry.app_ops[op] = mode

    def reset_permissions(self, package: str) -> None:
        """``pm clear``: runtime permissions and app-ops go back to what the package had when installed
        (nothing for a downloaded app, the image's grants for a system app)."""
        with self.lock:
            entry = self.state.packages.get(package)
            if entry is None:
                return
            app = self.app(package)
            entry.granted = [] if app.downloaded else list(app.runtime_permissions)
            entry.app_ops = {}

    def install_package(self, package: str, version_code: int, version_name: str, apk: bytes, *,
                        downgrade: bool = False, grant_all: bool = False) -> str | None:
        """Install (or update) a stand-in; returns the ``INSTALL_FAILED_...: detail`` reason of a refusal,
        None on success. An update keeps the data, the grants and the app-ops; any install stops the running
        app and leaves the package in the stopped state; ``grant_all`` (``-g``) grants every runtime
        permission the manifest requests. The APK is kept at :func:`apk_file` (its mtime is the last update,
        the folder's the first install)."""
        import hashlib

        with self.lock:
            app = self.known_apps.get(package)
            if app is None or not app.downloaded:
                return (f"INSTALL_FAILED_INVALID_APK: {package} is not an app this device installs "
                        f"({', '.join(p for p, a in sorted(self.known_apps.items()) if a.downloaded)})")
            entry = self.state.packages.get(package)
            updating = self.installed(package) and entry is not None and entry.installed
            if updating:
                current = self.version_code(package)
                if version_code < current and not downgrade:
                    # InstallPackageHelper / PackageManagerServiceUtils.checkDowngrade
                    return (f"INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code "
                            f"{version_code} is older than current {current}")
                self.force_stop(package)
                entry = self.state.packages[package]
            else:
                entry = PackageState(installed=True)
                self.state.packages[package] = entry
            entry.installed = True
            entry.version_code, entry.version_name = version_code, version_name
            entry.apk_sha256 = hashlib.sha256(apk).hexdigest()
            entry.stopped = True
            if grant_all:
                for perm in app.runtime_permissions:
                    if perm not in entry.granted:
                        entry.granted.append(perm)
            when = self.wall_ms() / 1000
            folder = self.fs.host(apk_dir(package))
            first = folder.stat().st_mtime if updating and folder.is_dir() else when
            self.fs.makedirs(apk_dir(package))
            self.fs.write_bytes(apk_file(package), apk)
            os.utime(self.fs.host(apk_file(package)), (when, when))
            os.utime(folder, (first, first))
            for name in ("shared_prefs", "databases", "files"):
                self.fs.makedirs(f"/data/data/{package}/{name}")
            self._sync_installed()
            if hasattr(app, "install") and not updating:
                app.install(self)
            return None

    def uninstall_package(self, package: str, keep_data: bool = False) -> bool:
        """``pm uninstall [-k]``: only what was installed from an APK can go (the image's apps cannot)."""
        import shutil

        with self.lock:
            app = self.apps.get(package)
            if app is None or not getattr(app, "downloaded", False):
                return False
            self.force_stop(package)
            self.state.back_stack = [a for a in self.state.back_stack if a.package != package]
            self.state.notifications = [n for n in self.state.notifications if n.get("package") != package]
            shutil.rmtree(self.fs.host(apk_dir(package)), ignore_errors=True)
            if not keep_data:
                shutil.rmtree(self.fs.host(f"/data/data/{package}"), ignore_errors=True)
                shutil.rmtree(self.fs.host(f"{SHARED_STORAGE}/Android/data/{package}"), ignore_errors=True)
            self.state.packages[package] = PackageState(installed=False)
            self._sync_installed()
            return True

    def install_times(self, package: str) -> tuple[int, int]:
        """(firstInstallTime, lastUpdateTime) in wall-clock seconds: an installed APK's folder and file
        times; the image's apps were installed when the image was built (the default wall clock)."""
        from emukit.vdevice.state import DEFAULT_WALL_MS

        try:
            first = int(self.fs.host(apk_dir(package)).stat().st_mtime)
            last = int(self.fs.host(apk_file(package)).stat().st_mtime)
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

    @property
    def top(self) -> Activity:
        return self.state.back_stack[-1]

    def ensure_process(self, package: str) -> None:
        """Start the package's process if it has none; a process start takes the package out of the stopped
        state (``PackageManager.setPackageStoppedState(pkg, false)`` when a component of it is launched)."""
        self.check_runnable(package)
        entry = self.state.packages.get(package)
        if entry is not None and entry.stopped:
            entry.stopped = False
        if package not in self.state.running:
            self.state.running.append(package)
            self.state.pids[package] = self.state.next_pid
            self.state.next_pid += 1
            self.app(package).on_process_start(self)

    def _lifecycle(self, before: Activity) -> None:
        """After a back-stack change: the activity that was in front is paused and the new top resumed, as
        ActivityThread does (an app writes unsaved state in onPause, e.g. Markor's documents); nothing runs
        when the top stayed the same."""
        after = self.top
        if after is before:
            return
        if before.package in self.apps:
            self.apps[before.package].on_pause(self, before)
        self.apps[after.package].on_resume(self, after)

    def start_activity(self, package: str, activity: str | None = None,
                       extras: dict[str, str] | None = None, new_task: bool = True) -> Activity:
        """``am start``: bring the app's task to front (reusing an existing task like the launcher does)."""
        with self.lock:
            before = self.top
            act = self._start_activity(package, activity, extras, new_task)
            self._lifecycle(before)
            return act

    def _start_activity(self, package: str, activity: str | None, extras: dict[str, str] | None,
                        new_task: bool) -> Activity:
        with self.lock:
            app = self.app(package)
            name = activity or app.launcher_activity
            full = app.full_activity(name)
            short = "." + full[len(package) + 1:] if full.startswith(package + ".") else full
            if short not in app.activities and full not in app.activities:
                raise KeyError(f"Activity class {{{package}/{full}}} does not exist.")
            self.ensure_process(package)
            self.state.ui.shade_open = False
            self.state.ui.focused_id = None
            if package == self.launcher_package:
                self.state.back_stack = [a for a in self.state.back_stack if a.package == package][:1] or [
                    Activity(package=package, activity=app.launcher_activity)]
                return self.top
            existing = [a for a in self.state.back_stack if a.package == package]
            if existing and activity is None:
                # resume the task as it was
                others = [a for a in self.state.back_stack if a.package != package]
                self.state.back_stack = others + existing
                return self.top
            if new_task:
                self.state.back_stack = [a for a in self.state.back_stack if a.package != package]
            act = Activity(package=package, activity=short)
            app.on_create(self, act, dict(extras or {}))
            self.state.back_stack.append(act)
            return act

    def push_activity(self, package: str, activity: str, state: dict | None = None) -> Activity:
        """An app opening another of its own screens on top of the current one."""
        with self.lock:
            before = self.top
            act = Activity(package=package, activity=activity, state=dict(state or {}))
            self.app(package).on_create(self, act, {})
            self.state.back_stack.append(act)
            self.state.ui.focused_id = None
            self._lifecycle(before)
            return act

    def finish_top(self) -> None:
        """Finish the top activity; the launcher is never finished."""
        with self.lock:
            before = self.top
            if len(self.state.back_stack) > 1:
                self.state.back_stack.pop()
            self.state.ui.focused_id = None
            self._lifecycle(before)

    def go_home(self) -> None:
        self.start_activity(self.launcher_package)

    def force_stop(self, package: str) -> None:
        """``am force-stop``: kill the process, remove its activities, cancel its alarms (AlarmManagerService
        drops a restarted package's alarms) and put the package in the stopped state, so that broadcasts skip
        it until it is launched again (``ActivityManagerService.forceStopPackage``); its notifications go with
        it (the app posts none while stopped)."""
        with self.lock:
            if package not in self.apps:
                return
            self.state.packages.setdefault(package, PackageState()).stopped = True
            self.cancel_alarms(package)
            self._end_process(package)

    def kill_process(self, package: str) -> None:
        """``am kill`` / ``kill-all`` (``killBackgroundProcesses``): the process dies as under memory pressure;
        the package does not enter the stopped state and keeps its alarms."""
        with self.lock:
            if package in self.apps:
                self._end_process(package)

    def _end_process(self, package: str) -> None:
        with self.lock:
            if package in self.state.running:
                self.app(package).on_process_stop(self)
                self.state.running.remove(package)
            self.state.pids.pop(package, None)
            self.state.app_data.pop(package, None)
            self.state.back_stack = [a for a in self.state.back_stack if a.package != package]
            if not self.state.back_stack:
                launcher = self.launcher_package
                self.ensure_process(launcher)
                self.state.back_stack = [Activity(package=launcher,
                                                  activity=self.apps[launcher].launcher_activity)]
            self.state.ui.focused_id = None

    def crash_foreground(self) -> str:
        """Fault injection: the foreground app dies as if it had thrown; returns its package. A crash ends
        the process but, unlike a force-stop, leaves the package out of the stopped state with its alarms."""
        with self.lock:
            pkg = self.top.package
            if pkg == self.launcher_package:
                return pkg
            self.kill_process(pkg)
            self.state.ui.toast = f"{self.app(pkg).label} has stopped"
            return pkg

    def current_focus(self) -> tuple[str, str]:
        top = self.top
        app = self.app(top.package)
        return top.package, app.full_activity(top.activity)

    def media_scan(self, path: str) -> None:
        """``am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE``: apps that index media
        (``on_media_scan(device, path)``) refresh their index."""
        with self.lock:
            for app in self.apps.values():
                hook = getattr(app, "on_media_scan", None)
                if hook is not None:
                    hook(self, path)

    def notifications(self) -> list[Notification]:
        """What the shade shows: every app's notifications, none of a stopped package's (a force-stop
        cancels them, ``NotificationManagerService.cancelAllNotificationsInt``, and a stopped app posts none)."""
        out: list[Notification] = []
        for pkg in sorted(self.apps):
            if not self.package_stopped(pkg):
                out.extend(self.apps[pkg].notifications(self))
        return out

    # ------------------------------------------------------------------ clipboard
    def set_clip(self, text: str, label: str = "") -> None:
        with self.lock:
            self.state.clip = ClipState(label=label, text=text)

    def get_clip(self) -> ClipState | None:
        return self.state.clip

    # ------------------------------------------------------------------ screen and input (window manager)
    def screenshot_png(self) -> bytes:
        with self.lock:
            return self.wm.screenshot_png()

    def hierarchy_xml(self, max_depth: int | None = None) -> str:
        with self.lock:
            return self.wm.hierarchy_xml(max_depth=max_depth)

    # ------------------------------------------------------------------ helpers for apps
    def read_json(self, path: str, default: object = None) -> object:
        try:
            return json.loads(self.fs.read_bytes(path))
        except OSError:
            return default

    def packages(self) -> Iterable[App]:
        return (self.apps[p] for p in sorted(self.apps))

    # ------------------------------------------------------------------ log buffers (emukit.vdevice.logd)
    def log(self, priority: str, tag: str, message: str, *, pid: int, uid: int = 0, buffer: str = "main") -> None:
        """Append to a log buffer as liblog does for a process ``pid`` (``logcat`` reads it back)."""
        self.logs.append(buffer, priority, tag, message, pid=pid, uid=uid)

    # ------------------------------------------------------------------ uiautomator2 server registration
    def u2_listen(self, port: int) -> None:
        """The uiautomator2 server (``app_process ... com.wetest.uia2.Main -p PORT``) started listening."""
        with self.lock:
            self.u2_ports[port] = self.u2_ports.get(port, 0) + 1

    def u2_unlisten(self, port: int) -> None:
        with self.lock:
            left = self.u2_ports.get(port, 0) - 1
            if left > 0:
                self.u2_ports[port] = left
            else:
                self.u2_ports.pop(port, None)

    # ------------------------------------------------------------------ reboot
    def reboot(self) -> None:
        """Processes die, the launcher comes up, elapsed-realtime restarts; files, wall time and the stopped
        state persist, pending alarms do not (AlarmManager keeps them in memory). Then the boot broadcasts
        (``LOCKED_BOOT_COMPLETED``, ``BOOT_COMPLETED``) reach the packages that are not stopped."""
        from emukit.vdevice.state import DEFAULT_ELAPSED_MS, UiState

        with self.lock:
            for pkg in list(self.state.running):
                self.app(pkg).on_process_stop(self)
            self.state.running, self.state.pids, self.state.app_data = [], {}, {}
            self.state.ui = UiState()
            self.state.rooted = False
            self.state.alarms = []
            self.state.clock.elapsed_ms = DEFAULT_ELAPSED_MS
            self._host_anchor = time.monotonic()
            launcher = self.launcher_package
            self.ensure_process(launcher)
            self.state.back_stack = [Activity(package=launcher, activity=self.apps[launcher].launcher_activity)]
            self._time_changed()
            for action in (ACTION_LOCKED_BOOT_COMPLETED, ACTION_BOOT_COMPLETED):
                self.send_broadcast(action)
            self.persist()
