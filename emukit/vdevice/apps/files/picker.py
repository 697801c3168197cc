"""The copy/move destination picker (``com.android.documentsui.picker.PickActivity``), opened by
``Copy to…`` / ``Move to…`` on top of the Files screen.

State (``act.state``): ``op`` (``"copy"``/``"move"``), ``sources`` (device paths), ``root`` and ``path`` (the
folder being browsed, starting where the selection was made), ``scroll`` and ``drawer``. Folders open on a
tap, files are shown greyed out. The bottom bar's ``Copy``/``Move`` (``android:id/button1``) runs the
operation into the shown folder and closes the picker; ``Cancel`` (``android:id/button2``) and BACK at the
root close it without touching anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.files import nav, parts
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.apps.files.parts import T
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


def _go(act: Activity, path: str) -> None:
    act.state.update(path=path, scroll=0, drawer=False)


def back(device: VirtualDevice, act: Activity) -> bool:
    """BACK: close the drawer, else go up; at the root's top the picker closes (returns False)."""
    if act.state.get("drawer"):
        act.state["drawer"] = False
        return True
    path = nav.current_path(device, act.state)
    if path == nav.root_top(act.state):
        return False
    _go(act, st.parent(path))
    return True


def confirm(device: VirtualDevice, act: Activity) -> None:
    """Copy or move the sources into the shown folder, then close the picker."""
    dest = nav.current_path(device, act.state)
    sources = [p for p in act.state.get("sources", []) if st.exists(device, p)]
    if st.transfer_allowed(sources, dest, act.state.get("op", "copy")):
        if act.state.get("op") == "move":
            st.move_into(device, sources, dest)
        else:
            st.copy_into(device, sources, dest)
    _finish(device, act)


def _finish(device: VirtualDevice, act: Activity) -> None:
    if device.state.back_stack and device.top is act:
        device.finish_top()


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The picker: the same DrawerLayout, Toolbar ("Show roots") and list as the Files screen, folders open on a
    tap and files are greyed out; ``fragment_pick.xml``'s Cancel / Copy (or Move) in ``container_save``."""
    state = act.state
    path = nav.current_path(device, state)
    op = state.get("op", "copy")
    left, top, right, bottom = frame
    root = w.screen(frame)
    root.cls, root.resource_id = T.cls("drawer"), T.rid("drawer")
    leading = parts.show_roots((0, 0, 0, 0), lambda: state.update(drawer=True))
    root.add(parts.top_bar(frame, nav.folder_label(device, state, path), leading))
    y = top + w.APP_BAR_H
    crumbs = [(label, lambda p=p: _go(act, p)) for label, p in nav.crumbs(device, state, path)]
    root.add(parts.breadcrumb(left, y, right, crumbs))
    y += parts.CRUMB_H
    root.add(parts.header(left, y, right, nav.header_title(device, state, path)))
    y += parts.HEADER_H
    area = (left, y, right, bottom - parts.BOTTOM_BAR_H)
    entries = st.sort_entries(st.list_dir(device, path), nav.sort_order(device))
    if entries:
        rows = [(parts.ROW_H, lambda top_, e=e: parts.file_row(
            device, area, top_, e, on_click=(lambda e=e: _go(act, e.path)) if e.is_dir else None,
            enabled=e.is_dir)) for e in entries]
        root.add(w.scroll_list(area, rows, state.get("scroll", 0), lambda v: state.update(scroll=v),
                               rid=T.rid("dir_list"), padding_bottom=px(24), cls=T.cls("dir_list")))
    else:
        root.add(parts.empty(area, T.text("no_items")))
    allowed = st.transfer_allowed(state.get("sources", []), path, op)
    verb = T.text("button_move") if op == "move" else T.text("button_copy")
    root.add(parts.bottom_bar(frame, verb, (lambda: confirm(device, act)) if allowed else None,
                              lambda: _finish(device, act)))
    if state.get("drawer"):
        root.add(parts.roots_drawer(device, frame, nav.root_key(state), lambda key: _pick_root(act, key),
                                    lambda: state.update(drawer=False)))
    return root


def _pick_root(act: Activity, key: str) -> None:
    act.state["root"] = key
    _go(act, st.ROOTS[key])
