"""The virtual OpenTracks (``de.dennisguse.opentracks``, versionCode 5705, v4.11.3), made of the kit and drawn
from its pinned selector table: IntroductionActivity (the launcher activity, :mod:`.intro`), TrackListActivity
(:mod:`.tracklist`), TrackRecordedActivity (:mod:`.detail`), TrackEditActivity (:mod:`.edit`),
TrackRecordingActivity and TrackStoppedActivity (:mod:`.recording`); its data in ``databases/database.db`` and the
default shared preferences (:mod:`.data`).

First run, as the real app does it: the launcher opens IntroductionActivity, two pages under a "next" FAB, until
the last page's FAB clears ``showIntroduction``; TrackListActivity then asks for location, nearby devices and
notifications (ot:src/main/java/de/dennisguse/opentracks/TrackListActivity.java:149, 207-209). The deterministic
device is where android_world's setup leaves the app (android_world apps.py:603-637): every permission granted,
but the introduction still pending, because that setup only ever starts TrackListActivity directly; so a launch
from All Apps shows the introduction once, ``am start`` of TrackListActivity does not.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.apps.opentracks.detail import DetailScreen
from emukit.vdevice.apps.opentracks.edit import EditScreen
from emukit.vdevice.apps.opentracks.intro import IntroScreen
from emukit.vdevice.apps.opentracks.recording import RecordingScreen, StoppedScreen
from emukit.vdevice.apps.opentracks.tracklist import TrackListScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["OpenTracksApp"]


@register_icon("opentracks.app")
def _icon(p: Pen) -> None:
    p.line((14, 78), (34, 46), w=8)
    p.line((34, 46), (52, 62), w=8)
    p.line((52, 62), (82, 18), w=8)
    p.circle(82, 18, 7)


@register_icon("opentracks.record")
def _record(p: Pen) -> None:
    p.circle(48, 48, 22)


@register_virtual_app
class OpenTracksApp(KitApp):
    """OpenTracks: its introduction, the track list, a track's statistics, the edit screen and recording."""

    table = D.T
    screens = (IntroScreen, TrackListScreen, DetailScreen, EditScreen, RecordingScreen, StoppedScreen)
    label = "OpenTracks"  # app_name (ot:src/main/res/values/do_not_translate.xml:18)
    icon = "opentracks.app"
    icon_color = (0, 121, 107)
    downloaded = True
    # the manifest's runtime permissions on API 34 (ot:src/main/AndroidManifest.xml:49-70)
    runtime_permissions = ("android.permission.ACCESS_COARSE_LOCATION", "android.permission.ACCESS_FINE_LOCATION",
                           "android.permission.BLUETOOTH_SCAN", "android.permission.BLUETOOTH_CONNECT",
                           "android.permission.POST_NOTIFICATIONS")
    min_sdk, target_sdk = 26, 34  # build.gradle:72-73

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.opentracks.gallery import scenes

        yield from scenes(self, device)
