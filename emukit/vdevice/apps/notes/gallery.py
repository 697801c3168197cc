"""Gallery scenes of the virtual Markor: every screen, dialog, selection state and empty state."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import document, notebook, storage

if TYPE_CHECKING:
    from emukit.vdevice.apps.notes import NotesApp
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.view import View

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


def _tap_id(device: VirtualDevice, resource_id: str) -> None:
    device.wm.tap(*_find(device, lambda v: v.resource_id == resource_id).center)


def _tap_text(device: VirtualDevice, text: str) -> None:
    device.wm.tap(*_find(device, lambda v: v.text == text and v.clickable).center)


def scenes(app: NotesApp, device: VirtualDevice) -> Iterator[str]:
    """Drive ``device`` through Markor's screens, yielding a scene name after each."""
    back = 4
    device.start_activity(app.package)
    yield "Notebook (empty)"
    _tap_id(device, storage.rid("fab_add_new_item"))
    yield "New document dialog"
    device.wm.input_text("Groceries")
    yield "New document dialog with a name"
    for name, text in DEMO.items():
        storage.write_text(device, f"{storage.NOTEBOOK}/{name}", text)
    _tap_text(device, "OK")
    yield "New document dialog: name already taken"
    device.wm.key(back)  # hides the keyboard
    device.wm.key(back)  # closes the dialog
    yield "Notebook"
    device.wm.long_press(*_find(device, lambda v: v.text == "Groceries.md").center)
    yield "Selection mode"
    _tap_id(device, storage.rid("action_rename_selected_item"))
    yield "Rename dialog"
    device.wm.key(back)
    device.wm.key(back)
    _tap_id(device, storage.rid("action_delete_selected_items"))
    yield "Delete confirmation"
    _tap_text(device, "Cancel")
    device.wm.key(back)  # leaves selection mode
    yield from _document_scenes(device)


def _document_scenes(device: VirtualDevice) -> Iterator[str]:
    back = 4
    device.wm.tap(*_find(device, lambda v: v.text == "Meeting notes.md").center)
    yield "Editor"
    device.wm.tap(*_find(device, lambda v: v.resource_id == document.EDITOR_ID).center)
    yield "Editor with keyboard"
    device.set_clip("QX-4471", label="markor")
    device.wm.long_press(*_find(device, lambda v: v.resource_id == document.EDITOR_ID).center)
    yield "Editor: text toolbar (Paste / Select all)"
    device.wm.key(back)  # hides the keyboard and the toolbar
    _tap_id(device, document.TOGGLE_ID)
    yield "View mode"
    line = _find(device, lambda v: v.text == "Budget code: QX-4471")
    device.wm.long_press(line.bounds[0] + 40, line.center[1])
    yield "View mode: word selected"
    _tap_text(device, "Select all")
    yield "View mode: whole line selected"
    _tap_text(device, "Copy")
    device.wm.key(back)  # back to the notebook
    notebook.open_new_dialog(device, device.top)
    device.wm.input_text("Scratch")
    _tap_text(device, "OK")
    yield "Blank editor"
    _tap_id(device, document.TOGGLE_ID)
    yield "View mode (empty document)"
