"""AlarmManager: pending alarms (``state.alarms``) and their delivery when the clock passes them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.state import PendingAlarm

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


class AlarmManager:
    """The alarms apps set, kept in the state model in the order they trigger; delivered to the app's
    ``on_alarm(device, alarm)`` whenever the clocks move past them (:meth:`fire_due`)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.firing = False  # delivering (no re-entry from the clock it reads)

    def set(self, package: str, tag: str, when_ms: int, type: str = "ELAPSED_REALTIME_WAKEUP") -> None:
        """``AlarmManager.setExact*``: one alarm per (package, PendingIntent action); setting it again replaces
        it (the same PendingIntent with FLAG_UPDATE_CURRENT). An alarm already due fires at once."""
        device = self.device
        with device.lock:
            state = device.state
            state.alarms = [a for a in state.alarms if not (a.package == package and a.tag == tag)]
            state.alarms.append(PendingAlarm(package=package, tag=tag, type=type, when_ms=when_ms))
            state.alarms.sort(key=self.elapsed_time)
            self.fire_due()

    def cancel(self, package: str, tag: str | None = None) -> None:
        """``AlarmManager.cancel``: the package's alarm for ``tag`` (every alarm of the package when None)."""
        device = self.device
        with device.lock:
            device.state.alarms = [a for a in device.state.alarms
                                   if not (a.package == package and (tag is None or a.tag == tag))]

    def clear(self) -> None:
        """Forget every pending alarm (a reboot: AlarmManager keeps them in memory)."""
        self.device.state.alarms = []

    def elapsed_time(self, alarm: PendingAlarm) -> int:
        """The alarm's trigger time on the elapsed-realtime clock (RTC alarms are converted at the current
        offset between the clocks, as AlarmManagerService does when it queues them)."""
        clock = self.device.state.clock
        if alarm.type.startswith("RTC"):
            return alarm.when_ms - clock.wall_ms + clock.elapsed_ms
        return alarm.when_ms

    def fire_due(self) -> None:
        """Deliver every alarm whose time has come, earliest first; delivering one may set the next (which
        is delivered in the same pass when it is due too). The receiving app's process is started for it."""
        device = self.device
        if self.firing or not device.state.alarms:
            return
        with device.lock:
            self.firing = True
            try:
                while True:
                    now = device.state.clock.elapsed_ms
                    due = [a for a in device.state.alarms if self.elapsed_time(a) <= now]
                    if not due:
                        return
                    alarm = min(due, key=self.elapsed_time)
                    device.state.alarms.remove(alarm)
                    app = device.apps.get(alarm.package)
                    hook = getattr(app, "on_alarm", None)
                    if app is None or hook is None:
                        continue
                    device.ensure_process(alarm.package)
                    hook(device, alarm)
            finally:
                self.firing = False
