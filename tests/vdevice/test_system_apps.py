"""Launcher, Settings (incl. Date & time) and the notification shade, driven in-process through the WM."""

from __future__ import annotations

import pytest

from emukit.apps.selectors import table
from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
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


def swipe_up(dev: VirtualDevice, view: View) -> None:
    """A finger swipe from ``view``'s centre to the upper quarter of the screen."""
    x, y = view.center
    dev.wm.swipe(x, y, x, theme.SCREEN_H // 4, 300)


def scroll_to(dev: VirtualDevice, title: str) -> None:
    """Swipe the Settings list (by its bounds) until a row titled ``title`` shows."""
    for _ in range(8):
        if dev.wm.find_view(lambda v: v.resource_id == "android:id/title" and v.text == title) is not None:
            return
        box = find(dev, resource_id=f"{SETTINGS}:id/recycler_view")
        left, top, right, bottom = box.bounds
        dev.wm.swipe((left + right) // 2, bottom - (bottom - top) // 4, (left + right) // 2, top + (bottom - top) // 4,
                     300)
    raise AssertionError(f"no row {title!r}")


def icons(dev: VirtualDevice) -> list[View]:
    return [v for win in dev.wm.windows() for v in win.walk() if v.resource_id == f"{LAUNCHER}:id/icon"]


def test_home_screen_holds_no_app_icons_and_all_apps_lists_them_sorted(device: VirtualDevice) -> None:
    device.apps["com.example.notify"] = NotifyingApp()
    assert icons(device) == []  # a Pixel home screen: no Clock/Files/Markor/Retro/Settings icons
    assert find(device, resource_id=f"{LAUNCHER}:id/workspace") and find(device, content_desc="Search")
    swipe_up(device, find(device, resource_id=f"{LAUNCHER}:id/hotseat"))
    grid = find(device, resource_id=f"{LAUNCHER}:id/apps_list_view")
    assert grid.cls == "android.widget.GridView"
    assert find(device, resource_id=f"{LAUNCHER}:id/apps_view")
    labels = [v.text for v in icons(device)]
    assert labels == sorted(labels, key=str.casefold)
    assert {"Clock", "Files", "Markor", "Notifier", "Retro Music", "Settings"} <= set(labels)
    assert all(v.cls == "android.widget.TextView" and v.clickable and v.content_desc == v.text for v in icons(device))
    assert not device.wm.find_view(lambda v: v.resource_id == f"{LAUNCHER}:id/workspace")
    tap(device, text="Settings", resource_id=f"{LAUNCHER}:id/icon")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.Settings")
    device.wm.key(4)
    assert device.top.package == LAUNCHER and icons(device) == []  # launching closed the drawer
    swipe_up(device, find(device, resource_id=f"{LAUNCHER}:id/workspace"))
    tap(device, text="Settings")
    tap(device, content_desc="Home")
    assert device.top.package == LAUNCHER
    swipe_up(device, find(device, resource_id=f"{LAUNCHER}:id/hotseat"))
    tap(device, text="Settings")  # the task resumes where it was
    assert device.top.package == SETTINGS


def test_all_apps_closes_on_back_and_on_a_pull_down(device: VirtualDevice) -> None:
    swipe_up(device, find(device, resource_id=f"{LAUNCHER}:id/hotseat"))
    assert icons(device)
    device.wm.key(4)
    assert icons(device) == [] and find(device, resource_id=f"{LAUNCHER}:id/hotseat")
    swipe_up(device, find(device, resource_id=f"{LAUNCHER}:id/hotseat"))
    grid = find(device, resource_id=f"{LAUNCHER}:id/apps_list_view")
    x = grid.center[0]
    device.wm.swipe(x, grid.bounds[1] + 40, x, grid.bounds[3] - 40, 300)
    assert icons(device) == []
    short = find(device, resource_id=f"{LAUNCHER}:id/hotseat")  # a tiny swipe does not open the drawer
    device.wm.swipe(short.center[0], short.center[1], short.center[0], short.center[1] - theme.dp(20), 300)
    assert icons(device) == []


def test_settings_homepage_system_then_date_time(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    bar = find(device, resource_id=f"{SETTINGS}:id/search_action_bar")
    assert [v.text for v in bar.walk() if v.resource_id.endswith("search_action_bar_title")] == ["Search settings"]
    shown = texts(device)
    assert {"Network & internet", "Apps", "Display"} <= shown and "Date & time" not in shown
    scroll_to(device, "System")
    tap(device, text="System", resource_id="android:id/title")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.SubSettings")
    assert find(device, resource_id=f"{SETTINGS}:id/collapsing_toolbar").content_desc == "System"
    tap(device, text="Date & time", resource_id="android:id/title")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.DateTimeSettings")
    assert find(device, resource_id=f"{SETTINGS}:id/collapsing_toolbar").content_desc == "Date & time"
    assert "Date & time" not in texts(device)  # the title is the collapsing toolbar's content-desc
    tap(device, content_desc="Navigate up")
    assert "Languages" in texts(device)
    device.wm.key(4)
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.Settings")


def test_settings_search_bar_opens_search_with_the_keyboard(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    tap(device, resource_id=f"{SETTINGS}:id/search_action_bar")
    assert device.state.ui.focused_id == "android:id/search_src_text"
    assert any(v.package == "com.android.inputmethod.latin" for win in device.wm.windows() for v in win.walk())
    device.wm.input_text("date")
    tap(device, text="Date & time", resource_id="android:id/title")
    assert device.current_focus() == (SETTINGS, f"{SETTINGS}.DateTimeSettings")
    device.wm.key(4)
    device.wm.set_text("android:id/search_src_text", "zzz")
    assert "No results" in texts(device)


def test_every_main_row_opens_something_without_crashing(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS)
    seen: set[str] = set()
    for _ in range(4):
        main = device.wm.windows()[0]
        rows = [v for v in main.walk() if v.clickable and v.cls == "android.widget.LinearLayout"
                and v.bounds[3] <= theme.SCREEN_H - theme.NAV_H]
        for row in rows:
            title = next(c.text for c in row.walk() if c.resource_id == "android:id/title")
            if title in seen:
                continue
            seen.add(title)
            device.wm.tap(*row.center)
            assert len(device.state.back_stack) == 3, title  # launcher, Settings, the page
            assert device.state.ui.toast is None, title
            device.wm.key(4)
            assert device.current_focus()[1] == f"{SETTINGS}.Settings"
        box = find(device, resource_id=f"{SETTINGS}:id/recycler_view")
        x = (box.bounds[0] + box.bounds[2]) // 2
        device.wm.swipe(x, box.bounds[3] - 60, x, box.bounds[1] + 60, 300)
    assert len(seen) >= 15 and {"System", "About phone"} <= seen


def test_date_time_page_shows_and_follows_the_logical_clock(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS, ".DateTimeSettings")
    shown = texts(device)
    assert {"Set time automatically", "Date", "Time", "Set time zone automatically", "Time zone", "Time format",
            "Use locale default", "Use 24-hour format"} <= shown
    assert not {"Use network-provided time", "Use network-provided time zone"} & shown
    assert {"January 15, 2026", "09:00", "GMT+00:00 Coordinated Universal Time"} <= shown
    device.advance(3_600_000 + 5 * 60_000)
    assert "10:05" in texts(device)
    device.set_wall_ms(1_780_000_000_000)  # 2026-05-28 20:26:40 UTC
    assert {"May 28, 2026", "20:26"} <= texts(device)
    switches = [v for v in device.wm.windows()[0].walk() if v.cls == "android.widget.Switch"]
    assert [v.checked for v in switches] == [True, True, False, True]  # auto time, auto zone, locale, 24-hour
    assert all(v.checkable for v in switches)


def test_date_time_switches_write_settings(device: VirtualDevice) -> None:
    device.start_activity(SETTINGS, ".DateTimeSettings")
    tap(device, text="Use 24-hour format")
    assert device.state.settings["system"]["time_12_24"] == "12"
    assert "9:00 AM" in texts(device)
    assert find(device, resource_id="com.android.systemui:id/clock").text == "9:00"
    device.state.settings["system"]["time_12_24"] = "24"  # like `settings put system time_12_24 24`
    assert "09:00" in texts(device)
    tap(device, text="Use locale default")
    assert "time_12_24" not in device.state.settings["system"]
    use_24h = find(device, text="Use 24-hour format")
    assert not use_24h.enabled  # the locale decides
    tap(device, text="Use locale default")
    assert device.state.settings["system"]["time_12_24"] == "24"
    time_row = find(device, text="Time").center
    device.wm.tap(*time_row)
    assert "Set time" not in texts(device)  # disabled while automatic
    tap(device, text="Set time automatically")
    assert device.state.settings["global"]["auto_time"] == "0"
    device.wm.tap(*time_row)
    assert "Set time" in texts(device)
    tap(device, content_desc="Increase Hour")
    tap(device, content_desc="Increase Minute")
    tap(device, content_desc="Increase Minute")
    tap(device, text="OK")
    assert "10:02" in texts(device)
    assert device.wall_ms() == 1_768_467_600_000 + 62 * 60_000


def test_device_name_is_the_model_on_first_boot(device: VirtualDevice) -> None:
    assert device.state.settings["global"]["device_name"] == device.state.props["ro.product.model"]
    assert device.state.settings["global"]["device_name"] == "sdk_gphone64_x86_64"


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
    device.wm.swipe(theme.SCREEN_W // 2, theme.STATUS_H // 3, theme.SCREEN_W // 2, theme.SCREEN_H // 2, 250)
    tap(device, resource_id=table("com.android.systemui").rid("notification_row"))
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
    tap(device, text="Set time zone automatically")
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
