"""The virtual Chrome (``com.android.chrome``, the build shipped in the API 34 Google APIs image), made of the
kit and drawn from its pinned selector table (``tables/com.android.chrome/api34.yaml``): the launcher alias, the
first run and the tabbed browser (:mod:`.screens`), local pages as Chromium's accessibility nodes with word
selection and Copy (:mod:`.page`), its first-run flag and open tab (:mod:`.data`).

An image app: always installed. The hardware mode's fresh device shows the first run (and then asks for
notifications); the deterministic mode's Chrome is past both, as after android_world's setup (apps.py:151-175,
"Accept & continue", "No thanks", "No thanks"). ``pm clear`` wipes the preferences, so the first run comes back in
the hardware mode.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import VIRTUAL_BUILD
from emukit.vdevice.apps.chrome import data as D
from emukit.vdevice.apps.chrome.screens import FirstRunScreen, MainAlias, TabbedScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["ChromeApp"]


@register_icon("chrome.app")
def _icon(p: Pen) -> None:
    p.circle(48, 48, 38)
    p.circle(48, 48, 14)
    p.line((48, 34), (84, 34), w=6)
    p.line((36, 55), (18, 24), w=6)
    p.line((60, 55), (42, 86), w=6)


@register_icon("chrome.tabs")
def _tabs_icon(p: Pen) -> None:
    p.rect(24, 24, 72, 72, r=8)


@register_virtual_app
class ChromeApp(KitApp):
    """Chrome: first run, the New Tab Page, local pages, the omnibox."""

    table = D.T
    screens = (MainAlias, FirstRunScreen, TabbedScreen)
    label = "Chrome"
    icon = "chrome.app"
    icon_color = (66, 133, 244)
    install_order = 7
    #: runtime permissions the image's Chrome can be asked for; the hardware mode's fresh device leaves
    #: POST_NOTIFICATIONS denied (android_world grants it in its browser tasks, browser.py:67-71)
    runtime_permissions = ("android.permission.POST_NOTIFICATIONS",)

    def install(self, device: VirtualDevice) -> None:
        """Hardware mode: notifications not granted, the first run pending. Deterministic mode: past it."""
        if device.hardware:
            device.package_manager.grant_permission(D.PACKAGE, "android.permission.POST_NOTIFICATIONS", False)
            return
        D.finish_first_run(device)

    def on_data_cleared(self, device: VirtualDevice) -> None:
        """After ``pm clear``: the tab is gone; the hardware mode asks again, the deterministic mode stays past
        its first run."""
        device.state.app_data.pop(D.PACKAGE, None)
        self.install(device)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.chrome.gallery import scenes

        yield from scenes(self, device)


# an image app's table names no versionCode; the virtual build says which image it stands for
ChromeApp.version_code = 0
ChromeApp.version_name = f"api34-{VIRTUAL_BUILD}"
