"""The virtual Files app has DocumentsUI's structure on every screen the Files profile touches.

Each screen is reached through the profile and its table's selectors on a virtual device (real adb server,
uiautomator2 protocol), dumped with ``driver.hierarchy()`` and matched against a fixture written from the
DocumentsUI layouts (``tests/fixtures/real/hierarchy/files``).
"""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES, match_fixture

SD = "/storage/emulated/0"
FIX = FIXTURES / "files"


@pytest.fixture(scope="module")
def folders(driver):
    """The shared-storage folders and files the Files screens list."""
    driver.shell(f"rm -rf {SD}/Download/* {SD}/Documents/*; mkdir -p {SD}/Documents/Archive; "
                 f"echo r > {SD}/Documents/report.txt; echo d > {SD}/Download/notes.txt", check=True)


@pytest.fixture
def files(driver, folders):
    profile = profile_for(driver, "files")
    profile.launch(fresh=True)
    return profile


def check(driver: Driver, screen: str) -> None:
    assert match_fixture(driver.hierarchy(), FIX / f"{screen}.yaml") == []


def test_roots_drawer(files, driver):
    driver.tap(**files.sel("show_roots"))
    check(driver, "roots_drawer")


def test_folder_list(files, driver):
    files.open_folder(f"{SD}/Documents")
    check(driver, "folder_list")


def test_selection_mode_with_the_overflow_menu(files, driver):
    files.open_folder(f"{SD}/Documents")
    files.select("report.txt")
    driver.tap(**files.sel("more_options"))
    check(driver, "selection_menu")


def test_copy_picker(files, driver):
    files.open_folder(f"{SD}/Documents")
    files.select("report.txt")
    driver.tap(**files.sel("more_options"))
    driver.tap(**files.sel("menu_copy_to"))
    driver.tap(**files.sel("show_roots"))
    driver.tap(**files.sel("root_title"), text=files.device_name())
    check(driver, "picker")
    driver.tap(**files.sel("pick_cancel"))


def test_delete_dialog(files, driver):
    files.open_folder(f"{SD}/Documents")
    files.select("report.txt")
    driver.tap(**files.sel("action_delete"))
    check(driver, "delete_dialog")
    driver.tap(**files.sel("delete_cancel"))


def test_downloads_search(files, driver):
    files.open_search()
    check(driver, "downloads_search")


def test_a_wrong_screen_does_not_match(files, driver):
    files.open_folder(f"{SD}/Documents")
    problems = match_fixture(driver.hierarchy(), FIX / "delete_dialog.yaml")
    assert problems and "no element" in problems[0]
