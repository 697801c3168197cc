"""The Files screen (``FilesActivity``) built from its state: toolbar (browse, search or selection mode),
breadcrumb or search chips, the ``Files in ...`` header with the sort control, the list, and on top the
popup menus, the roots drawer, dialogs or the text viewer. State changes live in :mod:`.nav`.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from emukit.vdevice.apps.files import nav, parts
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.apps.files.parts import rid
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    state = act.state
    path = nav.current_path(device, state)
    if state.get("viewer"):
        return _viewer(device, act, frame, state["viewer"])
    left, top, right, bottom = frame
    root = w.screen(frame)
    sel = nav.selection(device, act)
    search = state.get("search")
    if sel:
        root.add(_selection_bar(device, act, frame, len(sel)))
    elif search is not None:
        root.add(_search_bar(device, act, frame, search.get("query", "")))
    else:
        root.add(_browse_bar(device, act, frame, path))
    y = top + w.APP_BAR_H
    if search is not None:
        root.add(parts.chips_row(left, y, right, search.get("chips", []), lambda k: nav.toggle_chip(act, k),
                                 state.get("chip_scroll", 0), lambda v: state.update(chip_scroll=v)))
        y += parts.CHIPS_H
    else:
        root.add(parts.breadcrumb(left, y, right, [(label, lambda p=p: _crumb(device, act, p))
                                                   for label, p in nav.crumbs(state, path)]))
        y += parts.CRUMB_H
    order = nav.sort_order(device)
    short, long_ = nav.SORTS[order]
    sort = parts.sort_button(right, y, short, f"Sort by {long_}", lambda: state.update(menu="sort"))
    root.add(parts.header(left, y, right, nav.header_title(state, path), sort))
    y += parts.HEADER_H
    area = (left, y, right, bottom)
    entries = nav.listing(device, act)
    if not entries:
        if nav.searching(state):
            root.add(parts.empty(area, f"No matches in {nav.root_label(state)}", "search"))
        else:
            root.add(parts.empty(area, "No items"))
    else:
        root.add(_list(device, act, area, entries, sel))
    root.add(*_overlays(device, act, frame, sort.bounds, sel))
    return root


def _crumb(device: VirtualDevice, act: Activity, path: str) -> None:
    if path != nav.current_path(device, act.state):
        nav.go(act, path)


def _list(device: VirtualDevice, act: Activity, area: Bounds, entries: list[st.Entry], sel: list[str]) -> View:
    selecting = bool(sel)

    def row(entry: st.Entry, top: int) -> View:
        def click() -> None:
            if act.state.get("sel"):
                nav.toggle(act, entry.path)
            else:
                nav.open_entry(device, act, entry)

        return parts.file_row(device, area, top, entry, on_click=click,
                              on_long_click=lambda: nav.toggle(act, entry.path), selecting=selecting,
                              selected=entry.path in sel)

    rows = [(parts.ROW_H, lambda top, e=e: row(e, top)) for e in entries]
    return w.scroll_list(area, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                         rid=rid("dir_list"), padding_bottom=48)


# ------------------------------------------------------------------ toolbars
def _browse_bar(device: VirtualDevice, act: Activity, frame: Bounds, path: str) -> View:
    state = act.state
    if path == nav.root_top(state):
        leading = w.Action("menu", "Show roots", lambda: state.update(drawer=True, menu=None))
    else:
        leading = w.Action("arrow_back", "Navigate up", lambda: nav.up(device, act))
    actions = [w.Action("search", "Search", lambda: nav.open_search(device, act), rid("option_menu_search")),
               w.Action("more_vert", "More options", lambda: state.update(menu="overflow"),
                        rid("option_menu_overflow"))]
    return parts.top_bar(frame, nav.folder_label(state, path), leading, actions, title_rid=rid("toolbar_title"))


def _search_bar(device: VirtualDevice, act: Activity, frame: Bounds, query: str) -> View:
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H),
               resource_id=rid("toolbar"), style=Style(bg=theme.BACKGROUND))
    pill = View(cls="android.widget.LinearLayout", bounds=(left + 24, top + 18, right - 24, top + w.APP_BAR_H - 18),
                resource_id=rid("search_view"), style=Style(bg=theme.SURFACE_VARIANT, radius=66))
    bar.add(pill)
    bar.add(w.icon_button((left + 36, top + 21, left + 36 + w.TOUCH, top + 21 + w.TOUCH),
                          w.Action("arrow_back", "Navigate up", lambda: _leave_search(device, act)),
                          color=theme.TEXT))
    end = right - 40
    if query:
        bar.add(w.icon_button((end - w.TOUCH, top + 21, end, top + 21 + w.TOUCH),
                              w.Action("close", "Clear query", lambda: nav.clear_query(device, act),
                                       rid("search_close_btn")), color=theme.TEXT))
        end -= w.TOUCH
    bar.add(w.text_field((left + 170, top + 24, end, top + w.APP_BAR_H - 24), query,
                         lambda text: nav.set_query(act, text), key=nav.SEARCH_KEY, rid=nav.SEARCH_KEY,
                         hint=f"Search {nav.root_label(act.state)}", on_submit=lambda: nav.submit_query(device, act),
                         outlined=False))
    return bar


def _leave_search(device: VirtualDevice, act: Activity) -> None:
    nav.close_search(act)
    nav.unfocus(device)


def _selection_bar(device: VirtualDevice, act: Activity, frame: Bounds, count: int) -> View:
    state = act.state
    leading = w.Action("close", "Close", lambda: state.update(sel=[], menu=None), rid("action_mode_close_button"))
    actions = [w.Action("delete", "Delete", lambda: nav.ask_delete(device, act), rid("action_menu_delete")),
               w.Action("more_vert", "More options", lambda: state.update(menu="selection"),
                        rid("action_menu_overflow"))]
    return parts.top_bar(frame, f"{count} selected", leading, actions, bg=theme.PRIMARY_CONTAINER,
                         title_rid=rid("action_bar_title"))


# ------------------------------------------------------------------ menus, drawer, dialogs
def _overlays(device: VirtualDevice, act: Activity, frame: Bounds, sort_box: Bounds, sel: list[str]) -> list[View]:
    state = act.state
    out: list[View] = []
    menu = state.get("menu")
    close = lambda: state.pop("menu", None)
    anchor = (frame[2] - 24, frame[1] + 24)
    if menu == "overflow" and not sel:
        items = [("New folder", lambda: nav.ask_name(device, act, "new_folder"))]
        if nav.listing(device, act):
            items.append(("Select all", lambda: nav.select_all(device, act)))
        out.append(w.popup_menu(frame, anchor, items, close))
    elif menu == "selection" and sel:
        items = [("Select all", lambda: nav.select_all(device, act)),
                 ("Copy to\u2026", lambda: nav.start_transfer(device, act, "copy")),
                 ("Move to\u2026", lambda: nav.start_transfer(device, act, "move"))]
        if len(sel) == 1:
            items.append(("Rename", lambda: nav.ask_name(device, act, "rename")))
        out.append(w.popup_menu(frame, anchor, items, close))
    elif menu == "sort":
        items = [(label, lambda key=key: nav.set_sort(device, act, key)) for key, (_, label) in nav.SORTS.items()]
        out.append(w.popup_menu(frame, (sort_box[2], sort_box[1]), items, close))
    if state.get("drawer"):
        out.append(parts.roots_drawer(frame, state.get("root", "downloads"), lambda key: nav.go_root(act, key),
                                      lambda: state.update(drawer=False)))
    dialog = state.get("dialog")
    if dialog:
        out.append(_dialog(device, act, frame, dialog))
    return out


def _dialog(device: VirtualDevice, act: Activity, frame: Bounds, dialog: dict) -> View:
    cancel = lambda: act.state.pop("dialog", None)
    if dialog.get("kind") == "delete":
        return _message_dialog(frame, nav.delete_message(device, dialog.get("paths", [])),
                               [("Cancel", cancel), ("Delete", lambda: nav.confirm_delete(device, act))], cancel)
    error = dialog.get("error", "")

    def set_text(text: str) -> None:
        dialog["text"] = text
        dialog.pop("error", None)

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        views = [w.text_field((x0 + 24, y0, x1 - 24, y0 + 150), dialog.get("text", ""), set_text, key=nav.NAME_KEY,
                              rid=nav.NAME_KEY, hint="Folder name" if dialog.get("kind") == "new_folder" else "Name",
                              on_submit=lambda: nav.confirm_name(device, act))]
        if error:
            views.append(w.label((x0 + 36, y0 + 160, x1 - 24, y0 + 220), error, size=theme.TEXT_SMALL,
                                 color=theme.ERROR, rid=rid("error_message")))
        return views

    title = "New folder" if dialog.get("kind") == "new_folder" else "Rename"
    return w.dialog(frame, title, buttons=[("Cancel", cancel), ("OK", lambda: nav.confirm_name(device, act))],
                    content=content, content_height=230 if error else 170, on_dismiss=cancel)


def _message_dialog(frame: Bounds, message: str, buttons: list, cancel: w.Callback) -> View:
    """An AlertDialog with a message and no title (like DocumentsUI's delete confirmation)."""
    layer = w.dialog(frame, "", message, buttons=buttons, on_dismiss=cancel)
    card = layer.children[0]
    title = next(v for v in card.children if v.resource_id == "android:id/alertTitle")
    card.children.remove(title)
    shift = 88  # the empty title's space
    left, top, right, bottom = card.bounds
    card.bounds = (left, top + shift // 2, right, bottom - shift // 2)
    for view in card.children:
        for v in view.walk():
            v.bounds = (v.bounds[0], v.bounds[1] - shift // 2, v.bounds[2], v.bounds[3] - shift // 2)
            if v.resource_id == "android:id/message":
                v.style.fg = theme.TEXT
    return layer


def _viewer(device: VirtualDevice, act: Activity, frame: Bounds, path: str) -> View:
    """A plain text preview of the opened file."""
    left, top, right, bottom = frame
    root = w.screen(frame)
    root.add(parts.top_bar(frame, posixpath.basename(path),
                           w.Action("arrow_back", "Navigate up", lambda: act.state.pop("viewer", None)),
                           title_rid=rid("toolbar_title")))
    text = st.read_text(device, path) if st.exists(device, path) else ""
    lines = max(1, (bottom - top - w.APP_BAR_H - 96) // 54)
    root.add(View(cls="android.widget.TextView", bounds=(left + 48, top + w.APP_BAR_H + 24, right - 48, bottom - 48),
                  text=text, resource_id=rid("viewer_text"),
                  style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY, valign="top", max_lines=lines)))
    return root
