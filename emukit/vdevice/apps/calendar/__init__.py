"""The virtual Simple Calendar Pro (``com.simplemobiletools.calendar.pro``, versionCode 238), made of the kit
and drawn from its pinned selector table: MainActivity (:mod:`.main`) and EventActivity (:mod:`.editor`),
its data in ``databases/events.db`` and ``shared_prefs/Prefs.xml`` (:mod:`.data`).

The launcher entry is the activity-alias ``.activities.SplashActivity.Orange``, a splash that forwards to
MainActivity (cal:app/src/main/AndroidManifest.xml:532-545, SplashActivity.kt:9-40); the device starts
MainActivity for it. A fresh install shows nothing before the month view (no permission request, no "What's
new" on a first run, no donate prompt for a ".pro" package; MainActivity.kt:91-166); the first save of an event
with a reminder shows the "Disclaimer" and, without POST_NOTIFICATIONS, the permission dialog (:mod:`.editor`).
The deterministic device's Calendar is past both, as after android_world's setup (which grants
READ/WRITE_CALENDAR and POST_NOTIFICATIONS, android_world apps.py:317-347).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.calendar import data as D
from emukit.vdevice.apps.calendar.editor import EventScreen
from emukit.vdevice.apps.calendar.main import MainScreen
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["CalendarApp"]


@register_icon("calendar.app")
def _icon(p: Pen) -> None:
    p.rect(14, 20, 82, 84, r=10)
    p.line((14, 38), (82, 38), w=6)
    p.line((32, 10), (32, 28), w=7)
    p.line((64, 10), (64, 28), w=7)


@register_virtual_app
class CalendarApp(KitApp):
    """Simple Calendar Pro: the month view, a day's events, the event list, search and the event editor."""

    table = D.T
    screens = (MainScreen, EventScreen)
    label = "Calendar"  # app_launcher_name (cal:app/src/main/res/values/strings.xml:4)
    icon = "calendar.app"
    icon_color = (255, 152, 0)
    downloaded = True
    # the manifest's runtime permissions (cal:app/src/main/AndroidManifest.xml:7-23)
    runtime_permissions = ("android.permission.READ_CONTACTS", "android.permission.READ_CALENDAR",
                           "android.permission.WRITE_CALENDAR", "android.permission.POST_NOTIFICATIONS")
    min_sdk, target_sdk = 23, 33  # app/build.gradle:14-21

    def install(self, device: VirtualDevice) -> None:
        """The deterministic device's Calendar is past its first-run prompts (the Disclaimer was accepted)."""
        if device.hardware:
            return
        prefs = D.prefs(device)
        prefs.put_bool("was_alarm_warning_shown", True)
        shared_prefs.save(device, D.PREFS, prefs)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.calendar.gallery import scenes

        yield from scenes(self, device)
