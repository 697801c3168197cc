"""The virtual device's system: one object that owns the filesystem, the state model, the window manager, the
snapshots and the system services (:mod:`emukit.vdevice.services`: clock, alarms, broadcasts, packages,
activities, clipboard, notifications, media), whose operations it keeps as methods of its own. Protocol front
ends (ADB transport, console, uiautomator2 server, shell) call into it under ``device.lock``.

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
from emukit.provenance import VIRTUAL_MODES
from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.faults import Faults
from emukit.vdevice.fs import DeviceFS
from emukit.vdevice.services.activities import ActivityManager
from emukit.vdevice.services.alarms import AlarmManager
from emukit.vdevice.services.broadcasts import (  # noqa: F401 - re-exported
    ACTION_BOOT_COMPLETED,
    ACTION_LOCKED_BOOT_COMPLETED,
    ACTION_TIME_SET,
    ACTION_TIMEZONE_CHANGED,
    IMPLICIT_EXEMPT,
    BroadcastQueue,
)
from emukit.vdevice.services.clipboard import ClipboardService
from emukit.vdevice.services.clock import SystemClock
from emukit.vdevice.services.media import (  # noqa: F401 - re-exported
    SHARED_STORAGE,
    STANDARD_FOLDERS,
    MediaProvider,
)
from emukit.vdevice.services.notifications import NotificationManager
from emukit.vdevice.services.packages import (  # noqa: F401 - re-exported
    PackageManager,
    UnsupportedBuild,
    apk_dir,
    apk_file,
)
from emukit.vdevice.services.telephony import Telephony
from emukit.vdevice.state import Activity, ClipState, DeviceState

# The display of this process's virtual device. The UI modules (theme and everything laid out from it) read
# these when they load, so :func:`configure_screen` sets them before the first device is made.
SCREEN_W, SCREEN_H, DENSITY = DEFAULT_SCREEN

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
    "ro.emukit.virtual.mode": "deterministic",  # set to the device's mode when it starts
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
MODES = VIRTUAL_MODES  # defined once, in emukit.provenance
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


class VirtualDevice:
    """A complete virtual phone. All mutations happen with :attr:`lock` held.

    ``screen`` (width, height, dpi; default :data:`DEFAULT_SCREEN`, or what :func:`configure_screen` set) is
    the display; everything the device reports (``wm size``, ``dumpsys display``, uiautomator's device info,
    screenshots, bounds) follows it.

    The device composes its system services (:mod:`emukit.vdevice.services`): :attr:`system_clock`,
    :attr:`alarm_manager`, :attr:`broadcasts`, :attr:`package_manager`, :attr:`activity_manager`,
    :attr:`clipboard`, :attr:`notification_manager` and :attr:`media`; its methods of the same names delegate
    to them."""

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
        self.package_manager = PackageManager(self)  # the installed ones (see :attr:`apps`)
        self.snapshots = SnapshotStore(self)
        self.state = DeviceState()
        self.system_clock = SystemClock(self)  # anchored to the host clock now (realtime mode)
        self.alarm_manager = AlarmManager(self)
        self.broadcasts = BroadcastQueue(self)
        self.activity_manager = ActivityManager(self)
        self.clipboard = ClipboardService(self)
        self.notification_manager = NotificationManager(self)
        self.media = MediaProvider(self)
        self.telephony = Telephony(self)  # content://sms and the default SMS app
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
            self._process_props()
        self.fs.virtual["/proc/uptime"] = self.system_clock.proc_uptime
        self.wm = WindowManager(self)

    # ------------------------------------------------------------------ boot and persistence
    def _process_props(self) -> None:
        """The properties that belong to this process, not to the saved state: the display's density and the
        mode (``ro.emukit.virtual.mode``, which a run reads as the device's kind)."""
        self.state.props["ro.sf.lcd_density"] = str(self.screen[2])
        self.state.props["ro.emukit.virtual.mode"] = self.mode

    def _first_boot(self) -> None:
        import shutil

        if self.fs.root.exists():
            shutil.rmtree(self.fs.root)
        self.fs.root.mkdir(parents=True)
        self.state = DeviceState(props=dict(DEFAULT_PROPS),
                                 settings={k: dict(v) for k, v in DEFAULT_SETTINGS.items()})
        self.state.props["ro.kernel.qemu.avd_name"] = self.avd_name
        self._process_props()
        for folder in ("/system/bin", "/data/local/tmp", "/data/system", "/proc", "/dev", "/etc",
                       "/storage/emulated", "/sdcard/../mnt"):
            self.fs.makedirs(folder)
        self.media.make_standard_folders()
        self.fs.symlink(SHARED_STORAGE, "/sdcard")
        self.fs.write_bytes("/etc/hosts", b"127.0.0.1       localhost\n::1             ip6-localhost\n")
        if self.hardware:
            self.package_manager.first_boot_packages()
        for app in self.apps.values():
            self.package_manager.make_data_dirs(app.package)
        launcher = self.launcher_package
        self.state.back_stack = [Activity(package=launcher, activity=self.apps[launcher].launcher_activity)]
        self.state.running = [launcher]
        for app in self.apps.values():
            if hasattr(app, "install"):
                app.install(self)
        self._stamp_tree(self.state.clock.wall_ms // 1000)
        # the media index's boot scan reads the stamped folders; its database is then stamped like every path
        self.media.store.boot(self.state.clock.wall_ms // 1000)
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

    # ------------------------------------------------------------------ clock (services.clock.SystemClock)
    def wall_ms(self) -> int:
        return self.system_clock.wall_ms()

    def elapsed_ms(self) -> int:
        return self.system_clock.elapsed_ms()

    def advance(self, ms: int) -> None:
        """Move both clocks forward by ``ms`` (:meth:`SystemClock.advance`)."""
        self.system_clock.advance(ms)

    def set_wall_ms(self, wall_ms: int) -> None:
        """Set the wall clock (``date``) and broadcast TIME_SET (:meth:`SystemClock.set_wall_ms`)."""
        self.system_clock.set_wall_ms(wall_ms)

    def after_snapshot_load(self, wall_before_ms: int) -> None:
        """The clocks after a snapshot load (:meth:`SystemClock.after_snapshot_load`); the process's own
        properties (a snapshot saved by an older device may lack them)."""
        self._process_props()
        self.system_clock.after_snapshot_load(wall_before_ms)

    # ------------------------------------------------------------------ AlarmManager (services.alarms)
    def set_alarm(self, package: str, tag: str, when_ms: int, type: str = "ELAPSED_REALTIME_WAKEUP") -> None:
        """``AlarmManager.setExact*`` (:meth:`AlarmManager.set`)."""
        self.alarm_manager.set(package, tag, when_ms, type)

    def cancel_alarms(self, package: str, tag: str | None = None) -> None:
        """``AlarmManager.cancel`` (:meth:`AlarmManager.cancel`)."""
        self.alarm_manager.cancel(package, tag)

    # ------------------------------------------------------------------ broadcasts (services.broadcasts)
    def send_broadcast(self, action: str | None, *, component: tuple[str, str] | None = None,
                       package: str | None = None, include_stopped: bool = False,
                       extras: dict[str, str] | None = None) -> list[str]:
        """Deliver a broadcast to the apps' manifest receivers; returns the receiving components
        (:meth:`BroadcastQueue.send`)."""
        return self.broadcasts.send(action, component=component, package=package,
                                    include_stopped=include_stopped, extras=extras)

    # ------------------------------------------------------------------ package manager (services.packages)
    @property
    def launcher_package(self) -> str:
        return "com.google.android.apps.nexuslauncher"

    @property
    def apps(self) -> dict[str, App]:
        """The installed apps by package (:attr:`PackageManager.apps`)."""
        return self.package_manager.apps

    def app(self, package: str) -> App:
        return self.package_manager.app(package)

    def packages(self) -> Iterable[App]:
        return self.package_manager.packages()

    def installed(self, package: str) -> bool:
        return self.package_manager.installed(package)

    def package_stopped(self, package: str) -> bool:
        return self.package_manager.package_stopped(package)

    def version_code(self, package: str) -> int:
        return self.package_manager.version_code(package)

    def version_name(self, package: str) -> str:
        return self.package_manager.version_name(package)

    def permission_granted(self, package: str, permission: str) -> bool:
        return self.package_manager.permission_granted(package, permission)

    def app_op_allowed(self, package: str, op: str) -> bool:
        return self.package_manager.app_op_allowed(package, op)

    def grant_permission(self, package: str, permission: str, granted: bool = True) -> None:
        self.package_manager.grant_permission(package, permission, granted)

    def set_app_op(self, package: str, op: str, mode: str) -> None:
        self.package_manager.set_app_op(package, op, mode)

    def reset_permissions(self, package: str) -> None:
        self.package_manager.reset_permissions(package)

    def install_package(self, package: str, version_code: int, version_name: str, apk: bytes, *,
                        downgrade: bool = False, grant_all: bool = False) -> str | None:
        """Install (or update) a stand-in (:meth:`PackageManager.install`)."""
        return self.package_manager.install(package, version_code, version_name, apk, downgrade=downgrade,
                                            grant_all=grant_all)

    def uninstall_package(self, package: str, keep_data: bool = False) -> bool:
        return self.package_manager.uninstall(package, keep_data)

    def install_times(self, package: str) -> tuple[int, int]:
        return self.package_manager.install_times(package)

    def check_runnable(self, package: str) -> None:
        self.package_manager.check_runnable(package)

    # ------------------------------------------------------------------ activity manager (services.activities)
    @property
    def top(self) -> Activity:
        return self.activity_manager.top

    def ensure_process(self, package: str) -> None:
        self.activity_manager.ensure_process(package)

    def start_activity(self, package: str, activity: str | None = None,
                       extras: dict[str, str] | None = None, new_task: bool = True) -> Activity:
        """``am start`` (:meth:`ActivityManager.start_activity`)."""
        return self.activity_manager.start_activity(package, activity, extras, new_task)

    def push_activity(self, package: str, activity: str, state: dict | None = None) -> Activity:
        return self.activity_manager.push_activity(package, activity, state)

    def finish_top(self) -> None:
        self.activity_manager.finish_top()

    def go_home(self) -> None:
        self.activity_manager.go_home()

    def force_stop(self, package: str) -> None:
        """``am force-stop`` (:meth:`ActivityManager.force_stop`)."""
        self.activity_manager.force_stop(package)

    def kill_process(self, package: str) -> None:
        """``am kill`` (:meth:`ActivityManager.kill_process`)."""
        self.activity_manager.kill_process(package)

    def crash_foreground(self) -> str:
        return self.activity_manager.crash_foreground()

    def current_focus(self) -> tuple[str, str]:
        return self.activity_manager.current_focus()

    # ------------------------------------------------------------------ media, notifications, clipboard
    def media_scan(self, path: str) -> None:
        """``MEDIA_SCANNER_SCAN_FILE`` (:meth:`MediaProvider.scan`)."""
        self.media.scan(path)

    def notifications(self) -> list[Notification]:
        """What the shade shows (:meth:`NotificationManager.active`)."""
        return self.notification_manager.active()

    def set_clip(self, text: str, label: str = "") -> None:
        self.clipboard.set(text, label)

    def get_clip(self) -> ClipState | None:
        return self.clipboard.get()

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
        from emukit.vdevice.state import UiState

        with self.lock:
            for pkg in list(self.state.running):
                self.app(pkg).on_process_stop(self)
            self.state.running, self.state.pids, self.state.app_data = [], {}, {}
            self.state.ui = UiState()
            self.state.rooted = False
            self.alarm_manager.clear()
            self.system_clock.boot()
            launcher = self.launcher_package
            self.ensure_process(launcher)
            self.state.back_stack = [Activity(package=launcher, activity=self.apps[launcher].launcher_activity)]
            self.system_clock.time_changed()
            for action in (ACTION_LOCKED_BOOT_COMPLETED, ACTION_BOOT_COMPLETED):
                self.send_broadcast(action)
            self.persist()
