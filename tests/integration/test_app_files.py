"""The Files app's over-adb smoke test, driven like a user does on an emulator: uiautomator2 selectors and
gestures plus ``adb shell``/``am``, with every outcome checked on the device filesystem through ``adb shell``.

One virtual device for the module; the test force-stops the app, re-seeds shared storage through the shell and
launches ``FilesActivity`` with ``am start``. It runs a target operation and decoys in one session: a copy into
``Documents/Archive`` through the picker's roots drawer, a move inside ``Music`` and a cancelled delete there,
then checks with ``ls``, ``[ -e ]`` and ``stat`` that only the intended files changed.

The other scenarios (the storage root titled with the device name, copy, move and delete each confirmed and
cancelled, copy or move followed by deleting the source or the destination, a multi-selection copy and delete,
search with the keyboard) are checked in-process in tests/vdevice/test_app_files.py.
"""

from __future__ import annotations

import pytest

PKG = "com.google.android.documentsui"
ACTIVITY = f"{PKG}/com.android.documentsui.files.FilesActivity"
SD = "/sdcard"
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


# ------------------------------------------------------------------ a target and decoys
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
