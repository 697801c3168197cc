"""The virtual Joplin (``net.cozic.joplin``, versionCode 2097740), made of the kit and drawn from its pinned
selector table: one activity, MainActivity, whose React Native routes are drawn by :mod:`.main` (the note list,
the side menu, a note in view or edit mode, the notebook editor) with the body viewer in :mod:`.viewer`; its
data in ``databases/joplin.sqlite`` (:mod:`.data`).

First start (root.tsx ``initialize``): the database is created and migrated, ``firstStart`` cleared, and the
"Welcome!" notebook with its five notes built (WelcomeUtils.install); the app then shows that notebook. There is
no intro, permission prompt, sync or encryption prompt before it; the first note opened asks for
ACCESS_FINE_LOCATION (Note.tsx:478-492, 515). A hardware-mode device has no Joplin until its stand-in is
installed, and then shows exactly that. The deterministic device's Joplin is as android_world's setup leaves it
(apps.py:692-743): location granted, launched once, then every folder and note deleted, so it opens on All notes
with "You currently have no notebooks." ``pm clear`` removes the database: the next start is a first start.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.joplin import data as D
from emukit.vdevice.apps.joplin.main import MainScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["JoplinApp"]


@register_icon("joplin.app")
def _icon(p: Pen) -> None:
    p.rect(18, 14, 78, 84, r=8)
    p.line((48, 30), (48, 62), w=8)
    p.line((48, 62), (36, 70), w=8)


@register_virtual_app
class JoplinApp(KitApp):
    """Joplin: notebooks, the note list, a note's rendered body and its editor."""

    table = D.T
    screens = (MainScreen,)
    label = "Joplin"  # @string/app_name (packages/app-mobile/android/app/src/main/res/values/strings.xml:2)
    icon = "joplin.app"
    icon_color = (23, 104, 196)
    downloaded = True
    # the manifest's runtime permissions (AndroidManifest.xml:4-12) and ACCESS_COARSE_LOCATION, which android_world
    # grants (apps.py:706-710) and the merged manifest must therefore request
    runtime_permissions = ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION",
                           "android.permission.CAMERA", "android.permission.WRITE_EXTERNAL_STORAGE",
                           "android.permission.POST_NOTIFICATIONS", "android.permission.READ_EXTERNAL_STORAGE",
                           "android.permission.READ_MEDIA_IMAGES")
    min_sdk, target_sdk = 21, 33  # packages/app-mobile/android/build.gradle:6-9

    def install(self, device: VirtualDevice) -> None:
        """The deterministic device's Joplin is as android_world's setup leaves it."""
        if device.hardware:
            return
        D.after_android_world_setup(device)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.joplin.gallery import scenes

        yield from scenes(self, device)
