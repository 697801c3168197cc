"""The virtual Broccoli (``com.flauschcode.broccoli``, versionCode 1020600), made of the kit and drawn from its
pinned selector table: MainActivity with the recipe list (:mod:`.main`), RecipeDetailsActivity (:mod:`.details`)
and CreateAndEditRecipeActivity (:mod:`.editor`); its data in ``databases/broccoli`` (:mod:`.data`).

The launcher entry is MainActivity itself (broccoli: app/src/main/AndroidManifest.xml:81-91). A fresh install
shows nothing before the recipe list: there is no intro, no "What's new", no rating prompt on start (the F-Droid
flavour's RatingService does nothing; the Play flavour's in-app review runs only after every fifth new recipe,
CreateAndEditRecipeActivity.java:145-147), no runtime permission (the manifest asks only INTERNET), and the
seasonal calendar's region is asked for in Settings only when the user opens it. So hardware mode and the
deterministic mode differ only in the app being absent until installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.broccoli import data as D
from emukit.vdevice.apps.broccoli.details import DetailsScreen
from emukit.vdevice.apps.broccoli.editor import EditorScreen
from emukit.vdevice.apps.broccoli.main import MainScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["BroccoliApp"]


@register_icon("broccoli.app")
def _icon(p: Pen) -> None:
    p.circle(34, 34, 16)
    p.circle(62, 34, 16)
    p.circle(48, 22, 16)
    p.rect(42, 44, 54, 84, r=4)


@register_virtual_app
class BroccoliApp(KitApp):
    """Broccoli: the recipe list, a recipe's details and the recipe editor."""

    table = D.T
    screens = (MainScreen, DetailsScreen, EditorScreen)
    label = "Broccoli"  # app_name (broccoli: app/src/main/res/values/strings.xml:2)
    icon = "broccoli.app"
    icon_color = (46, 125, 50)
    downloaded = True
    runtime_permissions = ()  # AndroidManifest.xml:8: INTERNET only
    min_sdk, target_sdk = 26, 34  # app/build.gradle:15-16

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.broccoli.gallery import scenes

        yield from scenes(self, device)
