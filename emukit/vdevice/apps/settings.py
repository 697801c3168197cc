"""The Settings app: a main list, sub-pages (``.SubSettings`` with ``state["page"]``) and Date & time.

Everything shown is read from the device state on each build: ``state.settings["global"|"system"|"secure"]``
(strings, like ``settings get``), the logical clock and the installed packages. Switches write the same
keys, so ``adb shell settings get`` sees what the UI did and the UI reflects what ``settings put`` did.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import App
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.clockfmt import (
    MONTHS,
    device_tz,
    format_date_long,
    format_time,
    local_now,
    tz_label,
)
from emukit.vdevice.ui.view import Bounds, Color, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.android.settings"
TIME_ZONES = ("UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles",
              "Asia/Kolkata", "Asia/Tokyo", "Australia/Sydney")


def _build_id(fingerprint: str) -> str:
    """``brand/product/device:release/ID/incremental:type/tags`` -> ``ID``."""
    parts = fingerprint.split("/")
    return parts[3] if len(parts) > 3 else fingerprint


@dataclass
class Row:
    """One preference: a title with optional summary, icon, switch and click action."""

    title: str
    summary: str = ""
    icon: str | None = None
    color: Color | None = None
    on_click: Callable[[], object] | None = None
    checked: bool | None = None
    enabled: bool = True


def get(device: VirtualDevice, ns: str, key: str, default: str = "") -> str:
    return device.state.settings.setdefault(ns, {}).get(key, default)


def put(device: VirtualDevice, ns: str, key: str, value: str) -> None:
    device.state.settings.setdefault(ns, {})[key] = value


def switch(device: VirtualDevice, title: str, ns: str, key: str, default: str, summary: str = "",
           on: str = "1", off: str = "0", enabled: bool = True) -> Row:
    """A switch row bound to a settings key holding ``on`` / ``off``."""
    checked = get(device, ns, key, default) == on
    return Row(title, summary, checked=checked, enabled=enabled,
               on_click=lambda: put(device, ns, key, off if checked else on))


class SettingsApp(App):
    """Android Settings with the pages a tester reaches most; no row crashes and few do nothing."""

    package = PACKAGE
    label = "Settings"
    launcher_activity = ".Settings"
    activities = (".Settings", ".DateTimeSettings", ".SubSettings")
    icon = "gear"
    icon_color = (84, 110, 140)

    # ------------------------------------------------------------------ navigation
    def open_page(self, device: VirtualDevice, page: str, **extra: str) -> None:
        device.push_activity(PACKAGE, ".SubSettings", {"page": page, **extra})

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if act.state.get("dialog"):
            act.state.pop("dialog")
            return True
        return False

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        if act.activity == ".DateTimeSettings":
            title, rows = "Date & time", self._date_time(device, act)
        else:
            page = act.state.get("page", "main") if act.activity == ".SubSettings" else "main"
            title, rows = getattr(self, f"_page_{page}", self._page_main)(device, act)
        root = w.screen(frame)
        back = None if act.activity == ".Settings" else device.finish_top
        root.add(w.app_bar(frame, title, on_back=back, rid=f"{PACKAGE}:id/action_bar"))
        body = w.below_app_bar(frame)
        if act.activity == ".Settings":
            body, rows = self._search(root, body, act, rows)
        items = [(w.row_height(bool(r.summary)), lambda top, r=r: w.list_row(
            body, top, r.title, r.summary, icon=r.icon, icon_bg=r.color,
            on_click=r.on_click if r.enabled else None, checked=r.checked, enabled=r.enabled)) for r in rows]
        root.add(w.scroll_list(body, items, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                               rid=f"{PACKAGE}:id/recycler_view", padding_bottom=48))
        dialog = act.state.get("dialog")
        if dialog:
            root.add(self._dialog(device, act, frame, dialog))
        return root

    def _search(self, root: View, body: Bounds, act: Activity, rows: list[Row]) -> tuple[Bounds, list[Row]]:
        """The "Search settings" field above the main list; typing filters the rows by title/summary."""
        left, top, right, bottom = body
        query = act.state.get("query", "")

        def set_query(text: str) -> None:
            act.state["query"] = text
            act.state["scroll"] = 0

        root.add(w.text_field((left + 40, top + 8, right - 40, top + 136), query, set_query,
                              key=f"{PACKAGE}:id/search_src_text", rid=f"{PACKAGE}:id/search_src_text",
                              hint="Search settings"))
        needle = query.strip().lower()
        if needle:
            rows = [r for r in rows if needle in r.title.lower() or needle in r.summary.lower()]
            rows = rows or [Row("No results", f"Nothing matches \u201c{query.strip()}\u201d", enabled=False)]
        return (left, top + 160, right, bottom), rows

    # ------------------------------------------------------------------ pages: (title, rows)
    def _page_main(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        now = local_now(device)
        wifi = get(device, "global", "wifi_on", "1") == "1"

        def page(name: str) -> Callable[[], None]:
            return lambda: self.open_page(device, name)

        return "Settings", [
            Row("Network & internet", "Internet" + (", AndroidWifi" if wifi else ": off"), "wifi", (26, 115, 232),
                page("network")),
            Row("Connected devices", "Bluetooth, pairing", "bluetooth", (30, 142, 62), page("connected")),
            Row("Apps", "Recent apps, default apps", "apps", (232, 113, 10), page("apps")),
            Row("Notifications", "Notification history, conversations", "bell", (217, 48, 37),
                page("notifications")),
            Row("Battery", "100%", "battery", (30, 142, 62), page("battery")),
            Row("Storage", "Internal shared storage", "storage", (161, 66, 244), page("storage")),
            Row("Sound & vibration", "Volume, haptics, Do Not Disturb", "volume", (0, 137, 123), page("sound")),
            Row("Display", "Dark theme, font size, brightness", "sun", (232, 113, 10), page("display")),
            Row("Date & time", f"{format_date_long(now)}, {format_time(device, now)}", "clock", (26, 115, 232),
                lambda: device.push_activity(PACKAGE, ".DateTimeSettings")),
            Row("System", "Languages, keyboard, date & time", "info", (95, 99, 104), page("system")),
            Row("About phone", device.state.props.get("ro.product.model", ""), "phone", (84, 110, 140),
                page("about")),
        ]

    def _page_network(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        airplane = get(device, "global", "airplane_mode_on", "0") == "1"
        return "Network & internet", [
            switch(device, "Internet", "global", "wifi_on", "1", "AndroidWifi", enabled=not airplane),
            switch(device, "Airplane mode", "global", "airplane_mode_on", "0"),
        ]

    def _page_connected(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Connected devices", [switch(device, "Use Bluetooth", "global", "bluetooth_on", "0")]

    def _page_apps(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Apps", [Row(app.label, f"Version {app.version_name}", app.icon, app.icon_color,
                            lambda pkg=app.package: self.open_page(device, "app_info", pkg=pkg))
                        for app in sorted(device.packages(), key=lambda a: a.label.lower())]

    def _page_app_info(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        pkg = act.state.get("pkg", "")
        if pkg not in device.apps:
            return "App info", [Row("App not installed", enabled=False)]
        app = device.apps[pkg]
        running = pkg in device.state.running
        rows = [Row(app.label, pkg, app.icon, app.icon_color)]
        if app.show_in_launcher:
            rows.append(Row("Open", "Launch the app", "arrow_forward",
                            on_click=lambda: device.start_activity(pkg)))
        rows.append(Row("Force stop", "Running" if running else "Not running", "stop", enabled=running and
                        pkg != device.launcher_package, on_click=lambda: device.force_stop(pkg)))
        rows.append(Row("Version", f"{app.version_name} ({app.version_code})", "info"))
        return "App info", rows

    def _page_notifications(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        notes = device.notifications()
        rows = [Row(n.title, n.text or device.apps[n.package].label, n.icon)
                for n in notes if n.package in device.apps]
        return "Notifications", rows or [Row("No recent notifications", enabled=False)]

    def _page_battery(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Battery", [Row("100%", "Plugged in, charging", "battery"),
                           switch(device, "Battery percentage", "system", "status_bar_show_battery_percent", "0",
                                  "Show battery percentage in status bar")]

    def _page_storage(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        rows = [Row("Internal shared storage", "64 GB total", "storage")]
        files = self._opener(device, "files")
        if files is not None:
            rows.append(Row("Files", "Browse shared storage", "folder", on_click=files))
        rows.append(Row("Apps", "Installed apps", "apps", on_click=lambda: self.open_page(device, "apps")))
        return "Storage", rows

    def _page_sound(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Sound & vibration", [switch(device, "Do Not Disturb", "global", "zen_mode", "0",
                                            "Only priority interruptions")]

    def _page_display(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        level = round(int(get(device, "system", "screen_brightness", "128") or 0) * 100 / 255)
        return "Display", [
            Row("Brightness level", f"{level}%", "sun"),
            switch(device, "Dark theme", "secure", "ui_night_mode", "1", on="2", off="1"),
            Row("Font size", "Default" if get(device, "system", "font_scale", "1.0") == "1.0" else "Custom",
                "edit"),
        ]

    def _page_system(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "System", [
            Row("Languages", "English (United States)", "person"),
            Row("Keyboard", "Gboard", "apps", on_click=lambda: self.open_page(device, "keyboard")),
            Row("Date & time", tz_label(device), "clock", on_click=lambda: device.push_activity(
                PACKAGE, ".DateTimeSettings")),
        ]

    def _page_keyboard(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Keyboard", [Row("On-screen keyboard", "Gboard", "apps")]

    def _page_about(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        props = device.state.props
        model = props.get("ro.product.model", "")
        return "About phone", [
            Row("Device name", get(device, "global", "device_name", model) or model),
            Row("Model", model),
            Row("Android version", props.get("ro.build.version.release", "")),
            Row("Build number",
                props.get("ro.build.display.id") or _build_id(props.get("ro.build.fingerprint", ""))),
        ]

    def _page_timezone(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        current = device.state.clock.timezone

        def choose(name: str) -> None:
            device.state.clock.timezone = name
            device.state.props["persist.sys.timezone"] = name
            device.finish_top()

        return "Select time zone", [Row(name.replace("_", " "), "Current" if name == current else "",
                                        on_click=lambda name=name: choose(name)) for name in TIME_ZONES]

    def _opener(self, device: VirtualDevice, word: str) -> Callable[[], object] | None:
        for app in device.packages():
            if app.show_in_launcher and word in app.package:
                return lambda pkg=app.package: device.start_activity(pkg)
        return None

    # ------------------------------------------------------------------ Date & time
    def _date_time(self, device: VirtualDevice, act: Activity) -> list[Row]:
        now = local_now(device)
        auto = get(device, "global", "auto_time", "1") == "1"
        auto_tz = get(device, "global", "auto_time_zone", "1") == "1"

        def open_dialog(kind: str) -> None:
            act.state["dialog"] = {"kind": kind, "y": now.year, "mo": now.month, "d": now.day, "h": now.hour,
                                   "mi": now.minute}

        return [
            switch(device, "Use network-provided time", "global", "auto_time", "1"),
            Row("Date", format_date_long(now), enabled=not auto, on_click=lambda: open_dialog("date")),
            Row("Time", format_time(device, now), enabled=not auto, on_click=lambda: open_dialog("time")),
            switch(device, "Use network-provided time zone", "global", "auto_time_zone", "1"),
            Row("Time zone", tz_label(device), enabled=not auto_tz,
                on_click=lambda: self.open_page(device, "timezone")),
            switch(device, "Use 24-hour format", "system", "time_12_24", "24", "13:00", on="24", off="12"),
        ]

    def _dialog(self, device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict) -> View:
        """The date or time picker over the Date & time page."""

        def step(field: str, delta: int, lo: int, hi: int) -> Callable[[], None]:
            def apply() -> None:
                dlg[field] = lo + (dlg[field] - lo + delta) % (hi - lo + 1)
                act.state["dialog"] = dlg
            return apply

        def cancel() -> None:
            act.state.pop("dialog", None)

        def ok() -> None:
            act.state.pop("dialog", None)
            day = min(dlg["d"], calendar.monthrange(dlg["y"], dlg["mo"])[1])
            when = datetime(dlg["y"], dlg["mo"], day, dlg["h"], dlg["mi"], tzinfo=device_tz(device))
            keep_seconds = device.wall_ms() % 60_000
            device.set_wall_ms(int(when.timestamp()) * 1000 + keep_seconds)

        if dlg.get("kind") == "date":
            fields = [("Year", str(dlg["y"]), step("y", -1, 1970, 2099), step("y", 1, 1970, 2099)),
                      ("Month", MONTHS[dlg["mo"] - 1][:3], step("mo", -1, 1, 12), step("mo", 1, 1, 12)),
                      ("Day", str(dlg["d"]), step("d", -1, 1, 31), step("d", 1, 1, 31))]
            title = "Set date"
        else:
            fields = [("Hour", f"{dlg['h']:02d}", step("h", -1, 0, 23), step("h", 1, 0, 23)),
                      ("Minute", f"{dlg['mi']:02d}", step("mi", -1, 0, 59), step("mi", 1, 0, 59))]
            title = "Set time"
        return w.stepper_dialog(frame, title, fields, on_cancel=cancel, on_ok=ok)

    # ------------------------------------------------------------------ gallery
    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        device.start_activity(PACKAGE)
        yield "Settings"
        field = device.wm.find_view(lambda v: v.resource_id == f"{PACKAGE}:id/search_src_text")
        if field is not None:
            device.wm.tap(*field.center)
            device.wm.input_text("date")
            yield "Search with the soft keyboard"
            device.wm.input_text("zzz")
            yield "Search without results"
            device.wm.key(4)
            device.start_activity(PACKAGE, ".Settings")
        for page in ("network", "apps", "display", "system", "about"):
            self.open_page(device, page)
            yield f"Page: {page}"
            device.finish_top()
        device.push_activity(PACKAGE, ".DateTimeSettings")
        yield "Date & time"
        put(device, "global", "auto_time", "0")
        yield "Date & time (manual)"
        top = device.top
        now = local_now(device)
        for kind in ("date", "time"):
            top.state["dialog"] = {"kind": kind, "y": now.year, "mo": now.month, "d": now.day, "h": now.hour,
                                   "mi": now.minute}
            yield f"{kind.capitalize()} picker"
        top.state.pop("dialog", None)
        put(device, "global", "auto_time_zone", "0")
        self.open_page(device, "timezone")
        yield "Time zone picker"

