"""The Files app driven like a user does on an emulator: uiautomator2 selectors and gestures plus
``adb shell input``/``am``, with every outcome checked on the device filesystem through ``adb shell``.

One virtual device for the module; each test force-stops the app, re-seeds shared storage through the
shell and launches ``FilesActivity`` with ``am start``.
"""

from __future__ import annotations

import pytest

PKG = "com.google.android.documentsui"
ACTIVITY = f"{PKG}/com.android.documentsui.files.FilesActivity"
SD = "/sdcard"
IME = 'package="com.android.inputmethod.latin"'
TITLE = "android:id/title"
DEVICE_NAME = "sdk_gphone64_x86_64"  # the shared-storage root's title: Settings.Global.DEVICE_NAME
SEED = (
    "mkdir -p /sdcard/Download/Reports /sdcard/Documents/Archive /sdcard/Music/Old /sdcard/Pictures/Trips",
    "echo quarterly > /sdcard/Download/report_q3.pdf",
    "echo budget > /sdcard/Download/budget_2025.xlsx",
    "echo summary > /sdcard/Download/Reports/summary_final.docx",
    "echo keep > /sdcard/Documents/keep_me.txt",
    "echo song > /sdcard/Music/decoy_song.mp3",
    "echo beach > /sdcard/Pictures/beach.jpg",
)


@pytest.fixture(scope="module")
def d(vdevice):
    import uiautomator2

    dev = uiautomator2.connect(vdevice.serial)
    yield dev
    dev.stop_uiautomator()


@pytest.fixture
def files(d, adb_device):
    """A fresh Files screen on Downloads over freshly seeded storage."""
    adb_device.shell(f"am force-stop {PKG}; rm -rf /sdcard/Download/* /sdcard/Documents/* /sdcard/Music/* "
                     "/sdcard/Pictures/*; " + "; ".join(SEED))
    adb_device.shell(f"am start -n {ACTIVITY}")
    assert d(resourceId=f"{PKG}:id/header_title", text="Files in Downloads").exists
    return d


def ls(adb_device, path: str) -> set[str]:
    out = adb_device.shell(f"ls {path} 2>/dev/null")
    return set(out.split())


def present(adb_device, path: str) -> bool:
    return adb_device.shell(f"[ -e '{path}' ] && echo yes || echo no").strip() == "yes"


def row(d, name: str):
    return d(resourceId=TITLE, text=name)


def select(d, *names: str) -> None:
    row(d, names[0]).long_click()
    for name in names[1:]:
        row(d, name).click()
    assert d(resourceId=f"{PKG}:id/action_bar_title", text=f"{len(names)} selected").exists


def selection_menu(d, item: str) -> None:
    d(description="More options", className="android.widget.ImageView").click()
    d(text=item).click()


def pick_internal(d, *folders: str) -> None:
    """In the destination picker: the device's storage root, then down through ``folders``."""
    d(description="Show roots").click()
    d(resourceId=TITLE, text=DEVICE_NAME).click()
    for folder in folders:
        row(d, folder).click()


def delete_selected(d, confirm: bool = True) -> None:
    d(description="Delete").click()
    assert d(resourceId="android:id/button1", text="OK").exists and not d(resourceId="android:id/message").exists
    d(resourceId="android:id/button1" if confirm else "android:id/button2").click()


# ------------------------------------------------------------------ copy / move / delete, direct
def test_storage_root_is_titled_with_the_device_name(files, adb_device):
    assert adb_device.shell("settings get global device_name").strip() == DEVICE_NAME
    files(description="Show roots").click()
    assert files(resourceId=TITLE, text=DEVICE_NAME).exists and not files(text="Internal storage").exists
    files(resourceId=TITLE, text=DEVICE_NAME).click()
    assert files(resourceId=f"{PKG}:id/header_title", text=f"Files on {DEVICE_NAME}").exists
    adb_device.shell("settings put global device_name 'Lab phone'")
    files(description="Show roots").click()  # the roots are read again when the drawer opens
    assert files(resourceId=TITLE, text="Lab phone").exists
    adb_device.shell(f"settings put global device_name {DEVICE_NAME}")
    files.press("back")


def test_copy_confirmed_and_cancelled(files, adb_device):
    d = files
    select(d, "report_q3.pdf")
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents")
    assert d(resourceId="android:id/button1").get_text() == "Copy"
    d(resourceId="android:id/button2").click()  # Cancel
    assert "report_q3.pdf" not in ls(adb_device, f"{SD}/Documents")
    select(d, "report_q3.pdf")
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents")
    d(resourceId="android:id/button1").click()  # Copy
    assert "report_q3.pdf" in ls(adb_device, f"{SD}/Documents")
    assert "report_q3.pdf" in ls(adb_device, f"{SD}/Download")
    assert adb_device.shell(f"cat {SD}/Documents/report_q3.pdf").strip() == "quarterly"


def test_move_confirmed_and_cancelled(files, adb_device):
    d = files
    select(d, "budget_2025.xlsx")
    selection_menu(d, "Move to\u2026")
    pick_internal(d, "Documents", "Archive")
    d.press("back")  # up to Documents
    d.press("back")  # up to Internal storage
    d.press("back")  # closes the picker: nothing moved
    assert d(resourceId=TITLE, text="budget_2025.xlsx").exists
    assert ls(adb_device, f"{SD}/Documents/Archive") == set()
    select(d, "budget_2025.xlsx")
    selection_menu(d, "Move to\u2026")
    pick_internal(d, "Documents", "Archive")
    d(text="Move", resourceId="android:id/button1").click()
    assert ls(adb_device, f"{SD}/Documents/Archive") == {"budget_2025.xlsx"}
    assert not present(adb_device, f"{SD}/Download/budget_2025.xlsx")
    assert not row(d, "budget_2025.xlsx").exists


def test_delete_confirmed_and_cancelled(files, adb_device):
    d = files
    select(d, "report_q3.pdf")
    delete_selected(d, confirm=False)
    assert present(adb_device, f"{SD}/Download/report_q3.pdf")
    d.press("back")  # leaves selection mode
    select(d, "report_q3.pdf")
    assert d(resourceId=f"{PKG}:id/action_menu_delete").exists
    d(description="Delete").click()
    assert d(text='Delete "report_q3.pdf"?').exists
    d(text="OK", resourceId="android:id/button1").click()
    assert not present(adb_device, f"{SD}/Download/report_q3.pdf")
    assert adb_device.shell(f"find {SD}/Download -name 'report_q3*'").strip() == ""


# ------------------------------------------------------------------ decoys and compositions
def test_target_and_decoy_operations_in_one_session(files, adb_device):
    d = files
    before = adb_device.shell(f"stat -c '%s %Y' {SD}/Documents/keep_me.txt {SD}/Pictures/beach.jpg")
    # target: copy a Downloads file into Documents/Archive
    select(d, "report_q3.pdf")
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents", "Archive")
    d(resourceId="android:id/button1").click()
    # decoy in another folder: move Music/decoy_song.mp3 into Music/Old, then cancel a delete there
    d(description="Show roots").click()
    d(resourceId=TITLE, text=DEVICE_NAME).click()
    row(d, "Music").click()
    select(d, "decoy_song.mp3")
    selection_menu(d, "Move to\u2026")
    row(d, "Old").click()
    d(resourceId="android:id/button1").click()
    row(d, "Old").click()
    select(d, "decoy_song.mp3")
    delete_selected(d, confirm=False)
    d.press("back")
    assert ls(adb_device, f"{SD}/Documents/Archive") == {"report_q3.pdf"}
    assert ls(adb_device, f"{SD}/Music/Old") == {"decoy_song.mp3"}
    assert ls(adb_device, f"{SD}/Music") == {"Old"}
    assert present(adb_device, f"{SD}/Download/report_q3.pdf")
    after = adb_device.shell(f"stat -c '%s %Y' {SD}/Documents/keep_me.txt {SD}/Pictures/beach.jpg")
    assert after == before  # independent files untouched


def test_copy_then_delete_source(files, adb_device):
    d = files
    select(d, "budget_2025.xlsx")
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents")
    d(resourceId="android:id/button1").click()
    select(d, "budget_2025.xlsx")
    delete_selected(d)
    assert not present(adb_device, f"{SD}/Download/budget_2025.xlsx")
    assert adb_device.shell(f"cat {SD}/Documents/budget_2025.xlsx").strip() == "budget"


def test_copy_then_delete_destination(files, adb_device):
    d = files
    select(d, "report_q3.pdf")
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents", "Archive")
    d(resourceId="android:id/button1").click()
    assert present(adb_device, f"{SD}/Documents/Archive/report_q3.pdf")
    d(description="Show roots").click()
    d(resourceId=TITLE, text=DEVICE_NAME).click()
    row(d, "Documents").click()
    row(d, "Archive").click()
    assert d(resourceId=f"{PKG}:id/header_title", text="Files in Archive").exists
    select(d, "report_q3.pdf")
    delete_selected(d)
    assert ls(adb_device, f"{SD}/Documents/Archive") == set()
    assert present(adb_device, f"{SD}/Download/report_q3.pdf")


def test_move_then_delete_destination(files, adb_device):
    d = files
    select(d, "report_q3.pdf")
    selection_menu(d, "Move to\u2026")
    row(d, "Reports").click()  # the picker starts in the current folder (Downloads)
    d(resourceId="android:id/button1").click()
    assert not present(adb_device, f"{SD}/Download/report_q3.pdf")
    row(d, "Reports").click()
    select(d, "report_q3.pdf")
    delete_selected(d)
    assert ls(adb_device, f"{SD}/Download/Reports") == {"summary_final.docx"}
    assert adb_device.shell(f"find {SD} -name report_q3.pdf").strip() == ""


def test_multi_select_copy_and_delete(files, adb_device):
    d = files
    select(d, "report_q3.pdf", "budget_2025.xlsx", "Reports")
    row(d, "budget_2025.xlsx").click()  # deselect again
    assert d(text="2 selected").exists
    selection_menu(d, "Copy to\u2026")
    pick_internal(d, "Documents")
    d(resourceId="android:id/button1").click()
    assert ls(adb_device, f"{SD}/Documents") >= {"report_q3.pdf", "Reports"}
    assert "budget_2025.xlsx" not in ls(adb_device, f"{SD}/Documents")
    assert adb_device.shell(f"cat {SD}/Documents/Reports/summary_final.docx").strip() == "summary"
    select(d, "report_q3.pdf", "budget_2025.xlsx")
    d(description="Delete").click()
    assert d(text="Delete 2 files?").exists
    d(resourceId="android:id/button1").click()
    assert ls(adb_device, f"{SD}/Download") == {"Reports"}


# ------------------------------------------------------------------ search
def test_search_downloads_results_and_no_matches_with_keyboard(files, adb_device):
    d = files
    adb_device.shell("echo x > /sdcard/Documents/summary_elsewhere.txt")
    d(description="Search").click()
    field = d(resourceId=f"{PKG}:id/search_src_text")
    assert field.exists and IME in d.dump_hierarchy()
    adb_device.shell("input text SUMMARY")
    assert field.get_text() == "SUMMARY"
    assert row(d, "summary_final.docx").exists  # recursive, case-insensitive
    assert not row(d, "summary_elsewhere.txt").exists  # Downloads only
    assert d(resourceId=f"{PKG}:id/header_title", text="Files in Downloads").exists
    field.set_text("no_such_artifact")
    xml = d.dump_hierarchy()
    assert "No matches in Downloads" in xml and IME in xml
    assert not d(resourceId=TITLE).exists
    field.set_text("budget")
    adb_device.shell("input keyevent 66")  # ENTER submits: results stay, the keyboard hides
    assert row(d, "budget_2025.xlsx").exists and IME not in d.dump_hierarchy()
    d.press("back")  # leaves search
    assert d(description="Search").exists and row(d, "report_q3.pdf").exists
    # a file deleted over adb is gone from the next search
    adb_device.shell("rm /sdcard/Download/budget_2025.xlsx")
    d(description="Search").click()
    field.set_text("budget")
    assert d(text="No matches in Downloads").exists
