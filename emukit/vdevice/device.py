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
import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.faults import Faults
from emukit.vdevice.fs import DeviceFS
from emukit.vdevice.state import Activity, ClipState, DeviceState

DEFAULT_SCREEN = (1080, 2400, 420)  # Pixel 6: width and height in px, density in dpi
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
    "system": {"time_12_24": "24", "screen_brightness": "128", "font_scale": "1.0"},
    "secure": {"default_input_method": "com.android.inputmethod.latin/.LatinIME",
               "android_id": "7b1e0d2c9a4f6e35"},
}


Screen = tuple[int, int, int]  # (width px, height px, density dpi)
# How the virtual device behaves. "deterministic" (the default): a logical clock that moves only when told,
# every app preinstalled and past its first run. "hardware": what a real AVD does to a pipeline: clocks that
# follow the host in real time (status bar, countdowns and the caret tick), gestures that take their real
# duration, apps absent until installed and showing their first-run screens and permission prompts.
MODES = ("deterministic", "hardware")
_UI_MODULE = "emukit.vdevice.ui.theme"  # the first module to read the display (every layout imports it)


def parse_screen(spec: str) -> Screen:
    """``"720x1280@320"`` -> ``(720, 1280, 320)``: width x height in pixels @ density in dpi."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*@\s*(\d+)\s*(?:dpi)?\s*", spec)
    if m is None:
        raise ValueError(f"screen {spec!r} is not WIDTHxHEIGHT@DPI (for example 720x1280@320)")
    screen = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    check_screen(screen)
    return screen


def format_screen(screen: Screen) -> str:
    """``(720, 1280, 320)`` -> ``"720x1280@320"`` (what :func:`parse_screen` reads)."""
    return f"{screen[0]}x{screen[1]}@{screen[2]}"


def check_screen(screen: Screen) -> None:
    """Raise ValueError unless ``screen`` is a usable portrait phone display."""
    width, height, dpi = screen
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in screen):
        raise ValueError(f"screen {screen!r}: width, height and density must be integers")
    if not 120 <= dpi <= 640:
        raise ValueError(f"screen {format_screen(screen)}: density {dpi} dpi is outside 120-640")
    if width < 320 * dpi // 160 or height < width:
        raise ValueError(f"screen {format_screen(screen)}: a portrait phone display is at least 320 dp wide "
                         "and taller than wide")


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
        self.apps: dict[str, App] = {app.package: app for app in default_apps()}
        self.snapshots = SnapshotStore(self)
        self.state = DeviceState()
        self._host_anchor = time.monotonic()
        self.ui_epoch = 0  # advanced around every request that may change what the screen shows
        self._epoch_lock = threading.Lock()
        self._reading = threading.local()
        self.u2_ports: dict[int, int] = {}  # tcp ports served by a running uiautomator2 server
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
        """Set the wall clock (``date``); elapsed-realtime is unaffected, as on Android."""
        with self.lock:
            self.state.clock.wall_ms = wall_ms
            self._time_changed()

    def _time_changed(self) -> None:
        for app in self.apps.values():
            app.on_time_changed(self)

    def _proc_uptime(self) -> bytes:
        secs = self.elapsed_ms() / 1000
        return f"{secs:.2f} {secs * 1.7:.2f}\n".encode()

    # ------------------------------------------------------------------ packages and activities
    @property
    def launcher_package(self) -> str:
        return "com.google.android.apps.nexuslauncher"

    def app(self, package: str) -> App:
        try:
            return self.apps[package]
        except KeyError:
            raise KeyError(f"Unknown package: {package}") from None

    @property
    def top(self) -> Activity:
        return self.state.back_stack[-1]

    def ensure_process(self, package: str) -> None:
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
        """``am force-stop``: kill the process and remove its activities."""
        with self.lock:
            if package not in self.apps:
                return
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
        """Fault injection: the foreground app dies as if it had thrown; returns its package."""
        with self.lock:
            pkg = self.top.package
            if pkg == self.launcher_package:
                return pkg
            self.force_stop(pkg)
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
        out: list[Notification] = []
        for pkg in sorted(self.apps):
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
        """Processes die, the launcher comes up, elapsed-realtime restarts; files and wall time persist."""
        from emukit.vdevice.state import DEFAULT_ELAPSED_MS, UiState

        with self.lock:
            for pkg in list(self.state.running):
                self.app(pkg).on_process_stop(self)
            self.state.running, self.state.pids, self.state.app_data = [], {}, {}
            self.state.ui = UiState()
            self.state.rooted = False
            self.state.clock.elapsed_ms = DEFAULT_ELAPSED_MS
            launcher = self.launcher_package
            self.ensure_process(launcher)
            self.state.back_stack = [Activity(package=launcher, activity=self.apps[launcher].launcher_activity)]
            self._time_changed()
            self.persist()
