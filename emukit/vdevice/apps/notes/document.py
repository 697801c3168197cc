"""Markor's ``DocumentActivity``: one document in edit mode (a multi-line EditText) or view mode.

Screen state (``act.state``): ``path`` (device path of the document), ``mode`` (``"edit"`` or ``"view"``),
and the view mode's ``sel`` / ``scroll`` (see :mod:`viewer`). The text is never kept in memory: it is read
from the file on every build and every edit is written to the file at once, exactly what a probe reading the
file through adb must see. Cut/Copy/Paste/Select all in the editor come from the system's floating text
toolbar (long press on the editor), so Paste inserts the clipboard's text and leaves the clipboard as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import storage, viewer
from emukit.vdevice.apps.notes.storage import rid
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.render import font, line_height
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

EDITOR_ID = rid("document__fragment__edit__highlighting_editor")
TITLE_ID = rid("note__activity__text_note_title")
TOGGLE_ID = rid("action_preview_edit_toggle")
EDITOR_SIZE = theme.TEXT_BODY_L
EDITOR_PAD = 48
MAIN = "net.gsantner.markor.activity.MainActivity"


def normalize_path(path: str) -> str:
    """``file:///sdcard/x.md`` or ``/sdcard/x.md`` -> ``/storage/emulated/0/x.md``."""
    path = path.strip()
    path = path.removeprefix("file://")
    if path == "/sdcard" or path.startswith("/sdcard/"):
        path = "/storage/emulated/0" + path[len("/sdcard"):]
    return path


def on_create(act: Activity, extras: dict[str, str]) -> None:
    """``EXTRA_PATH`` names the document, ``EXTRA_DO_PREVIEW=true`` (or an ``index.*`` name) opens view mode."""
    if "EXTRA_PATH" in extras:
        act.state["path"] = normalize_path(extras["EXTRA_PATH"])
    path = act.state.get("path", "")
    preview = extras.get("EXTRA_DO_PREVIEW", "").lower() == "true" or path.rsplit("/", 1)[-1].startswith("index.")
    act.state.setdefault("mode", "view" if preview else "edit")


def on_back(act: Activity) -> bool:
    return viewer.on_back(act) if act.state.get("mode") == "view" else False


def navigate_up(device: VirtualDevice) -> None:
    """The toolbar's arrow: back to the notebook (started fresh when the editor was opened on its own)."""
    device.finish_top()
    top = device.top
    if top.package != storage.PACKAGE:
        device.start_activity(storage.PACKAGE, MAIN)


def _eye(bounds: Bounds, color: tuple[int, int, int]) -> list[View]:
    """A "visibility" (eye) glyph: an outlined almond-ish lid with an iris and a pupil highlight."""
    cx, cy = (bounds[0] + bounds[2]) // 2, (bounds[1] + bounds[3]) // 2
    return [View(bounds=(cx - 36, cy - 20, cx + 36, cy + 20), style=Style(border=color, border_width=5, radius=20)),
            View(bounds=(cx - 15, cy - 15, cx + 15, cy + 15), style=Style(bg=color, radius=15)),
            View(bounds=(cx - 3, cy - 9, cx + 5, cy - 1), style=Style(bg=theme.BACKGROUND, radius=4))]


def _app_bar(device: VirtualDevice, act: Activity, frame: Bounds, title: str, viewing: bool) -> View:
    def toggle() -> None:
        act.state.pop("sel", None)
        act.state["mode"] = "edit" if viewing else "view"
        device.state.ui.focused_id = None
        device.state.ui.text_menu = None

    desc = "Edit mode" if viewing else "View mode"
    bar = w.app_bar(frame, title, on_back=lambda: navigate_up(device), rid=rid("toolbar"),
                    actions=[w.Action("edit" if viewing else "app", desc, toggle, TOGGLE_ID)])
    for child in bar.children:
        if child.cls == "android.widget.TextView":
            child.resource_id = TITLE_ID
        if child.content_desc == "View mode":  # Markor shows an eye here; draw it from two shapes
            child.style.icon = None
            child.add(*_eye(child.bounds, theme.TEXT))
    return bar


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The document screen: toolbar with title and the View/Edit toggle, then the editor or the viewer."""
    path = act.state.get("path", "")
    viewing = act.state.get("mode") == "view"
    root = w.screen(frame, rid=rid("document__placeholder_fragment"))
    if not path:
        root.add(w.app_bar(frame, "Markor", on_back=lambda: navigate_up(device), rid=rid("toolbar")))
        empty = w.empty_state(w.below_app_bar(frame), "file", "No document to open")
        empty.children[-1].resource_id = rid("empty_hint")
        root.add(empty)
        return root
    root.add(_app_bar(device, act, frame, storage.title_of(path), viewing))
    body = w.below_app_bar(frame)
    text = storage.read_text(device, path)
    if viewing:
        viewer.build(device, act, body, root, text)
    else:
        root.add(_editor(device, body, path, text))
    return root


def _editor(device: VirtualDevice, body: Bounds, path: str, text: str) -> View:
    """The multi-line EditText that fills the screen; each change is saved to the file immediately."""
    lines = max(1, (body[3] - body[1] - 2 * EDITOR_PAD) // line_height(font(EDITOR_SIZE)))
    field = w.text_field(body, text, lambda new: storage.write_text(device, path, new), key=EDITOR_ID,
                         rid=EDITOR_ID, max_lines=lines, outlined=False, size=EDITOR_SIZE)
    field.style.padding = EDITOR_PAD
    field.style.radius = 0
    return field
