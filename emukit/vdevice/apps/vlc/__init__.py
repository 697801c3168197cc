"""The virtual VLC for Android (``org.videolan.vlc``, versionCode 13050408), made of the kit and drawn from its
pinned selector table: StartActivity, OnboardingActivity, MainActivity and HeaderMediaListActivity
(:mod:`.screens`); the medialibrary database ``app_db/vlc_media.db`` and the default preferences (:mod:`.data`).

A fresh install (hardware mode) starts the onboarding from StartActivity (StartActivity.kt:139-146, 214-241);
Skip or Done opens MainActivity, whose tabs show "Permission not granted" with GRANT PERMISSION until all-files
access is allowed (on API 34 a target-33 app reads shared storage only through it; Permissions.kt:100-103): the
button asks in an AlertDialog whose OK opens Settings' "All files access" page. The deterministic device's VLC
is past all of it, as after android_world's setup (apps.py:651-689): onboarding done, POST_NOTIFICATIONS granted,
MANAGE_EXTERNAL_STORAGE allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.apps.vlc import data as D
from emukit.vdevice.apps.vlc.screens import (
    MainScreen,
    OnboardingScreen,
    PlaylistScreen,
    StartScreen,
)
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["VlcApp"]


@register_icon("vlc.app")
def _icon(p: Pen) -> None:
    p.poly((48, 10), (78, 80), (18, 80))
    p.rect(12, 80, 84, 88, r=3)


@register_virtual_app
class VlcApp(KitApp):
    """VLC: the video grid, the Playlists tab, a playlist's items, Add to playlist."""

    table = D.T
    screens = (StartScreen, OnboardingScreen, MainScreen, PlaylistScreen)
    label = "VLC"  # app_name (vlc:application/resources/src/main/res/values/strings.xml:8)
    icon = "vlc.app"
    icon_color = (255, 136, 0)
    downloaded = True
    # the manifest's runtime permissions (vlc:application/vlc-android/AndroidManifest.xml:8-28)
    runtime_permissions = ("android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.RECORD_AUDIO",
                           "android.permission.POST_NOTIFICATIONS")
    min_sdk, target_sdk = 17, 33  # build.gradle:44-45

    def install(self, device: VirtualDevice) -> None:
        """The deterministic device's VLC is past its onboarding (every permission and app-op of a deterministic
        device is granted already, so nothing else is recorded)."""
        if device.hardware:
            return
        D.finish_onboarding(device)

    def on_media_scan(self, device: VirtualDevice, path: str) -> None:
        """The medialibrary rescans when the app is shown; a scan broadcast changes nothing on its own."""

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.vlc.gallery import scenes

        yield from scenes(self, device)
