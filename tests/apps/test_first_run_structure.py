"""The first-run screens of the hardware-like virtual device have the structure of the real screens.

Each screen is reached with raw taps on the selector tables' entries on a hardware-mode virtual device (the
downloaded apps installed from their stand-ins), and the dump is matched against the fixture written from the
real sources (``tests/fixtures/real/hierarchy/<app>/<screen>.yaml``): Markor's intro (first and last slide),
its all-files access dialog, Settings' All files access page, Markor's changelog dialog, Retro Music's
PermissionActivity, the permission controller's dialog and Retro's What's New sheet.
"""

from __future__ import annotations

import pytest

from emukit.apps.selectors import table
from emukit.device.driver import Driver
from emukit.provision.standin import write_standin
from tests.hierarchy_match import FIXTURES, match_fixture

MARKOR, RETRO = "net.gsantner.markor", "code.name.monkey.retromusic"
M, R = table(MARKOR), table(RETRO)
S, P = table("com.android.settings"), table("com.google.android.permissioncontroller")
SCREENS = ["markor/intro", "markor/intro_last", "markor/storage_permission", "settings/all_files_access",
           "markor/changelog", "music/permission", "permissions/grant_dialog", "music/changelog"]


@pytest.fixture(scope="module")
def driver(vdevice_factory, adb_server, tmp_path_factory):
    """A hardware-mode device of its own (the pool's are deterministic): first-run screens pending."""
    import adbutils

    proc = vdevice_factory(mode="hardware")
    dev = adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    out = tmp_path_factory.mktemp("standins")
    for pkg, code, name in ((MARKOR, 146, "2.10.9"), (RETRO, 10603, "6.1.0")):
        dev.install(str(write_standin(out, pkg, code, name)), nolaunch=True, silent=True)
    d = Driver(proc.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()
    proc.stop()


def _markor(d: Driver, screen: str) -> None:
    d.shell(f"pm clear {MARKOR}; am start -W -n {MARKOR}/.activity.MainActivity", check=True)
    d.element(**M.query("intro_next"))
    if screen == "intro":
        return
    for _ in range(4):
        d.tap(**M.query("intro_next"))
    if screen == "intro_last":
        d.element(**M.query("intro_done"))
        return
    d.tap(**M.query("intro_done"))
    d.element(**M.query("storage_permission_ok"))
    if screen == "storage_permission":
        return
    d.tap(**M.query("storage_permission_ok"))
    d.element(**S.query("manage_all_files_switch"))
    if screen == "all_files_access":
        return
    d.tap(**S.query("manage_all_files_switch"))
    d.back()
    d.element(**M.query("changelog_ok"))


def _retro(d: Driver, screen: str) -> None:
    d.shell(f"pm clear {RETRO}; am start -W -n {RETRO}/.activities.MainActivity", check=True)
    d.element(**R.query("permission_finish"))
    if screen == "permission":
        return
    d.tap(**R.query("permission_grant_audio"))
    d.element(**P.query("allow_button"))
    if screen == "grant_dialog":
        return
    d.tap(**P.query("allow_button"))
    d.tap(**P.query("allow_button"))
    d.tap(**R.query("permission_finish"))
    d.element(**R.query("changelog_sheet"))


def _drive(d: Driver, screen: str) -> None:
    app, name = screen.split("/")
    if app == "music" or app == "permissions":
        _retro(d, name)
    else:
        _markor(d, name)


@pytest.mark.parametrize("screen", SCREENS)
def test_first_run_screen_matches_the_real_layout(driver, screen):
    _drive(driver, screen)
    problems = match_fixture(driver.hierarchy(), FIXTURES / f"{screen}.yaml")
    assert problems == []


def test_a_slide_is_not_mistaken_for_another(driver):
    """The matcher tells the intro's slides apart: the first slide does not match the last one's fixture."""
    _drive(driver, "markor/intro")
    assert match_fixture(driver.hierarchy(), FIXTURES / "markor" / "intro_last.yaml") != []
