"""System UI windows: status bar, navigation bar, notification shade, toast and the Overview (recents) screen.

Each function returns one window (a :class:`View` tree with package ``com.android.systemui``) in screen
coordinates. Behaviour goes through the window manager so input has one path. Positions come from the
display's size and the reference-layout sizes scaled with :func:`~emukit.vdevice.ui.theme.px`.

The shade follows AOSP SystemUI, with ids, strings and classes from the pinned SystemUI table
(``emukit/apps/tables/com.android.systemui/api34.yaml``): the panel ``notification_panel``, the list
``notification_stack_scroller`` and one clickable ``expandableNotificationRow`` (a FrameLayout) per
notification. Inside a row is the framework's notification template: the header (``android:id/icon``,
``android:id/app_name_text`` with the app's label), then either the standard ``android:id/title`` and
``android:id/text`` or an app's custom content view (:class:`CustomNotification`, e.g. DeskClock's timer
``chronometer`` and ``state``), then the action buttons, all ``android:id/action0``, in ``android:id/actions``.
A tap on the row outside its buttons sends the content intent: the app opens and the shade closes.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.apps.base import Notification
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.clockfmt import format_date_short, format_time, local_now
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Color, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.wm import WindowManager

SYSTEMUI = "com.android.systemui"
DEMO_ALLOWED = "sysui_demo_allowed"  # Settings.Global key (DemoModeController.DEMO_MODE_ALLOWED)
S = table(SYSTEMUI)  # the pinned SystemUI table
W, H = theme.SCREEN_W, theme.SCREEN_H
SHADE_BOTTOM = H - theme.NAV_H

# quick settings: (label, icon, settings.global key, default)
QS_TILES = (("Internet", "wifi", "wifi_on", "1"), ("Bluetooth", "bluetooth", "bluetooth_on", "0"),
            ("Airplane mode", "signal", "airplane_mode_on", "0"), ("Do Not Disturb", "bell", "zen_mode", "0"))


@dataclass(frozen=True)
class RemoteText:
    """One TextView of a notification's custom content view (the posting app's RemoteViews, drawn inside the
    framework's decorated template): its class, full resource id, text and content-desc; ``title`` draws it in
    the notification title's style (``TextAppearance.Compat.Notification.Title``)."""

    cls: str
    resource_id: str
    text: str
    desc: str = ""
    title: bool = False


@dataclass
class CustomNotification(Notification):
    """A notification whose content is the app's own views (``setCustomContentView`` with
    ``DecoratedCustomViewStyle``) instead of a title and text: the row shows ``content`` under its header."""

    content: tuple[RemoteText, ...] = ()


def _sid(name: str) -> str:
    return f"{SYSTEMUI}:id/{name}"


def global_setting(device: VirtualDevice, key: str, default: str) -> str:
    return device.state.settings.setdefault("global", {}).get(key, default)


def app_label(device: VirtualDevice, note: Notification) -> str:
    app = device.apps.get(note.package)
    return app.label if app else note.package


def icon_description(device: VirtualDevice, note: Notification) -> str:
    """The status-bar icon's content-desc: ``<app> notification: <title>``, the text when the title is the app's
    name, nothing after the colon for a notification without either (``contentDescForNotification``)."""
    label = app_label(device, note)
    what = note.text if note.title == label else note.title
    return S.query("status_bar_notification_icon", app=label)["descriptionStartsWith"] + f": {what or ''}"


def demo_allowed(device: VirtualDevice) -> bool:
    """``settings put global sysui_demo_allowed 1`` (``DemoModeController.DEMO_MODE_ALLOWED``)."""
    return global_setting(device, DEMO_ALLOWED, "0") == "1"


def demo_active(device: VirtualDevice) -> bool:
    """Demo mode is on and still allowed (turning the setting off ends it: ``setIsDemoModeAllowed``)."""
    return device.state.demo.active and demo_allowed(device)


def demo_command(device: VirtualDevice, extras: dict[str, str]) -> None:
    """One ``com.android.systemui.demo`` broadcast, as SystemUI's ``DemoModeController`` handles it
    (aosp-mirror/platform_frameworks_base f5c52ca3b4f1 ``packages/SystemUI/src/com/android/systemui/demomode/
    DemoModeController.kt`` ``dispatchDemoCommand``; the commands in 87e9b26207d2
    ``packages/SystemUI/docs/demo_mode.md``): ignored unless demo mode is allowed; ``command`` (trimmed,
    lower-cased) ``enter`` and ``exit`` switch it, any other command enters it first. ``clock`` takes ``hhmm``
    or ``millis``; ``battery`` ``level`` and ``plugged``; ``network`` ``wifi``/``mobile``/``airplane``
    (``show`` or anything else to hide) with the ``level`` (0-4) and ``datatype`` that follow them;
    ``notifications`` ``visible`` (``false`` hides the icons)."""
    command = extras.get("command", "").strip().lower()
    if not command or not demo_allowed(device):
        return
    demo = device.state.demo
    if command == "exit":
        device.state.demo = type(demo)()
        return
    demo.active = True
    if command == "clock":
        if extras.get("hhmm", "").strip().isdigit():
            demo.clock_hhmm = extras["hhmm"].strip().rjust(4, "0")[-4:]
        elif extras.get("millis", "").strip().lstrip("-").isdigit():
            from datetime import UTC, datetime

            from emukit.vdevice.ui.clockfmt import device_tz

            when = datetime.fromtimestamp(int(extras["millis"]) / 1000, UTC).astimezone(device_tz(device))
            demo.clock_hhmm = f"{when.hour:02d}{when.minute:02d}"
    elif command == "battery":
        if extras.get("level", "").strip().isdigit():
            demo.battery_level = max(0, min(100, int(extras["level"])))
        if "plugged" in extras:
            demo.battery_plugged = extras["plugged"].strip().lower() == "true"
    elif command == "network":
        network = dict(demo.network)
        for slot in ("airplane", "wifi", "mobile"):
            if slot in extras:
                network[slot] = extras[slot]
                for key in ("level", "datatype"):
                    if key in extras:
                        network[f"{slot}_{key}"] = extras[key]
        demo.network = network
    elif command == "notifications":
        demo.notifications_visible = extras.get("visible", "true").strip().lower() != "false"


def _clock_text(device: VirtualDevice) -> str:
    """The status-bar clock: the device's time, or the demo clock's fixed ``hhmm``."""
    demo = device.state.demo
    if demo_active(device) and demo.clock_hhmm:
        local = local_now(device)
        fixed = local.replace(hour=int(demo.clock_hhmm[:2]) % 24, minute=int(demo.clock_hhmm[2:]) % 60)
        return format_time(device, fixed, am_pm=False)
    return format_time(device, am_pm=False)


WIFI_LEVELS = ("No wifi.", "Wifi one bar.", "Wifi two bars.", "Wifi three bars.", "Wifi signal full.")
PHONE_LEVELS = ("No phone.", "Phone one bar.", "Phone two bars.", "Phone three bars.", "Phone four bars.")


def _level(value: str | None, default: int = 4) -> int:
    try:
        return max(0, min(4, int(value))) if value not in (None, "", "null") else default
    except ValueError:
        return default


def _system_icons(device: VirtualDevice) -> list[tuple[str, str, str]]:
    """(resource id, content-desc, icon) of the right-hand icons: battery, then signal (demo mode's when on)."""
    demo = device.state.demo
    if not demo_active(device):
        icons = [("battery", "Battery 100 percent.", "battery")]
        if global_setting(device, "airplane_mode_on", "0") == "1":
            icons.append(("airplane", "Airplane mode.", "signal"))
        else:
            if global_setting(device, "wifi_on", "1") == "1":
                icons.append(("wifi_signal", "Wifi signal full.", "wifi"))
            icons.append(("mobile_signal", "Phone four bars.", "signal"))
        return icons
    level = 100 if demo.battery_level is None else demo.battery_level
    icons = [("battery", f"Battery {level} percent.", "battery")]
    net = demo.network
    if net.get("airplane") == "show":
        icons.append(("airplane", "Airplane mode.", "signal"))
    if net.get("wifi", "show") == "show":
        icons.append(("wifi_signal", WIFI_LEVELS[_level(net.get("wifi_level"))], "wifi"))
    if net.get("mobile", "show") == "show":
        icons.append(("mobile_signal", PHONE_LEVELS[_level(net.get("mobile_level"))], "signal"))
    return icons


def status_bar(device: VirtualDevice, bg: Color) -> View:
    """Clock and notification icons on the left; signal, Wi-Fi and battery on the right. In SystemUI demo
    mode: the demo clock, battery and signal, and no notification icons once demo mode hides them."""
    fg = theme.on_color(bg)
    bar_h = theme.STATUS_H
    icon = px(48)
    y0 = (bar_h - icon) // 2
    bar = View(bounds=(0, 0, W, bar_h), resource_id=_sid("status_bar"), style=Style(bg=bg))
    bar.add(View(cls="android.widget.TextView", bounds=(px(54), 0, px(200), bar_h), text=_clock_text(device),
                 resource_id=_sid("clock"), style=Style(fg=fg, font_size=px(38))))
    x = px(200)
    show_icons = not demo_active(device) or device.state.demo.notifications_visible
    for note in device.notifications()[:4] if show_icons else []:
        bar.add(View(cls="android.widget.ImageView", bounds=(x, y0, x + icon, y0 + icon),
                     content_desc=icon_description(device, note),
                     style=Style(icon=note.icon, icon_color=fg, icon_size=px(40))))
        x += px(56)
    right = W - px(48)
    level = device.state.demo.battery_level if demo_active(device) else None
    battery_text = f"{100 if level is None else level}%"
    for rid, desc, kind in _system_icons(device):
        bar.add(View(cls="android.widget.ImageView", bounds=(right - icon, y0, right, y0 + icon), resource_id=_sid(rid),
                     content_desc=desc, style=Style(icon=kind, icon_color=fg, icon_size=px(44))))
        right -= px(64)
        percent = device.state.settings.get("system", {}).get("status_bar_show_battery_percent") == "1"
        if rid == "battery" and percent:
            bar.add(View(cls="android.widget.TextView", bounds=(right - px(100), 0, right + px(8), bar_h),
                         text=battery_text, resource_id=_sid("battery_percentage_view"),
                         style=Style(fg=fg, font_size=px(34), align="right")))
            right -= px(116)
    return bar


def navigation_bar(wm: WindowManager, bg: Color, keyboard: bool) -> View:
    """Back / Home / Overview buttons (keys 4 / 3 / 187); Back points down while the keyboard shows."""
    fg = theme.on_color(bg)
    top = H - theme.NAV_H
    half = min(px(110), W // 10)
    bar = View(bounds=(0, top, W, H), resource_id=_sid("navigation_bar_frame"), style=Style(bg=bg))
    for cx, rid, desc, icon, code in ((W // 5, "back", "Back", "expand_more" if keyboard else "back", 4),
                                      (W // 2, "home", "Home", "home", 3),
                                      (W * 4 // 5, "recent_apps", "Overview", "recents", 187)):
        bar.add(View(cls="android.widget.ImageView", bounds=(cx - half, top, cx + half, H),
                     resource_id=_sid(rid), content_desc=desc, clickable=True, long_clickable=True,
                     style=Style(icon=icon, icon_color=fg, icon_size=px(56)),
                     on_click=lambda code=code: wm.key(code)))
    return bar


def toast(text: str) -> View:
    """A dark rounded bubble above the navigation bar."""
    f = font(theme.TEXT_LABEL)
    height = px(118)
    width = min(int(f.getlength(text)) + px(104), W - px(120))
    top = SHADE_BOTTOM - px(260)
    left = (W - width) // 2
    return View(cls="android.widget.Toast", bounds=(left, top, left + width, top + height), package=SYSTEMUI,
                children=[View(cls="android.widget.TextView", bounds=(left, top, left + width, top + height),
                               text=text, resource_id="android:id/message",
                               style=Style(bg=(60, 60, 64), fg=(240, 240, 240), radius=height // 2, padding=px(52),
                                           align="center", font_size=theme.TEXT_LABEL, elevation=px(6)))])


def _call_action(callback: object, device: VirtualDevice) -> None:
    """Notification actions may take no argument or the device."""
    if not callable(callback):
        return
    try:
        params = [p for p in inspect.signature(callback).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if params:
        callback(device)
    else:
        callback()


def _content_lines(note: Notification, width: int) -> list[tuple[str, str, str, str, bool, int]]:
    """(class, resource id, text, content-desc, title style, lines) of each text line under the header."""
    if isinstance(note, CustomNotification):
        return [(v.cls, v.resource_id, v.text, v.desc, v.title, 1) for v in note.content]
    lines = [("android.widget.TextView", S.rid("notification_title"), note.title, "", True, 1)]
    if note.text:
        rows = 2 if font(px(36)).getlength(note.text) > width else 1
        lines.append(("android.widget.TextView", S.rid("notification_text"), note.text, "", False, rows))
    return lines


def notification_row(wm: WindowManager, note: Notification, top: int) -> tuple[View, int]:
    """One ``expandableNotificationRow`` at ``top`` and its height."""
    device = wm.device
    app = device.apps.get(note.package)
    label = app_label(device, note)
    x_text, right = px(160), W - px(80)
    lines = _content_lines(note, right - x_text)
    line_h = {True: px(54), False: px(50)}
    body_h = sum(line_h[title] * rows for _, _, _, _, title, rows in lines)
    height = px(74) + body_h + px(26) + (px(110) if note.actions else 0)
    box = (px(36), top, W - px(36), top + height)

    def open_app() -> None:
        wm.collapse_notifications()
        if app is not None and app.show_in_launcher:
            device.start_activity(note.package)

    row = View(cls=S.cls("notification_row"), bounds=box, resource_id=S.rid("notification_row"), clickable=True,
               style=Style(bg=theme.DARK_CARD, radius=px(40)), on_click=open_app)
    color = app.icon_color if app else theme.PRIMARY
    row.add(View(cls="android.widget.ImageView", bounds=(px(72), top + px(36), px(136), top + px(100)),
                 resource_id=S.rid("notification_icon"),
                 style=Style(icon=note.icon, icon_bg=color, icon_color=(255, 255, 255), icon_size=px(40))))
    row.add(View(cls=S.cls("notification_app_name"), bounds=(x_text, top + px(28), right, top + px(72)), text=label,
                 resource_id=S.rid("notification_app_name"),
                 style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=px(30))))
    y = top + px(74)
    for cls, rid, text, desc, title, rows in lines:
        h = line_h[title] * rows
        row.add(View(cls=cls, bounds=(x_text, y, right, y + h), text=text, content_desc=desc, resource_id=rid,
                     style=Style(fg=theme.DARK_TEXT if title else theme.DARK_TEXT_SECONDARY,
                                 font_size=px(40) if title else px(36), bold=title, max_lines=rows, valign="top")))
        y += h
    if note.actions:
        bar = View(cls="android.widget.LinearLayout", bounds=(px(120), box[3] - px(120), box[2] - px(24),
                                                             box[3] - px(14)),
                   resource_id=S.rid("notification_actions"))
        x = px(140)
        for name, callback in note.actions.items():
            width = int(font(px(34), True).getlength(name)) + px(64)
            bar.add(View(cls=S.cls("notification_action"), bounds=(x, box[3] - px(110), x + width, box[3] - px(24)),
                         text=name, resource_id=S.rid("notification_action"), clickable=True,
                         style=Style(fg=(168, 199, 250), font_size=px(34), bold=True, align="center",
                                     radius=px(43)),
                         on_click=lambda cb=callback: _call_action(cb, device)))
            x += width + px(24)
        row.add(bar)
    return row, height


def notification_shade(wm: WindowManager) -> View:
    """The expanded shade: date and time, quick settings tiles and the notification rows."""
    device = wm.device
    now = local_now(device)
    shade = View(bounds=(0, 0, W, SHADE_BOTTOM), resource_id=S.rid("notification_panel"), clickable=True,
                 style=Style(bg=theme.DARK_SURFACE), on_click=wm.collapse_notifications)
    shade.add(View(cls="android.widget.TextView", bounds=(px(60), px(40), px(600), px(190)),
                   text=format_time(device, am_pm=False), resource_id=_sid("clock"),
                   style=Style(fg=theme.DARK_TEXT, font_size=px(110))))
    shade.add(View(cls="android.widget.TextView", bounds=(px(64), px(190), px(700), px(250)),
                   text=format_date_short(now), resource_id=_sid("date"),
                   style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=px(38))))
    tile_w = (W - px(72) - px(24)) // 2
    for i, (label, icon, key, default) in enumerate(QS_TILES):
        on = global_setting(device, key, default) == "1"
        x, y = px(36) + (i % 2) * (tile_w + px(24)), px(290) + (i // 2) * px(174)

        def toggle(key: str = key, on: bool = on) -> None:
            device.state.settings.setdefault("global", {})[key] = "0" if on else "1"

        shade.add(View(cls="android.widget.Button", bounds=(x, y, x + tile_w, y + px(150)), text=label,
                       content_desc=label, resource_id=_sid("qs_tile"), clickable=True, checkable=True, checked=on,
                       style=Style(bg=(168, 199, 250) if on else theme.DARK_CARD, radius=px(75), icon=icon,
                                   icon_color=(4, 30, 73) if on else theme.DARK_TEXT, icon_size=px(52),
                                   padding=px(48), fg=(4, 30, 73) if on else theme.DARK_TEXT, font_size=px(36),
                                   bold=True),
                       on_click=toggle))
    notes = device.notifications()
    top = px(680)
    stack = View(cls="android.view.ViewGroup", bounds=(0, top, W, SHADE_BOTTOM - px(48)),
                 resource_id=S.rid("notification_stack"))
    if not notes:
        stack.add(View(cls="android.widget.TextView", bounds=(px(36), top, W - px(36), top + px(160)),
                       text="No notifications", resource_id=_sid("no_notifications"),
                       style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=px(40), align="center")))
    for note in notes:
        row, height = notification_row(wm, note, top)
        if top + height > stack.bounds[3]:
            break
        stack.add(row)
        top += height + px(24)
    shade.add(stack)
    shade.add(View(bounds=(W // 2 - px(60), SHADE_BOTTOM - px(36), W // 2 + px(60), SHADE_BOTTOM - px(24)),
                   style=Style(bg=(110, 110, 116), radius=px(6))))
    return shade


def overview(wm: WindowManager) -> View:
    """The recents screen: one card per task (newest first); tap resumes it, swiping it away closes it."""
    device = wm.device
    screen = View(bounds=(0, 0, W, SHADE_BOTTOM), resource_id=_sid("overview_panel"), clickable=True,
                  package=SYSTEMUI, style=Style(bg=(58, 60, 66)), on_click=wm.close_overview)
    tasks: list[str] = []
    for act in reversed(device.state.back_stack):
        if act.package != device.launcher_package and act.package not in tasks:
            tasks.append(act.package)
    if not tasks:
        screen.add(View(cls="android.widget.TextView", bounds=(0, SHADE_BOTTOM * 3 // 8, W, SHADE_BOTTOM * 3 // 8
                                                               + px(200)), text="No recent items",
                        style=Style(fg=theme.DARK_TEXT, font_size=px(44), align="center")))
        return screen
    top = px(200)
    card_h, pitch = px(300), px(350)
    for pkg in tasks[:max(1, min(5, (SHADE_BOTTOM - px(420)) // pitch))]:
        app = device.apps[pkg]

        def resume(pkg: str = pkg) -> None:
            wm.close_overview()
            device.start_activity(pkg)

        def dismiss(x1: int, y1: int, x2: int, y2: int, pkg: str = pkg) -> None:
            if abs(x2 - x1) > px(200) or y1 - y2 > px(200):
                device.force_stop(pkg)

        card = View(bounds=(px(90), top, W - px(90), top + card_h), resource_id=_sid("snapshot"), clickable=True,
                    content_desc=app.label, style=Style(bg=theme.BACKGROUND, radius=px(44), elevation=px(8)),
                    on_click=resume, on_drag=dismiss)
        card.add(View(cls="android.widget.TextView", bounds=(px(130), top + px(40), W - px(130), top + px(260)),
                      text=app.label, resource_id=_sid("title"),
                      style=Style(icon=app.icon, icon_bg=app.icon_color, icon_size=px(64),
                                  icon_color=(255, 255, 255), font_size=px(44), padding=px(20))))
        screen.add(card)
        top += pitch
    screen.add(View(cls="android.widget.Button", bounds=(W // 2 - px(170), SHADE_BOTTOM - px(200), W // 2 + px(170),
                                                       SHADE_BOTTOM - px(90)), text="Clear all",
                    resource_id=_sid("clear_all"), clickable=True,
                    style=Style(bg=theme.DARK_CARD, fg=theme.DARK_TEXT, radius=px(55), align="center",
                                font_size=px(38)),
                    on_click=lambda: wm.clear_recents(tasks)))
    return screen
