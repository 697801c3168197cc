"""First-run screens and permission prompts on the hardware-like virtual device, driven over adb and
uiautomator2 with raw taps on the selector tables' entries: Markor's intro, its all-files access request and
Settings' switch, its changelog dialog; Retro Music's PermissionActivity, the permission controller's dialog and
the What's New sheet. Each goes away once walked, stays away on the next start, and comes back after
``pm clear``. The deterministic device's apps open straight to their main screens."""

from __future__ import annotations

import pytest

from emukit.apps.selectors import table
from emukit.device.driver import Driver
from emukit.provision.standin import write_standin

MARKOR, RETRO = "net.gsantner.markor", "code.name.monkey.retromusic"
M, R = table(MARKOR), table(RETRO)
S, P = table("com.android.settings"), table("com.google.android.permissioncontroller")
NOTEBOOK = "/storage/emulated/0/Documents/Markor"


@pytest.fixture(scope="module")
def hw(vdevice_factory, adb_server, tmp_path_factory):
    """A hardware-mode device with both downloaded apps installed from their stand-ins (adbutils' install)."""
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


@pytest.fixture(scope="module")
def det(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()


def start(d: Driver, component: str) -> None:
    d.shell(f"am start -W -n {component}", check=True)


def walk_markor(d: Driver) -> None:
    for _ in range(4):
        d.tap(**M.query("intro_next"))
    d.tap(**M.query("intro_done"))
    d.tap(**M.query("storage_permission_ok"))
    d.tap(**S.query("manage_all_files_switch"))
    d.back()
    d.tap(**M.query("changelog_ok"))


def test_markor_first_run_walk(hw):
    d = hw
    d.shell(f"pm clear {MARKOR}; mkdir -p {NOTEBOOK}; echo '# Hi' > {NOTEBOOK}/Hello.md", check=True)
    start(d, f"{MARKOR}/.activity.MainActivity")
    assert d.element(**M.query("intro_title")).text == "Main View"
    titles = []
    for _ in range(4):
        d.tap(**M.query("intro_next"))
        titles.append(d.element(**M.query("intro_title")).text)
    assert titles == ["View", "Share -> Markor", "To-Do", "QuickNote"]
    assert not d.exists(**M.query("intro_next"))
    d.tap(**M.query("intro_done"))
    assert "IntroActivitywas_shown\" value=\"true\"" in d.shell(
        f"cat /data/data/{MARKOR}/shared_prefs/{MARKOR}_preferences.xml").text
    assert d.element(**M.query("storage_permission_message"))
    assert d.current_app() == (MARKOR, f"{MARKOR}.activity.StoragePermissionActivity")
    d.tap(**M.query("storage_permission_ok"))
    assert d.current_app()[0] == "com.android.settings"
    assert d.exists(**S.query("all_files_access_title"))
    d.tap(**S.query("manage_all_files_switch"))
    assert "MANAGE_EXTERNAL_STORAGE: allow" in d.shell(f"appops get {MARKOR} MANAGE_EXTERNAL_STORAGE").text
    d.back()
    assert d.current_app() == (MARKOR, f"{MARKOR}.activity.MainActivity")
    d.tap(**M.query("changelog_ok"))
    assert not d.exists(**M.query("changelog_ok"))
    assert d.element(**M.query("notebook_row_title"), text="Hello.md")
    # the next start goes straight to the notebook
    d.shell(f"am force-stop {MARKOR}", check=True)
    start(d, f"{MARKOR}/.activity.MainActivity")
    assert d.element(**M.query("notebook_list"))
    assert not d.exists(**M.query("intro_next")) and not d.exists(**M.query("changelog_ok"))


def test_markor_asks_again_when_the_access_was_not_given(hw):
    d = hw
    d.shell(f"pm clear {MARKOR}", check=True)
    start(d, f"{MARKOR}/.activity.MainActivity")
    for _ in range(4):
        d.tap(**M.query("intro_next"))
    d.tap(**M.query("intro_done"))
    d.tap(**M.query("storage_permission_ok"))
    d.back()  # left Settings without the switch
    assert d.element(**M.query("storage_permission_message"))
    assert d.current_app() == (MARKOR, f"{MARKOR}.activity.StoragePermissionActivity")
    d.tap(**M.query("storage_permission_exit"))
    assert d.current_app()[0] != MARKOR


def test_pm_clear_brings_markor_first_run_back(hw):
    d = hw
    d.shell(f"pm clear {MARKOR}", check=True)
    start(d, f"{MARKOR}/.activity.MainActivity")
    walk_markor(d)
    assert d.element(**M.query("notebook_list"))
    d.shell(f"pm clear {MARKOR}", check=True)
    assert d.shell(f"appops get {MARKOR} MANAGE_EXTERNAL_STORAGE").text.startswith("No operations.")
    start(d, f"{MARKOR}/.activity.MainActivity")
    assert d.element(**M.query("intro_next"))


def test_retro_permissions_and_changelog(hw):
    d = hw
    d.shell(f"pm clear {RETRO}", check=True)
    start(d, f"{RETRO}/.activities.MainActivity")
    assert d.current_app() == (RETRO, f"{RETRO}.activities.PermissionActivity")
    assert d.element(**R.query("permission_welcome"))
    assert d.exists(**R.query("permission_finish"), enabled=False)
    d.tap(**R.query("permission_finish"))  # disabled: nothing happens
    assert d.current_app() == (RETRO, f"{RETRO}.activities.PermissionActivity")
    d.tap(**R.query("permission_grant_audio"))
    assert d.element(**P.query("message")).text == "Allow Retro Music to access music and audio on this device?"
    d.tap(**P.query("allow_button"))
    assert d.element(**P.query("message")).text == "Allow Retro Music to send you notifications?"
    d.tap(**P.query("allow_button"))
    assert not d.exists(**P.query("allow_button"))
    dump = d.shell(f"dumpsys package {RETRO}").text
    assert "READ_MEDIA_AUDIO: granted=true" in dump and "POST_NOTIFICATIONS: granted=true" in dump
    assert d.element(**R.query("permission_check"))
    assert d.exists(**R.query("permission_finish"), enabled=True)
    d.tap(**R.query("permission_finish"))
    assert d.current_app() == (RETRO, f"{RETRO}.activities.MainActivity")
    assert d.element(**R.query("changelog_sheet"))
    assert 'name="last_changelog_version" value="10603"' in d.shell(
        f"cat /data/data/{RETRO}/shared_prefs/{RETRO}_preferences.xml").text
    d.tap(**R.query("changelog_dismiss"))  # its centre lies under the sheet: the sheet stays
    assert d.exists(**R.query("changelog_sheet"))
    d.back()
    assert not d.exists(**R.query("changelog_sheet"))
    assert d.element(**R.query("tab_songs"))
    d.shell(f"am force-stop {RETRO}", check=True)
    start(d, f"{RETRO}/.activities.MainActivity")
    assert d.element(**R.query("tab_songs"))
    assert not d.exists(**R.query("changelog_sheet"))


def test_retro_denied_stays_on_the_permission_screen(hw):
    d = hw
    d.shell(f"pm clear {RETRO}", check=True)
    start(d, f"{RETRO}/.activities.MainActivity")
    d.tap(**R.query("permission_grant_audio"))
    d.tap(**P.query("deny_button"))
    d.tap(**P.query("allow_button"))  # notifications allowed, media denied
    assert d.current_app() == (RETRO, f"{RETRO}.activities.PermissionActivity")
    assert d.exists(**R.query("permission_finish"), enabled=False)
    dump = d.shell(f"dumpsys package {RETRO}").text
    assert "READ_MEDIA_AUDIO: granted=false" in dump and "POST_NOTIFICATIONS: granted=true" in dump
    # the next request asks only what is still missing
    d.tap(**R.query("permission_grant_audio"))
    assert d.element(**P.query("message")).text == "Allow Retro Music to access music and audio on this device?"
    d.tap(**P.query("allow_button"))
    assert d.exists(**R.query("permission_finish"), enabled=True)


def test_markor_without_the_access_lists_and_writes_nothing(tmp_path):
    """In process: the notebook as the app's File API sees shared storage without all-files access."""
    from emukit.vdevice.apps.notes import storage
    from emukit.vdevice.device import VirtualDevice

    dev = VirtualDevice(tmp_path / "dev", mode="hardware")
    data = write_standin(tmp_path / "apk", MARKOR, 146, "2.10.9").read_bytes()
    assert dev.install_package(MARKOR, 146, "2.10.9", data) is None
    dev.fs.makedirs(NOTEBOOK)
    dev.fs.write_bytes(f"{NOTEBOOK}/Seen.md", b"x")
    assert storage.listing(dev, NOTEBOOK) == []
    storage.write_text(dev, f"{NOTEBOOK}/New.md", "text")
    assert not dev.fs.host(f"{NOTEBOOK}/New.md").exists()
    dev.set_app_op(MARKOR, "MANAGE_EXTERNAL_STORAGE", "allow")
    assert [e.name for e in storage.listing(dev, NOTEBOOK)] == ["Seen.md"]


def test_deterministic_apps_open_straight_to_their_main_screens(det):
    d = det
    d.shell(f"pm clear {MARKOR}; pm clear {RETRO}", check=True)
    start(d, f"{MARKOR}/.activity.MainActivity")
    assert d.element(**M.query("notebook_list"))
    assert not d.exists(**M.query("intro_next")) and not d.exists(**M.query("storage_permission_ok"))
    start(d, f"{RETRO}/.activities.MainActivity")
    assert d.current_app() == (RETRO, f"{RETRO}.activities.MainActivity")
    assert d.element(**R.query("tab_songs"))
    assert not d.exists(**R.query("changelog_sheet"))
