"""Markor (``net.gsantner.markor``): notebook, editor, view-mode selection; the Clipboard family's app.

The virtual Markor uses Markor's own resource ids, so one profile serves both; it is verified against the
virtual build (versionName ending in ``-emukit-virtual``) and written from Markor 2.x's UI for real devices.
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation

PACKAGE = "net.gsantner.markor"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"


class MarkorProfile(AppProfile):
    package = PACKAGE
    name = "notes"
    activity = f"{PACKAGE}.activity.MainActivity"

    EDITOR = f"{PACKAGE}:id/document__fragment__edit__highlighting_editor"
    LINE = f"{PACKAGE}:id/source_line"
    ROW_TITLE = f"{PACKAGE}:id/opoc_filesystem_item__title"
    NAME_FIELD = f"{PACKAGE}:id/new_file_dialog__name"

    @classmethod
    def matches(cls, version_name: str) -> bool:
        return version_name.startswith("2.")

    # ------------------------------------------------------------------ notebook
    @operation
    def open_document(self, name: str) -> None:
        """From the notebook list, open ``name`` (e.g. ``source.md``) in the editor."""
        self.driver.tap(resourceId=self.ROW_TITLE, text=name)
        self.driver.wait_until(lambda: self.driver.exists(resourceId=self.EDITOR)
                               or self.driver.exists(resourceId=self.LINE), f"{name} to open")

    @operation
    def create_note(self, name: str) -> None:
        """FAB -> name dialog -> OK: creates ``name`` (default extension .md) and opens the blank editor."""
        self.driver.tap(description="Create a new document")
        self.driver.tap(resourceId=self.NAME_FIELD)
        self.driver.type_text(name)
        self.driver.tap(text="OK")
        self.driver.element(resourceId=self.EDITOR)

    @operation
    def up(self) -> None:
        """Back to the notebook list from a document (the app bar's up arrow)."""
        self.driver.tap(description="Navigate up")
        self.driver.element(resourceId=self.ROW_TITLE)

    @operation
    def delete_document(self, name: str) -> None:
        """From the notebook list: long-press ``name`` (selection mode), Delete, confirm in the dialog."""
        self.driver.long_press(resourceId=self.ROW_TITLE, text=name)
        self.driver.tap(description="Delete")
        self.driver.tap(text="Delete")
        self.driver.wait_until(lambda: not self.driver.exists(resourceId=self.ROW_TITLE, text=name)
                               and not self.driver.exists(text="Delete"), f"{name} to be deleted")

    # ------------------------------------------------------------------ view mode selection
    @operation
    def view_mode(self) -> None:
        if self.driver.exists(description="View mode"):
            self.driver.tap(description="View mode")
        self.driver.element(resourceId=self.LINE)

    @operation
    def edit_mode(self) -> None:
        if self.driver.exists(description="Edit mode"):
            self.driver.tap(description="Edit mode")
        self.driver.element(resourceId=self.EDITOR)

    def _select_first_word(self, line_text: str) -> None:
        line = self.driver.element(resourceId=self.LINE, text=line_text)
        left, top, _right, bottom = line.bounds
        self.driver.long_press(left + 30, (top + bottom) // 2)
        self.driver.element(text="Copy")

    def _selection_closed(self) -> None:
        self.driver.wait_until(lambda: not self.driver.exists(text="Copy"), "the selection toolbar to close")

    @operation
    def copy(self, line_text: str, span: str = "word") -> None:
        """Copy from the line showing ``line_text`` (view mode): long-press its first word, then Copy
        (``span="word"``) or Select all first (``span="line"``: the whole line; a one-word line is already
        wholly selected and offers no Select all)."""
        if span not in ("word", "line"):
            raise ValueError(f"span must be 'word' or 'line', not {span!r}")
        self._select_first_word(line_text)
        if span == "line" and self.driver.exists(text="Select all"):
            self.driver.tap(text="Select all")
        self.driver.tap(text="Copy")
        self._selection_closed()

    @operation
    def copy_word(self, line_text: str) -> None:
        """Long-press the first word of the line showing ``line_text`` and Copy it."""
        self.copy(line_text, span="word")

    @operation
    def copy_line(self, line_text: str) -> None:
        """Long-press the line, Select all (the whole line), Copy."""
        self.copy(line_text, span="line")

    @operation
    def copy_each(self, lines: list[str], count: int | None = None, span: str = "word") -> None:
        """Copy the last ``count`` (default: all) of ``lines`` one after the other; every Copy overwrites the
        clipboard, so the last one is what it holds afterwards."""
        n = len(lines) if count is None else int(count)
        if not 1 <= n <= len(lines):
            raise ValueError(f"copy_each: count {count!r} must be between 1 and {len(lines)}")
        for line_text in list(lines)[len(lines) - n:]:
            self.copy(line_text, span=span)

    @operation
    def select_then_cancel(self, line_text: str, how: str = "back") -> None:
        """Select a word of the line, then dismiss the selection without copying: BACK (``how="back"``) or a
        tap on the line's right end, away from the toolbar (``how="tap"``)."""
        if how not in ("back", "tap"):
            raise ValueError(f"how must be 'back' or 'tap', not {how!r}")
        self._select_first_word(line_text)
        if how == "back":
            self.driver.back()
        else:
            line = self.driver.element(resourceId=self.LINE, text=line_text)
            _left, top, right, bottom = line.bounds
            self.driver.tap(right - 30, (top + bottom) // 2)
        self._selection_closed()

    # ------------------------------------------------------------------ editor
    def _text_menu(self) -> None:
        """Long-press the editor: it takes the focus and the floating text toolbar opens."""
        self.driver.long_press(resourceId=self.EDITOR)
        self.driver.wait_until(lambda: self.driver.exists(text="Paste") or self.driver.exists(text="Select all"),
                               "the text toolbar")

    @operation
    def paste_menu(self) -> None:
        """Long-press the editor and leave its text toolbar (Paste, plus Select all on a non-empty text) open."""
        self.driver.long_press(resourceId=self.EDITOR)
        self.driver.element(text="Paste")

    @operation
    def paste(self, times: int = 1) -> None:
        """In the editor: long-press the text field, Paste (the clipboard is not consumed); ``times`` pastes
        one after the other, each at the caret."""
        for _ in range(int(times)):
            before = self.driver.element(resourceId=self.EDITOR).text
            self.driver.long_press(resourceId=self.EDITOR)
            self.driver.tap(text="Paste")
            self.driver.wait_until(lambda before=before: self.driver.element(resourceId=self.EDITOR).text != before,
                                   "the pasted text in the editor")

    @operation
    def type(self, text: str) -> None:
        """Focus the editor and type ``text`` at the caret (saved on every edit)."""
        self.driver.tap(resourceId=self.EDITOR)
        self.driver.type_text(text)

    @operation
    def clear(self, chars: int) -> None:
        """Delete ``chars`` characters before the caret (DEL key presses)."""
        for _ in range(chars):
            self.driver.key(67)

    @operation
    def clear_all(self) -> None:
        """Empty the focused editor without touching the clipboard: one DEL per character before the caret
        (after a paste the caret is at the end of the text)."""
        for _ in range(len(self.driver.element(resourceId=self.EDITOR).text)):
            self.driver.key(67)
        self.driver.wait_until(lambda: self.driver.element(resourceId=self.EDITOR).text == "", "the editor to empty")

    @operation
    def discard(self, name: str, how: str = "text") -> None:
        """Get rid of what the open document ``name`` holds, then be back on the notebook list: delete its
        text character by character and go up (``how="text"``), or go up and delete the note (``"note"``)."""
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
            self.driver.tap(resourceId=self.EDITOR)
        elif how == "replace":
            self._text_menu()
            self.driver.tap(text="Select all")
        else:
            raise ValueError(f"how must be 'append' or 'replace', not {how!r}")
        self.driver.type_text(text)

    @operation
    def hide_keyboard(self) -> None:
        if "com.android.inputmethod.latin" in self.driver.hierarchy():
            self.driver.back()
