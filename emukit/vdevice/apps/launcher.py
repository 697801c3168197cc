"""Pixel Launcher: the home screen with a clock widget, an app icon grid and a search bar.

Icons are one clickable ``TextView`` each (text and content-desc = app label, resource id
``...nexuslauncher:id/icon``), exactly what tests look up on a real Pixel.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import App
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.clockfmt import format_date_widget, format_time, local_now
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.google.android.apps.nexuslauncher"
WALLPAPER_TOP = (32, 56, 112)
WALLPAPER_BOTTOM = (118, 92, 158)
COLUMNS = 4
CELL_H = 290
WHITE = (255, 255, 255)


def _rid(name: str) -> str:
    return f"{PACKAGE}:id/{name}"


class LauncherApp(App):
    """The home screen. It is always at the bottom of the back stack and is never finished."""

    package = PACKAGE
    label = "Pixel Launcher"
    launcher_activity = ".NexusLauncherActivity"
    activities = (".NexusLauncherActivity",)
    icon = "apps"
    show_in_launcher = False

    def _clock_app(self, device: VirtualDevice) -> str | None:
        """The package a tap on the clock widget opens (the Clock app, if one is installed)."""
        for app in device.packages():
            if app.show_in_launcher and "clock" in app.package:
                return app.package
        return None

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        left, top, right, bottom = frame
        root = View(bounds=frame, resource_id=_rid("workspace"),
                    style=Style(bg=WALLPAPER_TOP, bg2=WALLPAPER_BOTTOM))
        now = local_now(device)
        clock_pkg = self._clock_app(device)
        root.add(View(cls="android.widget.TextView", bounds=(left + 60, top + 110, right - 60, top + 330),
                      text=format_time(device, am_pm=False), resource_id=_rid("clock"),
                      clickable=clock_pkg is not None,
                      on_click=(lambda: device.start_activity(clock_pkg)) if clock_pkg else None,
                      style=Style(fg=WHITE, font_size=190, align="center")))
        root.add(View(cls="android.widget.TextView", bounds=(left + 60, top + 340, right - 60, top + 410),
                      text=format_date_widget(now), resource_id=_rid("date"),
                      style=Style(fg=WHITE, font_size=44, align="center")))
        apps = sorted((a for a in device.packages() if a.show_in_launcher), key=lambda a: a.label.lower())
        grid_top = top + 560
        cell_w = (right - left - 60) // COLUMNS
        grid = View(cls="android.view.ViewGroup", bounds=(left, grid_top, right, bottom - 260),
                    resource_id=_rid("workspace_grid"))
        for i, app in enumerate(apps):
            row, col = divmod(i, COLUMNS)
            x0 = left + 30 + col * cell_w
            y0 = grid_top + row * CELL_H
            if y0 + CELL_H > bottom - 260:
                break
            grid.add(View(cls="android.widget.TextView", bounds=(x0, y0, x0 + cell_w, y0 + CELL_H), text=app.label,
                          content_desc=app.label, resource_id=_rid("icon"), clickable=True, long_clickable=True,
                          on_click=lambda pkg=app.package: device.start_activity(pkg),
                          style=Style(icon=app.icon, icon_pos="top", icon_bg=app.icon_color, icon_color=WHITE,
                                      icon_size=88, fg=WHITE, font_size=34, align="center", valign="top",
                                      padding=24)))
        root.add(grid)
        root.add(View(cls="android.widget.FrameLayout", bounds=(left + 60, bottom - 200, right - 60, bottom - 64),
                      content_desc="Search", resource_id=_rid("search_container_hotseat"),
                      style=Style(bg=(236, 240, 248), radius=68, icon="search", icon_color=(70, 76, 90),
                                  icon_size=56, padding=44)))
        return root

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        return True  # BACK on the home screen does nothing

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        yield "Home screen"
        device.wm.expand_notifications()
        yield "Notification shade (no notifications)"
        device.wm.collapse_notifications()
        device.start_activity("com.android.settings")
        device.wm.key(187)
        yield "Overview (recent apps)"
        device.wm.key(3)
        device.state.ui.toast = "Settings has stopped"
        yield "Toast"

