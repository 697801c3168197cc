"""The virtual Pro Expense (``com.arduia.expense``, versionCode 11), made of the kit and drawn from its pinned
selector table: the one activity MainActivity and its navigation destinations (:mod:`.main`), the entry editor
(:mod:`.entry`), the first run (:mod:`.firstrun`); its data in ``databases/accounting.db`` and the default shared
preferences (:mod:`.data`).

The launcher entry is MainActivity itself (pe:app/src/main/AndroidManifest.xml:25-33). A fresh install shows the
splash, then the onboarding (language, then currency: NEXT, CONTINUE) while ``isFirstTime`` is true; there is no
runtime permission (the manifest asks only INTERNET), no rating or what's-new prompt. The deterministic device's
app is past the onboarding, as after android_world's setup, which clicks NEXT and CONTINUE once
(android_world/env/setup_device/apps.py:486-497); ``pm clear`` keeps it past it there, while in hardware mode the
cleared preferences bring the onboarding back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense.main import MainScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["ExpenseApp"]


@register_icon("expense.app")
def _icon(p: Pen) -> None:
    p.rect(18, 14, 78, 84, r=8)
    p.line((30, 34), (66, 34), w=6)
    p.line((30, 50), (66, 50), w=6)
    p.line((30, 66), (52, 66), w=6)


@register_virtual_app
class ExpenseApp(KitApp):
    """Pro Expense: Home (totals, the recent expenses), Expense Logs, the entry editor, the detail and delete
    sheets, the navigation drawer and the first-run onboarding."""

    table = D.T
    screens = (MainScreen,)
    label = "Pro Expense"  # app_name (pe:app/src/main/res/values/strings.xml:2)
    icon = "expense.app"
    icon_color = (3, 169, 244)
    downloaded = True
    runtime_permissions = ()  # AndroidManifest.xml:6-14: INTERNET only
    min_sdk, target_sdk = 21, 30  # app/build.gradle:19-20

    def install(self, device: VirtualDevice) -> None:
        """The deterministic device's app is past its onboarding (android_world's setup walked it)."""
        if not device.hardware:
            D.finish_onboarding(device)

    def on_data_cleared(self, device: VirtualDevice) -> None:
        self.install(device)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.expense.gallery import scenes

        yield from scenes(self, device)
