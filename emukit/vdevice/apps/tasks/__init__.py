"""The virtual Tasks.org (``org.tasks``, versionCode 130605), made of the kit and drawn from its pinned selector
table: one activity, MainActivity (:mod:`.main`), showing the task list (:mod:`.tasklist`) or the task editor
(:mod:`.editor`); its data in ``databases/database`` and ``shared_prefs/org.tasks_preferences.xml`` (:mod:`.data`).

The launcher entry is the activity-alias ``com.todoroo.astrid.activity.TaskListActivity``, whose target is
MainActivity (AndroidManifest.xml:605-612, 660-675); the device starts MainActivity for it. A fresh install opens on
"My Tasks" with "There are no tasks here." and nothing to dismiss: no intro, no sign-in, no permission prompt, no
"What's new" (Upgrader.kt:68-122 only records the install), no subscription banner (the generic flavour counts as
pro, the Play flavour waits 14 days after install: Inventory.kt:60-64, googleplay Firebase.kt:66-74). The first
openings of the editor show the "Too much information?" hint until it is dismissed, and, while POST_NOTIFICATIONS is
not granted, its reminders row reads "Enable reminders" (a tap asks for the permission). android_world's setup
grants nothing (apps.py:350-361); the deterministic device grants every runtime permission, as it does for every app.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.apps.tasks.main import MainScreen
from emukit.vdevice.kit.app import KitApp
from emukit.vdevice.ui.icons import Pen, register_icon

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["TasksApp"]


@register_icon("tasks.app")
def _icon(p: Pen) -> None:
    p.rect(16, 16, 80, 80, r=12, w=7)
    p.line((30, 50), (44, 64), (68, 34), w=8)


@register_icon("tasks.checkbox")
def _checkbox(p: Pen) -> None:
    p.rect(18, 18, 78, 78, r=6, w=7)


@register_icon("tasks.save")
def _save(p: Pen) -> None:
    p.rect(16, 16, 80, 80, r=6, w=7)
    p.rect(30, 16, 62, 38, w=6)
    p.circle(48, 60, 9, w=6)


@register_virtual_app
class TasksApp(KitApp):
    """Tasks.org: the "My Tasks" list, the task editor and its dialogs."""

    table = D.T
    screens = (MainScreen,)
    label = "Tasks"  # app_name (tasks:app/src/release/res/values/keys.xml:3)
    icon = "tasks.app"
    icon_color = (33, 150, 243)  # ic_launcher_blue
    downloaded = True
    # the manifest's runtime permissions (AndroidManifest.xml:9-40)
    runtime_permissions = ("android.permission.POST_NOTIFICATIONS", "android.permission.ACCESS_COARSE_LOCATION",
                           "android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_BACKGROUND_LOCATION",
                           "android.permission.WRITE_CALENDAR", "android.permission.READ_CALENDAR")
    min_sdk, target_sdk = 24, 33  # app/build.gradle.kts:60-61

    def on_process_start(self, device: VirtualDevice) -> None:
        """``Tasks.onCreate``: the install bookkeeping and the first database access."""
        D.app_start(device)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.tasks.gallery import scenes

        yield from scenes(self, device)
