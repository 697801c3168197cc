"""System UI windows: status bar, navigation bar, notification shade, toast and the Overview (recents) screen.

Each function returns one window (a :class:`View` tree with package ``com.android.systemui``) in screen
coordinates. Behaviour goes through the window manager so input has one path.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import Notification
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.clockfmt import format_date_short, format_time, local_now
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.view import Color, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.wm import WindowManager

SYSTEMUI = "com.android.systemui"
W, H = theme.SCREEN_W, theme.SCREEN_H
SHADE_BOTTOM = H - theme.NAV_H

# quick settings: (label, icon, settings.global key, default)
QS_TILES = (("Internet", "wifi", "wifi_on", "1"), ("Bluetooth", "bluetooth", "bluetooth_on", "0"),
            ("Airplane mode", "signal", "airplane_mode_on", "0"), ("Do Not Disturb", "bell", "zen_mode", "0"))


def _sid(name: str) -> str:
    return f"{SYSTEMUI}:id/{name}"


def global_setting(device: VirtualDevice, key: str, default: str) -> str:
    return device.state.settings.setdefault("global", {}).get(key, default)


def status_bar(device: VirtualDevice, bg: Color) -> View:
    """Clock and notification icons on the left; signal, Wi-Fi and battery on the right."""
    fg = theme.on_color(bg)
    bar = View(bounds=(0, 0, W, theme.STATUS_H), resource_id=_sid("status_bar"), style=Style(bg=bg))
    bar.add(View(cls="android.widget.TextView", bounds=(54, 0, 200, theme.STATUS_H), text=format_time(
        device, am_pm=False), resource_id=_sid("clock"), style=Style(fg=fg, font_size=38)))
    x = 200
    for note in device.notifications()[:4]:
        label = device.apps[note.package].label if note.package in device.apps else note.package
        bar.add(View(cls="android.widget.ImageView", bounds=(x, 24, x + 48, 72),
                     content_desc=f"{label} notification: {note.title}",
                     style=Style(icon=note.icon, icon_color=fg, icon_size=40)))
        x += 56
    icons = [("battery", "Battery 100 percent.", "battery")]
    if global_setting(device, "airplane_mode_on", "0") == "1":
        icons.append(("airplane", "Airplane mode.", "signal"))
    else:
        if global_setting(device, "wifi_on", "1") == "1":
            icons.append(("wifi_signal", "Wifi signal full.", "wifi"))
        icons.append(("mobile_signal", "Phone four bars.", "signal"))
    right = W - 48
    for rid, desc, icon in icons:
        bar.add(View(cls="android.widget.ImageView", bounds=(right - 48, 24, right, 72), resource_id=_sid(rid),
                     content_desc=desc, style=Style(icon=icon, icon_color=fg, icon_size=44)))
        right -= 64
        percent = device.state.settings.get("system", {}).get("status_bar_show_battery_percent") == "1"
        if rid == "battery" and percent:
            bar.add(View(cls="android.widget.TextView", bounds=(right - 100, 0, right + 8, theme.STATUS_H),
                         text="100%", resource_id=_sid("battery_percentage_view"),
                         style=Style(fg=fg, font_size=34, align="right")))
            right -= 116
    return bar


def navigation_bar(wm: WindowManager, bg: Color, keyboard: bool) -> View:
    """Back / Home / Overview buttons (keys 4 / 3 / 187); Back points down while the keyboard shows."""
    fg = theme.on_color(bg)
    bar = View(bounds=(0, H - theme.NAV_H, W, H), resource_id=_sid("navigation_bar_frame"), style=Style(bg=bg))
    for cx, rid, desc, icon, code in ((216, "back", "Back", "expand_more" if keyboard else "back", 4),
                                      (540, "home", "Home", "home", 3),
                                      (864, "recent_apps", "Overview", "recents", 187)):
        bar.add(View(cls="android.widget.ImageView", bounds=(cx - 110, H - theme.NAV_H, cx + 110, H),
                     resource_id=_sid(rid), content_desc=desc, clickable=True, long_clickable=True,
                     style=Style(icon=icon, icon_color=fg, icon_size=56),
                     on_click=lambda code=code: wm.key(code)))
    return bar


def toast(text: str) -> View:
    """A dark rounded bubble above the navigation bar."""
    f = font(theme.TEXT_LABEL)
    width = min(int(f.getlength(text)) + 104, W - 120)
    top = SHADE_BOTTOM - 260
    left = (W - width) // 2
    return View(cls="android.widget.Toast", bounds=(left, top, left + width, top + 118), package=SYSTEMUI,
                children=[View(cls="android.widget.TextView", bounds=(left, top, left + width, top + 118),
                               text=text, resource_id="android:id/message",
                               style=Style(bg=(60, 60, 64), fg=(240, 240, 240), radius=59, padding=52,
                                           align="center", font_size=theme.TEXT_LABEL, elevation=6))])


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


def _notification_card(wm: WindowManager, note: Notification, top: int) -> tuple[View, int]:
    device = wm.device
    app = device.apps.get(note.package)
    label = app.label if app else note.package
    rows = 2 if font(36).getlength(note.text) > W - 80 - 160 else 1
    height = 200 + (rows - 1) * 50 + (110 if note.actions else 0)
    box = (36, top, W - 36, top + height)

    def open_app() -> None:
        wm.collapse_notifications()
        if app is not None and app.show_in_launcher:
            device.start_activity(note.package)

    card = View(bounds=box, resource_id=_sid("notification_row"), clickable=True, content_desc=f"{label} "
                f"notification: {note.title}", style=Style(bg=theme.DARK_CARD, radius=40), on_click=open_app)
    color = app.icon_color if app else theme.PRIMARY
    card.add(View(cls="android.widget.ImageView", bounds=(72, top + 36, 136, top + 100),
                  resource_id="android:id/icon",
                  style=Style(icon=note.icon, icon_bg=color, icon_color=(255, 255, 255), icon_size=40)))
    card.add(View(cls="android.widget.TextView", bounds=(160, top + 28, W - 80, top + 72), text=label,
                  resource_id="android:id/app_name_text", style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=30)))
    card.add(View(cls="android.widget.TextView", bounds=(160, top + 74, W - 80, top + 128), text=note.title,
                  resource_id="android:id/title", style=Style(fg=theme.DARK_TEXT, font_size=40, bold=True)))
    if note.text:
        card.add(View(cls="android.widget.TextView", bounds=(160, top + 130, W - 80, top + 130 + 50 * rows),
                      text=note.text, resource_id="android:id/text",
                      style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=36, max_lines=rows, valign="top")))
    x = 140
    for i, (name, callback) in enumerate(note.actions.items()):
        width = int(font(34, True).getlength(name)) + 64
        card.add(View(cls="android.widget.Button", bounds=(x, box[3] - 110, x + width, box[3] - 24), text=name,
                      resource_id=f"android:id/action{i}", clickable=True,
                      style=Style(fg=(168, 199, 250), font_size=34, bold=True, align="center", radius=43),
                      on_click=lambda cb=callback: _call_action(cb, device)))
        x += width + 24
    return card, height


def notification_shade(wm: WindowManager) -> View:
    """The expanded shade: date and time, quick settings tiles and the notification cards."""
    device = wm.device
    now = local_now(device)
    shade = View(bounds=(0, 0, W, SHADE_BOTTOM), resource_id=_sid("notification_panel"), clickable=True,
                 style=Style(bg=theme.DARK_SURFACE), on_click=wm.collapse_notifications)
    shade.add(View(cls="android.widget.TextView", bounds=(60, 40, 600, 190), text=format_time(device, am_pm=False),
                   resource_id=_sid("clock"), style=Style(fg=theme.DARK_TEXT, font_size=110)))
    shade.add(View(cls="android.widget.TextView", bounds=(64, 190, 700, 250), text=format_date_short(now),
                   resource_id=_sid("date"), style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=38)))
    tile_w = (W - 72 - 24) // 2
    for i, (label, icon, key, default) in enumerate(QS_TILES):
        on = global_setting(device, key, default) == "1"
        x, y = 36 + (i % 2) * (tile_w + 24), 290 + (i // 2) * 174

        def toggle(key: str = key, on: bool = on) -> None:
            device.state.settings.setdefault("global", {})[key] = "0" if on else "1"

        shade.add(View(cls="android.widget.Button", bounds=(x, y, x + tile_w, y + 150), text=label,
                       content_desc=label, resource_id=_sid("qs_tile"), clickable=True, checkable=True, checked=on,
                       style=Style(bg=(168, 199, 250) if on else theme.DARK_CARD, radius=75, icon=icon,
                                   icon_color=(4, 30, 73) if on else theme.DARK_TEXT, icon_size=52, padding=48,
                                   fg=(4, 30, 73) if on else theme.DARK_TEXT, font_size=36, bold=True),
                       on_click=toggle))
    notes = device.notifications()
    top = 680
    if not notes:
        shade.add(View(cls="android.widget.TextView", bounds=(36, top, W - 36, top + 160), text="No notifications",
                       resource_id=_sid("no_notifications"),
                       style=Style(fg=theme.DARK_TEXT_SECONDARY, font_size=40, align="center")))
    for note in notes:
        card, height = _notification_card(wm, note, top)
        if top + height > SHADE_BOTTOM - 60:
            break
        shade.add(card)
        top += height + 24
    shade.add(View(bounds=(W // 2 - 60, SHADE_BOTTOM - 36, W // 2 + 60, SHADE_BOTTOM - 24),
                   style=Style(bg=(110, 110, 116), radius=6)))
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
        screen.add(View(cls="android.widget.TextView", bounds=(0, 900, W, 1100), text="No recent items",
                        style=Style(fg=theme.DARK_TEXT, font_size=44, align="center")))
        return screen
    top = 200
    for pkg in tasks[:5]:
        app = device.apps[pkg]

        def resume(pkg: str = pkg) -> None:
            wm.close_overview()
            device.start_activity(pkg)

        def dismiss(x1: int, y1: int, x2: int, y2: int, pkg: str = pkg) -> None:
            if abs(x2 - x1) > 200 or y1 - y2 > 200:
                device.force_stop(pkg)

        card = View(bounds=(90, top, W - 90, top + 300), resource_id=_sid("snapshot"), clickable=True,
                    content_desc=app.label, style=Style(bg=theme.BACKGROUND, radius=44, elevation=8),
                    on_click=resume, on_drag=dismiss)
        card.add(View(cls="android.widget.TextView", bounds=(130, top + 40, W - 130, top + 260), text=app.label,
                      resource_id=_sid("title"),
                      style=Style(icon=app.icon, icon_bg=app.icon_color, icon_size=64, icon_color=(255, 255, 255),
                                  font_size=44, padding=20)))
        screen.add(card)
        top += 350
    screen.add(View(cls="android.widget.Button", bounds=(W // 2 - 170, SHADE_BOTTOM - 200, W // 2 + 170,
                                                       SHADE_BOTTOM - 90), text="Clear all",
                    resource_id=_sid("clear_all"), clickable=True,
                    style=Style(bg=theme.DARK_CARD, fg=theme.DARK_TEXT, radius=55, align="center", font_size=38),
                    on_click=lambda: wm.clear_recents(tasks)))
    return screen
