"""The virtual Markor (``net.gsantner.markor``): a Markdown notebook kept as plain files on shared storage.

* ``net.gsantner.markor.activity.MainActivity`` (launcher): the notebook folder
  ``/storage/emulated/0/Documents/Markor`` as a list (created on first launch), a FAB to create a document,
  selection mode (long press) with Rename and Delete, see :mod:`.notebook`.
* ``net.gsantner.markor.activity.DocumentActivity``: one document, in edit mode (the EditText saves every
  change to the file) or view mode (line by line, with word / line selection and Copy), see :mod:`.document`
  and :mod:`.viewer`. ``am start -n net.gsantner.markor/.activity.DocumentActivity --es EXTRA_PATH PATH
  [--ez EXTRA_DO_PREVIEW true]`` opens a file directly, as in the real app.

All persistent state is the notebook's files; the clipboard is the device's clipboard service.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import VIRTUAL_BUILD, App
from emukit.vdevice.apps.notes import document, notebook, storage
from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["NotesApp"]

MAIN = "net.gsantner.markor.activity.MainActivity"
DOCUMENT = "net.gsantner.markor.activity.DocumentActivity"


def _is_document(act: Activity) -> bool:
    return act.activity.endswith("DocumentActivity")


class NotesApp(App):
    """Markor: notebook list, editor and viewer over Markdown files in ``Documents/Markor``."""

    package = storage.PACKAGE
    label = "Markor"
    version_name = f"2.13.1-{VIRTUAL_BUILD}"
    version_code = 160
    launcher_activity = MAIN
    activities = (MAIN, DOCUMENT)
    icon = "edit_note"
    icon_color = (0, 121, 107)

    def on_process_start(self, device: VirtualDevice) -> None:
        storage.ensure_notebook(device)

    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        storage.ensure_notebook(device)
        if _is_document(act):
            document.on_create(act, extras)

    def on_back(self, device: VirtualDevice, act: Activity) -> bool:
        if _is_document(act):
            return document.on_back(act)
        return notebook.on_back(device, act)

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        if _is_document(act):
            return document.build(device, act, frame)
        return notebook.build(device, act, frame)

    def gallery_scenes(self, device: VirtualDevice) -> Iterator[str]:
        from emukit.vdevice.apps.notes.gallery import scenes

        yield from scenes(self, device)
