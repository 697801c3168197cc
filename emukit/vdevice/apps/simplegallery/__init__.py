"""The virtual Simple Gallery Pro (``com.simplemobiletools.gallery.pro``, versionCode 396), made of the kit and
drawn from its pinned selector table: MainActivity (the folders holding media), MediaActivity (one folder's
media) and ViewPagerActivity (the viewer with Copy to, Move to, Rename, Properties and Delete), see
:mod:`.screens` and :mod:`.dialogs`; its data in :mod:`.data`.

The media are the files of shared storage: every operation acts on the device's files (a copy is a file at the
destination, a move or a delete leaves none at the source), which the Persistent Artifact family's probe reads
with ``stat``; ``databases/gallery.db`` is the app's cache of what it listed (Room, the real schema).

The launcher entry is the activity-alias ``.activities.SplashActivity.Orange`` forwarding to MainActivity
(gal:app/src/main/AndroidManifest.xml:527-537); the device starts MainActivity for it. A fresh install (hardware
mode) asks READ_MEDIA_IMAGES, then shows the all-files prompt; there is no intro, no "What's new" on a first run
(commons checkWhatsNew only stores the version when none is stored, commons extensions/Activity.kt:608-612) and no
donate prompt for a ".pro" package. The deterministic device's Gallery is past all of it, as after android_world's
setup (permissions granted, "All files", "Allow access to manage all files"; android_world apps.py:370-400).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.apps.simplegallery import data as D
from emukit.vdevice.apps.simplegallery.screens import (
    MainScreen,
    MediaScreen,
    ViewerScreen,
)
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["GalleryApp"]


@register_icon("simplegallery.app")
def _icon(p: Pen) -> None:
    p.rect(12, 18, 84, 78, r=10)
    p.line((20, 70), (42, 46), w=6)
    p.line((42, 46), (56, 60), w=6)
    p.line((56, 60), (66, 50), w=6)
    p.line((66, 50), (78, 66), w=6)


@register_virtual_app
class GalleryApp(KitApp):
    """Simple Gallery Pro: folders, a folder's media, the viewer and its file operations."""

    table = D.T
    screens = (MainScreen, MediaScreen, ViewerScreen)
    label = "Gallery"  # app_launcher_name (gal:app/src/main/res/values/strings.xml:4)
    icon = "simplegallery.app"
    icon_color = (255, 152, 0)
    downloaded = True
    # the manifest's runtime permissions (gal:app/src/main/AndroidManifest.xml:7-17; MANAGE_EXTERNAL_STORAGE,
    # lines 18-20, is an app-op permission granted in Settings)
    runtime_permissions = ("android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.ACCESS_MEDIA_LOCATION",
                           "android.permission.READ_MEDIA_IMAGES", "android.permission.READ_MEDIA_VIDEO",
                           "android.permission.POST_NOTIFICATIONS")
    min_sdk, target_sdk = 23, 33  # gradle/libs.versions.toml:36-38

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.simplegallery.gallery import scenes

        yield from scenes(self, device)
