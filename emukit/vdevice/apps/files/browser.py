"""The Files screen (``FilesActivity``) built from its state: toolbar (browse, search or selection mode),
breadcrumb or search chips, the ``Files in ...`` header with the sort control, the list, and on top the
popup menus, the roots drawer, dialogs or the text viewer. State changes live in :mod:`.nav`.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from emukit.vdevice.apps.files import nav, parts
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.apps.files.parts import T, rid
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import px
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
    root.cls, root.resource_id = T.cls("drawer"), T.rid("drawer")  # drawer_layout.xml: the whole screen
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
                                                   for label, p in nav.crumbs(device, state, path)]))
        y += parts.CRUMB_H
    order = nav.sort_order(device)
    short, long_ = nav.SORTS[order]
    sort = parts.sort_button(right, y, short, f"Sort by {long_}", lambda: state.update(menu="sort"))
    root.add(parts.header(left, y, right, nav.header_title(device, state, path), sort))
    y += parts.HEADER_H
    area = (left, y, right, bottom)
    entries = nav.listing(device, act)
    if not entries:
        if nav.searching(state):
            root.add(parts.empty(area, T.text("no_matches", root=nav.root_label(device, state)), "search"))
        else:
            root.add(parts.empty(area, T.text("no_items")))
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
                         rid=T.rid("dir_list"), padding_bottom=px(48), cls=T.cls("dir_list"))


# ------------------------------------------------------------------ toolbars
def _browse_bar(device: VirtualDevice, act: Activity, frame: Bounds, path: str) -> View:
    """The Toolbar: "Show roots" on every screen (inside folders too), the root or folder title, Search and the
    overflow."""
    state = act.state
    leading = parts.show_roots((0, 0, 0, 0), lambda: state.update(drawer=True, menu=None))
    actions = [parts.action_item((0, 0, 0, 0), "search", "search", lambda: nav.open_search(device, act)),
               parts.more_options((0, 0, 0, 0), lambda: state.update(menu="overflow"))]
    return parts.top_bar(frame, nav.folder_label(device, state, path), leading, actions)


def _search_bar(device: VirtualDevice, act: Activity, frame: Bounds, query: str) -> View:
    """The expanded SearchView in the Toolbar: the collapse button ("Back", app:collapseContentDescription),
    the query field (``search_src_text``) and, with a query, the clear button (``search_close_btn``)."""
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H),
               resource_id=T.rid("toolbar"), style=Style(bg=theme.BACKGROUND))
    pill = View(cls="android.widget.LinearLayout",
                bounds=(left + px(24), top + px(18), right - px(24), top + w.APP_BAR_H - px(18)),
                resource_id=rid("search_view"), style=Style(bg=theme.SURFACE_VARIANT, radius=px(66)))
    bar.add(pill)
    inset = (w.APP_BAR_H - w.TOUCH) // 2
    bar.add(parts.icon_view((left + px(36), top + inset, left + px(36) + w.TOUCH, top + inset + w.TOUCH),
                            "arrow_back", T.desc("search_collapse"), lambda: _leave_search(device, act),
                            cls=T.cls("search_collapse")))
    end = right - px(40)
    if query:
        bar.add(parts.icon_view((end - w.TOUCH, top + inset, end, top + inset + w.TOUCH), "close",
                                T.desc("search_clear"), lambda: nav.clear_query(device, act), cls="android.widget.ImageView",
                                resource_id=T.rid("search_clear")))
        end -= w.TOUCH
    field = w.text_field((left + px(170), top + px(24), end, top + w.APP_BAR_H - px(24)), query,
                         lambda text: nav.set_query(act, text), key=nav.SEARCH_KEY, rid=T.rid("search_field"),
                         hint=f"Search {nav.root_label(device, act.state)}",
                         on_submit=lambda: nav.submit_query(device, act), outlined=False)
    field.cls = T.cls("search_field")
    bar.add(field)
    return bar


def _leave_search(device: VirtualDevice, act: Activity) -> None:
    nav.close_search(act)
    nav.unfocus(device)


def _selection_bar(device: VirtualDevice, act: Activity, frame: Bounds, count: int) -> View:
    """The AppCompat action mode bar: the close button (content-desc "Cancel"), "N selected"
    (``action_bar_title``), Delete as an action item and the overflow with Copy to… / Move to…."""
    state = act.state
    leading = parts.icon_view((0, 0, 0, 0), "close", T.desc("action_mode_close"), lambda: state.update(sel=[], menu=None),
                              cls="android.widget.ImageView", resource_id=T.rid("action_mode_close"))
    actions = [parts.action_item((0, 0, 0, 0), "delete", "action_delete", lambda: nav.ask_delete(device, act)),
               parts.more_options((0, 0, 0, 0), lambda: state.update(menu="selection"))]
    return parts.top_bar(frame, T.text("selection_title", n=count), leading, actions, bg=theme.PRIMARY_CONTAINER,
                         bar_rid=rid("action_context_bar"), title_rid=T.rid("selection_title"))


# ------------------------------------------------------------------ menus, drawer, dialogs
def _overlays(device: VirtualDevice, act: Activity, frame: Bounds, sort_box: Bounds, sel: list[str]) -> list[View]:
    state = act.state
    out: list[View] = []
    menu = state.get("menu")
    close = lambda: state.pop("menu", None)
    anchor = (frame[2] - px(24), frame[1] + px(24))
    if menu == "overflow" and not sel:
        items = [(T.text("menu_new_folder"), lambda: nav.ask_name(device, act, "new_folder"))]
        if nav.listing(device, act):
            items.append((T.text("menu_select_all"), lambda: nav.select_all(device, act)))
        out.append(parts.popup_menu(frame, anchor, items, close))
    elif menu == "selection" and sel:
        items = [(T.text("menu_select_all"), lambda: nav.select_all(device, act)),
                 (T.text("menu_copy_to"), lambda: nav.start_transfer(device, act, "copy")),
                 (T.text("menu_move_to"), lambda: nav.start_transfer(device, act, "move"))]
        if len(sel) == 1:
            items.append((T.text("menu_rename"), lambda: nav.ask_name(device, act, "rename")))
        out.append(parts.popup_menu(frame, anchor, items, close))
    elif menu == "sort":
        items = [(label, lambda key=key: nav.set_sort(device, act, key)) for key, (_, label) in nav.SORTS.items()]
        out.append(parts.popup_menu(frame, (sort_box[2], sort_box[1]), items, close))
    if state.get("drawer"):
        out.append(parts.roots_drawer(device, frame, nav.root_key(state), lambda key: nav.go_root(act, key),
                                      lambda: state.update(drawer=False)))
    dialog = state.get("dialog")
    if dialog:
        out.append(_dialog(device, act, frame, dialog))
    return out


def _dialog(device: VirtualDevice, act: Activity, frame: Bounds, dialog: dict) -> View:
    cancel = lambda: act.state.pop("dialog", None)
    if dialog.get("kind") == "delete":
        return _delete_dialog(frame, nav.delete_message(device, dialog.get("paths", [])),
                              [(T.text("cancel_text"), cancel), (T.text("ok_text"), lambda: nav.confirm_delete(device, act))],
                              cancel)
    error = dialog.get("error", "")

    def set_text(text: str) -> None:
        dialog["text"] = text
        dialog.pop("error", None)

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        views = [w.text_field((x0 + px(24), y0, x1 - px(24), y0 + px(150)), dialog.get("text", ""), set_text,
                              key=nav.NAME_KEY, rid=nav.NAME_KEY,
                              hint="Folder name" if dialog.get("kind") == "new_folder" else "Name",
                              on_submit=lambda: nav.confirm_name(device, act))]
        if error:
            views.append(w.label((x0 + px(36), y0 + px(160), x1 - px(24), y0 + px(220)), error, size=theme.TEXT_SMALL,
                                 color=theme.ERROR, rid=rid("error_message")))
        return views

    title = T.text("menu_new_folder") if dialog.get("kind") == "new_folder" else T.text("menu_rename")
    return w.dialog(frame, title, buttons=[(T.text("cancel_text"), cancel),
                                           (T.text("ok_text"), lambda: nav.confirm_name(device, act))],
                    content=content, content_height=px(230) if error else px(170), on_dismiss=cancel)


def _delete_dialog(frame: Bounds, message: str, buttons: list, cancel: w.Callback) -> View:
    """DeleteDocumentFragment's MaterialAlertDialog: no title; the message is the dialog's own view, a TextView
    without id (dialog_delete_confirmation.xml); Cancel (``button2``) and OK (``button1``)."""
    layer = w.dialog(frame, "", message, buttons=buttons, on_dismiss=cancel)
    card = layer.children[0]
    title = next(v for v in card.children if v.resource_id == "android:id/alertTitle")
    card.children.remove(title)
    shift = px(88)  # the empty title's space
    left, top, right, bottom = card.bounds
    card.bounds = (left, top + shift // 2, right, bottom - shift // 2)
    for view in card.children:
        for v in view.walk():
            v.bounds = (v.bounds[0], v.bounds[1] - shift // 2, v.bounds[2], v.bounds[3] - shift // 2)
            if v.resource_id == "android:id/message":
                v.resource_id, v.cls = "", T.cls("delete_message")
                v.style.fg = theme.TEXT
            elif v.resource_id in (T.rid("delete_confirm"), T.rid("delete_cancel")):
                v.cls = "android.widget.Button"
    return layer


def _viewer(device: VirtualDevice, act: Activity, frame: Bounds, path: str) -> View:
    """A plain text preview of the opened file (DocumentsUI hands files to a viewer app; this stands in for
    one, with a "Back" button)."""
    left, top, right, bottom = frame
    root = w.screen(frame)
    back = parts.icon_view((0, 0, 0, 0), "arrow_back", T.desc("search_collapse"),
                           lambda: act.state.pop("viewer", None), cls=T.cls("search_collapse"))
    root.add(parts.top_bar(frame, posixpath.basename(path), back))
    text = st.read_text(device, path) if st.exists(device, path) else ""
    lines = max(1, (bottom - top - w.APP_BAR_H - px(96)) // px(54))
    root.add(View(cls="android.widget.TextView",
                  bounds=(left + px(48), top + w.APP_BAR_H + px(24), right - px(48), bottom - px(48)),
                  text=text, resource_id=rid("viewer_text"),
                  style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY, valign="top", max_lines=lines)))
    return root
