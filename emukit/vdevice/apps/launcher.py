"""Pixel Launcher: the home screen and the All Apps drawer, laid out as the image's Pixel Launcher.

The home screen (``workspace`` and ``hotseat``, Launcher3's launcher.xml) holds the At-a-glance date and the
search box, and no app icons: on a Pixel the default workspace and hotseat hold Google's own apps, none of
which this device installs, and Clock, Files, Markor, Retro Music and Settings are only in All Apps. A swipe up
on the home screen opens the drawer (``apps_view`` > ``apps_list_view``), which lists every launchable app as
a ``...:id/icon`` TextView (text and content-desc = label) sorted by label, as Launcher3's
AlphabeticalAppsList does. Ids and classes come from the launcher's selector table
(``emukit/apps/tables/com.google.android.apps.nexuslauncher``).

State (``act.state``): ``drawer`` (True while All Apps is open) and ``scroll`` (the grid's offset in px).
Launching an app from the drawer closes it, so going home shows the home screen again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.apps.base import App
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.clockfmt import format_date_widget, local_now
from emukit.vdevice.ui.theme import dp, px
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.google.android.apps.nexuslauncher"
T = table(PACKAGE)
WALLPAPER_TOP = (32, 56, 112)
WALLPAPER_BOTTOM = (118, 92, 158)
DRAWER_BG = (241, 236, 246)
COLUMNS = 4
CELL_H = px(290)
HOTSEAT_H = dp(112)  # the dock row with the search box, above the navigation bar
SWIPE_OPEN = dp(48)  # how far a swipe up must travel to open All Apps
WHITE = (255, 255, 255)


def _rid(name: str) -> str:
    return f"{PACKAGE}:id/{name}"


def drawer_apps(device: VirtualDevice) -> list[App]:
    """The apps All Apps lists, in its order: by label, case-insensitively (AlphabeticalAppsList)."""
    return sorted((a for a in device.packages() if a.show_in_launcher), key=lambda a: (a.label.casefold(), a.label))


@register_virtual_app
class LauncherApp(App):
    """The home screen. It is always at the bottom of the back stack and is never finished."""

    install_order = 0

    package = PACKAGE
    label = "Pixel Launcher"
    launcher_activity = ".NexusLauncherActivity"
    activities = (".NexusLauncherActivity",)
    icon = "apps"
    show_in_launcher = False

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        root = View(bounds=frame, resource_id=_rid("launcher"), style=Style(bg=WALLPAPER_TOP, bg2=WALLPAPER_BOTTOM))
        if act.state.get("drawer"):
            root.add(self._all_apps(device, act, frame))
        else:
            root.add(*self._home(device, act, frame))
        return root

    # ------------------------------------------------------------------ home screen
    def _home(self, device: VirtualDevice, act: Activity, frame: Bounds) -> list[View]:
        left, top, right, bottom = frame

        def swipe(dy: int) -> None:
            if dy >= SWIPE_OPEN:
                act.state.update(drawer=True, scroll=0)

        workspace = View(cls="android.widget.ScrollView", bounds=(left, top, right, bottom - HOTSEAT_H),
                         resource_id=T.rid("workspace"), on_scroll=swipe)
        workspace.add(View(cls="android.widget.TextView",
                           bounds=(left + px(60), top + px(120), right - px(60), top + px(220)),
                           text=format_date_widget(local_now(device)),
                           style=Style(fg=WHITE, font_size=px(52), align="left")))
        hotseat = View(cls="android.widget.FrameLayout", bounds=(left, bottom - HOTSEAT_H, right, bottom),
                       resource_id=T.rid("hotseat"), on_scroll=swipe)
        hotseat.add(View(cls="android.widget.FrameLayout",
                         bounds=(left + px(60), bottom - HOTSEAT_H + px(80), right - px(60), bottom - px(64)),
                         content_desc="Search", resource_id=_rid("search_container_hotseat"),
                         style=Style(bg=(236, 240, 248), radius=px(68), icon="search", icon_color=(70, 76, 90),
                                     icon_size=px(56), padding=px(44))))
        return [workspace, hotseat]

    # ------------------------------------------------------------------ All Apps
    def _all_apps(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        left, top, right, bottom = frame
        panel = View(bounds=frame, resource_id=T.rid("apps_view"), style=Style(bg=DRAWER_BG))
        search_h = dp(72)
        panel.add(View(cls="android.widget.FrameLayout",
                       bounds=(left + px(48), top + px(36), right - px(48), top + search_h),
                       resource_id=_rid("search_container_all_apps"), content_desc="Search",
                       style=Style(bg=WHITE, radius=px(60), icon="search", icon_color=(70, 76, 90),
                                   icon_size=px(52), padding=px(36))))
        area = (left, top + search_h + px(24), right, bottom)
        apps = drawer_apps(device)
        rows = (len(apps) + COLUMNS - 1) // COLUMNS
        max_scroll = max(0, rows * CELL_H + px(48) - (area[3] - area[1]))
        scroll = max(0, min(int(act.state.get("scroll", 0)), max_scroll))

        def on_scroll(dy: int) -> None:
            if dy < 0 and scroll == 0 and -dy >= SWIPE_OPEN:
                act.state.update(drawer=False, scroll=0)  # pulled down at the top: back to the home screen
            else:
                act.state["scroll"] = max(0, min(scroll + dy, max_scroll))

        grid = View(cls="android.widget.GridView", bounds=area, resource_id=T.rid("all_apps"),
                    scrollable=max_scroll > 0, on_scroll=on_scroll)
        cell_w = (right - left - px(60)) // COLUMNS
        for i, app in enumerate(apps):
            row, col = divmod(i, COLUMNS)
            x0 = left + px(30) + col * cell_w
            y0 = area[1] + row * CELL_H - scroll
            if y0 + CELL_H <= area[1] or y0 >= area[3]:
                continue
            grid.add(View(cls=T.cls("app_icon"), bounds=(x0, max(y0, area[1]), x0 + cell_w, min(y0 + CELL_H, area[3])),
                          text=app.label, content_desc=app.label, resource_id=T.rid("app_icon"), clickable=True,
                          long_clickable=True, on_click=lambda pkg=app.package: self._launch(device, act, pkg),
                          style=Style(icon=app.icon, icon_pos="top", icon_bg=app.icon_color, icon_color=WHITE,
                                      icon_size=px(88), fg=theme.TEXT, font_size=px(34), align="center",
                                      valign="top", padding=px(24))))
        panel.add(grid)
        return panel

    def _launch(self, device: VirtualDevice, act: Activity, package: str) -> None:
        act.state.update(drawer=False, scroll=0)
        device.start_activity(package)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        """BACK closes All Apps; on the home screen it does nothing."""
        act.state.update(drawer=False, scroll=0)
        return True

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        yield "Home screen"
        device.top.state["drawer"] = True
        yield "All apps"
        device.wm.key(4)
        device.wm.expand_notifications()
        yield "Notification shade (no notifications)"
        device.wm.collapse_notifications()
        device.start_activity("com.android.settings")
        device.wm.key(187)
        yield "Overview (recent apps)"
        device.wm.key(3)
        device.state.ui.toast = "Settings has stopped"
        yield "Toast"
