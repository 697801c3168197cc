"""Gallery scenes of the virtual Markor: every screen, dialog, selection state and empty state."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import storage
from emukit.vdevice.apps.notes.storage import T

if TYPE_CHECKING:
    from emukit.vdevice.apps.notes import NotesApp
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.view import View

BACK = 4
DEMO = {
    "Groceries.md": "# Groceries\n\n- Oat milk\n- Sourdough bread\n- Tomatoes\n",
    "Meeting notes.md": ("# Weekly sync\n\nAttendees: Ana, Bo, Chen\n\n## Decisions\n"
                         "Ship the beta on Friday.\nBudget code: QX-4471\n\n## Follow-ups\n"
                         "- Ana drafts the release notes\n- Bo checks the crash reports\n"),
    "todo.txt": "call the dentist\nrenew passport\n",
}


def _find(device: VirtualDevice, pred: Callable[[View], bool]) -> View:
    view = device.wm.find_view(pred)
    if view is None:
        raise LookupError("gallery: view not found")
    return view


def _tap(device: VirtualDevice, pred: Callable[[View], bool]) -> None:
    device.wm.tap(*_find(device, pred).center)


def scenes(app: NotesApp, device: VirtualDevice) -> Iterator[str]:
    """Drive ``device`` through Markor's screens, yielding a scene name after each."""
    device.fs.makedirs(storage.NOTEBOOK)
    device.start_activity(app.package)
    yield "Notebook (empty)"
    _tap(device, lambda v: v.resource_id == T.rid("fab_new"))
    yield "New file dialog"
    device.wm.input_text("Groceries")
    yield "New file dialog with a name"
    device.wm.key(BACK)  # hides the keyboard
    device.wm.key(BACK)  # closes the dialog
    for name, text in DEMO.items():
        storage.write_text(device, f"{storage.NOTEBOOK}/{name}", text)
    storage.create_folder(device, f"{storage.NOTEBOOK}/Archive")
    yield "Notebook"
    device.wm.long_press(*_find(device, lambda v: v.text == "Groceries.md").center)
    yield "Selection mode"
    _tap(device, lambda v: v.resource_id == T.rid("selection_rename"))
    yield "Rename dialog"
    device.wm.key(BACK)
    device.wm.key(BACK)
    _tap(device, lambda v: v.resource_id == T.rid("selection_delete"))
    yield "Delete confirmation"
    _tap(device, lambda v: v.resource_id == T.rid("dialog_cancel"))
    _tap(device, lambda v: v.content_desc == T.desc("selection_more_options"))
    yield "Selection overflow (Move, Copy)"
    _tap(device, lambda v: v.text == T.text("menu_move") and v.resource_id == T.rid("overflow_row_title"))
    yield "Move: folder dialog"
    _tap(device, lambda v: v.resource_id == T.rid("folder_dialog_cancel"))  # the selection stays
    _tap(device, lambda v: v.text == "Groceries.md")  # a tap on the selected row ends the selection
    _tap(device, lambda v: v.text == "Archive")
    yield "Folder (empty)"
    device.wm.key(BACK)
    device.wm.key(BACK)
    yield "Press BACK again to exit"
    yield from _document_scenes(device)


def _document_scenes(device: VirtualDevice) -> Iterator[str]:
    _tap(device, lambda v: v.text == "Meeting notes.md")
    yield "Editor"
    _tap(device, lambda v: v.resource_id == T.rid("editor"))
    yield "Editor with keyboard"
    device.set_clip("QX-4471", label="text")
    device.wm.long_press(*_find(device, lambda v: v.resource_id == T.rid("editor")).center)
    yield "Editor: text toolbar"
    device.wm.key(BACK)  # hides the keyboard and the toolbar
    _tap(device, lambda v: v.resource_id == T.rid("view_mode"))
    yield "View mode"
    para = _find(device, lambda v: v.text == "Ship the beta on Friday. Budget code: QX-4471")
    device.wm.long_press(para.bounds[0] + 8, para.bounds[1] + 12)
    yield "View mode: word selected"
    _tap(device, lambda v: v.content_desc == T.text("text_select_all"))
    yield "View mode: page selected"
    _tap(device, lambda v: v.content_desc == T.text("text_copy"))
    device.wm.key(BACK)  # back to the notebook
    _tap(device, lambda v: v.resource_id == T.rid("fab_new"))
    device.wm.input_text("Scratch")
    _tap(device, lambda v: v.resource_id == T.rid("dialog_ok"))
    yield "Blank editor"
    _tap(device, lambda v: v.resource_id == T.rid("view_mode"))
    yield "View mode (empty document)"
