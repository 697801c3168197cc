"""Launcher, Settings (incl. Date & time) and the notification shade, driven in-process through the WM."""

from __future__ import annotations

import pytest

from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"


class NotifyingApp(App):
    """Posts one notification with an action while ``app_data`` says so."""

    package = "com.example.notify"
    label = "Notifier"
    icon = "bell"

    def notifications(self, device: VirtualDevice) -> list[Notification]:
        data = device.state.app_data.setdefault(self.package, {})
        if data.get("dismissed"):
            return []

        def dismiss() -> None:
            data["dismissed"] = True

        return [Notification(self.package, "n1", "Backup done", "3 files copied", actions={"Dismiss": dismiss})]

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        return View(bounds=frame, text="Notifier main")


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    return VirtualDevice(tmp_path / "dev", wipe=True)


def find(dev: VirtualDevice, **attrs: object) -> View:
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def texts(dev: VirtualDevice) -> set[str]:
    return {v.text for win in dev.wm.windows() for v in win.walk() if v.text}


def test_launcher_lists_apps_sorted_and_opens_them(device: VirtualDevice) -> None:
    device.apps["com.example.notify"] = NotifyingApp()
    icons = [v for win in device.wm.windows() for v in win.walk()
             if v.resource_id == f"{LAUNCHER}:id/icon"]
    labels = [v.text for v in icons]
    assert labels == sorted(labels, key=str.lower)
    assert {"Notifier", "Settings"} <= set(labels)
    assert all(v.cls == "android.widget.TextView" and v.clickable and v.content_desc == v.text for v in icons)
    assert find(device, content_desc="Search")
    tap(device, text="Settings", resource_id=f"{LAUNCHER}:id/icon")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.Settings")
    device.wm.key(4)
    assert device.top.package == LAUNCHER
    tap(device, text="Settings")
    tap(device, content_desc="Home")
    assert device.top.package == LAUNCHER
    tap(device, text="Settings")  # the task resumes where it was
    assert device.top.package == SETTINGS


def test_settings_system_page_leads_to_date_time(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    for title in ("Network & internet", "Apps", "Display", "Date & time"):
        assert title in texts(device)
    device.wm.swipe(540, 1800, 540, 600, 300)  # "System" may be below the fold on small frames
    tap(device, text="System")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.SubSettings")
    tap(device, text="Date & time")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.DateTimeSettings")
    tap(device, content_desc="Navigate up")
    assert "Languages" in texts(device)
    device.wm.key(4)
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.Settings")


def test_every_main_row_opens_something_without_crashing(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    main = device.wm.windows()[0]
    rows = [v for v in main.walk() if v.clickable and v.cls == "android.widget.LinearLayout"]
    assert len(rows) >= 9
    for row in rows:
        title = next(c.text for c in row.walk() if c.resource_id == "android:id/title")
        if row.bounds[3] > 2274:
            continue
        device.wm.tap(*row.center)
        assert len(device.state.back_stack) == 3, title  # launcher, Settings, the page
        assert device.state.ui.toast is None, title
        device.wm.key(4)
        assert device.current_focus()[1] == f"{SETTINGS}.Settings"


def test_date_time_page_shows_and_follows_the_logical_clock(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS, ".DateTimeSettings")
    shown = texts(device)
    assert {"Use network-provided time", "Date", "Time", "Time zone", "Use 24-hour format"} <= shown
    assert {"January 15, 2026", "09:00", "GMT+00:00 Coordinated Universal Time"} <= shown
    device.advance(3_600_000 + 5 * 60_000)
    assert "10:05" in texts(device)
    device.set_wall_ms(1_780_000_000_000)  # 2026-05-28 20:26:40 UTC
    assert {"May 28, 2026", "20:26"} <= texts(device)
    switches = [v for v in device.wm.windows()[0].walk() if v.cls == "android.widget.Switch"]
    assert [v.checked for v in switches] == [True, True, True]
    assert all(v.checkable for v in switches)


def test_date_time_switches_write_settings(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS, ".DateTimeSettings")
    tap(device, text="Use 24-hour format")
    assert device.state.settings["system"]["time_12_24"] == "12"
    assert "9:00 AM" in texts(device)
    assert find(device, resource_id="com.android.systemui:id/clock").text == "9:00"
    device.state.settings["system"]["time_12_24"] = "24"  # like `settings put system time_12_24 24`
    assert "09:00" in texts(device)
    time_row = find(device, text="Time").center
    device.wm.tap(*time_row)
    assert "Set time" not in texts(device)  # disabled while automatic
    tap(device, text="Use network-provided time")
    assert device.state.settings["global"]["auto_time"] == "0"
    device.wm.tap(*time_row)
    assert "Set time" in texts(device)
    tap(device, content_desc="Increase Hour")
    tap(device, content_desc="Increase Minute")
    tap(device, content_desc="Increase Minute")
    tap(device, text="OK")
    assert "10:02" in texts(device)
    assert device.wall_ms() == 1_768_467_600_000 + 62 * 60_000


def test_app_info_force_stop(device: VirtualDevice) -> None:
    device.apps["com.example.notify"] = NotifyingApp()
    device.start_activity("com.example.notify")
    device.start_activity(SETTINGS)
    tap(device, text="Apps")
    tap(device, text="Notifier")
    assert "Running" in texts(device)
    tap(device, text="Force stop")
    assert "com.example.notify" not in device.state.running
    assert "Not running" in texts(device)


def test_shade_lists_notifications_and_runs_actions(device: VirtualDevice) -> None:
    device.apps["com.example.notify"] = NotifyingApp()
    status_icons = [v.content_desc for v in device.wm.windows()[1].walk()]
    assert "Notifier notification: Backup done" in status_icons
    device.wm.expand_notifications()
    assert find(device, resource_id="android:id/title").text == "Backup done"
    assert find(device, resource_id="android:id/text").text == "3 files copied"
    tap(device, resource_id="android:id/action0")
    assert device.state.app_data["com.example.notify"]["dismissed"]
    assert "No notifications" in texts(device)
    device.wm.key(4)
    assert not device.state.ui.shade_open


def test_tapping_a_notification_opens_its_app(device: VirtualDevice) -> None:
    device.apps["com.example.notify"] = NotifyingApp()
    device.wm.swipe(500, 30, 500, 1200, 250)
    tap(device, resource_id="com.android.systemui:id/notification_row")
    assert not device.state.ui.shade_open
    assert device.top.package == "com.example.notify"


def test_quick_settings_tile_toggles_a_setting(device: VirtualDevice) -> None:
    device.wm.expand_notifications()
    tap(device, content_desc="Airplane mode")
    assert device.state.settings["global"]["airplane_mode_on"] == "1"
    device.wm.collapse_notifications()
    assert find(device, content_desc="Airplane mode.")


def test_time_zone_picker_changes_the_zone(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS, ".DateTimeSettings")
    tap(device, text="Use network-provided time zone")
    assert device.state.settings["global"]["auto_time_zone"] == "0"
    tap(device, text="Time zone")
    tap(device, text="Asia/Tokyo")
    assert device.state.clock.timezone == "Asia/Tokyo"
    assert device.current_focus()[1] == f"{SETTINGS}.DateTimeSettings"
    assert {"GMT+09:00 Japan Standard Time", "18:00"} <= texts(device)


def test_overview_clear_all(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    device.wm.tap(*find(device, content_desc="Overview").center)
    assert find(device, resource_id="com.android.systemui:id/snapshot").content_desc == "Settings"
    tap(device, text="Clear all")
    assert device.top.package == LAUNCHER and SETTINGS not in device.state.running
