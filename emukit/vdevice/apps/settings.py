"""The Settings app, laid out as API 34's Settings: the homepage (search bar, then the top-level entries with
System near the end and no Date & time), sub-pages (``.SubSettings`` with ``state["page"]``) whose title is
the collapsing toolbar's content-desc, and the Date & time page reached from System.

Everything a profile touches is drawn from the selector table of the image's Settings
(``emukit/apps/tables/com.android.settings``). Everything shown is read from the device state on each build:
``state.settings["global"|"system"|"secure"]`` (strings, like ``settings get``), the logical clock and the
installed packages. Switches write the same keys, so ``adb shell settings get`` sees what the UI did and the
UI reflects what ``settings put`` did.
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.apps.base import App
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.clockfmt import (
    MONTHS,
    device_tz,
    format_date_long,
    format_time,
    local_now,
    tz_label,
)
from emukit.vdevice.ui.theme import dp, px
from emukit.vdevice.ui.view import Bounds, Color, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.android.settings"
T = table(PACKAGE)
#: the Date & time page: this app's own name for it and the real activity alias (Settings$DateTimeSettingsActivity)
DATE_TIME_ACTIVITIES = (".DateTimeSettings", ".Settings$DateTimeSettingsActivity")
HEADER_H = dp(176)  # the expanded collapsing toolbar of a sub-page
SEARCH_H = dp(80)  # the homepage's search bar card, with its margins
SEARCH_FIELD = "android:id/search_src_text"  # the search page's SearchView query field
#: the Compose ("SPA") host that shows a special app access page for one package; the intent
#: ACTION_MANAGE_APP_ALL_FILES_ACCESS_PERMISSION with ``package:PKG`` lands on its All files access page
SPA_ACTIVITY = ".spa.SpaActivity"
#: special app accesses by app-op: (page title, switch title, footer) entries of the table
SPECIAL_ACCESS: dict[str, tuple[str, str, str | None]] = {
    "MANAGE_EXTERNAL_STORAGE": ("all_files_access_title", "manage_all_files_switch", "all_files_access_footer"),
    "WRITE_SETTINGS": ("write_settings_title", "write_settings_switch", None),
    "SCHEDULE_EXACT_ALARM": ("alarms_title", "alarms_switch", None)}
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


def location_on(device: VirtualDevice) -> bool:
    """Settings.Secure.LOCATION_MODE is not off (SettingsProvider's def_location_mode is 3, on)."""
    return get(device, "secure", "location_mode", "3") != "0"


def switch(device: VirtualDevice, title: str, ns: str, key: str, default: str, summary: str = "",
           on: str = "1", off: str = "0", enabled: bool = True) -> Row:
    """A switch row bound to a settings key holding ``on`` / ``off``."""
    checked = get(device, ns, key, default) == on
    return Row(title, summary, checked=checked, enabled=enabled,
               on_click=lambda: put(device, ns, key, off if checked else on))


@register_virtual_app
class SettingsApp(App):
    """Android Settings with the pages a tester reaches most; no row crashes and few do nothing."""

    install_order = 1

    package = PACKAGE
    label = T.text("launcher_label")
    launcher_activity = ".Settings"
    activities = (".Settings", ".SubSettings", *DATE_TIME_ACTIVITIES, SPA_ACTIVITY)
    icon = "gear"
    icon_color = (84, 110, 140)

    def install(self, device: VirtualDevice) -> None:
        """First boot: SettingsProvider writes Settings.Global.DEVICE_NAME = the model (def_device_name_simple
        of Build.MODEL), which Files shows as the shared-storage root's title."""
        device.state.settings.setdefault("global", {}).setdefault(
            "device_name", device.state.props.get("ro.product.model", ""))

    # ------------------------------------------------------------------ navigation
    def open_page(self, device: VirtualDevice, page: str, **extra: str) -> None:
        device.push_activity(PACKAGE, ".SubSettings", {"page": page, **extra})

    def _open_search(self, device: VirtualDevice) -> None:
        """The search bar opens search with its query field focused and the keyboard up."""
        self.open_page(device, "search")
        ui = device.state.ui
        ui.focused_id, ui.cursor, ui.text_menu = SEARCH_FIELD, 0, None

    def open_all_files_access(self, device: VirtualDevice, package: str) -> None:
        """``Settings.ACTION_MANAGE_APP_ALL_FILES_ACCESS_PERMISSION`` with ``package:PKG``: the package's All files
        access page on top of the caller (startActivityForResult: BACK returns to it)."""
        self.open_special_access(device, "MANAGE_EXTERNAL_STORAGE", package)

    def open_special_access(self, device: VirtualDevice, op: str, package: str) -> None:
        """The special app access page of ``op`` (a key of :data:`SPECIAL_ACCESS`) for ``package``."""
        device.push_activity(PACKAGE, SPA_ACTIVITY, {"op": op, "pkg": package})

    def open_date_time(self, device: VirtualDevice) -> None:
        """System's "Date & time" entry: the DateTimeSettings fragment in a new SubSettings."""
        device.push_activity(PACKAGE, DATE_TIME_ACTIVITIES[0])

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if act.state.get("dialog"):
            act.state.pop("dialog")
            return True
        return False

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        if act.activity == SPA_ACTIVITY:
            return self._special_access(device, act, frame)
        if act.activity in DATE_TIME_ACTIVITIES:
            title, rows = T.text("date_time"), self._date_time(device, act)
        else:
            page = act.state.get("page", "main") if act.activity == ".SubSettings" else "main"
            title, rows = getattr(self, f"_page_{page}", self._page_main)(device, act)
        root = w.screen(frame)
        if act.activity == ".Settings":
            body = self._search_bar(device, root, frame)
        elif act.state.get("page") == "search":
            body = self._search_field(root, frame, act)
        else:
            body = self._header(root, frame, title, device.finish_top)
        items = [(w.row_height(bool(r.summary)), lambda top, r=r: w.list_row(
            body, top, r.title, r.summary, icon=r.icon, icon_bg=r.color,
            on_click=r.on_click if r.enabled else None, checked=r.checked, enabled=r.enabled,
            title_rid=T.rid("pref_title"))) for r in rows]
        root.add(w.scroll_list(body, items, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                               rid=T.rid("list"), padding_bottom=px(48), cls=T.cls("list")))
        dialog = act.state.get("dialog")
        if dialog:
            root.add(self._dialog(device, act, frame, dialog))
        return root

    def _special_access(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        """A special app access page for one package, as Settings' SPA pages draw it (AllFilesAccess.kt with
        AppOpPermissionListModel's toggle page): the page title, the app (label and versionName), the switch
        row titled by the access and the footer. Compose nodes carry no resource ids; the switch row is the
        clickable node holding the title. The switch sets the app-op to allow / the default (the ``appops``
        command shows the same record)."""
        op = act.state.get("op", "MANAGE_EXTERNAL_STORAGE")
        pkg = act.state.get("pkg", "")
        title_name, switch_name, footer_name = SPECIAL_ACCESS.get(op, SPECIAL_ACCESS["MANAGE_EXTERNAL_STORAGE"])
        root = w.screen(frame)
        root.add(w.app_bar(frame, T.text(title_name), on_back=device.finish_top))
        body = w.below_app_bar(frame)
        left, top, right, _ = body
        if pkg not in device.apps:
            root.add(w.label((left + px(48), top, right - px(48), top + w.ROW_H), "App not installed",
                             color=theme.TEXT_SECONDARY))
            return root
        app = device.apps[pkg]
        y = top + px(24)
        root.add(w.list_row(body, y, app.label, device.version_name(pkg), icon=app.icon, icon_bg=app.icon_color,
                            title_rid="", subtitle_rid="", height=px(200)))
        y += px(224)
        allowed = device.app_op_allowed(pkg, op)

        def toggle() -> None:
            device.set_app_op(pkg, op, "default" if allowed else "allow")

        root.add(w.list_row(body, y, T.text(switch_name), checked=allowed, on_click=toggle, title_rid=""))
        y += w.ROW_H + px(48)
        if footer_name is not None:
            root.add(w.label((left + px(48), y, right - px(48), y + px(260)), T.text(footer_name),
                             color=theme.TEXT_SECONDARY, size=theme.TEXT_LABEL, valign="top", max_lines=5))
        return root

    def _search_bar(self, device: VirtualDevice, root: View, frame: Bounds) -> Bounds:
        """The homepage's search bar (``search_bar.xml``: a card holding the ``search_action_bar`` Toolbar and
        its "Search settings" title); a tap opens the search page. Returns the area left for the list."""
        left, top, right, bottom = frame
        card = View(cls="android.widget.FrameLayout", bounds=(left + px(42), top + px(24), right - px(42),
                                                              top + SEARCH_H - px(24)),
                    resource_id=f"{PACKAGE}:id/search_bar", style=Style(bg=theme.SURFACE_VARIANT, radius=px(60)))
        x0, y0, x1, y1 = card.bounds
        bar = View(cls="android.view.ViewGroup", bounds=card.bounds, resource_id=T.rid("search_bar"), clickable=True,
                   on_click=lambda: self._open_search(device))
        bar.add(View(cls="android.widget.ImageButton", bounds=(x0 + px(24), y0, x0 + px(24) + w.TOUCH, y1),
                     style=Style(icon="search", icon_color=theme.TEXT_SECONDARY, icon_size=px(56))))
        bar.add(View(cls=T.cls("search_bar_title"), bounds=(x0 + px(150), y0, x1 - px(40), y1),
                     text=T.text("search_bar_title"), resource_id=T.rid("search_bar_title"),
                     style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.TEXT_BODY_L)))
        card.add(bar)
        root.add(card)
        return left, top + SEARCH_H, right, bottom

    def _header(self, root: View, frame: Bounds, title: str, on_back: Callable[[], object]) -> Bounds:
        """A sub-page's collapsing toolbar: the title is its content-desc (drawn by the layout, not a TextView),
        over the ``action_bar`` Toolbar with "Navigate up". Returns the area left for the list."""
        left, top, right, bottom = frame
        header = View(cls=T.cls("page_title"), bounds=(left, top, right, top + HEADER_H),
                      resource_id=T.rid("page_title"), content_desc=T.desc("page_title", title=title),
                      style=Style(bg=theme.BACKGROUND, font_size=theme.TEXT_TITLE_L + px(20), valign="bottom",
                                  padding=px(48), show_desc=True))
        bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H),
                   resource_id=f"{PACKAGE}:id/action_bar")
        inset = (w.APP_BAR_H - w.TOUCH) // 2
        bar.add(View(cls=T.cls("navigate_up"), bounds=(left + px(12), top + inset, left + px(12) + w.TOUCH,
                                                       top + inset + w.TOUCH),
                     content_desc=T.desc("navigate_up"), clickable=True, on_click=on_back,
                     style=Style(icon="arrow_back", icon_color=theme.TEXT, icon_size=px(60))))
        header.add(bar)
        root.add(header)
        return left, top + HEADER_H, right, bottom

    def _search_field(self, root: View, frame: Bounds, act: Activity) -> Bounds:
        """The search page's query field (a SearchView's ``search_src_text``); typing filters the settings."""
        left, top, right, bottom = frame
        query = act.state.get("query", "")

        def set_query(text: str) -> None:
            act.state["query"] = text
            act.state["scroll"] = 0

        root.add(w.text_field((left + px(40), top + px(20), right - px(40), top + px(148)), query, set_query,
                              key=SEARCH_FIELD, rid=SEARCH_FIELD,
                              hint=T.text("search_bar_title")))
        return left, top + px(170), right, bottom

    # ------------------------------------------------------------------ pages: (title, rows)
    def _page_search(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        """Every entry of the homepage and of System whose title or summary holds the query."""
        needle = act.state.get("query", "").strip().lower()
        if not needle:
            return "", []
        rows = [r for r in self._page_main(device, act)[1] + self._page_system(device, act)[1]
                if needle in r.title.lower() or needle in r.summary.lower()]
        return "", rows or [Row("No results", f"Nothing matches \u201c{needle}\u201d", enabled=False)]

    def _page_main(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        """The homepage entries in top_level_settings.xml's order; Date & time is under System."""
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
            Row("Wallpaper & style", "Colors, themed icons, app grid", "edit", (0, 137, 123), page("wallpaper")),
            Row("Accessibility", "Display, interaction, audio", "person", (95, 99, 104), page("accessibility")),
            Row("Security & privacy", "App security, device lock, permissions", "info", (30, 142, 62),
                page("security")),
            Row("Location", "On" if location_on(device) else "Off", "info", (26, 115, 232), page("location")),
            Row("Safety & emergency", "Emergency SOS, medical info, alerts", "bell", (217, 48, 37),
                page("emergency")),
            Row("Passwords & accounts", "Saved passwords, autofill, synced accounts", "person", (161, 66, 244),
                page("accounts")),
            Row(T.text("system"), "Languages, gestures, time, backup", "info", (95, 99, 104), page("system")),
            Row("About phone", device.state.props.get("ro.product.model", ""), "phone", (84, 110, 140),
                page("about")),
        ]

    def _page_network(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        airplane = get(device, "global", "airplane_mode_on", "0") == "1"
        return "Network & internet", [
            switch(device, "Internet", "global", "wifi_on", "1", "AndroidWifi", enabled=not airplane),
            switch(device, "Airplane mode", "global", "airplane_mode_on", "0"),
        ]

    def _page_wallpaper(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Wallpaper & style", [switch(device, "Dark theme", "secure", "ui_night_mode", "1", on="2", off="1")]

    def _page_accessibility(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Accessibility", [switch(device, "Color inversion", "secure", "accessibility_display_inversion_enabled",
                                        "0", "Make light screens dark and dark screens light")]

    def _page_security(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Security & privacy", [Row("Device unlock", "Screen lock: None", "phone")]

    def _page_location(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        on = location_on(device)
        return "Location", [Row("Use location", checked=on,
                                on_click=lambda: put(device, "secure", "location_mode", "0" if on else "3"))]

    def _page_emergency(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Safety & emergency", [Row("Emergency information", "Medical info, emergency contacts", "bell")]

    def _page_accounts(self, device: VirtualDevice, act: Activity) -> tuple[str, list[Row]]:
        return "Passwords & accounts", [Row("No accounts added", enabled=False)]

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
        rows.append(Row("Version", f"{device.version_name(pkg)} ({device.version_code(pkg)})", "info"))
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
        """System (system_dashboard_fragment.xml): Languages, Keyboard, then Date & time."""
        return T.text("system"), [
            Row("Languages", "English (United States)", "person"),
            Row("Keyboard", "Gboard", "apps", on_click=lambda: self.open_page(device, "keyboard")),
            Row(T.text("date_time"), tz_label(device), "clock", on_click=lambda: self.open_date_time(device)),
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
        """date_time_prefs.xml: the auto_time switch, Date, Time; the auto_zone switch, Time zone; the Time format
        category with Use locale default (on while system time_12_24 is unset) and Use 24-hour format."""
        now = local_now(device)
        auto = get(device, "global", "auto_time", "1") == "1"
        auto_tz = get(device, "global", "auto_time_zone", "1") == "1"
        system = device.state.settings.setdefault("system", {})
        locale = "time_12_24" not in system

        def open_dialog(kind: str) -> None:
            act.state["dialog"] = {"kind": kind, "y": now.year, "mo": now.month, "d": now.day, "h": now.hour,
                                   "mi": now.minute}

        def toggle_locale() -> None:
            # on: the locale decides (the key is removed); off: the explicit value the clock then shows (24)
            if locale:
                system["time_12_24"] = "24"
            else:
                system.pop("time_12_24", None)

        return [
            switch(device, T.text("auto_time"), "global", "auto_time", "1"),
            Row(T.text("date"), format_date_long(now), enabled=not auto, on_click=lambda: open_dialog("date")),
            Row(T.text("time"), format_time(device, now), enabled=not auto, on_click=lambda: open_dialog("time")),
            switch(device, T.text("auto_zone"), "global", "auto_time_zone", "1"),
            Row(T.text("time_zone"), tz_label(device), enabled=not auto_tz,
                on_click=lambda: self.open_page(device, "timezone")),
            Row(T.text("time_format")),
            Row(T.text("locale_24h"), format_time(device, now), checked=locale, on_click=toggle_locale),
            switch(device, T.text("use_24h"), "system", "time_12_24", "24", "13:00", on="24", off="12",
                   enabled=not locale),
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
        bar = device.wm.find_view(lambda v: v.resource_id == T.rid("search_bar"))
        if bar is not None:
            device.wm.tap(*bar.center)
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
        self.open_date_time(device)
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
