"""The Clock app (``com.google.android.deskclock``): Alarm, Clock, Timer and Stopwatch tabs in one activity.

``act.state["tab"]`` is the selected tab (also persisted as ``selected_tab`` in the preferences file, which
DeskClock reopens on); ``am start ... --ei deskclock.select.tab N`` selects tab N (0 Alarm, 1 Clock,
2 Timer, 3 Stopwatch). The frame (toolbar, tab bar) is in :mod:`.common`, everything else in the tab
modules; ids, strings and classes come from the pinned Google Clock table.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.apps.clock import alarms, gallery, notify, stopwatch, timer_ui
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import (
    ACTIVITY,
    NAV_H,
    PACKAGE,
    SELECT_TAB_EXTRA,
    SELECTED_TAB_KEY,
    TAB_CLOCK,
    TAB_TIMER,
    TABS,
    TOOLBAR_H,
    S,
    bottom_nav,
    text,
    toolbar,
)
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity, PendingAlarm
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.clockfmt import (
    format_date_widget,
    format_time,
    local_now,
    tz_label,
)
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

KEYCODE_0, KEYCODE_9, KEYCODE_NUMPAD_0, KEYCODE_NUMPAD_9 = 7, 16, 144, 153
KEYCODE_DEL, KEYCODE_ENTER = 67, 66


def _tab_from(value: object) -> int | None:
    """A tab index from an intent extra (``2``) or a name (``timer``)."""
    if value is None:
        return None
    word = str(value).strip().lower()
    names = [t.lower() for t in TABS]
    if word in names:
        return names.index(word)
    try:
        index = int(word)
    except ValueError:
        return None
    return index if 0 <= index < len(TABS) else None


@register_virtual_app
class ClockApp(App):
    """Google's Clock app as DeskClock stores it: timers and stopwatch in SharedPreferences, alarms in SQLite."""

    install_order = 6

    package = PACKAGE
    label = S.text("app_label")
    version_name = "7.10-emukit-virtual"
    version_code = 71000000
    launcher_activity = ACTIVITY
    activities = (ACTIVITY,)
    icon = "clock"
    icon_color = (26, 115, 232)

    # AlarmInitReceiver (directBootAware) and the actions of its intent filter: LineageOS/
    # android_packages_apps_DeskClock lineage-21.0 501626741b61 AndroidManifest.xml 173-186.
    receivers: ClassVar[dict[str, tuple[str, ...]]] = {"com.android.deskclock.AlarmInitReceiver": (
        "android.intent.action.BOOT_COMPLETED", "android.intent.action.LOCALE_CHANGED",
        "android.intent.action.LOCKED_BOOT_COMPLETED", "android.intent.action.MY_PACKAGE_REPLACED",
        "android.intent.action.TIME_SET", "android.intent.action.TIMEZONE_CHANGED")}

    # ------------------------------------------------------------------ lifecycle
    def on_process_start(self, device: VirtualDevice) -> None:
        """``DeskClockApplication.onCreate``: the preferences move to device-protected storage; the timers are
        only read (DataModel.init recomputes nothing and sets no alarm)."""
        T.migrate(device)
        alarms.ensure_db(device)

    def on_broadcast(self, device: VirtualDevice, receiver: str, action: str | None,
                     extras: dict[str, str]) -> None:
        """``AlarmInitReceiver.onReceive``: TIME_SET re-anchors the timers, LOCKED_BOOT_COMPLETED carries them
        over a reboot (AlarmInitReceiver.java 86-94); both reschedule the expiry alarm."""
        if action == "android.intent.action.TIME_SET":
            T.on_time_set(device)
        elif action == "android.intent.action.LOCKED_BOOT_COMPLETED":
            T.on_boot(device)

    def on_alarm(self, device: VirtualDevice, alarm: PendingAlarm) -> None:
        """The AlarmManager alarm's PendingIntent: ``TimerService`` with TIMER_EXPIRED."""
        if alarm.tag == T.TIMER_EXPIRED:
            T.on_expired_alarm(device)

    def on_data_cleared(self, device: VirtualDevice) -> None:
        """``pm clear`` wipes device-protected storage too, where DeskClock keeps its data."""
        host = device.fs.host(T.PREFS_PATH.split("/shared_prefs/")[0])
        if host.is_dir():
            shutil.rmtree(host)

    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        tab = _tab_from(extras.get(SELECT_TAB_EXTRA))
        if tab is None:
            tab = _tab_from(T.load(device).get_int(SELECTED_TAB_KEY, TAB_CLOCK))
            act.state["tab"] = TAB_CLOCK if tab is None else tab
        else:
            self.select_tab(device, act, tab)

    def select_tab(self, device: VirtualDevice, act: Activity, tab: int) -> None:
        """Show ``tab`` and remember it in the preferences file, as DeskClock does."""
        act.state = {"tab": tab}
        prefs = T.load(device)
        if prefs.get_int(SELECTED_TAB_KEY, -1) != tab:
            prefs.put_int(SELECTED_TAB_KEY, tab)
            T.save(device, prefs)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if act.state.get("dialog"):
            act.state.pop("dialog")
            return True
        if act.state.get("tab") == TAB_TIMER and act.state.get("setup") and T.sync(device):
            timer_ui.close_keypad(act)
            return True
        return False

    def on_key(self, device: VirtualDevice, act: Activity, keycode: int) -> bool:
        """Digit keys, DEL and ENTER type on the timer keypad (``input keyevent KEYCODE_5``)."""
        if act.state.get("tab") != TAB_TIMER or act.state.get("dialog"):
            return False
        if T.sync(device) and not act.state.get("setup"):
            return False
        if KEYCODE_0 <= keycode <= KEYCODE_9 or KEYCODE_NUMPAD_0 <= keycode <= KEYCODE_NUMPAD_9:
            timer_ui.press_digit(act, (keycode - KEYCODE_0) if keycode <= KEYCODE_9 else keycode - KEYCODE_NUMPAD_0)
        elif keycode == KEYCODE_DEL:
            timer_ui.delete_digit(act)
        elif keycode == KEYCODE_ENTER:
            timer_ui.start_from_keypad(device, act)
        else:
            return False
        return True

    def notifications(self, device: VirtualDevice) -> list[Notification]:
        return notify.timer_notifications(device)

    # ------------------------------------------------------------------ screens
    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        tab = act.state.get("tab", TAB_CLOCK)
        root = w.screen(frame)
        root.cls = "android.widget.LinearLayout"  # res/layout/desk_clock.xml
        left, top, right, bottom = frame
        root.add(toolbar(frame, tab))
        root.add(bottom_nav(frame, tab, lambda i: self.select_tab(device, act, i)))
        body = (left, top + TOOLBAR_H, right, bottom - NAV_H)
        if tab == TAB_TIMER:
            timer_ui.build(device, act, root, body)
        elif tab == TAB_CLOCK:
            self._clock(device, root, body)
        elif tab == 0:
            alarms.build(device, act, root, body)
        else:
            stopwatch.build(device, act, root, body)
        return root

    def _clock(self, device: VirtualDevice, root: View, body: Bounds) -> None:
        left, top, right, _ = body
        now = local_now(device)
        root.add(text((left + px(40), top + px(160), right - px(40), top + px(420)),
                      format_time(device, now, am_pm=True), resource_id=S.rid("digital_clock"), size=px(200),
                      color=theme.TEXT))
        root.add(text((left + px(40), top + px(430), right - px(40), top + px(500)), format_date_widget(now), "date",
                      size=theme.TEXT_BODY_L, color=theme.TEXT_SECONDARY))
        root.add(text((left + px(40), top + px(510), right - px(40), top + px(570)), tz_label(device), "time_zone",
                      size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY))

    # ------------------------------------------------------------------ gallery
    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        yield from gallery.scenes(self, device)
