"""The virtual Settings and Pixel Launcher have the image's structure on every screen their profiles touch.

Each screen is reached through the profiles (and their tables' selectors) on a virtual device, dumped with
``driver.hierarchy()`` and matched against fixtures written from AOSP Settings and Launcher3
(``tests/fixtures/real/hierarchy/settings``, ``.../launcher``).
"""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES, match_fixture


@pytest.fixture
def settings(driver):
    profile = profile_for(driver, "settings")
    profile.launch(fresh=True)
    return profile


def check(driver: Driver, app: str, screen: str) -> None:
    assert match_fixture(driver.hierarchy(), FIXTURES / app / f"{screen}.yaml") == []


def test_settings_homepage(settings, driver):
    check(driver, "settings", "homepage")


def test_settings_homepage_scrolled_to_system(settings, driver):
    settings.scroll_to_system()
    check(driver, "settings", "homepage_system")


def test_settings_system_page(settings, driver):
    settings.scroll_to_system()
    driver.tap(**settings.sel("system"))
    check(driver, "settings", "system")


def test_settings_date_time_page(settings, driver):
    settings.open_date_time()
    check(driver, "settings", "date_time")


def test_launcher_home_screen(driver):
    launcher = profile_for(driver, "launcher")
    driver.home()
    check(driver, "launcher", "home")
    assert not driver.exists(**launcher.sel("app_icon"))  # no app icons on the home screen


def test_launcher_all_apps(driver):
    launcher = profile_for(driver, "launcher")
    driver.home()
    launcher.open_all_apps()
    check(driver, "launcher", "all_apps")
    driver.back()
