"""Simple Gallery Pro 6.28.1 (``com.simplemobiletools.gallery.pro``, versionCode 396, the build android_world
installs): open a folder and a file in the viewer, copy or move the file to another folder, rename it, delete it,
copy a file property to the clipboard and paste text into the rename field; the media probe reads the files as
android_world reads them; the ``media:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/com.simplemobiletools.gallery.pro/396.yaml``; repos ``gal``
SimpleMobileTools/Simple-Gallery 3cb12cc4 at tag 6.28.1 and ``commons`` Simple-Commons 9e60e247).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "Gallery"; a fresh install asks READ_MEDIA_IMAGES, then shows the all-files prompt
  ("All files" opens Settings' page whose switch is "Allow access to manage all files", the two taps of
  android_world's setup, android_world apps.py:395-400); nothing else shows before the folders;
* the folders screen lists the folders holding media as tiles (``dir_holder`` with ``dir_name``), a tile opens the
  folder's media grid (``media_item_holder``, no file names by default), a tile opens the viewer whose toolbar
  title is the file name; a horizontal swipe goes to the next file;
* the viewer's Delete is a bottom action (content-desc "Delete"): "Are you sure you want to move ... into the
  Recycle Bin?" Yes / No; Copy to / Move to / Rename are toolbar menu items (overflow rows unless shown as icons);
  Copy to and Move to are FILE operations (PickDirectoryDialog, "Other folder" -> the folder picker, OK), not
  clipboard actions;
* the app's own clipboard copy is a long press on a row of the Properties dialog ("Value copied to clipboard");
  text in the rename dialog is copied and pasted with the framework's floating toolbar.

The media probe (:func:`read_media`) lists the image and video files under shared storage with ``find`` as
android_world's check does (``file_utils.check_file_or_folder_exists``, simple_gallery_pro.py:59-69): the file
system is authoritative; :func:`read_cache` reads the app's own ``gallery.db`` (what it last listed).
"""

from __future__ import annotations

import datetime as dt
import posixpath
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.apps.dataspec import AppDatabase, DbReading
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.simplemobiletools.gallery.pro"
STORAGE = "/storage/emulated/0"
GALLERY_DB = AppDatabase(PACKAGE, "gallery.db")
#: commons photo and video extensions (commons helpers/Constants.kt:373-374) and GIF
MEDIA_EXTENSIONS = (".jpg", ".png", ".jpeg", ".bmp", ".webp", ".heic", ".heif", ".apng", ".avif", ".gif", ".mp4",
                    ".mkv", ".webm", ".avi", ".3gp", ".mov", ".m4v", ".3gpp")
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent
MAX_SWIPES = 12


def _absolute(path: str) -> str:
    path = path.rstrip("/")
    if path.startswith("/sdcard"):
        return STORAGE + path.removeprefix("/sdcard")
    return path


# ---------------------------------------------------------------------------------------------- probe
@dataclass(frozen=True)
class MediaReading:
    """The media files under shared storage (absolute paths, sorted), or why none could be listed."""

    paths: list[str]
    reason: str | None = None


def read_media(driver: Driver, root: str = STORAGE) -> MediaReading:
    """Every image and video file under ``root`` (``find -type f``, hidden and Android/ included as ``find`` sees
    them); an empty reading says so in ``reason``."""
    q = shlex.quote(_absolute(root))
    result = driver.shell(f"[ -d {q} ] && find {q} -type f; true")
    if not result.ok:
        raise DeviceError(f"{driver.serial}: find under {root} failed: {result.stderr.decode(errors='replace')}")
    paths = sorted(p for p in result.text.splitlines() if p.lower().endswith(MEDIA_EXTENSIONS))
    return MediaReading(paths, None if paths else f"no image or video file under {root}")


def read_cache(driver: Driver) -> DbReading:
    """The app's cache of media rows (``media`` in gallery.db), an explicit empty reading with its ``reason`` when
    the app has not created the database (installed or cleared and not opened since)."""
    return GALLERY_DB.read(driver, "SELECT * FROM media ORDER BY id")


def grid_names(elements: list[Any], tbl: Any) -> list[str]:
    """The file names a folder's media grid shows under its thumbnails, top to bottom and left to right: the
    ``medium_name`` of each tile lying wholly inside the grid (hidden unless "Toggle filename visibility" is on,
    MediaAdapter.kt:642). ``elements`` are a dump's :class:`emukit.actions.Element` s, ``tbl`` the app's table."""
    grid = next((e.bounds for e in elements if e.resource_id == tbl.rid("media_grid")), None)
    if grid is None:
        return []
    tiles = [e for e in elements if e.resource_id == tbl.rid("media_tile") and _inside(e.bounds, grid)]
    names = [e for e in elements if e.resource_id == tbl.rid("media_name") and e.text]
    shown = [n for n in names if any(_inside(n.bounds, t.bounds) for t in tiles)]
    return [n.text for n in sorted(shown, key=lambda n: (n.bounds[1], n.bounds[0]))]


# ---------------------------------------------------------------------------------------------- seed
class MediaSpec(BaseModel):
    """An image of a base snapshot: a file in shared storage, written as android_world writes its gallery files
    (pushed with ``adb push``, then left for the app to find: it lists the file system itself)."""

    model_config = ConfigDict(extra="forbid")
    path: str
    caption: str | None = None
    width: int = Field(320, ge=16, le=2048)
    height: int = Field(240, ge=16, le=2048)
    modified: dt.datetime | None = None

    @field_validator("path")
    @classmethod
    def _in_storage(cls, value: str) -> str:
        path = _absolute(value if value.startswith("/") else f"{STORAGE}/{value}")
        if not path.startswith(STORAGE + "/") or not path.lower().endswith((".jpg", ".jpeg", ".png")):
            raise ValueError(f"{value!r}: a .jpg, .jpeg or .png path under {STORAGE}")
        return path


class MediaSeed(SeedSection):
    """``media:`` in a base snapshot spec: image files in shared storage (DCIM, Pictures, Download...), each with
    its modification time when given (the app orders by it)."""

    key = "media"
    item = MediaSpec
    provision = True

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        from emukit.apps.gallery_media import make_image

        return {m.path: make_image(posixpath.basename(m.path), m.width, m.height, m.caption) for m in items}

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        sync = driver.adbutils().sync
        for path in sorted({posixpath.dirname(m.path) for m in items}):
            driver.shell(f"mkdir -p {shlex.quote(path)}", check=True)
        for path, data in cls.device_files(items).items():
            sync.push(data, path)
        for m in items:
            if m.modified is not None:
                when = (m.modified if m.modified.tzinfo else m.modified.replace(tzinfo=dt.UTC)).astimezone(dt.UTC)
                driver.shell(f"touch -t {when.strftime('%Y%m%d%H%M.%S')} {shlex.quote(m.path)}", check=True)
            driver.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d "
                         f"{shlex.quote('file://' + m.path)}")


# ---------------------------------------------------------------------------------------------- profile
@register_app
class GalleryProfile(AppProfile):
    package = PACKAGE
    name = "gallery"
    database = GALLERY_DB
    activity = f"{PACKAGE}.activities.MainActivity"
    seed = MediaSeed
    main_screens = ("folders",)
    fixture_screens = ("folders", "viewer", "pick_folder", "file_picker", "delete_confirm", "rename_dialog")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``permission`` (the READ_MEDIA_IMAGES dialog), ``all_files`` (the app's prompt), ``all_files_access``
        (Settings' switch page), ``folders``, ``folder``, ``viewer`` or None."""
        d = self.driver
        if d.exists(**self.sel("permissions:allow_button")):
            return "permission"
        if d.exists(**self.sel("all_files_button")) and d.exists(**self.sel("media_only_button")):
            return "all_files"
        if d.exists(**self.sel("settings:manage_all_files_switch")):
            return "all_files_access"
        if d.exists(**self.sel("main_root")):
            return "folders"
        if d.exists(**self.sel("media_root")):
            return "folder"
        if d.exists(**self.sel("viewer_root")):
            return "viewer"
        return None

    @operation
    def complete_first_run(self) -> None:
        """Launch it and answer what a fresh install shows, as android_world's setup does: Allow the media
        permission, "All files", then "Allow access to manage all files" and back to the folders."""
        self.launch(fresh=True)
        for _ in range(8):
            self.driver.wait_stable()
            screen = self.first_run_screen()
            if screen == "permission":
                self.driver.tap(**self.sel("permissions:allow_button"))
            elif screen == "all_files":
                self.driver.tap(**self.sel("all_files_button"))
            elif screen == "all_files_access":
                if not self.switch_is_on("settings:manage_all_files_switch"):
                    self.driver.tap(**self.sel("settings:manage_all_files_switch"))
                self.driver.back()
            elif screen == "folders":
                return
        self.driver.wait_until(lambda: self.first_run_screen() == "folders", "the Gallery's folders")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "the Gallery")

    def _to_folders(self) -> None:
        """Back to the folders screen (the launch when the app is not in front)."""
        for _ in range(4):
            if self.first_run_screen() == "folders":
                return
            if (self.driver.focused_app() or ("", ""))[0] != PACKAGE:
                self.launch()
                continue
            self.driver.back()
        self.driver.wait_until(lambda: self.first_run_screen() == "folders", "the Gallery's folders")

    # ------------------------------------------------------------------ folders and files
    @operation
    def open_folders(self) -> None:
        """Back to the folders screen (BACK from a folder or the viewer; the launch when the app is not in
        front), its grid at the top."""
        self._to_folders()
        self.driver.wait_stable()

    @operation
    def open_folder(self, folder: str) -> None:
        """From the folders screen, open the tile of ``folder`` (a path; its last segment is the tile's name)."""
        self._to_folders()
        name = posixpath.basename(_absolute(folder))
        self.scroll_into_view("folders_grid", lambda: self.driver.find(**self.sel("folder_name"), text=name),
                              MAX_SWIPES)
        self.driver.tap(**self.sel("folder_name"), text=name)
        self.driver.wait_until(lambda: self.first_run_screen() == "folder", f"the folder {name}")

    def _title(self) -> str:
        bar = self.driver.find(**self.sel("viewer_toolbar"))
        if bar is None:
            return ""
        for e in self.driver.elements():
            if e.cls == "android.widget.TextView" and e.text and _inside(e.bounds, bar.bounds):
                return e.text
        return ""

    @operation
    def open_file(self, path: str) -> None:
        """Open ``path`` in the viewer: its folder, the first tile, then swipe until the title is its name."""
        path = _absolute(path)
        self.open_folder(posixpath.dirname(path))
        self.driver.tap(**self.sel("media_tile"))
        self.driver.wait_until(lambda: self.first_run_screen() == "viewer", "the viewer")
        name = posixpath.basename(path)
        pager = self.driver.element(**self.sel("viewer_pager"))
        left, top, right, bottom = pager.bounds
        y = (top + bottom) // 2
        for _ in range(MAX_SWIPES):
            if self._title() == name:
                return
            before = self._title()
            self.driver.swipe(right - (right - left) // 8, y, left + (right - left) // 8, y, 300)
            self.driver.wait_stable()
            if self._title() == before:
                break
        if self._title() != name:
            raise DeviceError(f"{self.driver.serial}: {name} is not among the files of {posixpath.dirname(path)}")

    def _overflow(self, row: str) -> None:
        """A viewer menu item shown as a row of the toolbar's overflow (its title ``row``)."""
        self.driver.tap(**self.sel("more_options"))
        self.driver.tap(text=row)

    @operation
    def show_file_names(self, folder: str) -> None:
        """Open ``folder`` and turn "Toggle filename visibility" on (a toolbar action of the media screen,
        menu_media.xml:6-10) unless its tiles already show names; the setting is global and remembered
        (``display_file_names`` in Prefs.xml, Config.kt:203-205), so every folder's grid then names its files."""
        self.open_folder(folder)
        if not self.driver.exists(**self.sel("media_name")):
            self.driver.tap(**self.sel("media_toggle_filename"))
            self.driver.wait_until(lambda: self.driver.exists(**self.sel("media_name")), "file names under the tiles")

    def file_names(self) -> list[str]:
        """The file names the open folder's grid shows (an observation helper; :func:`grid_names`)."""
        return grid_names(self.driver.elements(), self.table)

    @operation
    def push_image(self, path: str, like: str | None = None, caption: str | None = None,
                   modified: str | None = None) -> None:
        """Write a generated image at ``path`` (setup: adb push, as the ``media:`` seed does): its pixels are
        those of an image named ``like`` (default: its own name), so two files given the same ``like`` are the
        same picture; ``modified`` (``YYYYMMDDhhmm.ss``) sets its modification time; then the media scan."""
        from emukit.apps.gallery_media import make_image

        spec = MediaSpec(path=path, caption=caption)
        folder = posixpath.dirname(spec.path)
        self.driver.shell(f"mkdir -p {shlex.quote(folder)}", check=True)
        data = make_image(like or posixpath.basename(spec.path), spec.width, spec.height, caption)
        self.driver.adbutils().sync.push(data, spec.path)
        if modified:
            self.driver.shell(f"touch -t {shlex.quote(modified)} {shlex.quote(spec.path)}", check=True)
        self.driver.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d "
                          f"{shlex.quote('file://' + spec.path)}")

    # ------------------------------------------------------------------ copy / move / delete (files)
    @operation
    def open_copy_picker(self, path: str) -> None:
        """Open ``path`` and "Copy to": the folder picker ("Select destination")."""
        self.open_file(path)
        self._overflow(self.table.text("viewer_copy_to"))
        self.driver.element(**self.sel("pick_dir_title"))

    @operation
    def open_other_folder(self) -> None:
        """In the folder picker, "Other folder": the file system's folder picker ("Select a folder")."""
        self.driver.tap(**self.sel("pick_dir_other"))
        self.driver.element(**self.sel("file_picker_title"))

    def _pick_folder(self, dest: str, confirm: bool) -> None:
        """PickDirectoryDialog -> "Other folder" -> walk to ``dest`` from the storage root -> OK or Cancel."""
        self.open_other_folder()
        self.driver.tap(**self.sel("breadcrumb_root"))
        rel = _absolute(dest).removeprefix(STORAGE).strip("/")
        for part in [p for p in rel.split("/") if p]:
            self.scroll_into_view("file_picker_list",
                                  lambda part=part: self.driver.find(**self.sel("file_picker_row_name"), text=part),
                                  MAX_SWIPES)
            self.driver.tap(**self.sel("file_picker_row_name"), text=part)
            self.driver.wait_stable()
        if confirm:
            self.driver.tap(**self.sel("file_picker_ok"))
        else:
            self.driver.tap(**self.sel("file_picker_cancel"))
        self.driver.wait_stable()

    @operation
    def copy_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Open ``path``, "Copy to", pick folder ``dest`` through "Other folder", then OK (``confirm``) or Cancel."""
        self.open_file(path)
        self._overflow(self.table.text("viewer_copy_to"))
        self._pick_folder(dest, confirm)

    @operation
    def move_to(self, path: str, dest: str, confirm: bool = True) -> None:
        """Open ``path``, "Move to", pick folder ``dest``, then OK (``confirm``) or Cancel."""
        self.open_file(path)
        self._overflow(self.table.text("viewer_move_to"))
        self._pick_folder(dest, confirm)

    @operation
    def open_delete(self, path: str) -> None:
        """Open ``path`` and tap Delete (a bottom action): the confirmation."""
        self.open_file(path)
        self.driver.tap(**self.sel("bottom_delete"))
        self.driver.element(**self.sel("delete_message"))

    @operation
    def delete(self, path: str, confirm: bool = True) -> None:
        """Open ``path``, Delete (a bottom action), then Yes (``confirm``: into the Recycle Bin) or No."""
        self.open_delete(path)
        if confirm:
            self.driver.tap(**self.sel("delete_yes"))
        else:
            self.driver.tap(**self.sel("delete_no"))
        self.driver.wait_stable()

    # ------------------------------------------------------------------ rename, clipboard
    @operation
    def open_rename(self, path: str) -> None:
        """Open ``path`` and its Rename dialog."""
        self.open_file(path)
        self._overflow(self.table.text("viewer_rename"))
        self.driver.element(**self.sel("rename_name_field"))

    @operation
    def set_name(self, name: str) -> None:
        """Replace the rename dialog's name field (without the extension)."""
        field = self.driver.element(**self.sel("rename_name_field"))
        self.driver.tap(*field.center)
        self.driver.key(KEYCODE_MOVE_END)
        for _ in range(len(field.text)):
            self.driver.key(KEYCODE_DEL)
        if name:
            self.driver.type_text(name)

    @operation
    def save(self) -> None:
        """OK in the rename dialog: the file is renamed."""
        self.driver.tap(**self.sel("rename_ok"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("rename_name_field")),
                               "the rename dialog to close")

    @operation
    def rename(self, path: str, name: str) -> None:
        """Rename ``path`` to ``name`` (+ its extension): open, Rename, type, OK."""
        self.open_rename(path)
        self.set_name(name)
        self.save()

    @operation
    def copy_field(self, entry: str = "rename_name_field") -> None:
        """Select all of a rename-dialog field (``rename_name_field`` or ``rename_extension_field``) and copy it
        (framework floating toolbar)."""
        field = self._field(entry)
        self.select_all_and_copy(field)

    @operation
    def paste_into(self, entry: str = "rename_name_field") -> None:
        """Long-press a rename-dialog field and Paste the clipboard at the caret."""
        field = self._field(entry)
        self.driver.tap(*field.center)
        self.paste_at(field)

    def _field(self, entry: str) -> Any:
        if entry == "rename_name_field":
            return self.driver.element(**self.sel("rename_name_field"))
        if entry == "rename_extension_field":
            return self.driver.element(**self.sel("rename_extension_field"))
        raise DeviceError(f"{self.driver.serial}: {entry!r} is not a field of the rename dialog")

    @operation
    def open_properties(self, path: str) -> None:
        """Open ``path`` and its Properties dialog."""
        self.open_file(path)
        if self.driver.exists(**self.sel("viewer_properties")):
            self.driver.tap(**self.sel("viewer_properties"))
        else:
            self._overflow(self.table.text("properties_title"))
        self.driver.element(**self.sel("properties_holder"))

    @operation
    def copy_property(self, path: str, label: str = "Path") -> None:
        """The app's own clipboard copy: long-press the Properties row ``label`` (Name, Path, Size...)."""
        self.open_properties(path)
        row_label = self.driver.element(**self.sel("property_label"), text=label)
        self.driver.long_press(*row_label.center)
        self.driver.tap(**self.sel("properties_ok"))

    # ------------------------------------------------------------------ probe, doctor
    def media(self, root: str = STORAGE) -> MediaReading:
        return read_media(self.driver, root)

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``gallery database``: gallery.db has the media table the cache reading reads (12 columns, the Medium
        entity's), or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read the Gallery's database", "fix the root row first"
            reading = GALLERY_DB.read(self.driver, "PRAGMA table_info(media)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            ok = len(columns) == 12 and columns[:3] == ["id", "filename", "full_path"]
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return ok, f"media has {len(columns)} columns", fix

        return [("gallery database", row)]

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        return capture_screens(self)


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def capture_screens(profile: GalleryProfile) -> dict[str, Callable[[], None]]:
    """The structure fixtures' screens (``tests/fixtures/real/hierarchy/gallery/<name>.yaml``) and how to bring each
    up from a device past its first run, with one image in DCIM; for the capture tool's walk (each ends with BACK)."""
    driver = profile.driver
    image = f"{STORAGE}/DCIM/capture_check.jpg"

    def folders() -> None:
        driver.shell(f"pm clear {PACKAGE}", check=True)
        MediaSeed.apply(driver, [MediaSpec(path=image)])
        profile.complete_first_run()

    def viewer() -> None:
        folders()
        profile.open_file(image)

    def pick_folder() -> None:
        folders()
        profile.open_copy_picker(image)

    def file_picker() -> None:
        pick_folder()
        profile.open_other_folder()

    def delete_confirm() -> None:
        folders()
        profile.open_delete(image)

    def rename_dialog() -> None:
        folders()
        profile.open_rename(image)

    return {"folders": folders, "viewer": viewer, "pick_folder": pick_folder, "file_picker": file_picker,
            "delete_confirm": delete_confirm, "rename_dialog": rename_dialog}
