"""The Clock app's timer notifications, built from the preferences file and the clock on every call.

As in AOSP DeskClock (``TimerNotificationBuilder``): expired timers post a "Time's up" notification with
Stop; running or paused timers post one ongoing notification (a countdown ``Chronometer``, Pause / +1:00,
or Resume / Reset), which DeskClock hides while the app itself is in the foreground; missed timers post
"Missed timer" with Reset. Several timers are summarised in one notification of each kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import Notification
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import PACKAGE

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


def app_in_foreground(device: VirtualDevice) -> bool:
    """The Clock activity is the top activity of a live process (DeskClock's "app is open")."""
    stack = device.state.back_stack
    return bool(stack) and stack[-1].package == PACKAGE and PACKAGE in device.state.running


def _do(device: VirtualDevice, ids: list[int], action: str) -> Callable[[], None]:
    def run() -> None:
        for tid in ids:
            T.update(device, tid, action)
    return run


def timer_notifications(device: VirtualDevice) -> list[Notification]:
    """The notifications the timers currently warrant (state comes from the file, never the process)."""
    timers = T.sync(device)
    now = device.elapsed_ms()
    out: list[Notification] = []
    expired = [t for t in timers if t.state == T.State.EXPIRED]
    if expired:
        ids = [t.id for t in expired]
        if len(expired) == 1:
            out.append(Notification(PACKAGE, "timer_expired", "Time's up", expired[0].label, icon="timer",
                                    actions={"Stop": _do(device, ids, "stop")}, ongoing=True))
        else:
            out.append(Notification(PACKAGE, "timer_expired", "Time's up", f"{len(expired)} timers expired",
                                    icon="timer", actions={"Stop all": _do(device, ids, "stop")}, ongoing=True))
    unexpired = [t for t in timers if t.state in (T.State.RUNNING, T.State.PAUSED)]
    if unexpired and not app_in_foreground(device):
        out.append(_unexpired(device, unexpired, now))
    missed = [t for t in timers if t.state == T.State.MISSED]
    if missed:
        ids = [t.id for t in missed]
        if len(missed) == 1:
            out.append(Notification(PACKAGE, "timer_missed", "Missed timer", missed[0].label, icon="timer",
                                    actions={"Reset": _do(device, ids, "reset")}))
        else:
            out.append(Notification(PACKAGE, "timer_missed", f"{len(missed)} missed timers", icon="timer",
                                    actions={"Reset all": _do(device, ids, "reset")}))
    return out


def _unexpired(device: VirtualDevice, timers: list[T.Timer], now: int) -> Notification:
    running = sorted((t for t in timers if t.state == T.State.RUNNING), key=lambda t: (t.remaining_at(now), t.id))
    ids = [t.id for t in timers]
    if len(timers) == 1:
        t = timers[0]
        remaining = T.format_chronometer(t.remaining_at(now))
        if running:
            return Notification(PACKAGE, "timer_unexpired", t.label or "Timer", remaining, icon="timer",
                                actions={"Pause": _do(device, ids, "pause"), "+1:00": _do(device, ids, "add_minute")},
                                ongoing=True)
        return Notification(PACKAGE, "timer_unexpired", "Timer paused", remaining, icon="timer",
                            actions={"Resume": _do(device, ids, "start"), "Reset": _do(device, ids, "reset")},
                            ongoing=True)
    if running:
        title = f"{len(running)} timers running" if len(running) > 1 else "1 timer running"
        return Notification(PACKAGE, "timer_unexpired", title,
                            f"Next timer: {T.format_chronometer(running[0].remaining_at(now))}", icon="timer",
                            actions={"Reset all": _do(device, ids, "reset")}, ongoing=True)
    return Notification(PACKAGE, "timer_unexpired", f"{len(timers)} timers paused", "All timers paused",
                        icon="timer", actions={"Reset all": _do(device, ids, "reset")}, ongoing=True)
