"""The virtual Markor (``net.gsantner.markor``), drawn from the pinned build's selector table (versionCode 146).

* ``net.gsantner.markor.activity.MainActivity`` (launcher): the notebook folder as a list, the FAB's new file
  dialog, selection mode with Rename and Delete (see :mod:`.notebook`).
* ``net.gsantner.markor.activity.DocumentActivity``: one document in edit mode (the HighlightingEditor) or view
  mode (the Markdown rendered into a WebView, with word selection and Copy), see :mod:`.document` and
  :mod:`.viewer`. ``am start -n net.gsantner.markor/.activity.DocumentActivity --es EXTRA_PATH PATH
  [--ez EXTRA_DO_PREVIEW true]`` opens a file directly, as in the real app.

Persistent state is the notebook's files and ``shared_prefs/app.xml``; an open document's unsaved text is the
activity's state until it pauses (see :mod:`.document`). The clipboard is the device's clipboard service.

In hardware mode the app is installed from its stand-in and shows what the real build shows first
(:mod:`.firstrun`): IntroActivity (five AppIntro slides, NEXT x4, DONE), then the all-files access request
(StoragePermissionActivity's dialog, OK, Settings' "Allow access to manage all files"), then the changelog
dialog (OK), which android_world clicks through once after installing
(``android_world/env/setup_device/apps.py:235-262``). Without all-files access the notebook lists nothing and
writes nothing (:mod:`.storage`). The deterministic device's Markor starts past all of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import VIRTUAL_BUILD, App
from emukit.vdevice.apps.notes import document, firstrun, notebook, storage
from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["NotesApp"]

MAIN = "net.gsantner.markor.activity.MainActivity"
DOCUMENT = notebook.DOCUMENT


def _is_document(act: Activity) -> bool:
    return act.activity.endswith("DocumentActivity")


def _is_intro(act: Activity) -> bool:
    return act.activity.endswith("IntroActivity")


def _is_storage(act: Activity) -> bool:
    return act.activity.endswith("StoragePermissionActivity")


@register_virtual_app
class NotesApp(App):
    """Markor: the notebook list, the editor and the viewer over the Markdown files of the notebook folder."""

    install_order = 4

    package = storage.PACKAGE
    label = "Markor"
    version_name = f"{T.build.version_name}-{VIRTUAL_BUILD}"
    version_code = T.build.version_code or 0
    launcher_activity = MAIN
    activities = (MAIN, DOCUMENT, firstrun.INTRO, firstrun.STORAGE_PERMISSION)
    # DocumentActivity's taskAffinity is ".activity.DocumentActivity", MainActivity's ".activity.MainActivity"
    # (markor:app/src/main/AndroidManifest.xml:62-68, 174-180): a document is its own task, and the icon brings the
    # notebook back
    own_task_activities = frozenset({DOCUMENT})
    icon = "edit_note"
    icon_color = (0, 150, 136)
    downloaded = True
    # AndroidManifest.xml:18-23: the runtime permissions among its uses-permission (MANAGE_EXTERNAL_STORAGE,
    # line 26, is an app-op permission, granted in Settings)
    runtime_permissions = ("android.permission.WRITE_EXTERNAL_STORAGE", "android.permission.READ_EXTERNAL_STORAGE",
                           "android.permission.RECORD_AUDIO")
    min_sdk, target_sdk = 16, 33  # app/build.gradle:16, 33 (targetSdk = compileSdk 33, build.gradle:17)

    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        if _is_document(act):
            document.on_create(device, act, extras)
            if device.hardware:
                act.state["check_storage"] = True  # DocumentActivity.onCreate -> requestPermissions
        elif act.activity.endswith("MainActivity"):
            firstrun.main_created(device, act)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if _is_intro(act):
            return firstrun.intro_back(device, act)
        if _is_storage(act):
            return firstrun.storage_back(device, act)
        if _is_document(act):
            return document.on_back(device, act)
        if act.state.get("changelog"):
            act.state.pop("changelog")
            return True
        return notebook.on_back(device, act)

    def on_pause(self, device: VirtualDevice, act: Activity) -> None:
        """The activity ``act`` stopped being in front (another screen covers it, HOME, an app switch)."""
        if _is_document(act):
            document.on_pause(device, act)

    def on_resume(self, device: VirtualDevice, act: Activity) -> None:
        """The activity ``act`` is in front again."""
        if _is_storage(act):
            firstrun.storage_resumed(device, act)
        elif _is_document(act):
            if act.state.pop("check_storage", False) and not firstrun.has_storage_access(device):
                firstrun.request_storage(device, act)
                return
            document.on_resume(device, act)
        elif act.activity.endswith("MainActivity"):
            firstrun.main_resumed(device, act)

    def on_process_stop(self, device: VirtualDevice) -> None:
        """Force-stop: a document in the background had paused, and so saved, when it went there; the one in
        front dies with its unsaved text (no lifecycle callbacks run when the process is killed)."""
        top = device.top
        for act in device.state.back_stack:
            if act.package == self.package and _is_document(act) and act is not top:
                document.on_pause(device, act)

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        if _is_document(act):
            return document.build(device, act, frame)
        if _is_intro(act):
            return firstrun.build_intro(device, act, frame)
        if _is_storage(act):
            return firstrun.build_storage(device, act, frame)
        root = notebook.build(device, act, frame)
        if act.state.get("changelog"):
            root.add(firstrun.changelog_dialog(device, act, frame))
        return root

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.notes.gallery import scenes

        yield from scenes(self, device)
