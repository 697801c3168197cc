"""Markor (``net.gsantner.markor``): notebook, editor and view-mode selection; the Clipboard family's app.

Every selector comes from the installed build's table (``emukit/apps/tables/net.gsantner.markor/146.yaml``,
Markor 2.10.9 read at gsantner/markor@ab21754). What the real app does that shapes these operations:

* A document has no "Navigate up" button (``DocumentActivity`` sets no home-as-up since PR 1516): the way
  back to the notebook is BACK, after a first BACK that hides the keyboard when it shows.
* The editor's text is written to the file when the document pauses (leaving it, or another screen
  covering it), not on every edit (``DocumentEditAndViewFragment.onPause``): read a note's file only after
  :meth:`up`.
* View mode renders the Markdown in a WebView: consecutive lines are one paragraph (soft line breaks), a
  blank line starts the next, and each paragraph is one TextView node of Chromium's accessibility tree. A
  word is copied by a long press on it, which selects the word and shows the floating toolbar (Copy, Select
  all, ...); Select all there selects the whole page. The profile presses the *first* word of a paragraph:
  the paragraph node's bounds start where its text starts, while a later word's position depends on the
  font metrics of the page.
"""

from __future__ import annotations

import posixpath
from typing import Any

from pydantic import BaseModel, ConfigDict

from emukit.actions import Element
from emukit.apps.base import AppProfile, SeedSection, operation, register_app
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "net.gsantner.markor"
#: Markor's default notebook folder (Documents/Markor in shared storage)
NOTEBOOK = "/storage/emulated/0/Documents/Markor"


class NoteSpec(BaseModel):
    """A document of a base snapshot's notebook."""

    model_config = ConfigDict(extra="forbid")
    name: str
    text: str = ""


class NoteSeed(SeedSection):
    """``notes:`` in a base snapshot spec: files in Markor's notebook folder (Markor lists the folder as it is,
    so the files are its documents)."""

    key = "notes"
    item = NoteSpec

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        return {f"{NOTEBOOK}/{note.name}": note.text.encode() for note in items}

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        driver.shell(f"mkdir -p {NOTEBOOK}", check=True)
        sync = driver.adbutils().sync
        for path, data in cls.device_files(items).items():
            sync.push(data, path)
KEY_DEL = 67
GO_UP = ".."  # a folder's first row: its parent (GsFileBrowserListAdapter.java:161)
PRESS_IN_DP = 8  # how far into a paragraph's first word the long press lands (from its left edge)
FIRST_LINE_DP = 9  # half a line of the page's 16px text: the middle of a paragraph's first line
FIRST_RUN_STEPS = 14  # screens the first-run walk handles at most (five intro slides, rationale, Settings,
#: changelog, and the starts in between)


@register_app
class MarkorProfile(AppProfile):
    package = PACKAGE
    name = "notes"
    seed = NoteSeed
    main_screens = ("notebook",)
    activity = f"{PACKAGE}.activity.MainActivity"

    # ------------------------------------------------------------------ state of the screen
    def _on_notebook(self) -> bool:
        return self.driver.exists(**self.sel("fab_new"))

    def _in_document(self) -> bool:
        return self.driver.exists(**self.sel("editor")) or self.driver.exists(**self.sel("view_webview"))

    def _selection_toolbar(self) -> bool:
        return self.driver.exists(**self.sel("text_copy"))

    # ------------------------------------------------------------------ notebook
    @operation
    def open_document(self, name: str) -> None:
        """From the notebook list, open ``name`` (e.g. ``Codes.md``); it opens in the mode it was left in."""
        self.driver.tap(**self.sel("notebook_row_title"), text=name)
        self.driver.wait_until(self._in_document, f"{name} to open")

    @operation
    def create_note(self, name: str) -> None:
        """FAB -> new file dialog (name field focused, extension ".md") -> OK: creates ``name`` + ".md" and
        opens it in the editor."""
        self.driver.tap(**self.sel("fab_new"))
        self.driver.tap(**self.sel("new_file_name"))
        self.driver.type_text(name)
        self.driver.tap(**self.sel("dialog_ok"))
        self.driver.element(**self.sel("editor"))

    @operation
    def up(self) -> None:
        """Back to the notebook list from a document: BACK, after closing an open text toolbar and the keyboard
        (each takes a BACK of its own). Nothing to do when the notebook is in front already."""
        if self._on_notebook():
            return
        self.hide_keyboard()
        self.driver.back()
        self.driver.wait_until(self._on_notebook, "the notebook list")

    @operation
    def delete_document(self, name: str) -> None:
        """From the notebook list: long-press ``name`` (selection mode), Delete, OK in "Confirm Delete"."""
        self.driver.long_press(**self.sel("notebook_row_title"), text=name)
        self.driver.tap(**self.sel("selection_delete"))
        self.driver.element(**self.sel("confirm_delete_title"))
        self.driver.tap(**self.sel("dialog_ok"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("notebook_row_title"), text=name)
                               and not self.driver.exists(**self.sel("dialog_ok")), f"{name} to be deleted")

    # ------------------------------------------------------------------ folders, Move / Copy / Delete
    def _listing_of(self, folder: str) -> bool:
        """Whether a listing of ``folder`` shows: its ``..`` row names the folder above it (in the notebook its
        description is that folder's path; in the folder dialog every row's is)."""
        up_row = f"Folder .. {posixpath.dirname(folder)}"
        return self.driver.exists(**self.sel("notebook_row"), description=up_row)

    def _open_child(self, folder: str) -> None:
        """Tap the row of ``folder`` (a sub-folder of the one listed) and wait for its listing."""
        name = posixpath.basename(folder)
        self.driver.tap(**self.sel("notebook_row_title"), text=name)
        self.driver.wait_until(lambda: self._listing_of(folder), f"the folder {folder} to list")

    def _go_up(self, folder: str) -> None:
        """Tap the ``..`` row of the listed ``folder``; wait for its parent's listing."""
        up = posixpath.dirname(folder)
        self.driver.tap(**self.sel("notebook_row_title"), text=GO_UP)
        self.driver.wait_until(lambda: self._listing_of(up), f"the folder {up} to list")

    def _walk(self, here: str, there: str) -> None:
        """From the listed folder ``here`` to ``there`` through ``..`` rows and folder rows (the notebook and the
        folder dialog list folders the same way)."""
        while here != there and not there.startswith(here.rstrip("/") + "/"):
            self._go_up(here)
            here = posixpath.dirname(here)
        for name in posixpath.relpath(there, here).split("/") if here != there else []:
            here = posixpath.join(here, name)
            self._open_child(here)

    @operation
    def open_folder(self, path: str) -> None:
        """List the notebook folder ``path`` (the notebook itself or a folder below it): ``..`` rows up to the
        notebook, then its folder rows down. Nothing is selected on the way (a selection turns ``..`` into a no-op)."""
        if not (path == NOTEBOOK or path.startswith(NOTEBOOK + "/")):
            raise DeviceError(f"notes.open_folder: {path!r} is not in the notebook {NOTEBOOK}")
        self.up()
        if self.driver.exists(**self.sel("selection_delete")):
            raise DeviceError("notes.open_folder: items are selected in the notebook")
        steps = 0
        while not self._listing_of(NOTEBOOK) and not self._listing_of(path):
            self.driver.tap(**self.sel("notebook_row_title"), text=GO_UP)
            steps += 1
            if steps > 16:
                raise DeviceError("notes.open_folder: no way up to the notebook")
        if not self._listing_of(path):
            self._walk(NOTEBOOK, path)

    def _select(self, path: str) -> None:
        """List the folder of ``path`` and long-press its row: selection mode with ``path`` selected."""
        self.open_folder(posixpath.dirname(path))
        self.driver.long_press(**self.sel("notebook_row_title"), text=posixpath.basename(path))
        self.driver.element(**self.sel("selection_delete"))

    def _unselect(self, path: str) -> None:
        """Tap the selected row again: the selection ends (toggleSelection)."""
        self.driver.tap(**self.sel("notebook_row_title"), text=posixpath.basename(path))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("selection_delete")), "the selection to end")

    def _move_or_copy(self, move: bool, path: str, dest: str, confirm: bool) -> None:
        self._select(path)
        self.driver.tap(**self.sel("selection_more_options"))
        if move:
            self.driver.tap(**self.sel("menu_move"))
        else:
            self.driver.tap(**self.sel("menu_copy"))
        self.driver.element(**self.sel("folder_dialog_title"))
        if confirm:
            self._walk(posixpath.dirname(path), dest)
            self.driver.tap(**self.sel("folder_dialog_ok"))
        else:
            self.driver.tap(**self.sel("folder_dialog_cancel"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("folder_dialog_title")), "the dialog to close")
        if not confirm:
            self._unselect(path)

    @operation
    def copy_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Select ``path`` in its folder, overflow, Copy; in the folder dialog walk to ``dest`` and SELECT THIS
        FOLDER (``confirm``), or CANCEL and end the selection (a tap on the row)."""
        self._move_or_copy(False, path, dest, confirm)

    @operation
    def move_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """As :meth:`copy_to` with Move."""
        self._move_or_copy(True, path, dest, confirm)

    @operation
    def delete(self, path: str, confirm: bool = True) -> None:
        """Select ``path`` in its folder, Delete; OK in "Confirm Delete" (``confirm``), or CANCEL and end the
        selection."""
        self._select(path)
        self.driver.tap(**self.sel("selection_delete"))
        self.driver.element(**self.sel("confirm_delete_title"))
        if confirm:
            self.driver.tap(**self.sel("dialog_ok"))
            name = posixpath.basename(path)
            self.driver.wait_until(lambda: not self.driver.exists(**self.sel("notebook_row_title"), text=name)
                                   and not self.driver.exists(**self.sel("dialog_ok")), f"{name} to be deleted")
        else:
            self.driver.tap(**self.sel("dialog_cancel"))
            self.driver.wait_until(lambda: not self.driver.exists(**self.sel("confirm_delete_title")),
                                   "the dialog to close")
            self._unselect(path)

    # ------------------------------------------------------------------ modes
    @operation
    def view_mode(self) -> None:
        """Switch the open document to view mode (the toolbar's "View mode"), unless it is there already."""
        if self.driver.exists(**self.sel("view_mode")):
            self.driver.tap(**self.sel("view_mode"))
        self.driver.element(**self.sel("view_webview"))

    @operation
    def edit_mode(self) -> None:
        """Switch the open document to edit mode (the toolbar's "Edit mode"), unless it is there already."""
        if self.driver.exists(**self.sel("edit_mode")):
            self.driver.tap(**self.sel("edit_mode"))
        self.driver.element(**self.sel("editor"))

    # ------------------------------------------------------------------ view-mode selection
    def _paragraph(self, word: str) -> Element:
        """The view-mode paragraph node (inside the WebView) whose text is ``word`` or starts with ``word`` and a
        space."""
        page = self.driver.element(**self.sel("view_webview")).bounds
        cls = self.table.cls("view_paragraph")
        for el in self.driver.elements():
            left, top, right, bottom = el.bounds
            inside = page[0] <= left and page[1] <= top and right <= page[2] and bottom <= page[3]
            if el.cls == cls and inside and (el.text == word or el.text.startswith(word + " ")):
                return el
        raise DeviceError(f"{self.driver.serial}: no view-mode paragraph starts with the word {word!r} (a word "
                          "inside a paragraph has no position that the paragraph's bounds give)")

    def _press_word(self, word: str) -> Element:
        """Long-press the first word of the paragraph starting with ``word``: just inside the paragraph's left
        edge, in the middle of its first line. Waits for the selection toolbar."""
        para = self._paragraph(word)
        left, top, _right, bottom = para.bounds
        y = top + min(self.driver.dp(FIRST_LINE_DP), (bottom - top) // 2)
        self.driver.long_press(left + self.driver.dp(PRESS_IN_DP), y)
        self.driver.element(**self.sel("text_copy"))
        return para

    def _selection_closed(self) -> None:
        self.driver.wait_until(lambda: not self._selection_toolbar(), "the selection toolbar to close")

    @operation
    def select_word(self, word: str) -> None:
        """In view mode, long-press ``word`` (the first word of a paragraph) and leave the selection and its
        floating toolbar (Copy, Select all, ...) open."""
        self._press_word(word)

    @operation
    def copy(self, word: str) -> None:
        """In view mode, copy ``word``, the first word of a paragraph: long-press it, then Copy."""
        self._press_word(word)
        self.driver.tap(**self.sel("text_copy"))
        self._selection_closed()

    @operation
    def copy_each(self, words: list[str], count: int | None = None) -> None:
        """Copy the last ``count`` (default: all) of ``words`` one after the other; every Copy overwrites the
        clipboard, so the last one is what it holds afterwards."""
        n = len(words) if count is None else int(count)
        if not 1 <= n <= len(words):
            raise ValueError(f"copy_each: count {count!r} must be between 1 and {len(words)}")
        for word in list(words)[len(words) - n:]:
            self.copy(word)

    @operation
    def select_then_cancel(self, word: str, how: str = "tap") -> None:
        """Select ``word`` (a paragraph's first word) and end the selection without copying: a tap on the page
        beside it (``how="tap"``, at the paragraph's far end), or BACK (``how="back"``), which the page does
        not handle, so the document closes and the notebook is in front afterwards."""
        if how not in ("back", "tap"):
            raise ValueError(f"how must be 'back' or 'tap', not {how!r}")
        para = self._press_word(word)
        if how == "back":
            self.driver.back()
            self._selection_closed()
            return
        _left, top, right, bottom = para.bounds
        self.driver.tap(right - self.driver.dp(PRESS_IN_DP), top + min(self.driver.dp(FIRST_LINE_DP), (bottom - top) // 2))
        self._selection_closed()

    # ------------------------------------------------------------------ editor
    def _text_menu(self) -> None:
        """Long-press the editor: it takes the focus and the floating text toolbar opens."""
        self.driver.long_press(**self.sel("editor"))
        self.driver.wait_until(lambda: self.driver.exists(**self.sel("text_paste"))
                               or self.driver.exists(**self.sel("text_select_all")), "the text toolbar")

    @operation
    def paste_menu(self) -> None:
        """Long-press the editor and leave its text toolbar (Paste, plus Select all on a non-empty text) open."""
        self.driver.long_press(**self.sel("editor"))
        self.driver.element(**self.sel("text_paste"))

    @operation
    def paste(self, times: int = 1) -> None:
        """In the editor: long-press the text field, Paste (the clipboard is not consumed); ``times`` pastes
        one after the other, each at the caret."""
        for _ in range(int(times)):
            before = self.driver.element(**self.sel("editor")).text
            self.driver.long_press(**self.sel("editor"))
            self.driver.tap(**self.sel("text_paste"))
            self.driver.wait_until(lambda before=before: self.driver.element(**self.sel("editor")).text != before,
                                   "the pasted text in the editor")

    @operation
    def type(self, text: str) -> None:
        """Focus the editor and type ``text`` at the caret (written to the file when the document is left)."""
        self.driver.tap(**self.sel("editor"))
        self.driver.type_text(text)

    @operation
    def clear(self, chars: int) -> None:
        """Delete ``chars`` characters before the caret (DEL key presses)."""
        for _ in range(chars):
            self.driver.key(KEY_DEL)

    @operation
    def clear_all(self) -> None:
        """Empty the focused editor without touching the clipboard: one DEL per character before the caret
        (after a paste the caret is at the end of the text)."""
        for _ in range(len(self.driver.element(**self.sel("editor")).text)):
            self.driver.key(KEY_DEL)
        self.driver.wait_until(lambda: self.driver.element(**self.sel("editor")).text == "", "the editor to empty")

    @operation
    def discard(self, name: str, how: str = "text") -> None:
        """Get rid of what the open document ``name`` holds, then be back on the notebook list: delete its
        text character by character and go up (``how="text"``; an emptied text is not saved, so a note that was
        blank stays blank), or go up and delete the note (``"note"``)."""
        if how == "text":
            self.clear_all()
            self.up()
        elif how == "note":
            self.up()
            self.delete_document(name)
        else:
            raise ValueError(f"how must be 'text' or 'note', not {how!r}")

    @operation
    def rewrite(self, text: str, how: str = "append") -> None:
        """Change the open document in the editor without copying: type ``text`` at its end
        (``how="append"``; after the final newline this is a new last line) or replace the whole text with it
        (``how="replace"``: long-press, Select all, type over the selection)."""
        if how == "append":
            self.driver.tap(**self.sel("editor"))
        elif how == "replace":
            self._text_menu()
            self.driver.tap(**self.sel("text_select_all"))
        else:
            raise ValueError(f"how must be 'append' or 'replace', not {how!r}")
        self.driver.type_text(text)

    @operation
    def save(self) -> None:
        """The toolbar's Save (edit mode): write the editor's text to the file now."""
        self.driver.tap(**self.sel("save"))

    @operation
    def hide_keyboard(self) -> None:
        """Close the editor's text toolbar, then the keyboard: one BACK each (a TextView's BACK first ends its
        text action mode, the next one hides the keyboard)."""
        editing = self.driver.exists(**self.sel("editor"))
        if editing and (self.driver.exists(**self.sel("text_paste")) or self.driver.exists(**self.sel("text_select_all"))):
            self.driver.back()
            self.driver.wait_until(lambda: not self.driver.exists(**self.sel("text_paste"))
                                   and not self.driver.exists(**self.sel("text_select_all")), "the text toolbar to close")
        if self.keyboard_shown():
            self.driver.back()
            self.driver.wait_until(lambda: not self.keyboard_shown(), "the keyboard to hide")

    # ------------------------------------------------------------------ first run
    def first_run_screen(self) -> str | None:
        """Which first-run screen is in front (the table name of the button that leaves it); ``"notebook"`` when
        none is and the notebook list shows; None while the screen changes."""
        if self.driver.exists(**self.sel("intro_done")):  # the intro's last slide
            return "intro_done"
        if self.driver.exists(**self.sel("intro_next")):  # another intro slide
            return "intro_next"
        if self.driver.exists(**self.sel("storage_permission_ok")):  # Markor's all-files rationale
            return "storage_permission_ok"
        if self.driver.exists(**self.sel("settings:manage_all_files_switch")):  # Settings' "All files access"
            return "manage_all_files_switch"
        if self.driver.exists(**self.sel("dialog_ok")):  # the changelog dialog of this version's first start
            return "dialog_ok"
        return "notebook" if self._on_notebook() else None

    @operation
    def complete_first_run(self) -> None:
        """Launch Markor and walk its first-run screens until the notebook list shows; taps nothing that is not
        there (after the first run the notebook shows at once).

        What the real app shows (gsantner/markor at the 2.10.9 pin): MainActivity.onResume starts IntroActivity
        while its ``was_shown`` pref is unset (MainActivity.java 237, IntroActivity.java 24-35): five AppIntro
        slides, NEXT on each but the last, DONE there (which sets the pref, 60-64). Back in MainActivity, without
        all-files access StoragePermissionActivity asks with an OK dialog (StoragePermissionActivity.java 18-40)
        that opens Settings' "All files access" page for the app (GsContextUtils.requestExternalStoragePermission,
        2352-2364), where the switch grants it and BACK returns; once access is there, the first start of this
        version shows the changelog and licences in a dialog closed with OK (MainActivity.java 238-246). The same
        walk as android_world's MarkorApp.setup (android_world/env/setup_device/apps.py 241-265)."""
        self.launch()
        acted = False
        for _ in range(FIRST_RUN_STEPS):
            screen = self.driver.wait_until(self.first_run_screen, "Markor's notebook or a first-run screen")
            if screen == "notebook" and acted:
                # a screen of the first start may come only with the next MainActivity: start it again and walk
                # on until a start opens on the notebook at once
                self.launch(fresh=True)
                acted = False
                continue
            if screen == "notebook":
                return
            acted = True
            if screen == "intro_done":
                self.driver.tap(**self.sel("intro_done"))
            elif screen == "intro_next":
                self.driver.tap(**self.sel("intro_next"))
            elif screen == "storage_permission_ok":
                self.driver.tap(**self.sel("storage_permission_ok"))
            elif screen == "dialog_ok":
                self.driver.tap(**self.sel("dialog_ok"))
            else:
                if self.switch_is_on("settings:manage_all_files_switch") is False:
                    self.driver.tap(**self.sel("settings:manage_all_files_switch"))
                    self.driver.wait_until(lambda: self.switch_is_on("settings:manage_all_files_switch"),
                                           "all-files access to turn on")
                self.driver.back()
            self.driver.wait_idle()
        raise DeviceError(f"{self.driver.serial}: Markor still shows a first-run screen after "
                          f"{FIRST_RUN_STEPS} steps")
