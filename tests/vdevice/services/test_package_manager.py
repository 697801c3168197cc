"""PackageManager (``device.package_manager``): the installed-apps view and how it follows the state, the
hardware device's first-boot packages, installs, updates and their refusals, uninstalls, runtime permissions
and app-ops, the stopped state and the build check before a start."""

from __future__ import annotations

import pytest

from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.services.packages import (
    PackageManager,
    UnsupportedBuild,
    apk_dir,
    apk_file,
)
from emukit.vdevice.state import DEFAULT_WALL_MS, DeviceState

MARKOR, RETRO = "net.gsantner.markor", "code.name.monkey.retromusic"
SETTINGS, DESKCLOCK = "com.android.settings", "com.google.android.deskclock"
NOTIFY, RECORD = "android.permission.POST_NOTIFICATIONS", "android.permission.RECORD_AUDIO"


def test_the_deterministic_device_has_every_app_installed_and_permitted(det):
    pm = det.package_manager
    assert isinstance(pm, PackageManager)
    assert set(pm.apps) == set(det.known_apps) and det.apps is pm.apps
    assert [a.package for a in pm.packages()] == sorted(det.known_apps)
    assert pm.installed(MARKOR) and pm.permission_granted(MARKOR, RECORD)
    assert pm.app_op_allowed(MARKOR, "MANAGE_EXTERNAL_STORAGE")
    assert pm.version_code(MARKOR) == 146 and pm.version_name(MARKOR) == det.known_apps[MARKOR].version_name
    assert det.state.packages == {}
    with pytest.raises(KeyError, match="Unknown package: com.nope"):
        pm.app("com.nope")
    assert pm.install_times(SETTINGS) == (DEFAULT_WALL_MS // 1000, DEFAULT_WALL_MS // 1000)


def test_first_boot_leaves_the_downloaded_apps_out_and_grants_the_images(hw):
    pm = hw.package_manager
    assert not pm.installed(MARKOR) and not pm.installed(RETRO) and pm.installed(DESKCLOCK)
    assert hw.state.packages[MARKOR].installed is False
    assert hw.state.packages[DESKCLOCK].granted == list(hw.known_apps[DESKCLOCK].runtime_permissions)
    assert not hw.fs.host(f"/data/data/{MARKOR}").exists()


def test_install_update_and_their_refusals(hw):
    pm = hw.package_manager
    downloaded = ", ".join(sorted(p for p, app in hw.known_apps.items() if app.downloaded))  # from an APK, by package
    assert pm.install(SETTINGS, 1, "1", b"x") == (
        f"INSTALL_FAILED_INVALID_APK: {SETTINGS} is not an app this device installs ({downloaded})")
    assert RETRO in downloaded and MARKOR in downloaded
    assert pm.install(MARKOR, 146, "2.10.9", b"apk-146") is None
    assert pm.installed(MARKOR) and MARKOR in hw.apps
    entry = hw.state.packages[MARKOR]
    assert (entry.version_code, entry.version_name, entry.stopped, entry.granted) == (146, "2.10.9", True, [])
    assert hw.fs.read_bytes(apk_file(MARKOR)) == b"apk-146" and apk_file(MARKOR).startswith(apk_dir(MARKOR))
    first, last = pm.install_times(MARKOR)
    assert first == last and abs(first - hw.state.clock.wall_ms // 1000) <= 1
    hw.state.clock.wall_ms += 10_000  # the wall clock moves 10 s (set by hand, no TIME_SET)
    assert pm.install(MARKOR, 145, "2.10.8", b"old") == (
        "INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 145 is older than current 146")
    assert pm.install(MARKOR, 147, "2.11.0", b"apk-147", grant_all=True) is None
    assert pm.version_code(MARKOR) == 147 and pm.version_name(MARKOR) == "2.11.0"
    assert set(hw.state.packages[MARKOR].granted) == set(hw.known_apps[MARKOR].runtime_permissions)
    first2, last2 = pm.install_times(MARKOR)
    assert first2 == first and last2 >= last + 10  # an update keeps the first install time


def test_a_build_the_virtual_app_does_not_implement_refuses_to_start(hw):
    hw.package_manager.install(MARKOR, 147, "2.11.0", b"apk")
    with pytest.raises(UnsupportedBuild) as err:
        hw.package_manager.check_runnable(MARKOR)
    assert str(err.value) == f"{MARKOR} versionCode 147 is installed, but this device implements versionCode 146 only"
    with pytest.raises(UnsupportedBuild):
        hw.start_activity(MARKOR)
    hw.package_manager.check_runnable("com.nope")  # unknown packages are somebody else's error


def test_uninstall_only_what_came_from_an_apk(hw):
    pm = hw.package_manager
    assert pm.uninstall(SETTINGS) is False and pm.uninstall(MARKOR) is False
    pm.install(MARKOR, 146, "2.10.9", b"apk")
    hw.start_activity(MARKOR)
    hw.state.notifications = [{"package": MARKOR}]
    assert pm.uninstall(MARKOR, keep_data=True) is True
    assert not pm.installed(MARKOR) and hw.top.package != MARKOR and hw.state.notifications == []
    assert not hw.fs.host(apk_dir(MARKOR)).exists() and hw.fs.host(f"/data/data/{MARKOR}").exists()
    pm.install(MARKOR, 146, "2.10.9", b"apk")
    assert hw.uninstall_package(MARKOR) is True  # the device delegates
    assert not hw.fs.host(f"/data/data/{MARKOR}").exists()


def test_grant_revoke_app_ops_and_reset(hw):
    pm = hw.package_manager
    pm.install(MARKOR, 146, "2.10.9", b"apk")
    assert not pm.permission_granted(MARKOR, RECORD)
    pm.grant_permission(MARKOR, RECORD)
    assert pm.permission_granted(MARKOR, RECORD)
    hw.start_activity(MARKOR)
    pm.grant_permission(MARKOR, RECORD, granted=False)  # revoking kills the running app
    assert not pm.permission_granted(MARKOR, RECORD) and MARKOR not in hw.state.running
    assert pm.package_stopped(MARKOR)
    assert not pm.app_op_allowed(MARKOR, "MANAGE_EXTERNAL_STORAGE")
    pm.set_app_op(MARKOR, "MANAGE_EXTERNAL_STORAGE", "allow")
    assert pm.app_op_allowed(MARKOR, "MANAGE_EXTERNAL_STORAGE")
    pm.set_app_op(MARKOR, "MANAGE_EXTERNAL_STORAGE", "default")
    assert hw.state.packages[MARKOR].app_ops == {}
    pm.grant_permission(MARKOR, RECORD)
    pm.set_app_op(MARKOR, "MANAGE_EXTERNAL_STORAGE", "allow")
    pm.reset_permissions(MARKOR)  # pm clear: back to what a download has
    assert hw.state.packages[MARKOR].granted == [] and hw.state.packages[MARKOR].app_ops == {}
    hw.state.packages[DESKCLOCK].granted = []
    pm.reset_permissions(DESKCLOCK)  # a system app gets the image's grants back
    assert hw.state.packages[DESKCLOCK].granted == list(hw.known_apps[DESKCLOCK].runtime_permissions)
    pm.reset_permissions("com.nope")  # no record: nothing to reset


def test_the_view_follows_a_replaced_state(hw, tmp_path):
    pm = hw.package_manager
    saved = hw.state.model_dump_json()
    pm.install(MARKOR, 146, "2.10.9", b"apk")
    assert MARKOR in pm.apps
    hw.state = DeviceState.model_validate_json(saved)  # what a snapshot load does
    assert MARKOR not in pm.apps
    hw.persist()
    assert MARKOR not in VirtualDevice(hw.state_dir, mode="hardware").apps


def test_stopped_state(det):
    pm = det.package_manager
    assert not pm.package_stopped(SETTINGS)
    det.force_stop(SETTINGS)
    assert pm.package_stopped(SETTINGS) and det.package_stopped(SETTINGS)
    det.start_activity(SETTINGS)
    assert not pm.package_stopped(SETTINGS)
