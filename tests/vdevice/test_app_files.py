"""The Files app (DocumentsUI) in-process: browsing, selection, copy/move through the picker, delete, search,
dialogs and the filesystem state they leave behind."""

from __future__ import annotations

import os
import time

import pytest

from emukit.apps.selectors import table
from emukit.vdevice.apps.files import FilesApp
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.ui.view import View

PKG = "com.google.android.documentsui"
FILES = "com.android.documentsui.files.FilesActivity"
PICK = "com.android.documentsui.picker.PickActivity"
SD = "/storage/emulated/0"
DL = SD + "/Download"
IME = "com.android.inputmethod.latin"
T = table(PKG)
DEVICE_NAME = "sdk_gphone64_x86_64"  # Settings.Global.DEVICE_NAME on a fresh device: the model


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.wm.crash_on_error = False  # a bug in the app fails the test instead of "crashing" the app
    return dev


def put(dev: VirtualDevice, rel: str, data: bytes = b"x", age_ms: int = 0) -> str:
    path = f"{SD}/{rel}"
    dev.fs.makedirs(st.parent(path))
    dev.fs.write_bytes(path, data)
    ns = (dev.wall_ms() - age_ms) * 1_000_000
    os.utime(dev.fs.host(path), ns=(ns, ns))
    return path


def exists(dev: VirtualDevice, path: str) -> bool:
    return os.path.lexists(dev.fs.host(path, follow=False))


def views(dev: VirtualDevice) -> list[View]:
    return [v for win in dev.wm.windows() for v in win.walk()]


def find(dev: VirtualDevice, **attrs: object) -> View:
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def hold(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.long_press(*find(dev, **attrs).center)


def titles(dev: VirtualDevice) -> list[str]:
    return [v.text for v in views(dev) if v.resource_id == "android:id/title" and v.package == PKG]


def texts(dev: VirtualDevice) -> set[str]:
    return {v.text for v in views(dev) if v.text}


def keyboard_up(dev: VirtualDevice) -> bool:
    return any(v.package == IME for v in views(dev))


def start(dev: VirtualDevice, **extras: str) -> None:
    dev.start_activity(PKG, FILES, extras)


def select(dev: VirtualDevice, *names: str) -> None:
    hold(dev, text=names[0], resource_id="android:id/title")
    for name in names[1:]:
        tap(dev, text=name, resource_id="android:id/title")


def menu(dev: VirtualDevice, item: str) -> None:
    tap(dev, content_desc="More options")
    tap(dev, text=item)


def toolbar_title(dev: VirtualDevice) -> str:
    bar = find(dev, resource_id=rid("toolbar"))
    return next(v.text for v in bar.walk() if v.cls == "android.widget.TextView" and v.text)


def dialog_message(dev: VirtualDevice) -> str:
    """The delete dialog's text: the dialog's own TextView without id (no title, no android:id/message)."""
    card = find(dev, resource_id="android:id/content")
    return next(v.text for v in card.walk() if v.cls == "android.widget.TextView" and v.text and not v.resource_id)


@pytest.fixture
def seeded(device: VirtualDevice) -> VirtualDevice:
    put(device, "Download/b.txt", b"hello world\n", 3_600_000)
    put(device, "Download/A.pdf", b"%" * 1234, 86_400_000 * 3)
    put(device, "Download/sub/deep/Report.TXT", b"r" * 5)
    device.fs.makedirs(f"{SD}/Documents/target")
    put(device, "Documents/keep.md", b"k")
    start(device)
    return device


# ------------------------------------------------------------------ identity and formatting
def test_identity_and_launch(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, FilesApp) and app.version_name.endswith("-emukit-virtual")
    assert app.launcher_activity == FILES and FILES in app.activities
    start(device)
    assert device.current_focus() == (PKG, FILES)
    assert find(device, resource_id=rid("header_title")).text == "Files in Downloads"
    assert find(device, resource_id=rid("message")).text == "No items"
    for desc in ("Show roots", "Search", "More options"):
        assert find(device, content_desc=desc).clickable
    assert find(device, content_desc="More options").cls == "android.widget.ImageView"
    assert find(device, content_desc="Search").resource_id == rid("option_menu_search")
    assert device.state.settings["global"]["device_name"] == DEVICE_NAME


@pytest.mark.parametrize(("size", "text"), [(0, "0 B"), (12, "12 B"), (900, "900 B"), (950, "0.95 kB"),
                                            (1234, "1.23 kB"), (12_345, "12.35 kB"), (123_456, "123 kB"),
                                            (1_500_000, "1.50 MB"), (2_000_000_000, "2.00 GB")])
def test_format_size_like_android(size: int, text: str) -> None:
    assert st.format_size(size) == text


def test_listing_sorted_with_sizes_and_dates(seeded: VirtualDevice) -> None:
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]
    rows = [v for v in views(seeded) if v.resource_id == rid("item_root")]
    assert len(rows) == 3 and all(r.clickable and r.long_clickable for r in rows)
    assert [v.text for v in views(seeded) if v.resource_id == rid("size")] == ["1.23 kB", "12 B"]
    assert [v.text for v in views(seeded) if v.resource_id == rid("date")][1:] == ["Jan 12", "08:00"]
    tap(seeded, resource_id=rid("sort_dimen_dropdown"))
    tap(seeded, text="Size (largest first)")
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]
    tap(seeded, resource_id=rid("sort_dimen_dropdown"))
    tap(seeded, text="Modified (newest first)")
    assert titles(seeded) == ["sub", "b.txt", "A.pdf"]
    assert find(seeded, resource_id=rid("sort_dimen_dropdown")).text == "Modified"
    seeded.force_stop(PKG)  # the sort order is process state
    start(seeded)
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]


def test_hidden_files_are_not_listed_and_build_is_cheap(seeded: VirtualDevice) -> None:
    put(seeded, "Download/.nomedia")
    for i in range(300):
        put(seeded, f"Download/bulk/f{i:03d}.bin", b"b")
    assert ".nomedia" not in titles(seeded)
    tap(seeded, content_desc="Search")
    seeded.wm.input_text("f1")
    t0 = time.perf_counter()
    seeded.wm.windows()
    assert time.perf_counter() - t0 < 0.2
    assert len([v for v in views(seeded) if v.resource_id == rid("item_root")]) > 5


# ------------------------------------------------------------------ navigation
def test_open_folder_up_back_breadcrumb_and_roots(seeded: VirtualDevice) -> None:
    tap(seeded, text="sub")
    tap(seeded, text="deep")
    assert toolbar_title(seeded) == "deep"
    assert [v.text for v in views(seeded) if v.resource_id == rid("breadcrumb_text")] == ["Downloads", "sub", "deep"]
    assert find(seeded, resource_id=rid("header_title")).text == "Files in Downloads"  # the Downloads root's header
    assert find(seeded, content_desc="Show roots")  # inside folders too: DocumentsUI has no "Navigate up"
    assert not any(v.content_desc == "Navigate up" for v in views(seeded))
    seeded.wm.key(4)  # BACK goes up
    assert titles(seeded) == ["deep"]
    seeded.wm.key(4)
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]
    tap(seeded, text="sub")
    tap(seeded, text="deep")
    tap(seeded, text="Downloads", resource_id=rid("breadcrumb_text"))
    assert seeded.top.state["path"] == DL
    tap(seeded, content_desc="Show roots")
    drawer = find(seeded, resource_id=rid("roots_list"))
    assert [v.text for v in drawer.walk() if v.resource_id == "android:id/title"] == ["Downloads", DEVICE_NAME]
    tap(seeded, text=DEVICE_NAME, resource_id="android:id/title")
    assert {"Documents", "Download", "Music", "Pictures", "DCIM"} <= set(titles(seeded))
    assert toolbar_title(seeded) == DEVICE_NAME
    assert find(seeded, resource_id=rid("header_title")).text == f"Files on {DEVICE_NAME}"
    tap(seeded, text="Documents")
    assert find(seeded, resource_id=rid("header_title")).text == "Files in Documents"
    seeded.wm.key(4)
    seeded.wm.key(4)  # at a root's top BACK leaves the app
    assert seeded.top.package != PKG


def test_initial_uri_extra_and_vanished_folder(seeded: VirtualDevice) -> None:
    seeded.start_activity(PKG, FILES, {"android.provider.extra.INITIAL_URI":
                                       "content://com.android.externalstorage.documents/document/primary%3ADocuments"})
    assert seeded.top.state["root"] == "storage" and titles(seeded) == ["target", "keep.md"]
    tap(seeded, text="target")
    st.delete_paths(seeded, [f"{SD}/Documents"])
    assert toolbar_title(seeded) == DEVICE_NAME


def test_open_text_file_and_unsupported_file(seeded: VirtualDevice) -> None:
    tap(seeded, text="b.txt")
    assert find(seeded, resource_id=rid("viewer_text")).text == "hello world\n"
    seeded.wm.key(4)
    tap(seeded, text="A.pdf")
    assert seeded.state.ui.toast == "Can\u2019t open file"
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]


# ------------------------------------------------------------------ selection
def test_selection_mode_multi_select_and_exit(seeded: VirtualDevice) -> None:
    select(seeded, "b.txt")
    assert find(seeded, resource_id=rid("action_bar_title")).text == "1 selected"
    assert find(seeded, resource_id=rid("action_menu_delete")).content_desc == "Delete"
    assert find(seeded, resource_id=rid("action_mode_close_button")).content_desc == "Cancel"
    boxes = [v for v in views(seeded) if v.resource_id == rid("icon_check")]
    assert len(boxes) == 3 and sum(b.checked for b in boxes) == 1
    tap(seeded, text="A.pdf")
    tap(seeded, text="sub")
    assert find(seeded, resource_id=rid("action_bar_title")).text == "3 selected"
    tap(seeded, text="sub")  # deselect: does not open the folder
    assert seeded.top.state["sel"] == [f"{DL}/b.txt", f"{DL}/A.pdf"]
    tap(seeded, content_desc="Cancel")
    assert not seeded.top.state["sel"] and not any(v.resource_id == rid("icon_check") for v in views(seeded))
    select(seeded, "b.txt")
    seeded.wm.key(4)
    assert not seeded.top.state["sel"] and seeded.top.package == PKG
    select(seeded, "b.txt")
    menu(seeded, "Select all")
    assert find(seeded, resource_id=rid("action_bar_title")).text == "3 selected"


# ------------------------------------------------------------------ copy / move
def test_copy_confirmed_keeps_source_and_clashes_get_a_number(seeded: VirtualDevice) -> None:
    select(seeded, "b.txt")
    menu(seeded, "Copy to\u2026")
    assert seeded.current_focus() == (PKG, PICK) and not seeded.top.state.get("sources") is None
    assert find(seeded, resource_id="android:id/button1").text == "Copy"
    tap(seeded, text="Copy", resource_id="android:id/button1")  # into the same folder: a numbered copy
    assert seeded.current_focus() == (PKG, FILES)
    assert exists(seeded, f"{DL}/b.txt") and exists(seeded, f"{DL}/b (1).txt")
    select(seeded, "b.txt")
    menu(seeded, "Copy to\u2026")
    tap(seeded, content_desc="Show roots")
    tap(seeded, text=DEVICE_NAME, resource_id="android:id/title")
    tap(seeded, text="Documents")
    tap(seeded, text="target")
    tap(seeded, resource_id="android:id/button1")
    assert seeded.fs.read_bytes(f"{SD}/Documents/target/b.txt") == b"hello world\n"
    assert exists(seeded, f"{DL}/b.txt")
    assert seeded.fs.stat(f"{SD}/Documents/target/b.txt").st_mtime_ns // 1_000_000 == seeded.wall_ms()


def test_copy_folder_is_recursive_and_cancel_changes_nothing(seeded: VirtualDevice) -> None:
    before = sorted(os.listdir(seeded.fs.host(f"{SD}/Documents")))
    select(seeded, "sub")
    menu(seeded, "Copy to\u2026")
    tap(seeded, text="Cancel")
    assert seeded.current_focus() == (PKG, FILES) and not seeded.top.state["sel"]
    select(seeded, "sub")
    menu(seeded, "Copy to\u2026")
    tap(seeded, content_desc="Show roots")
    tap(seeded, text=DEVICE_NAME, resource_id="android:id/title")
    tap(seeded, text="Documents")
    seeded.wm.key(4)  # BACK in the picker goes up, then cancels at the root
    seeded.wm.key(4)
    assert seeded.current_focus() == (PKG, FILES)
    assert sorted(os.listdir(seeded.fs.host(f"{SD}/Documents"))) == before
    select(seeded, "sub")
    menu(seeded, "Copy to\u2026")
    tap(seeded, content_desc="Show roots")
    tap(seeded, text=DEVICE_NAME, resource_id="android:id/title")
    tap(seeded, text="Documents")
    tap(seeded, text="Copy")
    assert seeded.fs.read_bytes(f"{SD}/Documents/sub/deep/Report.TXT") == b"rrrrr"
    assert exists(seeded, f"{DL}/sub/deep/Report.TXT")


def test_move_confirmed_cancelled_and_not_into_itself(seeded: VirtualDevice) -> None:
    mtime = seeded.fs.stat(f"{DL}/A.pdf").st_mtime_ns
    select(seeded, "A.pdf")
    menu(seeded, "Move to\u2026")
    assert not find(seeded, resource_id="android:id/button1").enabled  # already here
    tap(seeded, text="Cancel")
    assert exists(seeded, f"{DL}/A.pdf")
    select(seeded, "A.pdf", "sub")
    menu(seeded, "Move to\u2026")
    tap(seeded, text="sub")
    assert not find(seeded, resource_id="android:id/button1").enabled  # not into a moved folder
    seeded.wm.key(4)
    seeded.wm.key(4)
    assert exists(seeded, f"{DL}/A.pdf") and exists(seeded, f"{DL}/sub")
    select(seeded, "A.pdf")
    menu(seeded, "Move to\u2026")
    tap(seeded, text="sub")
    tap(seeded, text="Move")
    assert not exists(seeded, f"{DL}/A.pdf") and exists(seeded, f"{DL}/sub/A.pdf")
    assert seeded.fs.stat(f"{DL}/sub/A.pdf").st_mtime_ns == mtime  # a move keeps the file's mtime
    assert titles(seeded) == ["sub", "b.txt"]


# ------------------------------------------------------------------ delete
def test_delete_confirm_and_cancel(seeded: VirtualDevice) -> None:
    select(seeded, "b.txt")
    tap(seeded, content_desc="Delete")
    assert dialog_message(seeded) == 'Delete "b.txt"?'
    assert find(seeded, resource_id="android:id/button1").text == "OK"  # android.R.string.ok, not "Delete"
    assert not any(v.resource_id in ("android:id/message", "android:id/alertTitle") for v in views(seeded))
    tap(seeded, text="Cancel")
    assert exists(seeded, f"{DL}/b.txt") and seeded.top.state["sel"]
    tap(seeded, content_desc="Delete")
    seeded.wm.key(4)  # BACK cancels the dialog too
    assert exists(seeded, f"{DL}/b.txt")
    tap(seeded, content_desc="Delete")
    tap(seeded, text="OK", resource_id="android:id/button1")
    assert not exists(seeded, f"{DL}/b.txt") and not seeded.top.state["sel"]
    assert found(seeded, DL, "b*") == []  # no copy or numbered twin left behind (`find -name 'b*'`)
    select(seeded, "sub", "A.pdf")
    tap(seeded, content_desc="Delete")
    assert dialog_message(seeded) == "Delete 2 items?"
    tap(seeded, text="OK", resource_id="android:id/button1")
    assert titles(seeded) == [] and find(seeded, resource_id=rid("message")).text == "No items"
    put(seeded, "Download/f1/x")
    put(seeded, "Download/f2/y")
    select(seeded, "f1")
    tap(seeded, content_desc="Delete")
    assert dialog_message(seeded) == 'Delete folder "f1" and its contents?'
    seeded.wm.key(4)
    tap(seeded, text="f2")
    tap(seeded, content_desc="Delete")
    assert dialog_message(seeded) == "Delete 2 folders and their contents?"


# ------------------------------------------------------------------ search
def test_search_downloads_results_empty_state_and_keyboard(seeded: VirtualDevice) -> None:
    put(seeded, "Documents/report_elsewhere.txt")
    tap(seeded, content_desc="Search")
    assert keyboard_up(seeded) and seeded.state.ui.focused_id == rid("search_src_text")
    field = find(seeded, resource_id=rid("search_src_text"))
    assert field.cls == "android.widget.EditText" and field.focused
    seeded.wm.input_text("REPORT")
    assert titles(seeded) == ["Report.TXT"]  # recursive, case-insensitive, Downloads only
    assert find(seeded, resource_id=rid("header_title")).text == "Files in Downloads"
    assert keyboard_up(seeded)
    seeded.wm.key(66)  # ENTER: results stay, the keyboard goes
    assert titles(seeded) == ["Report.TXT"] and not keyboard_up(seeded)
    tap(seeded, resource_id=rid("search_src_text"))
    seeded.wm.set_text(rid("search_src_text"), "zzz")
    assert find(seeded, resource_id=rid("message")).text == "No matches in Downloads"
    assert titles(seeded) == [] and keyboard_up(seeded)
    tap(seeded, content_desc="Clear query")
    assert find(seeded, resource_id=rid("search_src_text")).text == ""
    assert titles(seeded) == ["sub", "A.pdf", "b.txt"]  # an empty query shows the folder again
    seeded.wm.key(4)  # hides the keyboard
    seeded.wm.key(4)  # leaves search
    assert "search" not in seeded.top.state and find(seeded, content_desc="Search")


def test_search_chips_and_acting_on_results(seeded: VirtualDevice) -> None:
    put(seeded, "Download/pics/cat.JPG", b"j" * 10)
    tap(seeded, content_desc="Search")
    seeded.wm.key(4)
    tap(seeded, text="Images")
    assert titles(seeded) == ["cat.JPG"]
    tap(seeded, text="Images")
    tap(seeded, text="Documents")
    assert titles(seeded) == ["A.pdf", "b.txt", "Report.TXT"]
    row = find(seeded, resource_id=rid("search_chip_group"))
    assert 'text="This week"' not in seeded.hierarchy_xml()  # off screen to the right
    seeded.wm.swipe(row.bounds[2] - 60, row.center[1], row.bounds[0] + 60, row.center[1], 300)
    assert 'text="This week"' in seeded.hierarchy_xml()
    tap(seeded, text="This week")  # the row scrolled sideways; mime chips are alternatives, time narrows
    assert titles(seeded) == ["A.pdf", "b.txt", "Report.TXT"]
    hold(seeded, text="Report.TXT")
    tap(seeded, content_desc="Delete")
    tap(seeded, text="OK", resource_id="android:id/button1")
    assert not exists(seeded, f"{DL}/sub/deep/Report.TXT")
    assert titles(seeded) == ["A.pdf", "b.txt"]


# ------------------------------------------------------------------ new folder and rename
def test_new_folder_and_rename(seeded: VirtualDevice) -> None:
    tap(seeded, content_desc="More options")
    tap(seeded, text="New folder")
    assert keyboard_up(seeded) and seeded.state.ui.focused_id == "android:id/text1"
    seeded.wm.input_text("Receipts")
    tap(seeded, text="OK")
    assert seeded.fs.host(f"{DL}/Receipts").is_dir() and "Receipts" in titles(seeded)
    select(seeded, "b.txt")
    menu(seeded, "Rename")
    seeded.wm.set_text("android:id/text1", "A.pdf")
    tap(seeded, text="OK")
    assert find(seeded, resource_id=rid("error_message")).text == "A file with this name already exists."
    seeded.wm.set_text("android:id/text1", "c.txt")
    seeded.wm.key(66)
    assert exists(seeded, f"{DL}/c.txt") and not exists(seeded, f"{DL}/b.txt")
    assert not keyboard_up(seeded) and not seeded.top.state["sel"]


# ------------------------------------------------------------------ state, determinism, gallery
def test_state_is_json_and_screens_are_deterministic(seeded: VirtualDevice, tmp_path) -> None:
    select(seeded, "b.txt")
    menu(seeded, "Move to\u2026")
    seeded.persist()
    again = VirtualDevice(seeded.state_dir)
    assert again.current_focus() == (PKG, PICK)
    assert again.screenshot_png() == seeded.screenshot_png()
    assert again.hierarchy_xml() == seeded.hierarchy_xml()


def test_gallery_scenes_cover_every_surface(device: VirtualDevice) -> None:
    names = list(device.apps[PKG].gallery_scenes(device))
    assert len(names) == len(set(names)) >= 20
    for wanted in ("roots_drawer", "selection_multi", "delete_dialog_one", "picker_copy", "search_no_matches"):
        assert wanted in names


# ------------------------------------------------------------------ copy / move / delete in a seeded storage
# Moved in-process from the over-adb module (tests/integration/test_app_files.py, which keeps one smoke test):
# shared storage seeded as that module seeds it through the shell, Files opened on Downloads, and every outcome
# checked on the device filesystem.
TITLE = "android:id/title"
SEED = {"Download/report_q3.pdf": b"quarterly\n", "Download/budget_2025.xlsx": b"budget\n",
        "Download/Reports/summary_final.docx": b"summary\n", "Documents/keep_me.txt": b"keep\n",
        "Music/decoy_song.mp3": b"song\n", "Pictures/beach.jpg": b"beach\n"}


@pytest.fixture
def storage(device: VirtualDevice) -> VirtualDevice:
    """A fresh Files screen on Downloads over freshly seeded storage."""
    for folder in ("Download/Reports", "Documents/Archive", "Music/Old", "Pictures/Trips"):
        device.fs.makedirs(f"{SD}/{folder}")
    for rel, data in SEED.items():
        put(device, rel, data)
    start(device)
    assert find(device, resource_id=rid("header_title"), text="Files in Downloads")
    return device


def sh(dev: VirtualDevice, command: str) -> str:
    """A command line through the device's shell (what ``adb shell`` runs); its stdout."""
    out: list[bytes] = []
    assert run_shell(dev, command, out.append, out.append, b"", None) == 0, command
    return b"".join(out).decode()


def ls(dev: VirtualDevice, path: str) -> set[str]:
    host = dev.fs.host(path)
    return {n for n in os.listdir(host) if not n.startswith(".")} if host.is_dir() else set()


def found(dev: VirtualDevice, path: str, name: str) -> list[str]:
    """``find PATH -name NAME`` (``NAME`` may end in ``*``)."""
    hits = []
    for top, dirs, names in os.walk(dev.fs.host(path)):
        for n in dirs + names:
            if n == name or (name.endswith("*") and n.startswith(name[:-1])):
                hits.append(os.path.join(top, n))
    return hits


def shown(dev: VirtualDevice, **attrs: object) -> bool:
    return dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items())) is not None


def row_shown(dev: VirtualDevice, name: str) -> bool:
    return shown(dev, resource_id=TITLE, text=name)


def select_counted(dev: VirtualDevice, *names: str) -> None:
    select(dev, *names)
    assert find(dev, resource_id=rid("action_bar_title")).text == f"{len(names)} selected"


def pick_internal(dev: VirtualDevice, *folders: str) -> None:
    """In the destination picker: the device's storage root, then down through ``folders``."""
    tap(dev, content_desc="Show roots")
    tap(dev, resource_id=TITLE, text=DEVICE_NAME)
    for folder in folders:
        tap(dev, resource_id=TITLE, text=folder)


def delete_selected(dev: VirtualDevice, confirm: bool = True) -> None:
    tap(dev, content_desc="Delete")
    assert shown(dev, resource_id="android:id/button1", text="OK") and not shown(dev, resource_id="android:id/message")
    tap(dev, resource_id="android:id/button1" if confirm else "android:id/button2")


def test_storage_root_is_titled_with_the_device_name(storage: VirtualDevice) -> None:
    dev = storage
    assert sh(dev, "settings get global device_name").strip() == DEVICE_NAME
    tap(dev, content_desc="Show roots")
    assert row_shown(dev, DEVICE_NAME) and not shown(dev, text="Internal storage")
    tap(dev, resource_id=TITLE, text=DEVICE_NAME)
    assert find(dev, resource_id=rid("header_title")).text == f"Files on {DEVICE_NAME}"
    sh(dev, "settings put global device_name 'Lab phone'")
    tap(dev, content_desc="Show roots")  # the roots are read again when the drawer opens
    assert row_shown(dev, "Lab phone")
    sh(dev, f"settings put global device_name {DEVICE_NAME}")
    dev.wm.key(4)


def test_copy_to_documents_cancelled_then_confirmed(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "report_q3.pdf")
    menu(dev, "Copy to\u2026")
    pick_internal(dev, "Documents")
    assert find(dev, resource_id="android:id/button1").text == "Copy"
    tap(dev, resource_id="android:id/button2")  # Cancel
    assert "report_q3.pdf" not in ls(dev, f"{SD}/Documents")
    select_counted(dev, "report_q3.pdf")
    menu(dev, "Copy to\u2026")
    pick_internal(dev, "Documents")
    tap(dev, resource_id="android:id/button1")  # Copy
    assert "report_q3.pdf" in ls(dev, f"{SD}/Documents")
    assert "report_q3.pdf" in ls(dev, DL)
    assert dev.fs.read_bytes(f"{SD}/Documents/report_q3.pdf").strip() == b"quarterly"


def test_move_backed_out_of_the_picker_then_confirmed(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "budget_2025.xlsx")
    menu(dev, "Move to\u2026")
    pick_internal(dev, "Documents", "Archive")
    dev.wm.key(4)  # up to Documents
    dev.wm.key(4)  # up to the storage root
    dev.wm.key(4)  # closes the picker: nothing moved
    assert row_shown(dev, "budget_2025.xlsx")
    assert ls(dev, f"{SD}/Documents/Archive") == set()
    select_counted(dev, "budget_2025.xlsx")
    menu(dev, "Move to\u2026")
    pick_internal(dev, "Documents", "Archive")
    tap(dev, text="Move", resource_id="android:id/button1")
    assert ls(dev, f"{SD}/Documents/Archive") == {"budget_2025.xlsx"}
    assert not exists(dev, f"{DL}/budget_2025.xlsx")
    assert not row_shown(dev, "budget_2025.xlsx")


def test_copy_then_delete_source(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "budget_2025.xlsx")
    menu(dev, "Copy to\u2026")
    pick_internal(dev, "Documents")
    tap(dev, resource_id="android:id/button1")
    select_counted(dev, "budget_2025.xlsx")
    delete_selected(dev)
    assert not exists(dev, f"{DL}/budget_2025.xlsx")
    assert dev.fs.read_bytes(f"{SD}/Documents/budget_2025.xlsx").strip() == b"budget"


def test_copy_then_delete_destination(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "report_q3.pdf")
    menu(dev, "Copy to\u2026")
    pick_internal(dev, "Documents", "Archive")
    tap(dev, resource_id="android:id/button1")
    assert exists(dev, f"{SD}/Documents/Archive/report_q3.pdf")
    tap(dev, content_desc="Show roots")
    tap(dev, resource_id=TITLE, text=DEVICE_NAME)
    tap(dev, resource_id=TITLE, text="Documents")
    tap(dev, resource_id=TITLE, text="Archive")
    assert find(dev, resource_id=rid("header_title")).text == "Files in Archive"
    select_counted(dev, "report_q3.pdf")
    delete_selected(dev)
    assert ls(dev, f"{SD}/Documents/Archive") == set()
    assert exists(dev, f"{DL}/report_q3.pdf")


def test_move_then_delete_destination(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "report_q3.pdf")
    menu(dev, "Move to\u2026")
    tap(dev, resource_id=TITLE, text="Reports")  # the picker starts in the current folder (Downloads)
    tap(dev, resource_id="android:id/button1")
    assert not exists(dev, f"{DL}/report_q3.pdf")
    tap(dev, resource_id=TITLE, text="Reports")
    select_counted(dev, "report_q3.pdf")
    delete_selected(dev)
    assert ls(dev, f"{DL}/Reports") == {"summary_final.docx"}
    assert found(dev, SD, "report_q3.pdf") == []


def test_multi_select_copy_and_delete(storage: VirtualDevice) -> None:
    dev = storage
    select_counted(dev, "report_q3.pdf", "budget_2025.xlsx", "Reports")
    tap(dev, resource_id=TITLE, text="budget_2025.xlsx")  # deselect again
    assert shown(dev, text="2 selected")
    menu(dev, "Copy to\u2026")
    pick_internal(dev, "Documents")
    tap(dev, resource_id="android:id/button1")
    assert ls(dev, f"{SD}/Documents") >= {"report_q3.pdf", "Reports"}
    assert "budget_2025.xlsx" not in ls(dev, f"{SD}/Documents")
    assert dev.fs.read_bytes(f"{SD}/Documents/Reports/summary_final.docx").strip() == b"summary"
    select_counted(dev, "report_q3.pdf", "budget_2025.xlsx")
    tap(dev, content_desc="Delete")
    assert shown(dev, text="Delete 2 files?")
    tap(dev, resource_id="android:id/button1")
    assert ls(dev, DL) == {"Reports"}


def test_search_downloads_results_no_matches_and_a_deleted_file(storage: VirtualDevice) -> None:
    dev = storage
    put(dev, "Documents/summary_elsewhere.txt", b"x\n")
    tap(dev, content_desc="Search")
    field = rid("search_src_text")
    assert shown(dev, resource_id=field) and f'package="{IME}"' in dev.hierarchy_xml()
    dev.wm.input_text("SUMMARY")  # `input text SUMMARY`
    assert find(dev, resource_id=field).text == "SUMMARY"
    assert row_shown(dev, "summary_final.docx")  # recursive, case-insensitive
    assert not row_shown(dev, "summary_elsewhere.txt")  # Downloads only
    assert find(dev, resource_id=rid("header_title")).text == "Files in Downloads"
    dev.wm.set_text(field, "no_such_artifact")
    xml = dev.hierarchy_xml()
    assert "No matches in Downloads" in xml and f'package="{IME}"' in xml
    assert not shown(dev, resource_id=TITLE)
    dev.wm.set_text(field, "budget")
    dev.wm.key(66)  # ENTER submits: results stay, the keyboard hides
    assert row_shown(dev, "budget_2025.xlsx") and f'package="{IME}"' not in dev.hierarchy_xml()
    dev.wm.key(4)  # leaves search
    assert shown(dev, content_desc="Search") and row_shown(dev, "report_q3.pdf")
    sh(dev, "rm /sdcard/Download/budget_2025.xlsx")  # a file deleted outside the app
    tap(dev, content_desc="Search")
    dev.wm.set_text(field, "budget")
    assert shown(dev, text="No matches in Downloads")
