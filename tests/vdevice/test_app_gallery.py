"""The virtual Simple Gallery Pro (com.simplemobiletools.gallery.pro, versionCode 396), driven in-process
through the window manager like a user would; ids and strings come from its pinned selector table. Its file
operations act on the device's files (the Persistent Artifact family's ground truth), gallery.db is its cache."""

from __future__ import annotations

import datetime as dt
import os

import pytest

from emukit.apps.gallery_media import make_image
from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.calendar import data as calendar_data
from emukit.vdevice.apps.simplegallery import GalleryApp
from emukit.vdevice.apps.simplegallery import data as D
from emukit.vdevice.apps.simplegallery.roomhash import identity_hash
from emukit.vdevice.apps.sms import data as sms_data
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from tests.hierarchy_match import FIXTURES
from tests.vdevice.views import exists, find, install_standin, tap

T = table("com.simplemobiletools.gallery.pro")
PKG = T.package
MAIN = f"{PKG}.activities.MainActivity"
MEDIA = f"{PKG}.activities.MediaActivity"
VIEWER = f"{PKG}.activities.ViewPagerActivity"
S = D.STORAGE
BACK = 4
READ_IMAGES = "android.permission.READ_MEDIA_IMAGES"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def put(dev: VirtualDevice, path: str, day: int = 10) -> str:
    """An image at ``path`` (under shared storage) modified on January ``day``, 2026."""
    full = path if path.startswith("/") else f"{S}/{path}"
    dev.fs.makedirs(full.rsplit("/", 1)[0])
    dev.fs.write_bytes(full, make_image(full.rsplit("/", 1)[1]))
    when = dt.datetime(2026, 1, day, 9, tzinfo=dt.UTC).timestamp()
    os.utime(dev.fs.host(full), (when, when))
    return full


def texts(dev: VirtualDevice, entry: str) -> list[str]:
    return [v.text for v in dev.wm.windows()[-1].walk() if v.resource_id == T.rid(entry)] or [
        v.text for w in dev.wm.windows() for v in w.walk() if v.resource_id == T.rid(entry)]


def open_viewer(dev: VirtualDevice, folder: str) -> None:
    dev.start_activity(PKG)
    tap(dev, resource_id=T.rid("folder_name"), text=folder)
    assert dev.current_focus() == (PKG, MEDIA)
    tap(dev, resource_id=T.rid("media_tile"))
    assert dev.current_focus() == (PKG, VIEWER)


def title(dev: VirtualDevice) -> str:
    bar = find(dev, resource_id=T.rid("viewer_toolbar"))
    return next(v.text for v in bar.walk() if v.cls == "android.widget.TextView" and v.text)


def overflow(dev: VirtualDevice, entry: str) -> None:
    tap(dev, content_desc="More options")
    tap(dev, text=T.text(entry))


def switch_rows(dev: VirtualDevice) -> list:
    return [v for w in dev.wm.windows() for v in w.walk() if v.text == "Allow access to manage all files"]


# ---------------------------------------------------------------------------------------------- identity, schema
def test_identity_table_and_manifest_facts() -> None:
    app = GalleryApp()
    assert (app.package, app.version_code, app.version_name) == (PKG, 396, "6.28.1-emukit-virtual")
    assert app.label == T.text("launcher_icon") == "Gallery"
    assert app.activities == (".activities.MainActivity", MEDIA.removeprefix(PKG), VIEWER.removeprefix(PKG))
    assert set(T.apk.permissions) <= set(app.runtime_permissions) and T.apk.app_ops == ["MANAGE_EXTERNAL_STORAGE"]
    assert T.entry("viewer_copy_to").clipboard == T.entry("viewer_move_to").clipboard == "none"
    assert T.entry("property_row").clipboard == "copy"


def test_room_identity_hash_reproduces_known_schemas() -> None:
    """The algorithm gives the Calendar's hash and the SMS Messenger's (written from its exported schema)."""
    assert identity_hash(calendar_data.SCHEMA.create) == calendar_data.SCHEMA.identity_hash
    assert identity_hash(sms_data.SCHEMA.create) == sms_data.SCHEMA.identity_hash
    assert D.SCHEMA.identity_hash == identity_hash(D.SCHEMA.create) and len(D.SCHEMA.identity_hash) == 32


def test_format_size_is_commons_format() -> None:
    assert [D.format_size(n) for n in (0, 512, 1024, 1536, 20_000, 5 * 1024 * 1024)] == [
        "0 B", "512 B", "1 kB", "1.5 kB", "19.5 kB", "5 MB"]


# ---------------------------------------------------------------------------------------------- first start
def test_first_start_lists_media_folders_and_caches_them(device: VirtualDevice) -> None:
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)  # no prompt on the deterministic device
    assert exists(device, resource_id=T.rid("folders_empty"), text=T.text("folders_empty"))
    assert D.STORE.exists(device) and D.SCHEMA.path == f"/data/data/{PKG}/databases/gallery.db"
    tables = {r["name"] for r in D.STORE.rows(device, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"directories", "media", "widgets", "date_takens", "favorites", "room_master_table"} <= tables
    assert D.STORE.rows(device, "SELECT identity_hash FROM room_master_table") == [
        {"identity_hash": D.SCHEMA.identity_hash}]
    assert D.STORE.rows(device, "PRAGMA user_version") == [{"user_version": 10}]
    device.finish_top()
    put(device, "DCIM/old.jpg", day=3)
    put(device, "Pictures/a.png", day=5)
    put(device, "Pictures/b.jpg", day=6)
    put(device, "Documents/.hidden.jpg", day=9)  # a hidden file is not listed
    device.fs.write_bytes(f"{S}/Download/readme.txt", b"not media")
    device.start_activity(PKG)
    assert texts(device, "folder_name") == ["Pictures", "DCIM"]  # newest first, no Download, no hidden file
    assert texts(device, "folder_count") == ["2", "1"]
    rows = D.STORE.rows(device, "SELECT path, filename, media_count, thumbnail FROM directories ORDER BY path")
    assert rows == [{"path": f"{S}/DCIM", "filename": "DCIM", "media_count": 1, "thumbnail": f"{S}/DCIM/old.jpg"},
                    {"path": f"{S}/Pictures", "filename": "Pictures", "media_count": 2,
                     "thumbnail": f"{S}/Pictures/b.jpg"}]
    search = find(device, resource_id=T.rid("search_field"))
    assert search.hint == "Search folders"


def test_folder_grid_opens_the_viewer_and_swipes_through_the_folder(device: VirtualDevice) -> None:
    for i, day in ((1, 4), (2, 6), (3, 5)):
        put(device, f"DCIM/IMG_000{i}.jpg", day=day)
    open_viewer(device, "DCIM")
    assert title(device) == "IMG_0002.jpg"  # newest first
    pager = find(device, resource_id=T.rid("viewer_pager"))
    l, t, r, b = pager.bounds
    device.wm.swipe(r - 50, (t + b) // 2, l + 50, (t + b) // 2)
    assert title(device) == "IMG_0003.jpg"
    device.wm.swipe(r - 50, (t + b) // 2, l + 50, (t + b) // 2)
    assert title(device) == "IMG_0001.jpg"
    device.wm.swipe(r - 50, (t + b) // 2, l + 50, (t + b) // 2)
    assert title(device) == "IMG_0001.jpg"  # the last one
    rows = D.STORE.rows(device, "SELECT filename, parent_path, type, deleted_ts FROM media ORDER BY filename")
    assert rows == [{"filename": f"IMG_000{i}.jpg", "parent_path": f"{S}/DCIM", "type": D.TYPE_IMAGES,
                     "deleted_ts": 0} for i in (1, 2, 3)]
    for entry in ("bottom_favorite", "bottom_edit", "bottom_share", "bottom_delete"):
        assert find(device, resource_id=T.rid(entry)).content_desc == T.desc(entry)
    assert exists(device, resource_id=T.rid("viewer_properties"), content_desc="Properties")
    tap(device, content_desc="More options")
    rows = [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("overflow_title")]
    assert rows[:4] == ["Rename", "Hide", "Copy to", "Move to"]
    device.wm.key(BACK)
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MEDIA)


# ---------------------------------------------------------------------------------------------- copy / move
def test_copy_to_a_media_folder_tile_copies_at_once(device: VirtualDevice) -> None:
    src = put(device, "DCIM/receipt.jpg", day=8)
    put(device, "Pictures/other.png", day=2)
    open_viewer(device, "DCIM")
    overflow(device, "viewer_copy_to")
    assert exists(device, text=T.text("pick_dir_title"))
    names = [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("folder_name")]
    assert "DCIM" in names and "Pictures" in names
    same = [v for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("folder_name") and v.text == "DCIM"]
    device.wm.tap(*same[-1].center)  # the source folder: refused
    assert device.state.ui.toast == "Source and destination cannot be the same"
    pictures = [v for w in device.wm.windows() for v in w.walk()
                if v.resource_id == T.rid("folder_name") and v.text == "Pictures"]
    device.wm.tap(*pictures[-1].center)
    assert device.fs.host(f"{S}/Pictures/receipt.jpg").read_bytes() == device.fs.host(src).read_bytes()
    assert device.fs.host(src).exists()
    assert device.state.ui.toast == T.text("copy_done_toast")
    assert not exists(device, text=T.text("pick_dir_title"))


def test_picker_ok_and_cancel_only_close(device: VirtualDevice) -> None:
    put(device, "DCIM/receipt.jpg")
    put(device, "Pictures/other.png")
    open_viewer(device, "DCIM")
    for button in ("pick_dir_ok", "pick_dir_cancel"):
        overflow(device, "viewer_copy_to")
        tap(device, resource_id=T.rid(button), text=T.text(button))
        assert not exists(device, text=T.text("pick_dir_title"))
        assert not device.fs.host(f"{S}/Pictures/receipt.jpg").exists()


def test_other_folder_picks_a_folder_without_media_and_remembers_it(device: VirtualDevice) -> None:
    src = put(device, "DCIM/receipt.jpg")
    open_viewer(device, "DCIM")
    overflow(device, "viewer_copy_to")
    tap(device, resource_id="android:id/button3", text="Other folder")
    assert exists(device, text="Select a folder")
    crumbs = [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("breadcrumb")]
    assert crumbs == ["Internal", "> DCIM"]  # starts at the source folder
    assert exists(device, resource_id=T.rid("file_picker_row_name"), text="receipt.jpg")
    tap(device, resource_id=T.rid("breadcrumb"), text="Internal")
    rows = [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("file_picker_row_name")]
    assert "Download" in rows and rows == sorted(rows, key=str.lower)
    tap(device, resource_id=T.rid("file_picker_row_name"), text="Download")
    device.wm.key(BACK)  # BACK goes up one folder first
    assert [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("breadcrumb")] == [
        "Internal"]
    tap(device, resource_id=T.rid("file_picker_row_name"), text="Download")
    tap(device, resource_id="android:id/button2", text="Cancel")
    assert not device.fs.host(f"{S}/Download/receipt.jpg").exists()
    overflow(device, "viewer_copy_to")
    tap(device, resource_id="android:id/button3", text="Other folder")
    tap(device, resource_id=T.rid("breadcrumb"), text="Internal")
    tap(device, resource_id=T.rid("file_picker_row_name"), text="Download")
    tap(device, resource_id="android:id/button1", text="OK")
    assert device.fs.host(f"{S}/Download/receipt.jpg").exists() and device.fs.host(src).exists()
    assert D.last_copy_path(device) == f"{S}/Download"
    device.fs.host(f"{S}/Download/receipt.jpg").unlink()
    overflow(device, "viewer_copy_to")
    tap(device, resource_id="android:id/button3", text="Other folder")  # now starts at the last copy path
    assert [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("breadcrumb")] == [
        "Internal", "> Download"]


def test_move_to_leaves_no_source_and_shows_the_next_file(device: VirtualDevice) -> None:
    put(device, "DCIM/a.jpg", day=9)
    put(device, "DCIM/b.jpg", day=8)
    put(device, "Pictures/p.png", day=1)
    open_viewer(device, "DCIM")
    assert title(device) == "a.jpg"
    overflow(device, "viewer_move_to")
    pictures = [v for w in device.wm.windows() for v in w.walk()
                if v.resource_id == T.rid("folder_name") and v.text == "Pictures"]
    device.wm.tap(*pictures[-1].center)
    assert not device.fs.host(f"{S}/DCIM/a.jpg").exists() and device.fs.host(f"{S}/Pictures/a.jpg").exists()
    assert device.state.ui.toast == T.text("move_done_toast")
    assert title(device) == "b.jpg"
    paths = {r["full_path"] for r in D.media_rows(device)}
    assert f"{S}/Pictures/a.jpg" in paths and f"{S}/DCIM/a.jpg" not in paths
    overflow(device, "viewer_move_to")
    pictures = [v for w in device.wm.windows() for v in w.walk()
                if v.resource_id == T.rid("folder_name") and v.text == "Pictures"]
    device.wm.tap(*pictures[-1].center)
    assert device.current_focus() == (PKG, MEDIA)  # the folder's last file left: the viewer finished


# ---------------------------------------------------------------------------------------------- delete
def test_delete_asks_then_moves_into_the_recycle_bin(device: VirtualDevice) -> None:
    src = put(device, "DCIM/receipt.jpg")
    size = D.format_size(device.fs.host(src).stat().st_size)
    open_viewer(device, "DCIM")
    tap(device, resource_id=T.rid("bottom_delete"))
    message = find(device, resource_id=T.rid("delete_message")).text
    assert message == f"Are you sure you want to move \"receipt.jpg\" ({size}) into the Recycle Bin?"
    assert exists(device, resource_id=T.rid("delete_skip_bin"), text=T.text("delete_skip_bin"))
    tap(device, resource_id="android:id/button2", text="No")
    assert device.fs.host(src).exists()
    tap(device, resource_id=T.rid("bottom_delete"))
    tap(device, resource_id="android:id/button1", text="Yes")
    assert not device.fs.host(src).exists()
    assert device.fs.host(f"{D.FILES_DIR}{src}").exists()
    row = D.STORE.rows(device, "SELECT full_path, deleted_ts FROM media")[0]
    assert row["full_path"] == f"recycle_bin{src}" and row["deleted_ts"] == device.wall_ms()
    assert device.current_focus() == (PKG, MEDIA)  # it was the folder's only file
    device.wm.key(BACK)
    assert texts(device, "folder_name") == ["Recycle Bin"]


def test_skip_the_recycle_bin_deletes_the_file_and_its_row(device: VirtualDevice) -> None:
    src = put(device, "DCIM/receipt.jpg")
    put(device, "DCIM/keep.jpg", day=1)
    open_viewer(device, "DCIM")
    tap(device, resource_id=T.rid("bottom_delete"))
    tap(device, resource_id=T.rid("delete_skip_bin"))
    tap(device, resource_id="android:id/button1", text="Yes")
    assert not device.fs.host(src).exists() and not device.fs.host(f"{D.FILES_DIR}{src}").exists()
    assert [r["full_path"] for r in D.media_rows(device)] == [f"{S}/DCIM/keep.jpg"]
    assert title(device) == "keep.jpg"


# ---------------------------------------------------------------------------------------------- rename, properties
def test_rename_dialog_renames_and_copy_paste_works_in_its_field(device: VirtualDevice) -> None:
    put(device, "Pictures/sunset.png")
    open_viewer(device, "Pictures")
    overflow(device, "viewer_rename")
    assert find(device, resource_id=T.rid("rename_name_field")).text == "sunset"
    assert find(device, resource_id=T.rid("rename_extension_field")).text == "png"
    field = find(device, resource_id=T.rid("rename_name_field"))
    device.wm.long_press(*field.center)
    tap(device, text="Select all")
    tap(device, text="Copy")
    assert device.clipboard.get().text == "sunset"
    device.wm.tap(*find(device, resource_id=T.rid("rename_name_field")).center)
    device.wm.long_press(*find(device, resource_id=T.rid("rename_name_field")).center)
    tap(device, text="Paste")
    assert find(device, resource_id=T.rid("rename_name_field")).text == "sunsetsunset"
    tap(device, resource_id="android:id/button1", text="OK")
    assert device.fs.host(f"{S}/Pictures/sunsetsunset.png").exists()
    assert not device.fs.host(f"{S}/Pictures/sunset.png").exists()
    assert title(device) == "sunsetsunset.png"


def test_rename_with_an_empty_name_toasts(device: VirtualDevice) -> None:
    put(device, "Pictures/sunset.png")
    open_viewer(device, "Pictures")
    overflow(device, "viewer_rename")
    field = find(device, resource_id=T.rid("rename_name_field"))
    device.wm.tap(*field.center)
    for _ in range(len("sunset")):
        device.wm.key(67)
    tap(device, resource_id="android:id/button1", text="OK")
    assert device.state.ui.toast == "Please enter a name"
    assert device.fs.host(f"{S}/Pictures/sunset.png").exists()


def test_properties_long_press_copies_a_value(device: VirtualDevice) -> None:
    src = put(device, "Pictures/sunset.png")
    open_viewer(device, "Pictures")
    tap(device, resource_id=T.rid("viewer_properties"))
    labels = [v.text for w in device.wm.windows() for v in w.walk() if v.resource_id == T.rid("property_label")]
    assert labels == ["Name", "Path", "Size", "Last modified"]
    row = find(device, resource_id=T.rid("property_value"), text=f"{S}/Pictures")
    device.wm.long_press(*row.center)
    clip = device.clipboard.get()
    assert (clip.text, clip.label) == (f"{S}/Pictures", "Simple Commons")
    assert device.state.ui.toast == f"Value copied to clipboard:\n{S}/Pictures"
    tap(device, resource_id="android:id/button1", text="OK")
    assert device.fs.host(src).exists() and device.current_focus() == (PKG, VIEWER)


# ---------------------------------------------------------------------------------------------- hardware mode
def test_hardware_first_run_asks_media_then_all_files(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps
    install_standin(dev, PKG)
    put(dev, "DCIM/receipt.jpg")
    dev.start_activity(PKG)
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_button")
    assert dev.permission_granted(PKG, READ_IMAGES) and dev.permission_granted(PKG, "android.permission.READ_MEDIA_VIDEO")
    assert dev.current_focus() == (PKG, MAIN)
    message = find(dev, resource_id=T.rid("all_files_message")).text
    assert message.startswith("Please grant our app access to all your files")
    assert exists(dev, resource_id="android:id/button3", text="Media only")
    assert texts(dev, "folder_name") == ["DCIM"]  # the folders show under the prompt
    tap(dev, resource_id="android:id/button1", text="All files")  # android_world's first tap
    assert dev.current_focus()[0] == "com.android.settings"
    [switch] = switch_rows(dev)
    dev.wm.tap(*switch.center)  # android_world's second tap
    assert D.has_all_files_access(dev)
    dev.wm.key(BACK)
    assert dev.current_focus() == (PKG, MAIN)
    assert not exists(dev, text="All files")  # asked once per activity
    dev.wm.key(BACK)
    dev.start_activity(PKG)
    assert not exists(dev, text="All files") and texts(dev, "folder_name") == ["DCIM"]


def test_hardware_denied_media_permission_toasts_and_closes(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.start_activity(PKG)
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_deny_button")
    assert dev.state.ui.toast == "Storage permission is required"
    assert dev.current_focus()[0] != PKG


def test_hardware_file_operations_need_all_files_access(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.grant_permission(PKG, READ_IMAGES)
    src = put(dev, "DCIM/receipt.jpg")
    dev.start_activity(PKG)
    tap(dev, resource_id="android:id/button3", text="Media only")
    tap(dev, resource_id=T.rid("folder_name"), text="DCIM")
    tap(dev, resource_id=T.rid("media_tile"))
    tap(dev, resource_id=T.rid("bottom_delete"))
    assert exists(dev, text="All files") and not exists(dev, resource_id=T.rid("delete_message"))
    assert dev.fs.host(src).exists()


def test_pm_clear_removes_the_cache_and_brings_the_prompts_back(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.grant_permission(PKG, READ_IMAGES)
    dev.set_app_op(PKG, "MANAGE_EXTERNAL_STORAGE", "allow")
    src = put(dev, "DCIM/receipt.jpg")
    dev.start_activity(PKG)
    assert texts(dev, "folder_name") == ["DCIM"] and not exists(dev, text="All files")
    assert D.STORE.exists(dev)
    out: list[bytes] = []
    assert run_shell(dev, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(dev) and dev.fs.host(src).exists()  # shared storage is not app data
    assert not dev.permission_granted(PKG, READ_IMAGES) and not D.has_all_files_access(dev)
    dev.start_activity(PKG)
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)


# ---------------------------------------------------------------------------------------------- fixtures, gallery
def test_virtual_screens_match_the_structure_fixtures(device: VirtualDevice) -> None:
    src = put(device, "DCIM/capture_check.jpg")
    device.start_activity(PKG)
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "folders.yaml") == []
    tap(device, resource_id=T.rid("folder_name"), text="DCIM")
    tap(device, resource_id=T.rid("media_tile"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "viewer.yaml") == []
    overflow(device, "viewer_copy_to")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "pick_folder.yaml") == []
    tap(device, resource_id="android:id/button3", text="Other folder")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "file_picker.yaml") == []
    device.wm.key(BACK)
    device.wm.key(BACK)
    tap(device, resource_id=T.rid("bottom_delete"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "delete_confirm.yaml") == []
    tap(device, resource_id="android:id/button2", text="No")
    overflow(device, "viewer_rename")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "gallery" / "rename_dialog.yaml") == []
    assert device.fs.host(src).exists()


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    names = []
    for name in app.gallery_scenes(device):
        names.append(name)
        png = device.screenshot_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    assert names == ["folders (empty)", "folders", "folder", "viewer", "viewer overflow", "pick dialog",
                     "files dialog", "rename dialog", "properties dialog", "delete dialog", "all files prompt"]
    assert exists(device, resource_id=T.rid("all_files_message"))
