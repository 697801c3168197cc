"""Files (``com.google.android.documentsui``): browse, select, copy/move/delete, Downloads search; the
Persistent Artifact family's app.

The virtual Files app mirrors DocumentsUI's resource ids and strings ("Copy to…", the picker's
``android:id/button1``), so this profile is written once; verified against the virtual build only.
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation

PACKAGE = "com.google.android.documentsui"
STORAGE = "/storage/emulated/0"
DOWNLOAD = f"{STORAGE}/Download"
TITLE = "android:id/title"


class FilesProfile(AppProfile):
    package = PACKAGE
    name = "files"
    activity = "com.android.documentsui.files.FilesActivity"

    # ------------------------------------------------------------------ navigation
    def _roots(self, root: str) -> None:
        for _ in range(12):  # inside a folder the drawer button becomes "Navigate up"
            if self.driver.exists(description="Show roots"):
                break
            self.driver.tap(description="Navigate up")
        self.driver.tap(description="Show roots")
        self.driver.tap(resourceId=TITLE, text=root)

    def _walk(self, folder: str) -> None:
        """From the current root's top, open each folder of ``folder`` (a path below shared storage)."""
        rel = folder.removeprefix("/sdcard").removeprefix(STORAGE).strip("/")
        for part in [p for p in rel.split("/") if p]:
            self.driver.tap(resourceId=TITLE, text=part)

    @operation
    def open_folder(self, folder: str) -> None:
        """Show ``folder`` (``/storage/emulated/0/...``; Downloads through its own root)."""
        if folder.rstrip("/") in (DOWNLOAD, "/sdcard/Download"):
            self._roots("Downloads")
        else:
            self._roots("Internal storage")
            self._walk(folder)

    @operation
    def select(self, *names: str) -> None:
        """Long-press the first row, tap the others: selection mode with ``len(names)`` selected."""
        self.driver.long_press(resourceId=TITLE, text=names[0])
        for name in names[1:]:
            self.driver.tap(resourceId=TITLE, text=name)
        self.driver.element(resourceId=self.rid("action_bar_title"), text=f"{len(names)} selected")

    # ------------------------------------------------------------------ operations
    def _transfer(self, verb: str, path: str, dest: str, confirm: bool) -> None:
        parent, name = path.rstrip("/").rsplit("/", 1)
        self.open_folder(parent)
        self.select(name)
        self.driver.tap(resourceId=self.rid("action_menu_overflow"))
        self.driver.tap(text=f"{verb} to\u2026")
        self._roots("Internal storage")
        self._walk(dest)
        self.driver.tap(resourceId="android:id/button1" if confirm else "android:id/button2")

    @operation
    def copy_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Select ``path``, "Copy to…", pick folder ``dest``, then Copy (``confirm``) or Cancel."""
        self._transfer("Copy", path, dest, confirm)

    @operation
    def move_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Select ``path``, "Move to…", pick folder ``dest``, then Move (``confirm``) or Cancel."""
        self._transfer("Move", path, dest, confirm)

    @operation
    def delete(self, path: str, confirm: bool = True) -> None:
        """Select ``path``, Delete, then confirm or Cancel (selection mode is left either way)."""
        parent, name = path.rstrip("/").rsplit("/", 1)
        self.open_folder(parent)
        self.select(name)
        self.driver.tap(description="Delete")
        self.driver.tap(resourceId="android:id/button1" if confirm else "android:id/button2")
        if not confirm and self.driver.exists(resourceId=self.rid("action_mode_close_button")):
            self.driver.tap(resourceId=self.rid("action_mode_close_button"))

    # ------------------------------------------------------------------ search (Downloads)
    @operation
    def open_search(self) -> None:
        """Downloads root, then Search: an empty, focused search field with the keyboard up."""
        self._roots("Downloads")
        self.driver.tap(description="Search")
        self.driver.element(resourceId=self.rid("search_src_text"))

    @operation
    def type_query(self, text: str) -> None:
        """Type into the focused search field (results update as you type)."""
        self.driver.type_text(text)
