"""The Clock app's timer notifications, built from the preferences file and the clock on every call.

As AOSP DeskClock posts them (``data/TimerNotificationBuilder.java``, LineageOS/android_packages_apps_DeskClock
lineage-17.1 eac5d7688f48 ``build`` 63-219, ``buildHeadsUp`` 221-302, ``buildMissed`` 304-383; the same at
lineage-21.0): every timer notification is a custom content view (``DecoratedCustomViewStyle``,
``res/layout/chronometer_notif_content.xml``) with a counting-down ``Chronometer`` (``chronometer``) above one
line of text (``state``); there is no title or text.

* running or paused timers: one ongoing notification, hidden while the app itself is in the foreground.
  One timer: state = its label or "Timer", actions Pause / "Add 1 min"; paused: "Timer paused", Resume /
  Reset. Several: "N timers" (or "N timers paused"), "Reset all timers";
* expired timers: state = the label or "Time's up", Stop / "Add 1 min" ("N timers expired", "Stop all
  timers"), shown even while the app is open;
* missed timers: "Missed timer", Reset ("N timers missed", "Reset all timers").

The chronometer shows the first timer's remaining time (plus DeskClock's one-second padding, see
:func:`~emukit.vdevice.apps.clock.timers.format_chronometer`) and counts only while it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import Notification
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import PACKAGE, S, duration_words
from emukit.vdevice.ui.systemui import CustomNotification, RemoteText

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


def _note(device: VirtualDevice, key: str, state: str, timer: T.Timer, now: int,
          actions: dict[str, Callable[[], None]], ongoing: bool = True) -> Notification:
    left = timer.remaining_at(now)
    content = (RemoteText(S.cls("notification_chronometer"), S.rid("notification_chronometer"),
                          T.format_chronometer(left), duration_words(T.chronometer_seconds(left)), title=True),
               RemoteText(S.cls("notification_state"), S.rid("notification_state"), state))
    return CustomNotification(PACKAGE, key, "", icon="timer", actions=actions, ongoing=ongoing, content=content)


def timer_notifications(device: VirtualDevice) -> list[Notification]:
    """The notifications the timers currently warrant (state comes from the file, never the process). A
    force-stopped Clock has none: the system cancels a stopped package's notifications, and DeskClock posts
    them again only when it runs."""
    if device.package_stopped(PACKAGE):
        return []
    timers = T.sync(device)
    now = device.elapsed_ms()
    out: list[Notification] = []
    expired = [t for t in timers if t.state == T.State.EXPIRED]
    if expired:
        ids = [t.id for t in expired]
        first = expired[0]
        if len(expired) == 1:
            out.append(_note(device, "timer_expired", first.label or S.text("state_expired"), first, now,
                             {S.text("action_stop"): _do(device, ids, "stop"),
                              S.text("action_add_minute"): _do(device, ids, "add_minute")}))
        else:
            out.append(_note(device, "timer_expired", S.text("state_many_expired", n=len(expired)), first, now,
                             {S.text("action_stop_all"): _do(device, ids, "stop")}))
    unexpired = [t for t in timers if t.state in (T.State.RUNNING, T.State.PAUSED)]
    if unexpired and not app_in_foreground(device):
        out.append(_unexpired(device, unexpired, now))
    missed = [t for t in timers if t.state == T.State.MISSED]
    if missed:
        ids = [t.id for t in missed]
        state = S.text("state_missed") if len(missed) == 1 else S.text("state_many_missed", n=len(missed))
        action = S.text("action_reset") if len(missed) == 1 else S.text("action_reset_all")
        out.append(_note(device, "timer_missed", state, missed[0], now, {action: _do(device, ids, "reset")},
                         ongoing=False))
    return out


def _unexpired(device: VirtualDevice, timers: list[T.Timer], now: int) -> Notification:
    running = sorted((t for t in timers if t.state == T.State.RUNNING), key=lambda t: (t.remaining_at(now), t.id))
    first = running[0] if running else timers[0]
    ids = [t.id for t in timers]
    if len(timers) == 1:
        if running:
            return _note(device, "timer_unexpired", first.label or S.text("state_running"), first, now,
                         {S.text("action_pause"): _do(device, ids, "pause"),
                          S.text("action_add_minute"): _do(device, ids, "add_minute")})
        return _note(device, "timer_unexpired", S.text("state_paused"), first, now,
                     {S.text("action_resume"): _do(device, ids, "start"),
                      S.text("action_reset"): _do(device, ids, "reset")})
    state = S.text("state_many_running", n=len(timers)) if running else S.text("state_many_paused", n=len(timers))
    return _note(device, "timer_unexpired", state, first, now,
                 {S.text("action_reset_all"): _do(device, ids, "reset")})
