"""Files (``com.google.android.documentsui``): browse, select, copy/move/delete, Downloads search; the
Persistent Artifact family's app.

Every selector comes from the table of the image's DocumentsUI (``tables/com.google.android.documentsui``),
read from AOSP DocumentsUI (LineageOS lineage-21.0). Behaviours this profile relies on, from the same sources:

- The toolbar's navigation button is "Show roots" on every screen, inside folders too
  (``NavigationViewManager.update``); so every navigation starts from the roots drawer and walks down.
- The shared-storage root is titled with ``Settings.Global.DEVICE_NAME`` (``ExternalStorageProvider``;
  SettingsProvider's default is ``Build.MODEL``): :meth:`FilesProfile.device_name` reads it from the device.
- Copy/Move are in the selection overflow ("More options", an AppCompat button without id); the picker's
  confirm and cancel are the framework's button1/button2 ids, and so are the delete dialog's (its positive
  button says "OK").
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation, register_app
from emukit.errors import DeviceError

PACKAGE = "com.google.android.documentsui"
STORAGE = "/storage/emulated/0"
DOWNLOAD = f"{STORAGE}/Download"
#: swipes tried to bring a row into view before giving up
MAX_SCROLLS = 12


@register_app
class FilesProfile(AppProfile):
    package = PACKAGE
    name = "files"
    activity = "com.android.documentsui.files.FilesActivity"

    _device_name: str | None = None

    # ------------------------------------------------------------------ facts read from the device
    def device_name(self) -> str:
        """The title of the shared-storage root: ``settings get global device_name``, else the model
        (``getprop ro.product.model``, SettingsProvider's default for that setting). Read once."""
        if self._device_name is None:
            name = self.driver.shell("settings get global device_name").text.strip()
            if not name or name == "null":
                name = self.driver.shell("getprop ro.product.model").text.strip()
            if not name:
                raise DeviceError(f"{self.driver.serial}: neither device_name nor ro.product.model is set")
            self._device_name = name
        return self._device_name

    # ------------------------------------------------------------------ navigation
    def _roots(self, root: str) -> None:
        """Open the roots drawer and pick the root titled ``root``."""
        self.driver.tap(**self.sel("show_roots"))
        self.driver.tap(**self.sel("root_title"), text=root)

    def _show_row(self, name: str) -> None:
        """Scroll the list until the row titled ``name`` lies wholly inside it."""
        self.scroll_into_view("dir_list", lambda: self.driver.find(**self.sel("row_title"), text=name), MAX_SCROLLS)

    def _walk(self, folder: str) -> None:
        """From the current root's top, open each folder of ``folder`` (a path below shared storage)."""
        rel = folder.removeprefix("/sdcard").removeprefix(STORAGE).strip("/")
        for part in [p for p in rel.split("/") if p]:
            self._show_row(part)
            self.driver.tap(**self.sel("row_title"), text=part)

    @operation
    def open_folder(self, folder: str) -> None:
        """Show ``folder`` (``/storage/emulated/0/...``; Downloads through its own root)."""
        if folder.rstrip("/") in (DOWNLOAD, "/sdcard/Download"):
            self._roots(self.table.text("root_downloads"))
        else:
            self._roots(self.table.text("root_storage", device=self.device_name()))
            self._walk(folder)

    @operation
    def select(self, *names: str) -> None:
        """Long-press the first row, tap the others: selection mode with ``len(names)`` selected."""
        self._show_row(names[0])
        self.driver.long_press(**self.sel("row_title"), text=names[0])
        for name in names[1:]:
            self._show_row(name)
            self.driver.tap(**self.sel("row_title"), text=name)
        self.driver.element(**self.sel("selection_title", n=len(names)))

    # ------------------------------------------------------------------ operations
    def _transfer(self, move: bool, path: str, dest: str, confirm: bool) -> None:
        parent, name = path.rstrip("/").rsplit("/", 1)
        self.open_folder(parent)
        self.select(name)
        self.driver.tap(**self.sel("more_options"))
        if move:
            self.driver.tap(**self.sel("menu_move_to"))
        else:
            self.driver.tap(**self.sel("menu_copy_to"))
        self._roots(self.table.text("root_storage", device=self.device_name()))
        self._walk(dest)
        if confirm:
            self.driver.tap(**self.sel("pick_confirm"))
        else:
            self.driver.tap(**self.sel("pick_cancel"))

    @operation
    def copy_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Select ``path``, "Copy to…", pick folder ``dest``, then Copy (``confirm``) or Cancel."""
        self._transfer(False, path, dest, confirm)

    @operation
    def move_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Select ``path``, "Move to…", pick folder ``dest``, then Move (``confirm``) or Cancel."""
        self._transfer(True, path, dest, confirm)

    @operation
    def delete(self, path: str, confirm: bool = True) -> None:
        """Select ``path``, Delete, then OK (``confirm``) or Cancel; selection mode is left either way."""
        parent, name = path.rstrip("/").rsplit("/", 1)
        self.open_folder(parent)
        self.select(name)
        self.driver.tap(**self.sel("action_delete"))
        if confirm:
            self.driver.tap(**self.sel("delete_confirm"))
            return
        self.driver.tap(**self.sel("delete_cancel"))
        if self.driver.exists(**self.sel("action_mode_close")):
            self.driver.tap(**self.sel("action_mode_close"))

    # ------------------------------------------------------------------ search (Downloads)
    @operation
    def open_search(self) -> None:
        """Downloads root, then Search: an empty, focused search field with the keyboard up."""
        self._roots(self.table.text("root_downloads"))
        self.driver.tap(**self.sel("search"))
        self.driver.element(**self.sel("search_field"))

    @operation
    def type_query(self, text: str) -> None:
        """Type into the focused search field (results update as you type)."""
        self.driver.type_text(text)
