"""SystemClock: the wall clock (``System.currentTimeMillis``) and elapsed-realtime
(``SystemClock.elapsedRealtime``), what moves them and what a move sets off."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from emukit.vdevice.services.broadcasts import ACTION_TIME_SET

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


class SystemClock:
    """The device's two clocks, kept in the state model (``state.clock``). With the device's ``clock_mode``
    "logical" they move only when told (:meth:`advance`, :meth:`set_wall_ms`); "realtime" (hardware mode)
    follows the host's monotonic clock from :attr:`host_anchor` on every read. Every move lets the apps see
    the new time and delivers the alarms that came due."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.host_anchor = time.monotonic()  # the host time the clocks were last synced to (realtime mode)

    def wall_ms(self) -> int:
        self.sync_realtime()
        return self.device.state.clock.wall_ms

    def elapsed_ms(self) -> int:
        self.sync_realtime()
        return self.device.state.clock.elapsed_ms

    def sync_realtime(self) -> None:
        device = self.device
        if device.clock_mode != "realtime":
            return
        now = time.monotonic()
        delta = int((now - self.host_anchor) * 1000)
        if delta > 0:
            self.host_anchor += delta / 1000
            device.state.clock.wall_ms += delta
            device.state.clock.elapsed_ms += delta
            self.time_changed()

    def advance(self, ms: int) -> None:
        """Move both clocks forward by ``ms`` (what a real device does while you wait)."""
        if ms < 0:
            raise ValueError("time only moves forward")
        device = self.device
        with device.lock:
            device.state.clock.wall_ms += ms
            device.state.clock.elapsed_ms += ms
            self.time_changed()

    def set_wall_ms(self, wall_ms: int) -> None:
        """Set the wall clock (``date``); elapsed-realtime is unaffected, as on Android.

        The system then broadcasts ``android.intent.action.TIME_SET`` (``Intent.ACTION_TIME_CHANGED``, sent by
        AlarmManagerService when the clock is set), an ordinary broadcast without
        FLAG_INCLUDE_STOPPED_PACKAGES, so packages in the stopped state (after ``am force-stop``) do not
        receive it; it is one of the implicit broadcasts manifest receivers still get
        (:data:`emukit.vdevice.services.broadcasts.IMPLICIT_EXEMPT`)."""
        device = self.device
        with device.lock:
            self.sync_realtime()
            device.state.clock.wall_ms = wall_ms
            self.time_changed()
            device.send_broadcast(ACTION_TIME_SET)

    def time_changed(self) -> None:
        """After any move: every app sees the new time, then the alarms that came due are delivered."""
        device = self.device
        for app in device.apps.values():
            app.on_time_changed(device)
        device.alarm_manager.fire_due()

    def proc_uptime(self) -> bytes:
        """``/proc/uptime``: seconds since boot (elapsed-realtime) and idle seconds."""
        secs = self.elapsed_ms() / 1000
        return f"{secs:.2f} {secs * 1.7:.2f}\n".encode()

    def after_snapshot_load(self, wall_before_ms: int) -> None:
        """The clocks after a snapshot load. Deterministic: both as saved (the snapshot is the whole device).
        Hardware: elapsed-realtime goes on from the snapshot's value, as an emulator's guest clock does after
        ``avd snapshot load``, while the wall clock stays with the host (shifted by whatever ``date`` set), so
        it never jumps back to the moment of the save."""
        device = self.device
        if not device.hardware:
            return
        self.host_anchor = time.monotonic()
        device.state.clock.wall_ms = wall_before_ms

    def boot(self) -> None:
        """A reboot: elapsed-realtime starts again from its boot value, the wall clock keeps its time."""
        from emukit.vdevice.state import DEFAULT_ELAPSED_MS

        self.device.state.clock.elapsed_ms = DEFAULT_ELAPSED_MS
        self.host_anchor = time.monotonic()
