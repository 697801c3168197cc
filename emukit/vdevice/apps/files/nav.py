"""State transitions of the Files screen (``FilesActivity``): navigation, selection, search, dialogs and the
operations they confirm. The screen state is ``act.state`` (JSON):

``root``       ``"downloads"`` or ``"storage"`` (the drawer's roots)
``path``       the folder shown (a device path under the root's folder)
``sel``        selected device paths (selection mode while non-empty)
``search``     ``{"query": str, "chips": [..]}`` while the search bar is open
``menu``       ``"overflow"`` / ``"sort"`` / ``"selection"`` while a popup menu shows
``drawer``     True while the roots drawer shows
``dialog``     ``{"kind": "delete", "paths": [..]}`` or ``{"kind": "new_folder"|"rename", "text", "path"?, "error"?}``
``viewer``     the text file being viewed
``scroll``, ``chip_scroll``  scroll offsets in px

The sort order is process state (``app_data[PACKAGE]["sort"]``), so it resets when the app is force-stopped.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.apps.files.parts import PACKAGE, T, root_title
from emukit.vdevice.state import Activity

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

FILES_ACTIVITY = "com.android.documentsui.files.FilesActivity"
PICK_ACTIVITY = "com.android.documentsui.picker.PickActivity"
INITIAL_URI = "android.provider.extra.INITIAL_URI"
SEARCH_KEY = T.rid("search_field")
NAME_KEY = "android:id/text1"
SORTS = {"name": ("Name", "Name (A to Z)"), "name_desc": ("Name", "Name (Z to A)"),
         "date": ("Modified", "Modified (newest first)"), "date_asc": ("Modified", "Modified (oldest first)"),
         "size": ("Size", "Size (largest first)"), "size_asc": ("Size", "Size (smallest first)")}
CANT_OPEN = "Can\u2019t open file"
NAME_TAKEN = "A file with this name already exists."


# ------------------------------------------------------------------ starting
def initial_state(extras: dict[str, str]) -> dict[str, Any]:
    """Downloads by default; ``android.provider.extra.INITIAL_URI`` (a documents URI) picks the folder."""
    root, path = "downloads", st.DOWNLOADS
    uri = extras.get(INITIAL_URI, "")
    if "externalstorage.documents" in uri and "primary" in uri:
        tail = urllib.parse.unquote(uri.rsplit("/", 1)[-1]).partition(":")[2].strip("/")
        root, path = "storage", st.SHARED + ("/" + tail if tail else "")
    return {"root": root, "path": path, "sel": [], "scroll": 0}


def root_key(state: dict[str, Any]) -> str:
    key = state.get("root", "downloads")
    return key if key in st.ROOTS else "downloads"


def root_top(state: dict[str, Any]) -> str:
    return st.ROOTS[root_key(state)]


def root_label(device: VirtualDevice, state: dict[str, Any]) -> str:
    """The current root's title (Downloads, or the device name for shared storage)."""
    return root_title(device, root_key(state))


def current_path(device: VirtualDevice, state: dict[str, Any]) -> str:
    """The folder to show: the stored one, or its nearest existing ancestor inside the root."""
    top = root_top(state)
    path = state.get("path") or top
    if not st.inside(path, top):
        path = top
    while path != top and not st.is_dir(device, path):
        path = st.parent(path)
    if path != state.get("path"):
        state["path"] = path
    return path


def folder_label(device: VirtualDevice, state: dict[str, Any], path: str) -> str:
    """The toolbar title: the root's title at its top, else the folder's name (NavigationViewManager)."""
    return root_label(device, state) if path == root_top(state) else posixpath.basename(path)


def header_title(device: VirtualDevice, state: dict[str, Any], path: str) -> str:
    """``Files in Downloads`` / ``Files on <device>`` / ``Files in <folder>`` (BaseActivity's header titles)."""
    if root_key(state) == "downloads":
        return T.text("header_downloads")
    if searching(state) or path == root_top(state):
        return T.text("header_storage", device=root_label(device, state))
    return T.text("header_folder", folder=posixpath.basename(path))


def crumbs(device: VirtualDevice, state: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """(label, folder) from the root down to ``path``."""
    top = root_top(state)
    out = [(root_label(device, state), top)]
    rel = path[len(top):].strip("/")
    cur = top
    for part in rel.split("/") if rel else []:
        cur = f"{cur}/{part}"
        out.append((part, cur))
    return out


# ------------------------------------------------------------------ navigation
def go(act: Activity, path: str) -> None:
    """Open a folder: leaves search and selection, scrolls to the top."""
    act.state.update(path=path, sel=[], scroll=0)
    for key in ("search", "menu", "viewer", "dialog"):
        act.state.pop(key, None)


def go_root(act: Activity, root: str) -> None:
    act.state["root"] = root
    act.state["drawer"] = False
    go(act, st.ROOTS[root])


def up(device: VirtualDevice, act: Activity) -> bool:
    """Go to the parent folder; False at the root's top."""
    path = current_path(device, act.state)
    if path == root_top(act.state):
        return False
    go(act, st.parent(path))
    return True


def back(device: VirtualDevice, act: Activity) -> bool:
    """BACK: close what is open (dialog, menu, drawer, viewer, selection, search), else go up."""
    state = act.state
    for key in ("dialog", "menu", "viewer"):
        if state.get(key):
            state.pop(key)
            return True
    if state.get("drawer"):
        state["drawer"] = False
        return True
    if state.get("sel"):
        state["sel"] = []
        return True
    if state.get("search") is not None:
        close_search(act)
        return True
    return up(device, act)


# ------------------------------------------------------------------ listing and selection
def sort_order(device: VirtualDevice) -> str:
    order = device.state.app_data.get(PACKAGE, {}).get("sort", "name")
    return order if order in SORTS else "name"


def set_sort(device: VirtualDevice, act: Activity, order: str) -> None:
    device.state.app_data.setdefault(PACKAGE, {})["sort"] = order
    act.state.pop("menu", None)
    act.state["scroll"] = 0


def searching(state: dict[str, Any]) -> bool:
    """The list shows search results (a query or a chip), not the folder."""
    search = state.get("search")
    return search is not None and bool(search.get("query", "").strip() or search.get("chips"))


def listing(device: VirtualDevice, act: Activity) -> list[st.Entry]:
    path = current_path(device, act.state)
    if searching(act.state):
        search = act.state["search"]
        found = st.search(device, root_top(act.state), search.get("query", ""), search.get("chips", []))
    else:
        found = st.list_dir(device, path)
    return st.sort_entries(found, sort_order(device))


def selection(device: VirtualDevice, act: Activity) -> list[str]:
    """Selected paths that still exist (the list drops vanished ones)."""
    sel = [p for p in act.state.get("sel", []) if st.exists(device, p)]
    if sel != act.state.get("sel", []):
        act.state["sel"] = sel
    return sel


def toggle(act: Activity, path: str) -> None:
    sel = list(act.state.get("sel", []))
    if path in sel:
        sel.remove(path)
    else:
        sel.append(path)
    act.state["sel"] = sel
    act.state.pop("menu", None)


def select_all(device: VirtualDevice, act: Activity) -> None:
    act.state["sel"] = [e.path for e in listing(device, act)]
    act.state.pop("menu", None)


def open_entry(device: VirtualDevice, act: Activity, entry: st.Entry) -> None:
    """A tap outside selection mode: a folder opens, a text file shows, anything else can't be opened."""
    if entry.is_dir:
        if not st.inside(entry.path, root_top(act.state)):
            act.state["root"] = "storage"
        go(act, entry.path)
        unfocus(device)
    elif st.is_text(entry.name):
        act.state["viewer"] = entry.path
        unfocus(device)
    else:
        device.state.ui.toast = CANT_OPEN


# ------------------------------------------------------------------ search
def focus(device: VirtualDevice, key: str, text: str) -> None:
    """Give a field the input focus (the soft keyboard comes up), caret at the end."""
    ui = device.state.ui
    ui.focused_id, ui.cursor, ui.keyboard_shift, ui.keyboard_symbols, ui.text_menu = key, len(text), False, False, None


def unfocus(device: VirtualDevice) -> None:
    ui = device.state.ui
    if ui.focused_id in (SEARCH_KEY, NAME_KEY):
        ui.focused_id, ui.cursor, ui.text_menu = None, None, None


def open_search(device: VirtualDevice, act: Activity) -> None:
    act.state["search"] = {"query": "", "chips": []}
    act.state.update(sel=[], scroll=0, chip_scroll=0)
    act.state.pop("menu", None)
    focus(device, SEARCH_KEY, "")


def set_query(act: Activity, text: str) -> None:
    search = act.state.setdefault("search", {"query": "", "chips": []})
    search["query"] = text
    act.state["scroll"] = 0


def submit_query(device: VirtualDevice, act: Activity) -> None:
    """ENTER / the keyboard's search key: results stay, the keyboard goes away (SearchView.clearFocus)."""
    unfocus(device)


def clear_query(device: VirtualDevice, act: Activity) -> None:
    """The X in the search field: clears the text (and keeps typing); on an empty field closes search."""
    search = act.state.get("search") or {}
    if search.get("query"):
        set_query(act, "")
        focus(device, SEARCH_KEY, "")
    else:
        close_search(act)
        unfocus(device)


def toggle_chip(act: Activity, key: str) -> None:
    search = act.state.setdefault("search", {"query": "", "chips": []})
    chips = list(search.get("chips", []))
    search["chips"] = [c for c in chips if c != key] if key in chips else chips + [key]
    act.state["scroll"] = 0


def close_search(act: Activity) -> None:
    act.state.pop("search", None)
    act.state.update(sel=[], scroll=0)


# ------------------------------------------------------------------ operations
def start_transfer(device: VirtualDevice, act: Activity, op: str) -> None:
    """``Copy to…`` / ``Move to…``: the destination picker opens at the current folder; the selection ends."""
    sources = selection(device, act)
    act.state["sel"] = []
    act.state.pop("menu", None)
    if not sources:
        return
    unfocus(device)
    device.push_activity(PACKAGE, PICK_ACTIVITY, {
        "op": op, "sources": sources, "root": act.state.get("root", "downloads"),
        "path": current_path(device, act.state), "scroll": 0})


def delete_message(device: VirtualDevice, paths: list[str]) -> str:
    """DocumentsUI's confirmation text for the selected files and folders."""
    dirs = sum(1 for p in paths if st.is_dir(device, p))
    if len(paths) == 1:
        name = posixpath.basename(paths[0])
        return f'Delete folder "{name}" and its contents?' if dirs else f'Delete "{name}"?'
    if dirs == len(paths):
        return f"Delete {len(paths)} folders and their contents?"
    return f"Delete {len(paths)} files?" if dirs == 0 else f"Delete {len(paths)} items?"


def ask_delete(device: VirtualDevice, act: Activity) -> None:
    paths = selection(device, act)
    act.state.pop("menu", None)
    if paths:
        unfocus(device)
        act.state["dialog"] = {"kind": "delete", "paths": paths}


def confirm_delete(device: VirtualDevice, act: Activity) -> None:
    dialog = act.state.pop("dialog", None) or {}
    st.delete_paths(device, list(dialog.get("paths", [])))
    act.state["sel"] = []


def ask_name(device: VirtualDevice, act: Activity, kind: str) -> None:
    """Open the New folder / Rename dialog with its field focused."""
    act.state.pop("menu", None)
    text, extra = "", {}
    if kind == "rename":
        sel = selection(device, act)
        if len(sel) != 1:
            return
        text, extra = posixpath.basename(sel[0]), {"path": sel[0]}
    act.state["dialog"] = {"kind": kind, "text": text, **extra}
    focus(device, NAME_KEY, text)


def confirm_name(device: VirtualDevice, act: Activity) -> None:
    dialog = act.state.get("dialog") or {}
    text = dialog.get("text", "")
    if dialog.get("kind") == "rename":
        done = st.rename(device, dialog.get("path", ""), text)
        ok = done is not None or text.strip() == posixpath.basename(dialog.get("path", ""))
    else:
        ok = st.make_folder(device, current_path(device, act.state), text) is not None
    if ok:
        act.state.pop("dialog", None)
        act.state["sel"] = []
        unfocus(device)
    else:
        dialog["error"] = NAME_TAKEN if st.valid_name(text) else "Enter a valid name"
