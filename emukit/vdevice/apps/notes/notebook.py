"""Markor's main screen (``MainActivity``, Files tab): the notebook folder as a list, selection mode, dialogs.

Drawn from gsantner/markor@ab21754: ``main__activity.xml`` (Toolbar, the FAB ``fab_add_new_item``),
``opoc_filesystem_fragment.xml`` / ``opoc_filesystem_item.xml`` (the RecyclerView and its rows) and
``GsFileBrowserListAdapter``: the first row of a folder is ``..`` (its parent; the notebook's options set
``mustStartWithRootFolder`` false), then folders and files by lower-cased name; a file row's description is
its modification time and a ``..`` row's the parent's path; each row's content-desc is "File|Folder|Selected
<title> <description>". A tap opens a file (``DocumentActivity``) or a folder; a long press selects (and
a tap then toggles), and the Toolbar's title becomes "" while anything is selected, with the actions
Rename (one item) and Delete (``filesystem__menu.xml``). Delete asks ``WrConfirmDialog`` ("Confirm Delete",
CANCEL / OK); the FAB opens ``NewFileDialog`` (name and extension fields; FOLDER / CANCEL / OK: OK with an
empty name just closes it; otherwise the file <name><ext> is created unless it exists and opened). BACK goes
up a folder, else (at the notebook) asks to be pressed again within 2 s to leave (MainActivity.onBackPressed,
the "Press 'Back' again to exit" snackbar, drawn here as a transient message that the next input removes, since
the logical clock need not move; its EXIT action is not drawn); it does not end a selection.

The selection's overflow ("More options") lists Move and Copy, which open the folder dialog
(:mod:`.folder_dialog`).

Not drawn (nothing here drives them): the Toolbar's Go to / Sort by / Search items and its overflow, the
selection's Favourite / Details items and its overflow's Clipboard / Create shortcut / Share rows, the dialog's Type and Template spinners, and the
bottom navigation bar (Files, To-Do, QuickNote, More), whose height the list leaves free.

Screen state (``act.state``): ``folder`` (the listed folder), ``selected`` (paths), ``dialog`` (``{"kind":
"new", "name", "ext"}``, ``{"kind": "rename", "target", "name"}``, ``{"kind": "delete", "targets"}``),
``vscroll`` and ``back_ms`` (elapsed-realtime of the first BACK).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import folder_dialog, storage
from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.clockfmt import device_tz, format_time
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.view import Bounds, Style, View
from emukit.vdevice.ui.widgets import popup_menu

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

DOCUMENT = "net.gsantner.markor.activity.DocumentActivity"
TOOLBAR_BG = (0, 150, 136)
ON_TOOLBAR = (255, 255, 255)
ACCENT = (255, 160, 0)
TOOLBAR_DP = 56
BOTTOM_NAV_DP = 56
ROW_DP = 50
EXIT_WINDOW_MS = 2000  # MainActivity.onBackPressed: the second BACK must come within 2 s
PRESS_AGAIN = "Press 'Back' again to exit"  # strings.xml:99 (R.string.press_back_again_to_exit)
KIND_DESC = {"file": "File", "folder": "Folder", "selected": "Selected"}  # strings.xml:56, 281, 385


def folder_of(act: Activity) -> str:
    return act.state.get("folder", storage.NOTEBOOK)


def open_document(device: VirtualDevice, path: str) -> None:
    """Open ``path`` in ``DocumentActivity`` (DocumentActivity.launch) on top of the notebook."""
    device.push_activity(storage.PACKAGE, DOCUMENT, {"path": path})


def _acted(act: Activity) -> None:
    """Anything the user does on the notebook ends the two-second BACK window (with a logical clock that need
    not move, the next action stands for the time that passes before it)."""
    act.state.pop("back_ms", None)


def _focus(device: VirtualDevice, key: str | None) -> None:
    ui = device.state.ui
    ui.focused_id = key
    ui.cursor = None
    ui.text_menu = None


def close_dialog(device: VirtualDevice, act: Activity) -> None:
    act.state.pop("dialog", None)
    _focus(device, None)


def on_back(device: VirtualDevice, act: Activity) -> bool:
    """A dialog closes; in a folder below the notebook BACK goes up; at the notebook the first BACK asks for
    a second one, which leaves."""
    if act.state.get("dialog"):
        close_dialog(device, act)
        return True
    folder = folder_of(act)
    if folder != storage.NOTEBOOK and _parent(folder) is not None:
        _load_folder(act, _parent(folder) or storage.NOTEBOOK)
        return True
    now = device.elapsed_ms()
    first = act.state.get("back_ms")
    if first is not None and now - first < EXIT_WINDOW_MS:
        return False
    act.state["back_ms"] = now
    device.state.ui.toast = PRESS_AGAIN  # the snackbar; drawn as a transient message until the next input
    return True


def _parent(folder: str) -> str | None:
    """The folder a ``..`` row leads to (none above shared storage's root here)."""
    if folder == storage.STORAGE or not folder.startswith(storage.STORAGE + "/"):
        return None
    return posixpath.dirname(folder)


def _load_folder(act: Activity, folder: str) -> None:
    """``loadFolder``: a new listing clears the selection."""
    act.state.update(folder=folder, selected=[], vscroll=0)


def _describe(device: VirtualDevice, mtime_ms: int) -> str:
    """DateUtils.formatDateTime(SHOW_TIME | SHOW_DATE | SHOW_YEAR | NUMERIC_DATE) in en-US: ``1/15/2026, 09:00``."""
    when = datetime.fromtimestamp(mtime_ms / 1000, UTC).astimezone(device_tz(device))
    return f"{when.month}/{when.day}/{when.year}, {format_time(device, when)}"


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The notebook screen: Toolbar, the folder's list (or its empty hint), the FAB and any dialog."""
    folder = folder_of(act)
    entries = storage.listing(device, folder)
    names = {e.path for e in entries}
    selected = [p for p in act.state.get("selected", []) if p in names]
    act.state["selected"] = selected
    root = View(bounds=frame, resource_id=T.rid("notebook_root"), style=Style(bg=theme.BACKGROUND))
    root.add(_toolbar(device, act, frame, folder, selected))
    bottom = frame[3] - theme.dp(BOTTOM_NAV_DP)
    body = (frame[0], frame[1] + theme.dp(TOOLBAR_DP), frame[2], bottom)
    rows: list[tuple[str, bool, int]] = []  # (path, is_dir, mtime) in list order, ".." first
    parent = _parent(folder)
    if parent is not None and device.fs.is_dir(parent):
        rows.append((parent, True, storage.mtime_ms(device, parent)))
    rows += [(e.path, e.is_dir, e.mtime_ms) for e in entries]
    root.add(_list(device, act, body, rows, parent, selected))
    root.add(_fab(device, act, frame))
    dialog = act.state.get("dialog")
    if dialog and dialog.get("kind") == "folder":
        for view in root.children:  # a modal window: a dump shows the dialog's nodes only
            view.in_hierarchy = False
        root.add(folder_dialog.build(device, act, frame, dialog, on_done=lambda: _after_folder_dialog(act)))
    elif dialog:
        root.add(_dialog(device, act, frame, dialog))
    elif selected and act.state.get("menu") == "overflow":
        root.add(_overflow(device, act, frame, selected))
    else:
        act.state.pop("menu", None)
    return root


def _after_folder_dialog(act: Activity) -> None:
    """The folder dialog closed (the dialog itself ends the selection when a folder was chosen,
    GsFileBrowserFragment.java:561; Cancel keeps it): no popup stays open behind it."""
    act.state.pop("menu", None)


def _overflow(device: VirtualDevice, act: Activity, frame: Bounds, selected: list[str]) -> View:
    """The selection's overflow popup: Move and Copy (filesystem__menu.xml:54-67, shown for any writable
    selection outside a storage-access folder, GsFileBrowserFragment.java:249-250). Its Clipboard, Create
    shortcut and Share rows are not drawn (nothing here drives them)."""
    def dismiss() -> None:
        act.state.pop("menu", None)

    def choose(move: bool) -> Callable[[], None]:
        def run() -> None:
            dismiss()
            _acted(act)
            act.state["dialog"] = folder_dialog.opened(folder_of(act), list(selected), move=move)
        return run

    return popup_menu(frame, (frame[2] - theme.dp(8), frame[1] + theme.dp(8)),
                      [(T.text("menu_move"), choose(True)), (T.text("menu_copy"), choose(False))], dismiss,
                      T.rid("overflow_row_title"))


def _toolbar(device: VirtualDevice, act: Activity, frame: Bounds, folder: str, selected: list[str]) -> View:
    left, top, right, _ = frame
    height = theme.dp(TOOLBAR_DP)
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + height),
               resource_id=T.rid("notebook_toolbar"), style=Style(bg=TOOLBAR_BG))
    if not selected:  # MainActivity.getFileBrowserTitle
        title = "Markor" if folder == storage.NOTEBOOK else "> " + posixpath.basename(folder)
        bar.add(View(cls="android.widget.TextView", bounds=(left + theme.dp(16), top, right - theme.dp(16), top + height),
                     text=title, style=Style(fg=ON_TOOLBAR, font_size=theme.dp(20), bold=True)))
        return bar
    size = theme.dp(48)
    end = right - theme.dp(4)
    actions: list[tuple[str, str, Callable[[], None]]] = [
        ("selection_delete", "delete", lambda: (_acted(act), act.state.update(dialog={"kind": "delete",
                                                                                   "targets": list(selected)})))]
    if len(selected) == 1:
        actions.insert(0, ("selection_rename", "edit", lambda: open_rename_dialog(device, act, selected[0])))
    y = top + (height - size) // 2

    def open_overflow() -> None:
        _acted(act)
        act.state["menu"] = "overflow"

    bar.add(View(cls=T.cls("selection_more_options"), bounds=(end - size, y, end, y + size),
                 content_desc=T.desc("selection_more_options"), clickable=True, focusable=True, on_click=open_overflow,
                 style=Style(icon="more_vert", icon_color=ON_TOOLBAR, icon_size=theme.dp(24))))
    end -= size
    for name, icon, callback in reversed(actions):
        bar.add(View(cls="android.widget.TextView", bounds=(end - size, y, end, y + size), resource_id=T.rid(name),
                     content_desc=T.desc(name), clickable=True, focusable=True, on_click=callback,
                     style=Style(icon=icon, icon_color=ON_TOOLBAR, icon_size=theme.dp(24))))
        end -= size
    return bar


def _list(device: VirtualDevice, act: Activity, body: Bounds, rows: list[tuple[str, bool, int]],
          parent: str | None, selected: list[str]) -> View:
    fragment = View(bounds=body, resource_id=T.rid("notebook_fragment"))
    row_h, gap = theme.dp(ROW_DP), theme.dp(8)
    total = len(rows) * (row_h + gap) + theme.dp(96)
    max_scroll = max(0, total - (body[3] - body[1]))
    scroll = max(0, min(int(act.state.get("vscroll", 0)), max_scroll))

    def on_scroll(dy: int) -> None:
        _acted(act)
        act.state["vscroll"] = max(0, min(scroll + dy, max_scroll))

    if len(rows) < 2:  # isCurrentFolderEmpty: the shrug hint (opoc_filesystem_fragment.xml:19-30)
        fragment.add(View(cls="android.widget.TextView", bounds=(body[0], body[1] + theme.dp(64), body[2],
                                                                 body[1] + theme.dp(140)),
                          text=T.text("notebook_empty_hint"), resource_id=T.rid("notebook_empty_hint"),
                          style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.dp(40), bold=True, align="center")))
    listing = View(cls=T.cls("notebook_list"), bounds=body, resource_id=T.rid("notebook_list"),
                   scrollable=max_scroll > 0, on_scroll=on_scroll if max_scroll > 0 else None)
    y = body[1] - scroll
    for path, is_dir, mtime in rows:
        if y + row_h > body[1] and y < body[3]:
            listing.add(_row(device, act, body, y, path, is_dir, mtime, path == parent, path in selected))
        y += row_h + gap
    fragment.add(listing)
    return fragment


def _row(device: VirtualDevice, act: Activity, body: Bounds, top: int, path: str, is_dir: bool, mtime: int,
         go_up: bool, selected: bool) -> View:
    title = ".." if go_up else posixpath.basename(path)
    description = path if go_up else _describe(device, mtime)
    kind = "selected" if selected else "folder" if is_dir else "file"

    def click() -> None:
        _acted(act)
        chosen = act.state.get("selected", [])
        if chosen:
            if not toggle() and is_dir:
                _load_folder(act, path)
        elif is_dir:
            _load_folder(act, path)
        else:
            open_document(device, path)

    def toggle() -> bool:
        """toggleSelection: the ``..`` row is never selected; returns whether the click was handled."""
        _acted(act)
        if go_up:
            return True
        chosen = list(act.state.get("selected", []))
        if path in chosen:
            chosen.remove(path)
        else:
            chosen.append(path)
        act.state["selected"] = chosen
        return True

    return item_view(body, top, title, description, kind, click, toggle)


def item_view(box: Bounds, top: int, title: str, description: str, kind: str, on_click: Callable[[], object],
              on_long_click: Callable[[], object] | None = None) -> View:
    """One ``opoc_filesystem_item`` row (the notebook's and the folder dialog's): icon, title and description,
    content-desc "<kind> <title> <description>" (``kind``: file, folder or selected)."""
    left, _, right, _ = box
    row_h = theme.dp(ROW_DP)
    row = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + row_h),
               resource_id=T.rid("notebook_row"), content_desc=f"{KIND_DESC[kind]} {title} {description}",
               clickable=True, long_clickable=True, focusable=True, on_click=on_click, on_long_click=on_long_click)
    x = left + theme.dp(16)
    icon = theme.dp(28)
    selected = kind == "selected"
    row.add(View(cls="android.widget.ImageView", bounds=(x, top + (row_h - icon) // 2, x + icon, top + (row_h + icon) // 2),
                 resource_id=T.rid("notebook_row_image"),
                 style=Style(icon="check" if selected else kind, icon_color=ACCENT if selected else theme.TEXT_SECONDARY,
                             icon_size=icon)))
    x += icon + theme.dp(16)
    text = View(cls="android.widget.LinearLayout", bounds=(x, top, right - theme.dp(16), top + row_h))
    mid = top + theme.dp(27)
    text.add(View(cls=T.cls("notebook_row_title"), bounds=(x, top, right - theme.dp(16), mid), text=title,
                  resource_id=T.rid("notebook_row_title"),
                  style=Style(fg=theme.TEXT, font_size=theme.dp(19), bold=True, valign="bottom")))
    text.add(View(cls=T.cls("notebook_row_description"), bounds=(x, mid, right - theme.dp(16), top + row_h),
                  text=description, resource_id=T.rid("notebook_row_description"),
                  style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.dp(15), valign="top")))
    row.add(text)
    return row


def _fab(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The FAB (bottom end, 16 dp in, 72 dp up): the new file dialog for a writable folder."""
    size = theme.dp(56)
    right, bottom = frame[2] - theme.dp(16), frame[3] - theme.dp(72)

    def click() -> None:
        _acted(act)
        if device.fs.is_dir(folder_of(act)):  # isCurrentFolderWriteable
            open_new_dialog(device, act)

    return View(cls=T.cls("fab_new"), bounds=(right - size, bottom - size, right, bottom), resource_id=T.rid("fab_new"),
                content_desc=T.desc("fab_new"), clickable=True, focusable=True, on_click=click,
                style=Style(bg=ACCENT, radius=theme.dp(16), elevation=8, icon="plus", icon_color=ON_TOOLBAR,
                            icon_size=theme.dp(24)))


# ---------------------------------------------------------------------------------------------- dialogs
def open_new_dialog(device: VirtualDevice, act: Activity) -> None:
    act.state["dialog"] = {"kind": "new", "name": "", "ext": storage.last_extension(device)}
    _focus(device, T.rid("new_file_name"))


def open_rename_dialog(device: VirtualDevice, act: Activity, path: str) -> None:
    _acted(act)
    act.state["dialog"] = {"kind": "rename", "target": path, "name": posixpath.basename(path)}
    _focus(device, T.rid("rename_field"))


def _set(act: Activity, dlg: dict, key: str) -> Callable[[str], None]:
    def apply(text: str) -> None:
        dlg[key] = text
        act.state["dialog"] = dlg
    return apply


def _field(box: Bounds, name: str, text: str, hint: str, on_text: Callable[[str], None],
           on_submit: Callable[[], None]) -> View:
    rid = T.rid(name)
    return View(cls=T.cls(name), bounds=box, text=text, hint=hint, resource_id=rid, key=rid, editable=True,
                focusable=True, clickable=True, long_clickable=True, on_text=on_text, on_submit=on_submit,
                style=Style(font_size=theme.dp(15), border=theme.OUTLINE, border_width=theme.dp(1), padding=theme.dp(4)))


def _dialog(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict) -> View:
    """An appcompat AlertDialog: title (``alertTitle``), message (``android:id/message``), custom view, buttons
    ``android:id/button3`` (neutral), ``button2`` (negative), ``button1`` (positive), all caps."""
    folder = folder_of(act)

    def cancel() -> None:
        close_dialog(device, act)

    kind = dlg.get("kind")
    title, message, content_h = "", "", 0
    content: Callable[[Bounds], list[View]] | None = None
    buttons: list[tuple[str, str, Callable[[], None]]] = []
    if kind == "delete":
        targets = list(dlg.get("targets", []))
        title = T.text("confirm_delete_title")
        noun = "Document" if len(targets) == 1 else "Documents"  # plurals documents (string-not_translatable.xml:100)
        message = f"Do you really want to delete this {noun}?\n\n" + "".join(f"\n{t}" for t in targets)

        def confirm() -> None:
            storage.delete(device, targets)
            act.state["selected"] = []
            close_dialog(device, act)

        buttons = [("dialog_cancel", T.text("dialog_cancel"), cancel), ("dialog_ok", T.text("dialog_ok"), confirm)]
    elif kind == "rename":
        title = "Rename"  # R.string.rename (strings.xml:17), WrRenameDialog.java:55

        def rename() -> None:
            if storage.rename(device, dlg.get("target", ""), dlg.get("name", "")):
                act.state["selected"] = []
            close_dialog(device, act)

        def rename_content(box: Bounds) -> list[View]:
            return [_field((box[0], box[1], box[2], box[1] + theme.dp(48)), "rename_field", dlg.get("name", ""), "",
                           _set(act, dlg, "name"), rename)]

        content, content_h = rename_content, theme.dp(56)
        buttons = [("dialog_cancel", T.text("dialog_cancel"), cancel), ("dialog_ok", T.text("dialog_ok"), rename)]
    else:
        def ok() -> None:
            name = dlg.get("name", "")
            close_dialog(device, act)
            if not name.strip():  # NewFileDialog: nothing to do without a name
                return
            ext = dlg.get("ext", "").strip()
            storage.set_last_extension(device, ext)
            path = posixpath.join(folder, storage.file_name(name, ext))
            storage.create_file(device, path)
            open_document(device, path)

        def make_folder() -> None:
            name = dlg.get("name", "").strip()
            close_dialog(device, act)
            if name:
                storage.create_folder(device, posixpath.join(folder, name))

        def new_content(box: Bounds) -> list[View]:
            x0, y0, x1, _ = box
            split = x0 + (x1 - x0) * 70 // 100
            caption = View(cls="android.widget.TextView", bounds=(x0, y0, x1, y0 + theme.dp(20)), text="Name",
                           style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.dp(12)))
            name = _field((x0, y0 + theme.dp(20), split, y0 + theme.dp(64)), "new_file_name", dlg.get("name", ""),
                          "my_note", _set(act, dlg, "name"), ok)
            ext = _field((split + theme.dp(8), y0 + theme.dp(20), x1 - theme.dp(32), y0 + theme.dp(64)), "new_file_ext",
                         dlg.get("ext", ""), ".md", _set(act, dlg, "ext"), ok)
            return [caption, name, ext]

        content, content_h = new_content, theme.dp(72)
        buttons = [("dialog_folder", T.text("dialog_folder"), make_folder),
                   ("dialog_cancel", T.text("dialog_cancel"), cancel), ("dialog_ok", T.text("dialog_ok"), ok)]
    return _alert(frame, title, message, content, content_h, buttons, cancel)


def _alert(frame: Bounds, title: str, message: str, content: Callable[[Bounds], list[View]] | None,
           content_h: int, buttons: list[tuple[str, str, Callable[[], None]]], dismiss: Callable[[], None]) -> View:
    left, top, right, bottom = frame
    pad = theme.dp(24)
    width = right - left - 2 * theme.dp(24)
    body_w = width - 2 * pad
    msg_lines = _line_count(message, body_w) if message else 0
    line = theme.dp(22)
    height = (theme.dp(64) if title else theme.dp(24)) + msg_lines * line + content_h + theme.dp(60)
    x0, y0 = left + theme.dp(24), max(top + theme.dp(24), (top + bottom - height) // 2)
    scrim = View(bounds=frame, on_click=dismiss, style=Style(bg=(0, 0, 0), bg_alpha=theme.SCRIM_ALPHA))
    panel = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x0 + width, y0 + height),
                 resource_id=T.rid("dialog_panel"),
                 style=Style(bg=theme.SURFACE, radius=theme.dp(4), elevation=16))
    y = y0 + theme.dp(24)
    if title:
        panel.add(View(cls="android.widget.TextView", bounds=(x0 + pad, y, x0 + width - pad, y + theme.dp(28)),
                       text=title, resource_id=T.rid("dialog_title"),
                       style=Style(fg=theme.TEXT, font_size=theme.dp(20), bold=True)))
        y += theme.dp(40)
    if message:
        panel.add(View(cls="android.widget.TextView", bounds=(x0 + pad, y, x0 + width - pad, y + msg_lines * line),
                       text=message, resource_id=T.rid("dialog_message"),
                       style=Style(fg=theme.TEXT_SECONDARY, font_size=theme.dp(16), valign="top", max_lines=msg_lines)))
        y += msg_lines * line
    if content is not None:
        custom = View(bounds=(x0 + pad, y, x0 + width - pad, y + content_h), resource_id=T.rid("dialog_custom"))
        custom.add(*content((x0 + pad, y, x0 + width - pad, y + content_h)))
        panel.add(custom)
    bar_top = y0 + height - theme.dp(52)
    f = font(theme.dp(14), True)
    end = x0 + width - theme.dp(8)
    placed = []
    for name, text, callback in reversed(buttons):
        w = int(f.getlength(text)) + theme.dp(24)
        if name == "dialog_folder":  # the neutral button sits at the start of the bar
            bx = x0 + theme.dp(8)
        else:
            bx = end - w
            end = bx - theme.dp(8)
        placed.append(View(cls="android.widget.Button", bounds=(bx, bar_top, bx + w, bar_top + theme.dp(44)), text=text,
                           resource_id=T.rid(name), clickable=True, focusable=True, on_click=callback,
                           style=Style(fg=(0, 150, 136), font_size=theme.dp(14), bold=True, align="center")))
    panel.add(*reversed(placed))
    scrim.add(panel)
    return scrim


def _line_count(text: str, width: int) -> int:
    from emukit.vdevice.ui.render import wrap

    return max(1, len(wrap(text, font(theme.dp(16)), width, 40)))
