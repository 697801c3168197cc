"""Markor's folder dialog for Move and Copy (``GsFileBrowserDialog`` with ``MarkorFileBrowserFactory.showFolderDialog``).

Drawn from gsantner/markor@ab21754: the selection's overflow items Move and Copy call
``GsFileBrowserFragment.askForMoveOrCopy`` (``GsFileBrowserFragment.java:552-572``), which opens the dialog
``opoc_filesystem_dialog.xml``: a title TextView on the primary colour ("Move" / "Copy"), a bar with the home
and search icons, the folder list (the same ``opoc_filesystem_item`` rows as the notebook) and two text buttons,
CANCEL and SELECT THIS FOLDER (``okButtonText = R.string.select_this_folder``, all caps through
TextAppearance.AppCompat.Button). It starts in the folder the notebook shows, its home is the notebook folder,
and it lists folders only (``GsFileBrowserListAdapter.accept``: ``doSelectFile`` is false), ``..`` first. A row's
description is the folder holding it and the ``..`` row's its own path: the dialog's options keep
``descModtimeInsteadOfParent`` false (``GsFileBrowserListAdapter.java:173-176``). A tap on a folder opens it;
SELECT THIS FOLDER hands the listed folder to ``WrMarkorSingleton.moveOrCopySelected`` (:func:`storage.move_or_copy`),
then the notebook's selection ends and its folder reloads; CANCEL (or BACK) closes the dialog and keeps the
selection (``SelectionListenerAdapter.onFsViewerNothingSelected`` does nothing).

The dialog is a modal window: a hierarchy dump of the real device holds its nodes only, which the notebook
reproduces by keeping its own views out of the hierarchy while the dialog shows. Not drawn: the search field
the search icon opens (nothing here drives it).

State (``act.state["dialog"]``): ``{"kind": "folder", "move": bool, "sources": [paths], "folder": path,
"vscroll": px}``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.notes import storage
from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PRIMARY = (0, 150, 136)  # Markor's primary colour (the notebook Toolbar's)
ON_PRIMARY = (255, 255, 255)
ROW_DP = 50
TITLE_DP = 56
UTILBAR_DP = 48
BUTTONS_DP = 68


def opened(folder: str, sources: list[str], *, move: bool) -> dict[str, Any]:
    """The dialog's state when Move (``move``) or Copy opens it over ``folder`` with ``sources`` selected."""
    return {"kind": "folder", "move": move, "sources": list(sources), "folder": folder, "vscroll": 0}


def _parent(folder: str) -> str | None:
    if folder == storage.STORAGE or not folder.startswith(storage.STORAGE + "/"):
        return None
    return posixpath.dirname(folder)


def build(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict[str, Any],
          on_done: Callable[[], None]) -> View:
    """The dim layer and the dialog window over ``frame``."""
    left, top, right, bottom = frame

    def close() -> None:
        act.state.pop("dialog", None)
        on_done()

    def load(folder: str) -> Callable[[], None]:
        def run() -> None:
            dlg.update(folder=folder, vscroll=0)
            act.state["dialog"] = dlg
        return run

    def select() -> None:
        folder = dlg.get("folder", storage.NOTEBOOK)
        if not device.fs.is_dir(folder):
            return
        storage.move_or_copy(device, list(dlg.get("sources", [])), folder, move=bool(dlg.get("move")))
        act.state["selected"] = []
        close()

    scrim = View(bounds=frame, on_click=close, style=Style(bg=(0, 0, 0), bg_alpha=theme.SCRIM_ALPHA))
    x0, x1 = left + theme.dp(16), right - theme.dp(16)
    y0, y1 = top + theme.dp(48), bottom - theme.dp(48)
    panel = View(cls="android.widget.RelativeLayout", bounds=(x0, y0, x1, y1),
                 resource_id=T.rid("notebook_fragment"), style=Style(bg=theme.BACKGROUND, elevation=16))
    y = y0 + theme.dp(4)
    panel.add(View(cls=T.cls("folder_dialog_title"), bounds=(x0, y, x1, y + theme.dp(TITLE_DP)),
                   text=T.text("menu_move") if dlg.get("move") else T.text("menu_copy"),
                   resource_id=T.rid("folder_dialog_title"),
                   style=Style(bg=PRIMARY, fg=ON_PRIMARY, font_size=theme.dp(20), bold=True, padding=theme.dp(16))))
    y += theme.dp(TITLE_DP)
    bar = View(cls="android.widget.LinearLayout", bounds=(x0 + theme.dp(8), y + theme.dp(8), x1 - theme.dp(8),
                                                           y + theme.dp(8 + 32)),
               resource_id="net.gsantner.markor:id/ui__filesystem_dialog__utilbar")
    icon = theme.dp(32)
    hx = x0 + theme.dp(12)
    bar.add(View(cls=T.cls("folder_dialog_home"), bounds=(hx, y + theme.dp(8), hx + icon, y + theme.dp(8) + icon),
                 resource_id=T.rid("folder_dialog_home"), clickable=True, focusable=True,
                 on_click=load(storage.NOTEBOOK), style=Style(icon="home", icon_color=theme.TEXT, icon_size=icon)))
    bar.add(View(cls="android.widget.ImageView", bounds=(x1 - theme.dp(12) - icon, y + theme.dp(8), x1 - theme.dp(12),
                                                        y + theme.dp(8) + icon),
                 resource_id="net.gsantner.markor:id/ui__filesystem_dialog__search_button", clickable=True,
                 focusable=True, style=Style(icon="search", icon_color=theme.TEXT, icon_size=icon)))
    panel.add(bar)
    y += theme.dp(UTILBAR_DP)
    list_box = (x0, y, x1, y1 - theme.dp(BUTTONS_DP))
    panel.add(_list(device, act, dlg, list_box, load))
    panel.add(_buttons(x0, x1, y1, close, select))
    scrim.add(panel)
    return scrim


def _rows(device: VirtualDevice, folder: str) -> list[tuple[str, bool]]:
    """(path, is the ``..`` row) in list order: the parent first, then the sub-folders by lower-cased name."""
    rows: list[tuple[str, bool]] = []
    parent = _parent(folder)
    if parent is not None and device.fs.is_dir(parent):
        rows.append((parent, True))
    rows += [(e.path, False) for e in storage.listing(device, folder) if e.is_dir]
    return rows


def _list(device: VirtualDevice, act: Activity, dlg: dict[str, Any], box: Bounds,
          load: Callable[[str], Callable[[], None]]) -> View:
    folder = dlg.get("folder", storage.NOTEBOOK)
    rows = _rows(device, folder)
    row_h = theme.dp(ROW_DP)
    max_scroll = max(0, len(rows) * row_h - (box[3] - box[1]))
    scroll = max(0, min(int(dlg.get("vscroll", 0)), max_scroll))

    def on_scroll(dy: int) -> None:
        dlg["vscroll"] = max(0, min(scroll + dy, max_scroll))
        act.state["dialog"] = dlg

    listing = View(cls=T.cls("notebook_list"), bounds=box, resource_id=T.rid("notebook_list"),
                   scrollable=max_scroll > 0, on_scroll=on_scroll if max_scroll > 0 else None)
    y = box[1] - scroll
    for path, go_up in rows:
        if y + row_h > box[1] and y < box[3]:
            listing.add(_row(box, y, path, go_up, load(path)))
        y += row_h
    return listing


def _row(box: Bounds, top: int, path: str, go_up: bool, on_click: Callable[[], None]) -> View:
    from emukit.vdevice.apps.notes.notebook import item_view

    return item_view(box, top, ".." if go_up else posixpath.basename(path),
                     path if go_up else posixpath.dirname(path), "folder", on_click)


def _buttons(x0: int, x1: int, y1: int, close: Callable[[], None], select: Callable[[], None]) -> View:
    """The button bar at the bottom end: CANCEL, then SELECT THIS FOLDER (text buttons in the primary colour)."""
    f = font(theme.dp(14), True)
    bar = View(cls="android.widget.LinearLayout", bounds=(x0, y1 - theme.dp(BUTTONS_DP), x1, y1),
               resource_id="net.gsantner.markor:id/ui__filesystem_dialog__buttons")
    end = x1 - theme.dp(24)
    placed = []
    for name, callback in (("folder_dialog_ok", select), ("folder_dialog_cancel", close)):
        text = T.text(name)
        w = int(f.getlength(text)) + theme.dp(16)
        placed.append(View(cls=T.cls(name), bounds=(end - w, y1 - theme.dp(BUTTONS_DP - 16), end, y1 - theme.dp(16)),
                           text=text, resource_id=T.rid(name), clickable=True, focusable=True, on_click=callback,
                           style=Style(fg=PRIMARY, font_size=theme.dp(14), bold=True, align="center")))
        end -= w + theme.dp(16)
    bar.add(*reversed(placed))
    return bar
