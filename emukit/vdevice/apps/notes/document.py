"""Markor's ``DocumentActivity``: one document in edit mode (the HighlightingEditor) or view mode (the WebView).

When the file is written, as in gsantner/markor@ab21754 ``DocumentEditAndViewFragment.java``: the editor's
text lives in memory; ``onPause`` (line 260-261) saves it, and so does the toolbar's Save (line 421-423).
Switching to view mode renders the editor's text without saving (``setViewModeVisibility``, line 753-773).
A save writes only a changed text; a changed text shorter than 2 characters is not written and a toast says
so (``saveDocument``, line 716-742, ``wont_save_min_length``); one whose trimmed length is under 2 fails in
``Document.saveContent`` (``Document.java:315-317``) and the editor's text is put on the clipboard instead
(``errorClipText``, line 685-691). ``onResume`` reloads the file when it changed since it was last loaded
or saved (``loadDocument``, line 351-387). ``onPause`` also remembers whether the document was in view mode,
which decides how it opens next time (line 264; ``AppSettings.getDocumentPreviewState``).

This module calls :func:`on_pause` itself when the activity finishes through BACK; the device calls the app's
``on_pause`` / ``on_resume`` hooks when another screen covers the activity or uncovers it again.

Screen state (``act.state``): ``path``, ``mode`` ("edit"/"view"), ``text`` (the editor's text), ``base`` (the
text last loaded or saved), ``stamp`` (the file's [mtime ns, size] then) and the view mode's ``sel`` /
``vscroll`` (see :mod:`.viewer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes import storage, viewer
from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.render import font, line_height
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

TOOLBAR_DP = 56  # ?attr/actionBarSize
EDITOR_PAD_DP = 16  # @dimen/activity_horizontal_margin / activity_vertical_margin
TOOLBAR_BG = (0, 150, 136)  # Markor's primary colour
ON_TOOLBAR = (255, 255, 255)
TOO_SHORT = "Files with fewer than {n} characters not saved automatically in order to prevent data loss."


def normalize_path(path: str) -> str:
    """``file:///sdcard/x.md`` or ``/sdcard/x.md`` -> ``/storage/emulated/0/x.md``."""
    path = path.strip().removeprefix("file://")
    if path == "/sdcard" or path.startswith("/sdcard/"):
        path = storage.STORAGE + path[len("/sdcard"):]
    return path


def _load(device: VirtualDevice, act: Activity) -> None:
    path = act.state.get("path", "")
    text = storage.read_text(device, path)
    act.state.update(text=text, base=text, stamp=storage.file_stamp(device, path))


def on_create(device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
    """``EXTRA_PATH`` names the document. It opens in view mode when ``EXTRA_DO_PREVIEW`` is true or the file
    is an ``index.*`` (DocumentActivity.handleLaunchingIntent, DocumentActivity.java:218-225), else in the mode
    it was left in (DocumentEditAndViewFragment.java:216-222), edit mode for a document never opened."""
    if "EXTRA_PATH" in extras:
        act.state["path"] = normalize_path(extras["EXTRA_PATH"])
    path = act.state.get("path", "")
    if not path:
        return
    viewing = (extras.get("EXTRA_DO_PREVIEW", "").lower() == "true" or path.rsplit("/", 1)[-1].startswith("index.")
               or storage.preview_state(device, path))
    act.state["mode"] = "view" if viewing else "edit"
    _load(device, act)


def save(device: VirtualDevice, act: Activity, *, forced: bool = False) -> None:
    """Write the editor's text if it changed (``forced``: the Save action, which writes short texts too)."""
    path, text = act.state.get("path", ""), act.state.get("text", "")
    if not path or "text" not in act.state or text == act.state.get("base"):
        return
    if not forced and len(text) < storage.MIN_SAVE_LENGTH:
        device.state.ui.toast = TOO_SHORT.format(n=storage.MIN_SAVE_LENGTH)
        return
    if not forced and len(text.strip()) < storage.MIN_SAVE_LENGTH:
        device.set_clip(text, label="")  # errorClipText: the unsaved text goes to the clipboard
        return
    storage.write_text(device, path, text)
    act.state.update(base=text, stamp=storage.file_stamp(device, path))


def on_pause(device: VirtualDevice, act: Activity) -> None:
    """``onPause``: save, and remember the mode the document is left in."""
    path = act.state.get("path", "")
    if not path:
        return
    save(device, act)
    storage.set_preview_state(device, path, act.state.get("mode") == "view")


def on_resume(device: VirtualDevice, act: Activity) -> None:
    """``onResume``: reload the file if something else changed it meanwhile."""
    path = act.state.get("path", "")
    if path and storage.file_stamp(device, path) != act.state.get("stamp"):
        _load(device, act)


def on_back(device: VirtualDevice, act: Activity) -> bool:
    """BACK finishes the document (``finishAndRemoveTask``): it pauses, so it saves, first. A view-mode selection
    does not hold BACK back (see :mod:`.viewer`)."""
    if act.state.get("mode") == "view":
        viewer.on_back(act)
    on_pause(device, act)
    return False


def _set_mode(device: VirtualDevice, act: Activity, viewing: bool) -> None:
    act.state.pop("sel", None)
    act.state["mode"] = "view" if viewing else "edit"
    if viewing:  # the editor loses the focus and the keyboard goes away
        device.state.ui.focused_id = None
        device.state.ui.text_menu = None


def _action(bounds: Bounds, name: str, icon: str, on_click: Callable[[], None]) -> View:
    """An icon-only action item of the toolbar: content-desc = its title, id = the menu item's id (appcompat
    ActionMenuItemView.initialize / updateTextButtonVisibility)."""
    return View(cls="android.widget.TextView", bounds=bounds, resource_id=T.rid(name), content_desc=T.desc(name),
                clickable=True, focusable=True, on_click=on_click,
                style=Style(icon=icon, icon_color=ON_TOOLBAR, icon_size=theme.dp(24)))


def _toolbar(device: VirtualDevice, act: Activity, frame: Bounds, title: str, viewing: bool) -> View:
    """The Toolbar: the document title, then View mode (edit mode) or Edit mode (view mode) and Save."""
    left, top, right, _ = frame
    height = theme.dp(TOOLBAR_DP)
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + height), resource_id=T.rid("document_toolbar"),
               style=Style(bg=TOOLBAR_BG))
    size = theme.dp(48)
    end = right - theme.dp(4)
    actions: list[tuple[str, str, Callable[[], None]]] = [
        ("edit_mode", "edit", lambda: _set_mode(device, act, False))] if viewing else [
        ("view_mode", "notes", lambda: _set_mode(device, act, True)),
        ("save", "download", lambda: save(device, act, forced=True))]
    views = []
    for name, icon, callback in reversed(actions):
        y = top + (height - size) // 2
        views.insert(0, _action((end - size, y, end, y + size), name, icon, callback))
        end -= size
    bar.add(View(cls="android.widget.TextView", bounds=(left + theme.dp(16), top, end - theme.dp(8), top + height),
                 text=title, resource_id=T.rid("document_title"),
                 style=Style(fg=ON_TOOLBAR, font_size=theme.dp(20), bold=True)))
    bar.add(*views)
    return bar


def build(device: VirtualDevice, act: Activity, frame: Bounds) -> View:
    """The document screen: the toolbar, then the editor (edit mode) or the WebView (view mode)."""
    path = act.state.get("path", "")
    viewing = act.state.get("mode") == "view"
    root = View(cls="android.widget.LinearLayout", bounds=frame, style=Style(bg=theme.BACKGROUND))
    root.add(_toolbar(device, act, frame, storage.title_of(path) if path else "", viewing))
    body = (frame[0], frame[1] + theme.dp(TOOLBAR_DP), frame[2], frame[3])
    content = View(bounds=body, resource_id=T.rid("document_placeholder"))
    root.add(content)
    text = act.state.get("text", "")
    if viewing:
        viewer.build(device, act, body, content, text)
    else:
        content.add(_editor(act, body, text))
    return root


def _editor(act: Activity, body: Bounds, text: str) -> View:
    """The multi-line HighlightingEditor filling the page (its ScrollView has fillViewport); edits change the
    in-memory text only."""
    size = theme.dp(15)
    pad = theme.dp(EDITOR_PAD_DP)
    lines = max(1, (body[3] - body[1] - 2 * pad) // line_height(font(size)))
    rid = T.rid("editor")

    def on_text(new: str) -> None:
        act.state["text"] = new

    return View(cls=T.cls("editor"), bounds=body, text=text, resource_id=rid, key=rid, editable=True,
                focusable=True, clickable=True, long_clickable=True, on_text=on_text,
                style=Style(font_size=size, padding=pad, max_lines=lines, valign="top", bg=theme.BACKGROUND))
