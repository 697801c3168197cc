"""MainActivity: Joplin's one Android activity, whose screens are React Native routes (root.tsx's AppNav): the
note list ("Notes", Notes.tsx / NoteList.tsx / note-item.js) under the side menu (side-menu-content.tsx), a note
("Note", Note.tsx) in view mode (the body in a WebView, :mod:`.viewer`) or edit mode (the title TextInput and
the CodeMirror editor, a WebView whose content element Chromium reports as an EditText), and the notebook editor
("Folder", folder.js). Every screen has ScreenHeader.tsx's header. React Native views have no resource ids;
the table selects them by content-desc (``accessibilityLabel``), text and class.

Behaviour kept (the table's entries cite each line):

* start (``initialize``): the database opened (first start: created, welcome notebook built), then the notebook
  ``activeFolderId`` names, else the most recently created one, else All notes (root.tsx:686-708);
* the action button ("Add new", react-native-paper FAB.Group) only while a real notebook exists; "New note" saves
  an empty provisional note in the current notebook (All notes: the active or the latest notebook) and opens it
  in edit mode;
* every title or body change is written at once (the app's 500 ms save queue, Note.tsx:621-633); a provisional
  note without a title of its own takes its body's first line (note-screen-shared.ts:95-99);
* BACK (or the header's Back) in edit mode of a saved note returns to view mode, otherwise to the list
  (Note.tsx:210-237);
* opening a note asks for ACCESS_FINE_LOCATION while it is not granted (Note.tsx:478-492, 515);
* Delete (Actions menu) moves the note to the trash at once; "Copy Markdown link" puts ``[title](:/id)`` on the
  clipboard.

Activity state: ``route`` (a dict: ``name`` Notes / Note / Folder and its fields), ``history`` (routes to go back
to), ``side`` (side menu open), ``fab`` (action button open), ``menu`` (Actions menu open), ``sel`` /
``vscroll`` (the viewer's selection and scroll).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.joplin import data as D
from emukit.vdevice.apps.joplin import viewer
from emukit.vdevice.apps.joplin.data import T
from emukit.vdevice.apps.permissions import request_permissions
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.state import ClipState
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
GROUP = "android.view.ViewGroup"  # ReactViewGroup
TEXT = "android.widget.TextView"  # ReactTextView
BUTTON = T.cls("sidebar_button")  # accessibilityRole "button"
EDIT = T.cls("title_field")  # ReactEditText
HEADER_H = dp(56)
ROW_H = dp(52)
FINE_LOCATION = "android.permission.ACCESS_FINE_LOCATION"
LOCATION_REQUEST = 7
FAB_RED = (231, 76, 60)  # ActionButton.tsx:85
ACTION_PURPLE = (155, 89, 182)  # Notes.tsx:258, 269
TITLE_KEY, BODY_KEY, FOLDER_KEY = "joplin:title", "joplin:body", "joplin:folder_title"


# ------------------------------------------------------------------------------------------------ navigation
def navigate(ctx: Ctx, route: dict[str, Any]) -> None:
    """NAV_GO: the current route is kept for BACK."""
    history = list(ctx.state.get("history", []))
    history.append(ctx.state["route"])
    ctx.state["history"] = history
    _enter(ctx, route)


def go_back(ctx: Ctx) -> bool:
    """NAV_BACK: the previous route; False at the first one."""
    history = list(ctx.state.get("history", []))
    if not history:
        return False
    route = history.pop()
    ctx.state["history"] = history
    _enter(ctx, route)
    return True


def _enter(ctx: Ctx, route: dict[str, Any]) -> None:
    for key in ("side", "fab", "menu", "sel", "vscroll"):
        ctx.state.pop(key, None)
    ctx.device.state.ui.focused_id = None
    ctx.state["route"] = dict(route)
    if route["name"] == "Notes" and route.get("folder"):
        D.set_setting(ctx.device, "activeFolderId", route["folder"], D.STRING)
    if route["name"] == "Folder":
        ctx.device.state.ui.focused_id = FOLDER_KEY  # autoFocus (folder.js:101)


def _mount_note(ctx: Ctx) -> None:
    """The note screen's componentDidMount: requestGeoLocationPermissions while the location is not granted
    (trackLocation defaults to true, Setting.ts:1052; Note.tsx:478-492, 515)."""
    if not ctx.device.permission_granted(T.package, FINE_LOCATION):
        request_permissions(ctx.device, ctx.act, [FINE_LOCATION], LOCATION_REQUEST)


def start_route(device: Any) -> dict[str, Any]:
    """The route ``initialize`` opens (root.tsx:686-708)."""
    active = D.setting(device, "activeFolderId")
    folder = D.folder(device, active) if active else None
    if folder is None or folder["deleted_time"]:
        folder = D.default_folder(device)
    if folder is None:
        return {"name": "Notes", "folder": None}
    return {"name": "Notes", "folder": folder["id"]}


def open_note(ctx: Ctx, note_id: str) -> None:
    navigate(ctx, {"name": "Note", "note": note_id, "mode": "view", "provisional": False, "auto_title": False})
    _mount_note(ctx)


def new_note(ctx: Ctx, *, is_todo: bool = False) -> None:
    """newNoteNavigate (Notes.tsx:155-169) into the notebook the button targets."""
    folder_id = _target_folder(ctx)
    if folder_id is None:
        return
    note_id = D.save_new_note(ctx.device, folder_id, is_todo=is_todo)
    navigate(ctx, {"name": "Note", "note": note_id, "mode": "edit", "provisional": True, "auto_title": True})
    _mount_note(ctx)


def _target_folder(ctx: Ctx) -> str | None:
    folder_id = ctx.state["route"].get("folder") or D.setting(ctx.device, "activeFolderId")
    if folder_id and D.folder(ctx.device, folder_id) is not None:
        return folder_id
    latest = D.default_folder(ctx.device)
    return latest["id"] if latest is not None else None


# ------------------------------------------------------------------------------------------------ the screen
class MainScreen(Screen):
    activity = ".MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        D.open_database(ctx.device)
        ctx.state.update(route=start_route(ctx.device), history=[])

    def on_permissions_result(self, ctx: Ctx, code: int, results: dict[str, bool]) -> None:
        """The location answer changes nothing on screen (only the geo-location saved with notes)."""

    def on_back(self, ctx: Ctx) -> bool:
        for key in ("menu", "fab", "side"):
            if ctx.state.pop(key, None):
                return True
        ctx.state.pop("sel", None)  # the page does not handle BACK
        route = ctx.state["route"]
        if route["name"] == "Note" and route["mode"] == "edit" and not route.get("provisional"):
            ctx.state["route"] = {**route, "mode": "view"}
            ctx.device.state.ui.focused_id = None
            return True
        return go_back(ctx)

    def build(self, ctx: Ctx) -> View:
        D.open_database(ctx.device)
        root = View(cls="android.widget.FrameLayout", bounds=ctx.frame, style=Style(bg=theme.BACKGROUND))
        route = ctx.state["route"]
        if route["name"] == "Note" and D.note(ctx.device, route["note"]) is None:
            go_back(ctx)
            route = ctx.state["route"]
        if route["name"] == "Note":
            self._note(ctx, root, route)
        elif route["name"] == "Folder":
            self._folder(ctx, root)
        else:
            self._notes(ctx, root, route)
        return root

    # ------------------------------------------------------------------ header (ScreenHeader.tsx)
    def _header(self, ctx: Ctx, title: str, *, side: bool = False, back: bool = False, save: Callable[[], Any] |
                None = None, search: bool = False, menu: bool = False) -> View:
        left, top, right, _ = ctx.frame
        bar = View(cls=GROUP, bounds=(left, top, right, top + HEADER_H), style=Style(bg=theme.SURFACE))
        touch = dp(48)
        inset = (HEADER_H - touch) // 2
        x = left + dp(4)

        def button(entry: str, icon: str, on_click: Callable[[], Any] | None, at: int) -> View:
            return View(cls=T.entry(entry).class_name or BUTTON, bounds=(at, top + inset, at + touch, top + inset + touch),
                        content_desc=T.desc(entry), clickable=True, focusable=True, on_click=on_click,
                        style=Style(icon=icon, icon_color=theme.TEXT, icon_size=dp(24)))

        if side:
            bar.add(button("sidebar_button", "menu", lambda: ctx.state.__setitem__("side", True), x))
            x += touch
        if back:
            bar.add(button("back_button", "arrow_back", lambda: self.on_back(ctx), x))
            x += touch
        if save is not None:
            bar.add(button("save_changes_button", "check", save, x))
            x += touch
        end = right - dp(4)
        trailing: list[View] = []
        if menu:
            end -= touch
            trailing.append(View(cls=GROUP, bounds=(end, top + inset, end + touch, top + inset + touch),
                                 content_desc=T.desc("actions_menu"), clickable=True, focusable=True,
                                 on_click=lambda: ctx.state.__setitem__("menu", True),
                                 style=Style(icon="more_vert", icon_color=theme.TEXT, icon_size=dp(24))))
        if search:
            end -= touch
            trailing.append(button("sort_button", "sort", None, end))
            end -= touch
            trailing.append(button("search_button", "search", None, end))
        bar.add(View(cls=TEXT, bounds=(x + dp(8), top, end - dp(8), top + HEADER_H), text=title,
                     style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE, bold=True, valign="center")))
        bar.add(*reversed(trailing))
        return bar

    # ------------------------------------------------------------------ Notes
    def _notes(self, ctx: Ctx, root: View, route: dict[str, Any]) -> None:
        device = ctx.device
        folder_id = route.get("folder")
        folder = D.folder(device, folder_id) if folder_id else None
        if folder_id and (folder is None or folder["deleted_time"]):
            folder_id, folder = None, None
            ctx.state["route"] = {"name": "Notes", "folder": None}
        title = folder["title"] if folder is not None else T.text("side_all_notes")
        root.add(self._header(ctx, title, side=True, search=True))
        left, top, right, bottom = ctx.frame
        area = (left, top + HEADER_H, right, bottom)
        rows = D.notes(device, folder_id)
        real = D.folders(device)
        if rows:
            def row(note: dict[str, Any]) -> tuple[int, Callable[[int], View]]:
                def make(y: int) -> View:
                    item = View(cls=GROUP, bounds=(left, y, right, y + ROW_H), clickable=True, focusable=True,
                                on_click=lambda: open_note(ctx, note["id"]))
                    item.add(View(cls=TEXT, bounds=(left + dp(16), y, right - dp(16), y + ROW_H),
                                  text=D.display_title(note),
                                  style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, valign="center")))
                    item.add(w.divider(left, y + ROW_H - 1, right))
                    return item
                return ROW_H, make

            def set_scroll(value: int) -> None:
                ctx.state["scroll"] = value

            root.add(w.scroll_list(area, [row(n) for n in rows], int(ctx.state.get("scroll", 0)), set_scroll,
                                   cls=T.cls("notes_list")))
        elif not real:
            box = View(cls=GROUP, bounds=(area[0], area[1], area[2], area[1] + dp(160)))
            box.add(View(cls=TEXT, bounds=(left + dp(16), area[1] + dp(24), right - dp(16), area[1] + dp(72)),
                         text=T.text("no_notebooks"),
                         style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, align="center")))
            box.add(View(cls=T.cls("create_notebook"), text=T.text("create_notebook"),
                         bounds=(left + dp(96), area[1] + dp(88), right - dp(96), area[1] + dp(128)),
                         clickable=True, focusable=True, on_click=lambda: navigate(ctx, {"name": "Folder"}),
                         style=Style(bg=theme.PRIMARY, fg=theme.ON_PRIMARY, font_size=theme.TEXT_LABEL,
                                     align="center", radius=dp(2))))
            root.add(box)
        else:
            root.add(View(cls=TEXT, bounds=(left + dp(16), area[1] + dp(24), right - dp(16), area[1] + dp(96)),
                          text=T.text("no_notes"),
                          style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, align="center", max_lines=3)))
        if real:
            root.add(*self._fab(ctx))
        if ctx.state.get("side"):
            root.add(self._side_menu(ctx, real, folder_id))

    def _fab(self, ctx: Ctx) -> list[View]:
        """ActionButton: the red "Add new" button; open, the scrim and the two actions above it."""
        _left, _top, right, bottom = ctx.frame
        size = dp(56)
        x1, y1 = right - dp(16), bottom - dp(16)

        def toggle() -> None:
            ctx.state.pop("side", None)
            ctx.state["fab"] = not ctx.state.get("fab")

        main = View(cls=BUTTON, bounds=(x1 - size, y1 - size, x1, y1), content_desc=T.desc("fab_add"),
                    clickable=True, focusable=True, on_click=toggle,
                    style=Style(bg=FAB_RED, radius=dp(16), elevation=dp(6),
                                icon="close" if ctx.state.get("fab") else "plus", icon_color=(255, 255, 255),
                                icon_size=dp(24)))
        if not ctx.state.get("fab"):
            return [main]
        scrim = View(bounds=ctx.frame, clickable=True, on_click=lambda: ctx.state.pop("fab", None),
                     style=Style(bg=(255, 255, 255), bg_alpha=200))
        views = [scrim]
        small = dp(40)
        y = y1 - size - dp(16)
        for entry, todo in (("fab_new_note", False), ("fab_new_todo", True)):
            label = T.desc(entry)

            def press(todo: bool = todo) -> None:
                ctx.state.pop("fab", None)
                new_note(ctx, is_todo=todo)

            cx = x1 - size // 2
            views.append(View(cls=TEXT, bounds=(cx - small // 2 - dp(140), y - small + dp(8), cx - small // 2 - dp(12),
                                                y - dp(8)), text=label,
                              style=Style(bg=theme.SURFACE, fg=theme.TEXT, font_size=theme.TEXT_LABEL, align="center",
                                          radius=dp(4))))
            views.append(View(cls=BUTTON, bounds=(cx - small // 2, y - small, cx + small // 2, y), content_desc=label,
                              clickable=True, focusable=True, on_click=press,
                              style=Style(bg=ACTION_PURPLE, radius=dp(12), icon="note" if not todo else "check",
                                          icon_color=(255, 255, 255), icon_size=dp(20))))
            y -= small + dp(16)
        views.append(main)
        return views

    def _side_menu(self, ctx: Ctx, real: list[dict[str, Any]], current: str | None) -> View:
        """side-menu-content.tsx: All notes, the Notebooks header and the notebooks, then New Notebook, Tags,
        Configuration and Synchronise; a tap beside it closes it."""
        left, top, right, bottom = ctx.frame
        layer = View(bounds=ctx.frame, clickable=True, on_click=lambda: ctx.state.pop("side", None),
                     style=Style(bg=(0, 0, 0), bg_alpha=90))
        width = int((right - left) * 0.8)
        panel = View(cls="android.widget.ScrollView", bounds=(left, top, left + width, bottom),
                     style=Style(bg=theme.SURFACE))
        y = top + dp(8)

        def item(text: str, on_click: Callable[[], Any] | None, *, selected: bool = False, indent: int = 16) -> None:
            nonlocal y
            box = View(cls=GROUP, bounds=(left, y, left + width, y + dp(48)), clickable=on_click is not None,
                       focusable=on_click is not None, on_click=on_click,
                       style=Style(bg=theme.SURFACE_VARIANT if selected else None))
            box.add(View(cls=TEXT, bounds=(left + dp(indent), y, left + width - dp(8), y + dp(48)), text=text,
                         style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, valign="center")))
            panel.add(box)
            y += dp(48)

        def go(folder_id: str | None) -> Callable[[], None]:
            def run() -> None:
                navigate(ctx, {"name": "Notes", "folder": folder_id})
            return run

        item(T.text("side_all_notes"), go(None), selected=current is None)
        item(T.text("side_notebooks"), None)
        for f in real:
            item(f["title"], go(f["id"]), selected=current == f["id"], indent=40)
        y += dp(16)

        def new_folder() -> None:
            navigate(ctx, {"name": "Folder"})

        def close() -> None:
            ctx.state.pop("side", None)

        item(T.text("side_new_notebook"), new_folder)
        item(T.text("side_tags"), close)
        item(T.text("side_configuration"), close)
        y += dp(16)
        item(T.text("side_synchronise"), close)
        layer.add(panel)
        return layer

    # ------------------------------------------------------------------ Folder
    def _folder(self, ctx: Ctx, root: View) -> None:
        draft = str(ctx.state["route"].get("title", ""))

        def save() -> None:
            if not draft:  # saveButtonDisabled (folder.js:93)
                return
            folder_id = D.create_folder(ctx.device, draft)
            _enter(ctx, {"name": "Notes", "folder": folder_id})  # NAV_GO to the new notebook (folder.js:85-89)

        root.add(self._header(ctx, "Edit notebook", back=True, save=save))
        left, top, right, _ = ctx.frame

        def on_text(text: str) -> None:
            ctx.state["route"] = {**ctx.state["route"], "title": text}

        field = w.text_field((left + dp(8), top + HEADER_H + dp(8), right - dp(8), top + HEADER_H + dp(64)), draft,
                             on_text, key=FOLDER_KEY, hint=T.text("folder_title_hint"), outlined=False)
        field.cls = T.cls("folder_title_field")
        root.add(field)

    # ------------------------------------------------------------------ Note
    def _note(self, ctx: Ctx, root: View, route: dict[str, Any]) -> None:
        device = ctx.device
        note = D.note(device, route["note"])
        assert note is not None
        folder = D.folder(device, note["parent_id"])
        root.add(self._header(ctx, folder["title"] if folder is not None else "", back=True, menu=True))
        left, top, right, bottom = ctx.frame
        title_box = (left + dp(8), top + HEADER_H, right - dp(8), top + HEADER_H + dp(56))

        def on_title(text: str) -> None:
            ctx.state["route"] = {**ctx.state["route"], "auto_title": False}
            D.update_note(device, route["note"], title=text)

        title = w.text_field(title_box, str(note["title"]), on_title, key=TITLE_KEY, hint=T.text("title_hint"),
                             outlined=False, size=theme.TEXT_TITLE)
        title.cls = EDIT
        holder = View(cls=GROUP, bounds=(left, top + HEADER_H, right, top + HEADER_H + dp(56)))
        holder.add(title)
        root.add(holder)
        body_area = (left, top + HEADER_H + dp(56), right, bottom)
        if route["mode"] == "view":
            if str(note["body"]).strip():
                viewer.build(device, ctx.act, body_area, root, str(note["body"]))
            root.add(self._edit_button(ctx))
        else:
            root.add(self._editor(ctx, body_area, note))
        if ctx.state.get("menu"):
            root.add(self._actions(ctx, note))

    def _edit_button(self, ctx: Ctx) -> View:
        _left, _top, right, bottom = ctx.frame
        size = dp(56)
        x1, y1 = right - dp(16), bottom - dp(16)

        def edit() -> None:
            ctx.state["route"] = {**ctx.state["route"], "mode": "edit"}
            ctx.state.pop("sel", None)

        return View(cls=BUTTON, bounds=(x1 - size, y1 - size, x1, y1), content_desc=T.desc("fab_edit"),
                    clickable=True, focusable=True, on_click=edit,
                    style=Style(bg=FAB_RED, radius=dp(16), elevation=dp(6), icon="edit", icon_color=(255, 255, 255),
                                icon_size=dp(24)))

    def _editor(self, ctx: Ctx, area: Bounds, note: dict[str, Any]) -> View:
        """NoteEditor: the View with testID note-editor-root, the CodeMirror WebView (its page's root web area,
        then the content element, a text field to Chromium)."""
        device = ctx.device
        note_id = note["id"]

        def on_body(text: str) -> None:
            fields: dict[str, Any] = {"body": text}
            if ctx.state["route"].get("auto_title"):
                fields["title"] = D.title_from_body(text)
            D.update_note(device, note_id, **fields)

        root = View(cls=GROUP, bounds=area, resource_id=T.rid("editor_root"))
        web = View(cls=T.cls("body_viewer"), bounds=area)
        page = View(cls=T.cls("body_viewer"), bounds=area)
        field = w.text_field((area[0] + dp(8), area[1], area[2] - dp(8), area[3] - dp(8)), str(note["body"]),
                             on_body, key=BODY_KEY, outlined=False, max_lines=40)
        field.cls = T.cls("body_editor")
        page.add(field)
        web.add(page)
        root.add(web)
        return root

    def _actions(self, ctx: Ctx, note: dict[str, Any]) -> View:
        """The Actions menu (Note.tsx menuOptions, in order) for a saved, non-deleted note."""
        device = ctx.device

        def close() -> None:
            ctx.state.pop("menu", None)

        def copy_link() -> None:
            close()
            row = D.note(device, note["id"])
            if row is not None:
                device.state.clip = ClipState(label="", text=D.markdown_tag(row), mime_type="text/plain")

        def toggle_todo() -> None:
            close()
            D.update_note(device, note["id"], is_todo=0 if note["is_todo"] else 1)

        def delete() -> None:
            close()
            D.trash_note(device, note["id"])
            history = list(ctx.state.get("history", []))
            if history and history[-1]["name"] == "Notes":  # NAV_GO to the note's notebook (Note.tsx:653-657)
                ctx.state["history"] = history[:-1]
            _enter(ctx, {"name": "Notes", "folder": note["parent_id"]})

        items = [(T.text("menu_attach"), close), (T.text("menu_draw_picture"), close), (T.text("menu_share"), close),
                 (T.text("menu_tags"), close),
                 (T.text("menu_convert_to_note" if note["is_todo"] else "menu_convert_to_todo"), toggle_todo),
                 (T.text("menu_copy_markdown_link"), copy_link), (T.text("menu_properties"), close),
                 (T.text("menu_delete"), delete)]
        return w.popup_menu(ctx.frame, (ctx.frame[2] - dp(8), ctx.frame[1] + dp(8)), items, close, "")
