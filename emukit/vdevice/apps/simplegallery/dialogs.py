"""The dialogs of the Gallery's screens, each an AlertDialog (MaterialAlertDialogBuilder: the framework button
ids) drawn from the pinned table:

* ``all_files``: AllFilesPermissionDialog (AllFilesPermissionDialog.kt:10-31; the message is
  access_storage_prompt and media_management_alternative, extensions/Activity.kt:141-146): "All files" opens
  Settings' All files access page for the app, "Media only" closes it (the media management page is not modelled);
* ``delete``: DeleteWithRememberDialog (dialog_delete_with_remember.xml; ViewPagerActivity.kt:1068-1093);
* ``pick``: PickDirectoryDialog (dialog_directory_picker.xml; PickDirectoryDialog.kt:43-231), a folder tile picks
  at once, OK and Cancel only close, "Other folder" opens
* ``files``: the commons FilePickerDialog for folders (dialog_filepicker.xml; FilePickerDialog.kt:32-266);
* ``rename``: the commons RenameItemDialog (dialog_rename_item.xml; RenameItemDialog.kt:12-90);
* ``properties``: the commons PropertiesDialog (dialog_properties.xml, item_property.xml; a long press on a row
  copies its value, BasePropertiesDialog.kt:43-46).

Every file operation goes through :func:`guarded` first: handleMediaManagementPrompt (Activity.kt:134-163) shows
the all-files prompt instead while the app lacks all-files access.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.simplegallery import data as D
from emukit.vdevice.apps.simplegallery.data import T
from emukit.vdevice.apps.simplegallery.screens import (
    after_removal,
    current,
    folder_tile,
    grid_rows,
)
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
# commons strings.xml:296 and gal strings.xml:225 (API 31+), joined by a blank line (Activity.kt:141-146)
ALL_FILES_MESSAGE = ("Please grant our app access to all your files, it might not work well without it.\n\n"
                     "If you do not want to do it, you can also go into your device Settings - Apps - Special app "
                     "access - Media management apps and allow this app to manage media.")
RECYCLE_CONFIRM = "Are you sure you want to move {what} into the Recycle Bin?"  # commons strings.xml:480
DELETE_CONFIRM = "Are you sure you want to delete {what}?"  # commons strings.xml:478
SAME_FOLDER = "Source and destination cannot be the same"  # commons strings.xml:239
EMPTY_NAME = "Please enter a name"  # commons strings.xml:265
MSG_RID = f"{D.PACKAGE}:id/message"
TITLE_RID = f"{D.PACKAGE}:id/alertTitle"


def guarded(ctx: Ctx, kind: str, needs_access: bool) -> None:
    """Open ``kind`` (copy, move, delete, rename, properties), behind the all-files prompt where the real app
    puts it."""
    ctx.state.pop("menu", None)
    medium = current(ctx)
    if medium is None:
        return
    if needs_access and not D.has_all_files_access(ctx.device):
        ctx.open_dialog("all_files")
        return
    if kind in ("copy", "move"):
        ctx.open_dialog("pick", move=kind == "move", source=medium.path)
    elif kind == "rename":
        stem, dot, ext = medium.name.rpartition(".")
        ctx.open_dialog("rename", path=medium.path, name=stem if dot else medium.name, ext=ext if dot else "")
    else:
        ctx.open_dialog(kind, path=medium.path)


def back(ctx: Ctx, dialog: dict[str, Any]) -> None:
    """BACK on a dialog: the file picker goes one folder up first (FilePickerDialog.kt:77-89)."""
    if dialog["kind"] == "files":
        crumbs = _crumbs(dialog["at"])
        if len(crumbs) > 1:
            dialog["at"] = crumbs[-2][1]
            ctx.state.pop("files_scroll", None)
            return
    ctx.close_dialog()


def build(ctx: Ctx, dialog: dict[str, Any]) -> View | None:
    builders: dict[str, Callable[[Ctx, dict[str, Any]], View]] = {
        "all_files": lambda c, d: all_files_dialog(c), "delete": _delete, "pick": _pick, "files": _files,
        "rename": _rename, "properties": _properties}
    make = builders.get(dialog["kind"])
    return make(ctx, dialog) if make is not None else None


# ---------------------------------------------------------------------------------------------- all files
def all_files_dialog(ctx: Ctx) -> View:
    def all_files() -> None:
        ctx.close_dialog()
        settings = ctx.device.apps.get("com.android.settings")
        opener = getattr(settings, "open_all_files_access", None)
        if callable(opener):
            opener(ctx.device, D.PACKAGE)

    return w.dialog(ctx.frame, "", ALL_FILES_MESSAGE, buttons=[(T.text("media_only_button"), ctx.close_dialog),
                                                               (T.text("all_files_button"), all_files)],
                    button_ids=["android:id/button3", "android:id/button1"], on_dismiss=ctx.close_dialog,
                    message_rid=T.rid("all_files_message"), title_rid=TITLE_RID)


# ---------------------------------------------------------------------------------------------- delete
def _delete(ctx: Ctx, dialog: dict[str, Any]) -> View:
    path = dialog["path"]
    in_bin = path.startswith(D.FILES_DIR)
    size = D.format_size(ctx.device.fs.host(path).stat().st_size) if ctx.device.fs.host(path).exists() else "0 B"
    what = f"\"{posixpath.basename(path)}\" ({size})"
    message = (DELETE_CONFIRM if in_bin else RECYCLE_CONFIRM).format(what=what)
    checks = dialog.setdefault("checks", {"delete_remember": False, "delete_skip_bin": False})

    def yes() -> None:
        ctx.close_dialog()
        if in_bin or checks["delete_skip_bin"]:
            D.delete_file(ctx.device, path)
        else:
            D.recycle(ctx.device, path)
        after_removal(ctx)

    def toggle(entry: str) -> Callable[[], None]:
        def run() -> None:
            checks[entry] = not checks[entry]
        return run

    shown = ["delete_remember"] + ([] if in_bin else ["delete_skip_bin"])

    def content(box: Bounds) -> list[View]:
        holder = View(cls="android.widget.RelativeLayout", bounds=box,
                      resource_id=f"{D.PACKAGE}:id/delete_remember_holder")
        holder.add(w.label((box[0], box[1], box[2], box[1] + dp(72)), message, rid=T.rid("delete_message"),
                           max_lines=3, valign="top"))
        for i, entry in enumerate(shown):
            y = box[1] + dp(76) + i * dp(48)
            holder.add(View(cls="android.widget.CheckBox", bounds=(box[0], y, box[2], y + dp(48)),
                            text=T.text(entry), resource_id=T.rid(entry), checkable=True, checked=checks[entry],
                            clickable=True, on_click=toggle(entry),
                            style=Style(font_size=theme.TEXT_BODY, padding=dp(8))))
        return [holder]

    return w.dialog(ctx.frame, "", buttons=[(T.text("delete_no"), ctx.close_dialog), (T.text("delete_yes"), yes)],
                    content=content, content_height=dp(80) + dp(48) * len(shown), on_dismiss=ctx.close_dialog,
                    title_rid=TITLE_RID)


# ---------------------------------------------------------------------------------------------- copy / move
def _transfer(ctx: Ctx, source: str, folder: str, move: bool) -> None:
    """copyMoveFilesTo into ``folder`` (ViewPagerActivity.kt:666-686), with its toast."""
    done = D.copy_file(ctx.device, source, folder, move=move)
    if done is None:
        return
    ctx.toast(T.text("move_done_toast" if move else "copy_done_toast"))
    if move:
        after_removal(ctx)


def _pick(ctx: Ctx, dialog: dict[str, Any]) -> View:
    source, move = dialog["source"], bool(dialog.get("move"))
    source_dir = posixpath.dirname(source)
    folders = [f for f in D.folders(ctx.device) if f.path != D.RECYCLE_BIN]

    def choose(folder: D.Folder) -> Callable[[], None]:
        def run() -> None:
            if folder.path == source_dir:
                ctx.toast(SAME_FOLDER)
                return
            ctx.close_dialog()
            _transfer(ctx, source, folder.path, move)
        return run

    def other() -> None:
        start = D.last_copy_path(ctx.device)
        if not start or not ctx.device.fs.host(start).is_dir():
            start = source_dir
        ctx.open_dialog("files", source=source, move=move, at=start)

    def content(box: Bounds) -> list[View]:
        holder = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=box,
                      resource_id=T.rid("pick_dir_holder"))
        search = View(cls="android.widget.LinearLayout", bounds=(box[0], box[1], box[2], box[1] + dp(48)),
                      resource_id=T.rid("pick_dir_search"))
        search.add(w.text_field((box[0] + dp(40), box[1], box[2], box[1] + dp(48)), "", lambda _t: None,
                                key="pick_dir_search", hint=T.text("search_folders_hint"), rid=T.rid("search_field"),
                                outlined=False))
        holder.add(search)
        area = (box[0], box[1] + dp(56), box[2], box[3])
        rows = grid_rows(area, len(folders), 2, lambda i, b: folder_tile(ctx, b, folders[i], choose(folders[i])))
        holder.add(parts.recycler(ctx, "pick_dir_grid", area, rows, key="pick_scroll"))
        return [holder]

    size = (ctx.frame[2] - ctx.frame[0] - dp(96)) // 2
    height = dp(56) + size * min(2, (len(folders) + 1) // 2)
    return w.dialog(ctx.frame, T.text("pick_dir_title"),
                    buttons=[(T.text("pick_dir_other"), other), (T.text("pick_dir_cancel"), ctx.close_dialog),
                             (T.text("pick_dir_ok"), ctx.close_dialog)],
                    button_ids=["android:id/button3", "android:id/button2", "android:id/button1"],
                    content=content, content_height=height, on_dismiss=ctx.close_dialog, title_rid=TITLE_RID)


def _crumbs(path: str) -> list[tuple[str, str]]:
    """Breadcrumbs.setBreadcrumb: (text, path) per segment, the storage root humanized."""
    out = [(T.text("breadcrumb_root"), D.STORAGE)]
    rel = path.removeprefix(D.STORAGE).strip("/")
    at = D.STORAGE
    for part in [p for p in rel.split("/") if p]:
        at = f"{at}/{part}"
        out.append((f"> {part}", at))
    return out


def _files(ctx: Ctx, dialog: dict[str, Any]) -> View:
    at = dialog["at"]
    source, move = dialog["source"], bool(dialog.get("move"))
    host = ctx.device.fs.host(at)
    entries = sorted(((p.is_dir(), p.name) for p in host.iterdir() if not p.name.startswith(".")),
                     key=lambda e: (not e[0], e[1].lower())) if host.is_dir() else []

    def go(path: str) -> Callable[[], None]:
        def run() -> None:
            dialog["at"] = path
            ctx.state.pop("files_scroll", None)
        return run

    def ok() -> None:
        ctx.close_dialog()
        D.set_last_copy_path(ctx.device, at)
        _transfer(ctx, source, at, move)

    row_h = dp(56)

    def content(box: Bounds) -> list[View]:
        holder = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=box,
                      resource_id=f"{D.PACKAGE}:id/filepicker_coordinator")
        crumbs = View(cls="android.widget.HorizontalScrollView", bounds=(box[0], box[1], box[2], box[1] + dp(40)),
                      resource_id=T.rid("file_picker_breadcrumbs"))
        x = box[0]
        for text, path in _crumbs(at):
            width = min(box[2] - x, w.text_button_width(text))
            crumbs.add(View(cls="android.widget.TextView", bounds=(x, box[1], x + width, box[1] + dp(40)), text=text,
                            resource_id=T.rid("breadcrumb"), clickable=True, on_click=go(path),
                            style=Style(font_size=theme.TEXT_BODY, align="center")))
            x += width
        holder.add(crumbs)
        area = (box[0], box[1] + dp(44), box[2], box[3])

        def row(is_dir: bool, name: str) -> Callable[[int], View]:
            def make(y: int) -> View:
                view = View(cls="android.widget.RelativeLayout", bounds=(box[0], y, box[2], y + row_h),
                            resource_id=T.rid("file_picker_row"), clickable=is_dir,
                            on_click=go(f"{at.rstrip('/')}/{name}") if is_dir else None)
                view.add(View(cls="android.widget.ImageView", bounds=(box[0], y + dp(12), box[0] + dp(32), y + dp(44)),
                              resource_id=f"{D.PACKAGE}:id/list_item_icon",
                              style=Style(icon="folder" if is_dir else "file",
                                          icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
                view.add(w.label((box[0] + dp(44), y, box[2], y + row_h), name, rid=T.rid("file_picker_row_name")))
                return view
            return make

        holder.add(parts.recycler(ctx, "file_picker_list", area, [(row_h, row(d, n)) for d, n in entries],
                                  key="files_scroll"))
        holder.add(View(cls="android.widget.ImageButton", bounds=(box[2] - dp(56), box[3] - dp(56), box[2], box[3]),
                        resource_id=T.rid("file_picker_fab"), style=Style(icon="folder", icon_size=dp(24),
                                                                          bg=theme.PRIMARY_CONTAINER, radius=dp(16))))
        return [holder]

    height = dp(44) + row_h * 8 + dp(8)
    return w.dialog(ctx.frame, T.text("file_picker_title"),
                    buttons=[(T.text("file_picker_cancel"), ctx.close_dialog), (T.text("file_picker_ok"), ok)],
                    content=content, content_height=height, on_dismiss=ctx.close_dialog, title_rid=TITLE_RID)


# ---------------------------------------------------------------------------------------------- rename
def _rename(ctx: Ctx, dialog: dict[str, Any]) -> View:
    def set_field(key: str) -> Callable[[str], None]:
        def run(text: str) -> None:
            dialog[key] = text
        return run

    def ok() -> None:
        name, ext = str(dialog.get("name", "")).strip(), str(dialog.get("ext", "")).strip()
        if not name:
            ctx.toast(EMPTY_NAME)
            return
        new = f"{name}.{ext}" if ext else name
        done = D.rename_file(ctx.device, dialog["path"], new)
        ctx.close_dialog()
        ctx.device.state.ui.focused_id = None
        if done is not None:
            ctx.state["path"] = done

    def content(box: Bounds) -> list[View]:
        holder = View(cls="android.widget.LinearLayout", bounds=box, resource_id=f"{D.PACKAGE}:id/rename_item_holder")
        for i, (entry, key, hint) in enumerate((("rename_name_field", "name", "Title"),
                                                ("rename_extension_field", "ext", "Extension"))):
            y = box[1] + i * dp(72)
            layout = View(cls="android.widget.LinearLayout", bounds=(box[0], y, box[2], y + dp(64)),
                          resource_id=f"{D.PACKAGE}:id/" + ("rename_item_title_hint" if key == "name"
                                                           else "rename_item_extension_hint"))
            layout.add(w.text_field((box[0], y, box[2], y + dp(64)), str(dialog.get(key, "")), set_field(key),
                                    key=T.rid(entry), hint=hint, rid=T.rid(entry)))
            holder.add(layout)
        return [holder]

    return w.dialog(ctx.frame, T.text("rename_title"),
                    buttons=[(T.text("rename_cancel"), ctx.close_dialog), (T.text("rename_ok"), ok)],
                    content=content, content_height=dp(144), on_dismiss=ctx.close_dialog, title_rid=TITLE_RID)


# ---------------------------------------------------------------------------------------------- properties
def _properties(ctx: Ctx, dialog: dict[str, Any]) -> View:
    import datetime as dt

    path = dialog["path"]
    st = ctx.device.fs.host(path).stat()
    when = dt.datetime.fromtimestamp(st.st_mtime, dt.UTC)
    rows = (("Name", posixpath.basename(path)), ("Path", posixpath.dirname(path)),  # commons strings.xml:453, 335
            ("Size", D.format_size(st.st_size)),  # strings.xml:454
            ("Last modified", when.strftime("%d.%m.%Y, %H:%M")))  # strings.xml:455; dd.MM.yyyy and HH:mm

    def copy(value: str) -> Callable[[], None]:
        def run() -> None:
            ctx.device.clipboard.set(value, label="Simple Commons")  # commons donottranslate.xml:4
            ctx.toast(f"Value copied to clipboard:\n{value}")  # commons strings.xml:25
        return run

    def content(box: Bounds) -> list[View]:
        scroll = View(cls="android.widget.ScrollView", bounds=box, resource_id=f"{D.PACKAGE}:id/properties_scrollview")
        holder = View(cls="android.widget.LinearLayout", bounds=box, resource_id=T.rid("properties_holder"))
        for i, (label, value) in enumerate(rows):
            y = box[1] + i * dp(56)
            row = View(cls="android.widget.LinearLayout", bounds=(box[0], y, box[2], y + dp(56)),
                       resource_id=T.rid("property_row"), long_clickable=True, on_long_click=copy(value))
            row.add(w.label((box[0], y, box[0] + dp(110), y + dp(56)), label, rid=T.rid("property_label"), bold=True))
            row.add(w.label((box[0] + dp(114), y, box[2], y + dp(56)), value, rid=T.rid("property_value"),
                            max_lines=2))
            holder.add(row)
        scroll.add(holder)
        return [scroll]

    return w.dialog(ctx.frame, T.text("properties_title"), buttons=[(T.text("properties_ok"), ctx.close_dialog)],
                    content=content, content_height=dp(56) * len(rows), on_dismiss=ctx.close_dialog,
                    title_rid=TITLE_RID)
