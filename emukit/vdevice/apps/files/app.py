"""The Files app (``com.google.android.documentsui``): browse Downloads and internal shared storage, select,
copy/move through a destination picker, delete with confirmation, rename, create folders and search.

There is no app database: the state *is* the device filesystem under ``/storage/emulated/0``; every
confirmed operation changes it at once. Screen state is in each activity's ``act.state`` (see
:mod:`.nav` and :mod:`.picker`); the sort order is process state in ``app_data``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import App
from emukit.vdevice.apps.files import browser, nav, picker
from emukit.vdevice.apps.files.parts import PACKAGE
from emukit.vdevice.apps.registry import register_virtual_app
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

KEY_SEARCH = 84


@register_virtual_app
class FilesApp(App):
    """Android's Files app (DocumentsUI) over the virtual device's shared storage."""

    install_order = 2

    package = PACKAGE
    label = "Files"
    version_name = "14-11043117-emukit-virtual"
    version_code = 340916000
    launcher_activity = nav.FILES_ACTIVITY
    activities = (nav.FILES_ACTIVITY,)  # the picker is not exported: only the app itself opens it
    icon = "folder"
    icon_color = (26, 115, 232)

    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        if act.activity == nav.FILES_ACTIVITY and "path" not in act.state:
            act.state.update(nav.initial_state(extras))

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        if act.activity == nav.PICK_ACTIVITY:
            return picker.build(device, act, frame)
        return browser.build(device, act, frame)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if act.activity == nav.PICK_ACTIVITY:
            return picker.back(device, act)
        return nav.back(device, act)

    def on_key(self, device: VirtualDevice, act: Activity, keycode: int) -> bool:
        """The search key opens search on the Files screen."""
        if keycode == KEY_SEARCH and act.activity == nav.FILES_ACTIVITY and act.state.get("search") is None:
            nav.open_search(device, act)
            return True
        return False

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.files.gallery import scenes

        yield from scenes(self, device)
