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

    @operation
    def copy_word(self, line_text: str) -> None:
        """Long-press the first word of the line showing ``line_text`` and Copy it."""
        self._select_first_word(line_text)
        self.driver.tap(text="Copy")

    @operation
    def copy_line(self, line_text: str) -> None:
        """Long-press the line, Select all (the whole line), Copy."""
        self._select_first_word(line_text)
        self.driver.tap(text="Select all")
        self.driver.tap(text="Copy")

    @operation
    def select_then_cancel(self, line_text: str) -> None:
        """Select a word of the line, then dismiss the selection with BACK (nothing is copied)."""
        self._select_first_word(line_text)
        self.driver.back()

    # ------------------------------------------------------------------ editor
    @operation
    def paste(self) -> None:
        """In the editor: long-press the text field, Paste (the clipboard is not consumed)."""
        self.driver.long_press(resourceId=self.EDITOR)
        self.driver.tap(text="Paste")

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
    def hide_keyboard(self) -> None:
        if "com.android.inputmethod.latin" in self.driver.hierarchy():
            self.driver.back()
