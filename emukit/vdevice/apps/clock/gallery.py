"""Gallery scenes of the Clock app: every tab, the keypad, each timer state, the dialogs and the shade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.clock import alarms, stopwatch
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import (
    ACTIVITY,
    PACKAGE,
    SELECT_TAB_EXTRA,
    TAB_ALARM,
    TAB_STOPWATCH,
    TAB_TIMER,
    S,
)

if TYPE_CHECKING:
    from emukit.vdevice.apps.clock.app import ClockApp
    from emukit.vdevice.device import VirtualDevice


def _tap(device: VirtualDevice, **attrs: object) -> None:
    view = device.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    if view is None:
        raise LookupError(f"no view with {attrs}")
    device.wm.tap(*view.center)


def _open(device: VirtualDevice, tab: int) -> None:
    device.start_activity(PACKAGE, ACTIVITY, {SELECT_TAB_EXTRA: str(tab)})


def scenes(app: ClockApp, device: VirtualDevice) -> Iterator[str]:
    """Drive ``device`` through the app, yielding a scene name after each state."""
    device.start_activity(PACKAGE)
    yield "Clock tab"
    _open(device, TAB_ALARM)
    yield "Alarm tab (default alarms)"
    _tap(device, content_desc="Add alarm")
    yield "Alarm time picker"
    _tap(device, text="OK")
    yield "Alarm added"
    for alarm in alarms.alarms(device):
        alarms.execute(device, "DELETE FROM alarm_templates WHERE _id = ?", (alarm[0],))
    yield "Alarm tab (no alarms)"

    _open(device, TAB_TIMER)
    yield "Timer keypad"
    for digit in "500":
        _tap(device, resource_id=S.query("timer_digit", digit=digit)["resourceId"])
    yield "Timer keypad: 5 minutes entered"
    _tap(device, content_desc=S.desc("timer_start"))
    device.advance(61_000)
    yield "Running timer"
    _tap(device, content_desc=S.desc("card_pause"))
    yield "Paused timer"
    _tap(device, resource_id=S.rid("card_label"))
    device.wm.input_text("Pasta")
    yield "Timer label dialog"
    device.wm.key(4)
    _tap(device, text="OK")
    _tap(device, content_desc=S.desc("timer_add"))
    for digit in "130":
        _tap(device, resource_id=S.query("timer_digit", digit=digit)["resourceId"])
    yield "Keypad over existing timers"
    _tap(device, content_desc=S.desc("timer_start"))
    yield "Two timers"
    device.advance(91_000)
    yield "Time's up card"
    device.wm.key(3)
    device.wm.expand_notifications()
    yield "Shade: Time's up and paused timer"
    device.wm.collapse_notifications()
    for timer in T.sync(device):
        T.update(device, timer.id, "delete")
    T.create(device, 4 * 60_000)
    device.advance(180_000)
    device.wm.expand_notifications()
    yield "Shade: running timer"
    device.wm.collapse_notifications()

    _open(device, TAB_STOPWATCH)
    yield "Stopwatch"
    stopwatch.apply(device, "start")
    device.advance(12_340)
    stopwatch.apply(device, "lap")
    device.advance(8_250)
    stopwatch.apply(device, "lap")
    device.advance(1_500)
    yield "Stopwatch running with laps"
    stopwatch.apply(device, "pause")
    yield "Stopwatch paused"
