"""ActivityManager: app processes, the back stack of activities and their lifecycle, ``am start`` /
``am force-stop`` / ``am kill``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.state import Activity, PackageState

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


class ActivityManager:
    """The running processes (``device.state.running``, ``device.state.pids``) and the one task stack of activities
    (``device.state.back_stack``, the launcher at its bottom) of one device."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    @property
    def top(self) -> Activity:
        return self.device.state.back_stack[-1]

    def ensure_process(self, package: str) -> None:
        """Start the package's process if it has none; a process start takes the package out of the stopped
        state (``PackageManager.setPackageStoppedState(pkg, false)`` when a component of it is launched)."""
        device = self.device
        device.check_runnable(package)
        entry = device.state.packages.get(package)
        if entry is not None and entry.stopped:
            entry.stopped = False
        if package not in device.state.running:
            device.state.running.append(package)
            device.state.pids[package] = device.state.next_pid
            device.state.next_pid += 1
            device.app(package).on_process_start(device)

    def lifecycle(self, before: Activity) -> None:
        """After a back-stack change: the activity that was in front is paused and the new top resumed, as
        ActivityThread does (an app writes unsaved state in onPause, e.g. Markor's documents); nothing runs
        when the top stayed the same."""
        device = self.device
        after = self.top
        if after is before:
            return
        if before.package in device.apps:
            device.apps[before.package].on_pause(device, before)
        device.apps[after.package].on_resume(device, after)

    def start_activity(self, package: str, activity: str | None = None,
                       extras: dict[str, str] | None = None, new_task: bool = True) -> Activity:
        """``am start``: bring the app's task to front (reusing an existing task like the launcher does)."""
        with self.device.lock:
            before = self.top
            act = self.start_activity_no_lifecycle(package, activity, extras, new_task)
            self.lifecycle(before)
            return act

    def start_activity_no_lifecycle(self, package: str, activity: str | None, extras: dict[str, str] | None,
                                    new_task: bool) -> Activity:
        """:meth:`start_activity` without the pause and resume of :meth:`lifecycle`."""
        device = self.device
        with device.lock:
            app = device.app(package)
            name = activity or app.launcher_activity
            full = app.full_activity(name)
            short = "." + full[len(package) + 1:] if full.startswith(package + ".") else full
            if short not in app.activities and full not in app.activities:
                raise KeyError(f"Activity class {{{package}/{full}}} does not exist.")
            self.ensure_process(package)
            device.state.ui.shade_open = False
            device.state.ui.focused_id = None
            if package == device.launcher_package:
                device.state.back_stack = [a for a in device.state.back_stack if a.package == package][:1] or [
                    Activity(package=package, activity=app.launcher_activity)]
                return self.top
            existing = [a for a in device.state.back_stack if a.package == package]
            if existing and activity is None:
                # resume the launcher activity's task as it was; activities of another affinity (tasks of their own)
                # stay behind, in the background
                own = [a for a in existing if app.full_activity(a.activity) in app.own_task_activities]
                main = [a for a in existing if a not in own]
                others = [a for a in device.state.back_stack if a.package != package]
                if main:
                    device.state.back_stack = own + others + main
                    return self.top
                device.state.back_stack = own + others
            if new_task:
                device.state.back_stack = [a for a in device.state.back_stack if a.package != package]
            act = Activity(package=package, activity=short)
            app.on_create(device, act, dict(extras or {}))
            device.state.back_stack.append(act)
            return act

    def push_activity(self, package: str, activity: str, state: dict | None = None) -> Activity:
        """An app opening another of its own screens on top of the current one."""
        device = self.device
        with device.lock:
            before = self.top
            act = Activity(package=package, activity=activity, state=dict(state or {}))
            device.app(package).on_create(device, act, {})
            device.state.back_stack.append(act)
            device.state.ui.focused_id = None
            self.lifecycle(before)
            return act

    def finish_top(self) -> None:
        """Finish the top activity; the launcher is never finished."""
        device = self.device
        with device.lock:
            before = self.top
            if len(device.state.back_stack) > 1:
                device.state.back_stack.pop()
            device.state.ui.focused_id = None
            self.lifecycle(before)

    def go_home(self) -> None:
        self.start_activity(self.device.launcher_package)

    def force_stop(self, package: str) -> None:
        """``am force-stop``: kill the process, remove its activities, cancel its alarms (AlarmManagerService
        drops a restarted package's alarms) and put the package in the stopped state, so that broadcasts skip
        it until it is launched again (``ActivityManagerService.forceStopPackage``); its notifications go with
        it (the app posts none while stopped)."""
        device = self.device
        with device.lock:
            if package not in device.apps:
                return
            device.state.packages.setdefault(package, PackageState()).stopped = True
            device.cancel_alarms(package)
            self.end_process(package)

    def kill_process(self, package: str) -> None:
        """``am kill`` / ``kill-all`` (``killBackgroundProcesses``): the process dies as under memory pressure;
        the package does not enter the stopped state and keeps its alarms."""
        with self.device.lock:
            if package in self.device.apps:
                self.end_process(package)

    def end_process(self, package: str) -> None:
        """The package's process dies: its app data in memory and its activities go; an empty stack gets
        the launcher back."""
        device = self.device
        with device.lock:
            if package in device.state.running:
                device.app(package).on_process_stop(device)
                device.state.running.remove(package)
            device.state.pids.pop(package, None)
            device.state.app_data.pop(package, None)
            device.state.back_stack = [a for a in device.state.back_stack if a.package != package]
            if not device.state.back_stack:
                launcher = device.launcher_package
                self.ensure_process(launcher)
                device.state.back_stack = [Activity(package=launcher,
                                                    activity=device.apps[launcher].launcher_activity)]
            device.state.ui.focused_id = None

    def crash_foreground(self) -> str:
        """Fault injection: the foreground app dies as if it had thrown; returns its package. A crash ends
        the process but, unlike a force-stop, leaves the package out of the stopped state with its alarms."""
        device = self.device
        with device.lock:
            pkg = self.top.package
            if pkg == device.launcher_package:
                return pkg
            self.kill_process(pkg)
            device.state.ui.toast = f"{device.app(pkg).label} has stopped"
            return pkg

    def current_focus(self) -> tuple[str, str]:
        top = self.top
        app = self.device.app(top.package)
        return top.package, app.full_activity(top.activity)
