"""Markor's main screen (``MainActivity``): the notebook folder as a list, selection mode and its dialogs.

Screen state (``act.state``): ``scroll`` (px), ``selected`` (file names, selection mode while non-empty) and
``dialog``: ``{"kind": "new", "name", "ext", "error"}``, ``{"kind": "rename", "target", "name", "error"}``
or ``{"kind": "delete", "targets"}``. Files are created, renamed and deleted at once on confirmation.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import storage
from emukit.vdevice.apps.notes.storage import rid
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.clockfmt import MONTHS, device_tz, format_time
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

DOCUMENT = ".activity.DocumentActivity"
NAME_FIELD = rid("new_file_dialog__name")
EXT_FIELD = rid("new_file_dialog__ext")
RENAME_FIELD = rid("new_name")
FILE_ICON_COLOR = (0, 121, 107)


def open_document(device: VirtualDevice, path: str, preview: bool = False) -> None:
    """Open ``path`` in the editor (``DocumentActivity``) on top of the current screen."""
    device.push_activity(storage.PACKAGE, DOCUMENT, {"path": path, "mode": "view" if preview else "edit"})


def _focus(device: VirtualDevice, key: str | None) -> None:
    """Give the keyboard focus to the dialog field ``key`` (or take it away), as a shown dialog does."""
    device.state.ui.focused_id = key
    device.state.ui.cursor = None
    device.state.ui.text_menu = None


def close_dialog(device: VirtualDevice, act: Activity) -> None:
    act.state.pop("dialog", None)
    _focus(device, None)


def on_back(device: VirtualDevice, act: Activity) -> bool:
    """BACK closes a dialog, then leaves selection mode; otherwise the activity finishes."""
    if act.state.get("dialog"):
        close_dialog(device, act)
        return True
    if act.state.get("selected"):
        act.state["selected"] = []
        return True
    return False


def _describe(device: VirtualDevice, entry: storage.Entry) -> str:
    """``Jan 15, 2026 09:00 · 12 B`` in the device's time zone and clock format."""
    when = datetime.fromtimestamp(entry.mtime_ms / 1000, UTC).astimezone(device_tz(device))
    return (f"{MONTHS[when.month - 1][:3]} {when.day}, {when.year} {format_time(device, when)}"
            f"  \u00b7  {storage.human_size(entry.size)}")


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The notebook list (or its empty state), the FAB or the selection bar, and any open dialog."""
    entries = storage.list_entries(device)
    names = {e.name for e in entries}
    selected = [n for n in act.state.get("selected", []) if n in names]
    act.state["selected"] = selected
    root = w.screen(frame, rid=rid("main_content"))
    root.add(_selection_bar(device, act, frame, selected) if selected else
             w.app_bar(frame, "Markor", rid=rid("toolbar")))
    body = w.below_app_bar(frame)
    if not entries:
        empty = w.empty_state(body, "notes", "No documents yet. Tap + to create your first note.")
        empty.children[-1].resource_id = rid("empty_hint")
        root.add(empty)
    else:
        rows = [(w.ROW_H2, lambda top, e=e: _row(device, act, body, top, e, e.name in selected))
                for e in entries]
        root.add(w.scroll_list(body, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                               rid=rid("recycler_view"), padding_bottom=w.FAB_SIZE + 96))
    if not selected:
        root.add(w.fab(frame, "plus", "Create a new document", lambda: open_new_dialog(device, act),
                       rid=rid("fab_add_new_item")))
    dialog = act.state.get("dialog")
    if dialog:
        root.add(_dialog(device, act, frame, dialog))
    return root


def _row(device: VirtualDevice, act: Activity, body: Bounds, top: int, entry: storage.Entry,
         selected: bool) -> View:
    def click() -> None:
        chosen = act.state.get("selected", [])
        if chosen:
            toggle()
        else:
            open_document(device, entry.path, entry.name.startswith("index."))

    def toggle() -> None:
        chosen = list(act.state.get("selected", []))
        if entry.name in chosen:
            chosen.remove(entry.name)
        else:
            chosen.append(entry.name)
        act.state["selected"] = chosen

    return w.list_row(body, top, entry.name, _describe(device, entry), icon="check" if selected else "file",
                      icon_bg=theme.PRIMARY if selected else None, icon_color=FILE_ICON_COLOR,
                      on_click=click, on_long_click=toggle, selected=selected,
                      rid=rid("opoc_filesystem_item__root"), title_rid=rid("opoc_filesystem_item__title"),
                      subtitle_rid=rid("opoc_filesystem_item__description"))


def _selection_bar(device: VirtualDevice, act: Activity, frame: Bounds, selected: list[str]) -> View:
    """The contextual app bar of selection mode: close, count, Rename (one item) and Delete."""
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H), resource_id=rid("toolbar"),
               style=Style(bg=theme.PRIMARY_CONTAINER))
    bar.add(w.icon_button((left + 12, top + 21, left + 12 + w.TOUCH, top + 21 + w.TOUCH),
                          w.Action("close", "Done", lambda: act.state.update(selected=[]),
                                   rid("action_mode_close_button")), color=theme.TEXT))
    actions = []
    if len(selected) == 1:
        actions.append(w.Action("edit", "Rename", lambda: open_rename_dialog(device, act, selected[0]),
                                rid("action_rename_selected_item")))
    actions.append(w.Action("delete", "Delete", lambda: act.state.update(
        dialog={"kind": "delete", "targets": list(selected)}), rid("action_delete_selected_items")))
    end = right - 24
    for action in reversed(actions):
        bar.add(w.icon_button((end - w.TOUCH, top + 21, end, top + 21 + w.TOUCH), action, color=theme.TEXT))
        end -= w.TOUCH
    bar.add(w.label((left + 160, top, end - 12, top + w.APP_BAR_H), f"{len(selected)} selected",
                    size=theme.TEXT_TITLE, color=theme.ON_PRIMARY_CONTAINER, rid=rid("selection_count")))
    return bar


# ---------------------------------------------------------------------------------------------- dialogs
def open_new_dialog(device: VirtualDevice, act: Activity) -> None:
    act.state["dialog"] = {"kind": "new", "name": "", "ext": ".md", "error": ""}
    _focus(device, NAME_FIELD)


def open_rename_dialog(device: VirtualDevice, act: Activity, name: str) -> None:
    act.state["dialog"] = {"kind": "rename", "target": name, "name": name, "error": ""}
    _focus(device, RENAME_FIELD)


def _dialog(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict) -> View:
    def cancel() -> None:
        close_dialog(device, act)

    kind = dlg.get("kind")
    if kind == "delete":
        targets = list(dlg.get("targets", []))
        message = (f"Delete \u201c{targets[0]}\u201d? This cannot be undone." if len(targets) == 1 else
                   f"Delete {len(targets)} documents? This cannot be undone.")

        def confirm() -> None:
            storage.delete(device, targets)
            act.state["selected"] = []
            close_dialog(device, act)

        title = "Delete document" if len(targets) == 1 else "Delete documents"
        return w.dialog(frame, title, message, buttons=[("Cancel", cancel), ("Delete", confirm)],
                        on_dismiss=cancel)
    if kind == "rename":
        return _rename_dialog(device, act, frame, dlg, cancel)
    return _new_dialog(device, act, frame, dlg, cancel)


def _set(act: Activity, dlg: dict, key: str) -> Callable[[str], None]:
    """The ``on_text`` of a dialog field: store the text in the dialog state and clear the error."""
    def apply(text: str) -> None:
        dlg[key] = text
        dlg["error"] = ""
        act.state["dialog"] = dlg
    return apply


def _error_label(box: Bounds, y: int, error: str) -> View:
    return w.label((box[0] + 24, y, box[2] - 24, y + 60), error, size=theme.TEXT_SMALL, color=theme.ERROR,
                   rid=rid("dialog_message"))


def _new_dialog(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict,
                cancel: Callable[[], None]) -> View:
    def ok() -> None:
        title = dlg.get("name", "").strip()
        name = storage.with_extension(title, dlg.get("ext", "")) if title else ""
        error = storage.name_error(device, name)
        if error:
            dlg["error"] = error
            act.state["dialog"] = dlg
            return
        path = storage.create(device, name)
        close_dialog(device, act)
        open_document(device, path)

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        split = x0 + (x1 - x0) * 68 // 100
        out = [w.label((x0 + 24, y0, x1 - 24, y0 + 50), "Name", size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY)]
        out.append(w.text_field((x0 + 24, y0 + 56, split - 12, y0 + 196), dlg.get("name", ""),
                                _set(act, dlg, "name"), key=NAME_FIELD, rid=NAME_FIELD, hint="Title",
                                on_submit=ok))
        out.append(w.text_field((split + 12, y0 + 56, x1 - 24, y0 + 196), dlg.get("ext", ""),
                                _set(act, dlg, "ext"), key=EXT_FIELD, rid=EXT_FIELD, hint=".md", on_submit=ok))
        if dlg.get("error"):
            out.append(_error_label(box, y0 + 206, dlg["error"]))
        return out

    return w.dialog(frame, "New document", buttons=[("Cancel", cancel), ("OK", ok)], content=content,
                    content_height=276, on_dismiss=cancel)


def _rename_dialog(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict,
                   cancel: Callable[[], None]) -> View:
    target = dlg.get("target", "")

    def ok() -> None:
        name = dlg.get("name", "").strip()
        if name == target:
            close_dialog(device, act)
            return
        error = storage.name_error(device, name, current=target)
        if error:
            dlg["error"] = error
            act.state["dialog"] = dlg
            return
        storage.rename(device, target, name)
        act.state["selected"] = []
        close_dialog(device, act)

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        out = [w.text_field((x0 + 24, y0, x1 - 24, y0 + 140), dlg.get("name", ""), _set(act, dlg, "name"),
                            key=RENAME_FIELD, rid=RENAME_FIELD, hint="Name", on_submit=ok)]
        if dlg.get("error"):
            out.append(_error_label(box, y0 + 150, dlg["error"]))
        return out

    return w.dialog(frame, "Rename", buttons=[("Cancel", cancel), ("OK", ok)], content=content,
                    content_height=220 if dlg.get("error") else 160, on_dismiss=cancel)
