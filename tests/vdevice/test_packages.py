"""The package manager of the hardware-like virtual device, over the real adb server: stand-in APKs, installs
through adbutils' ``AdbDevice.install`` (push to /data/local/tmp, ``pm install -r -t``), ``pm`` refusals with the
real failure strings, uninstall, runtime permissions, app-ops, ``pm clear``, ``dumpsys package``, and the
downloaded apps absent until installed. The deterministic device keeps every app preinstalled and permitted."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import adbutils
import pytest

from emukit.provision.standin import (
    STANDIN_MARKER,
    read_standin,
    standin_bytes,
    write_standin,
)

MARKOR, RETRO = "net.gsantner.markor", "code.name.monkey.retromusic"
MEDIA, NOTIFY = "android.permission.READ_MEDIA_AUDIO", "android.permission.POST_NOTIFICATIONS"
SYSTEM_APPS = ("com.android.settings", "com.google.android.documentsui", "com.google.android.deskclock",
               "com.google.android.apps.nexuslauncher", "com.google.android.permissioncontroller")


@pytest.fixture(scope="module")
def hw(vdevice_factory, adb_server):
    """A hardware-mode virtual device behind the real adb server, as an adbutils device."""
    proc = vdevice_factory(mode="hardware")
    yield adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    proc.stop()


@pytest.fixture(scope="module")
def apks(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("standins")
    return {"markor": write_standin(out, MARKOR, 146, "2.10.9"), "markor147": write_standin(out, MARKOR, 147, "2.11.0"),
            "retro": write_standin(out, RETRO, 10603, "6.1.0")}


def sh(dev, cmd: str) -> tuple[int, str]:
    res = dev.shell2(cmd)
    return res.returncode, res.output


def packages(dev, *flags: str) -> set[str]:
    out = sh(dev, "pm list packages " + " ".join(flags))[1]
    return {line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("package:")}


def push(dev, data: bytes, name: str) -> str:
    path = f"/data/local/tmp/{name}"
    dev.sync.push(io.BytesIO(data), path)
    return path


@pytest.fixture
def clean(hw):
    """Every test starts with neither downloaded app installed."""
    for pkg in (MARKOR, RETRO):
        sh(hw, f"pm uninstall {pkg}")
    return hw


# ---------------------------------------------------------------------------------------------- stand-ins
def test_standin_bytes_are_deterministic_and_read_back(tmp_path):
    a = write_standin(tmp_path / "a", MARKOR, 146, "2.10.9")
    b = write_standin(tmp_path / "b", MARKOR, 146, "2.10.9")
    assert a.name == "net.gsantner.markor_146.apk"
    assert a.read_bytes() == b.read_bytes()
    assert standin_bytes(MARKOR, 147, "2.10.9") != a.read_bytes()
    manifest = read_standin(a.read_bytes())
    assert (manifest.package, manifest.version_code, manifest.version_name) == (MARKOR, 146, "2.10.9")
    with zipfile.ZipFile(a) as zf:
        assert zf.namelist() == sorted(zf.namelist())
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert json.loads(zf.read("META-INF/EMUKIT-STANDIN.json"))["marker"] == STANDIN_MARKER


def test_only_standins_read_as_standins():
    assert read_standin(b"PK\x03\x04 not really a zip") is None
    assert read_standin(b"") is None
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00")
    assert read_standin(buf.getvalue()) is None
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("META-INF/EMUKIT-STANDIN.json", json.dumps({"marker": "emukit-standin/0", "package": MARKOR,
                                                                "versionCode": 146, "versionName": "x"}))
    assert read_standin(buf.getvalue()) is None


# ---------------------------------------------------------------------------------------------- absent until installed
def test_downloaded_apps_are_absent_until_installed(clean):
    dev = clean
    listed = packages(dev)
    assert MARKOR not in listed and RETRO not in listed
    assert set(SYSTEM_APPS) <= listed
    assert sh(dev, f"pm path {MARKOR}")[0] != 0
    rc, out = sh(dev, f"am start -n {MARKOR}/.activity.MainActivity")
    assert rc != 0
    assert f"Error: Activity class {{{MARKOR}/{MARKOR}.activity.MainActivity}} does not exist." in out
    assert sh(dev, f"monkey -p {RETRO} 1")[0] != 0
    assert sh(dev, f"dumpsys package {MARKOR}")[1].strip() == f"Unable to find package: {MARKOR}"


def test_install_through_adbutils_makes_the_app_appear_stopped(clean, apks):
    dev = clean
    dev.install(str(apks["markor"]), nolaunch=True, silent=True)
    assert MARKOR in packages(dev, "-3")
    assert f"package:{MARKOR} versionCode:146" in sh(dev, "pm list packages -3 --show-versioncode")[1]
    assert sh(dev, f"pm path {MARKOR}")[1].strip() == f"package:/data/app/{MARKOR}-1/base.apk"
    dump = sh(dev, f"dumpsys package {MARKOR}")[1]
    assert "versionCode=146 minSdk=16 targetSdk=33" in dump
    assert "versionName=2.10.9" in dump
    assert re.search(r"User 0: .* installed=true .*stopped=true", dump)
    assert re.search(r"firstInstallTime=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", dump)
    assert "runtime permissions:" in dump
    assert "android.permission.RECORD_AUDIO: granted=false" in dump
    assert sh(dev, "ls /data/local/tmp")[1].strip() == ""  # adbutils removes the pushed file after Success
    sh(dev, f"am start -W -n {MARKOR}/.activity.MainActivity")
    assert re.search(r"stopped=false", sh(dev, f"dumpsys package {MARKOR}")[1])


def test_adb_install_streams_the_file_through_the_adb_binary(clean, apks, adb_server):
    """``adb install`` of the real adb binary: ``exec:cmd package 'install' -S SIZE`` followed by the bytes."""
    import subprocess

    env = dict(adb_server.env)
    out = subprocess.run([adbutils.adb_path(), "-P", str(adb_server.port), "-s", clean.serial, "install",
                          str(apks["retro"])], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0 and "Success" in out.stdout, out.stdout + out.stderr
    assert f"package:{RETRO} versionCode:10603" in sh(clean, "pm list packages -3 --show-versioncode")[1]
    bad = apks["retro"].with_name("not-an-apk.apk")
    bad.write_bytes(b"PK\x03\x04 not a stand-in")
    out = subprocess.run([adbutils.adb_path(), "-P", str(adb_server.port), "-s", clean.serial, "install", str(bad)],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode != 0 and "INSTALL_FAILED_INVALID_APK" in out.stdout + out.stderr


def test_refusals_print_the_real_failure_strings(clean, apks):
    dev = clean
    junk = push(dev, b"\x7fELF not an apk", "junk.apk")
    rc, out = sh(dev, f"pm install -r -t {junk}")
    assert rc != 0 and out.startswith("Failure [INSTALL_FAILED_INVALID_APK: ")
    with pytest.raises(adbutils.AdbInstallError) as err:
        dev.install_remote(junk)
    assert err.value.reason == "INSTALL_FAILED_INVALID_APK"
    newer = push(dev, apks["markor147"].read_bytes(), "m147.apk")
    older = push(dev, apks["markor"].read_bytes(), "m146.apk")
    assert sh(dev, f"pm install {newer}") == (0, "Success\n")
    rc, out = sh(dev, f"pm install -r -t {older}")
    assert rc != 0
    assert out == ("Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 146 is "
                   "older than current 147]\n")
    assert "versionCode:147" in sh(dev, "pm list packages --show-versioncode")[1]
    assert sh(dev, f"pm install -r -d {older}") == (0, "Success\n")
    assert "versionCode:146" in sh(dev, "pm list packages --show-versioncode")[1]
    rc, out = sh(dev, "pm install /data/local/tmp/missing.apk")
    assert rc != 0 and "missing.apk" in out


def test_a_build_the_virtual_app_does_not_implement_refuses_to_start(clean, apks):
    dev = clean
    assert sh(dev, f"pm install {push(dev, apks['markor147'].read_bytes(), 'm.apk')}")[0] == 0
    rc, out = sh(dev, f"am start -n {MARKOR}/.activity.MainActivity")
    assert rc != 0
    assert "versionCode 147 is installed" in out and "versionCode 146 only" in out


def test_uninstall_and_reinstall(clean, apks):
    dev = clean
    dev.install(str(apks["retro"]), nolaunch=True, silent=True)
    sh(dev, f"echo kept > /data/data/{RETRO}/files/x")
    assert sh(dev, f"pm uninstall {RETRO}") == (0, "Success\n")
    assert RETRO not in packages(dev)
    assert sh(dev, f"ls /data/data/{RETRO}")[0] != 0
    assert sh(dev, f"pm uninstall {RETRO}") == (1, "Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
    assert sh(dev, "pm uninstall com.android.settings")[1] == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    assert "com.android.settings" in packages(dev)
    dev.install(str(apks["retro"]), nolaunch=True, silent=True)
    sh(dev, f"echo kept > /data/data/{RETRO}/files/x")
    assert sh(dev, f"pm uninstall -k {RETRO}") == (0, "Success\n")
    assert sh(dev, f"cat /data/data/{RETRO}/files/x")[1] == "kept\n"


def test_grant_revoke_and_install_with_g(clean, apks):
    dev = clean
    dev.install(str(apks["retro"]), nolaunch=True, silent=True)
    assert f"{MEDIA}: granted=false" in sh(dev, f"dumpsys package {RETRO}")[1]
    assert sh(dev, f"pm grant {RETRO} {MEDIA}")[0] == 0
    dump = sh(dev, f"dumpsys package {RETRO}")[1]
    assert f"{MEDIA}: granted=true" in dump and f"{NOTIFY}: granted=false" in dump
    assert sh(dev, f"pm revoke {RETRO} {MEDIA}")[0] == 0
    assert f"{MEDIA}: granted=false" in sh(dev, f"dumpsys package {RETRO}")[1]
    rc, out = sh(dev, f"pm grant {RETRO} android.permission.CAMERA")
    assert rc == 255 and f"Package {RETRO} has not requested permission android.permission.CAMERA" in out
    sh(dev, f"pm uninstall {RETRO}")
    assert sh(dev, f"pm install -g {push(dev, apks['retro'].read_bytes(), 'r.apk')}")[0] == 0
    dump = sh(dev, f"dumpsys package {RETRO}")[1]
    assert f"{MEDIA}: granted=true" in dump and f"{NOTIFY}: granted=true" in dump


def test_appops_and_pm_clear_reset_to_install_defaults(clean, apks):
    dev = clean
    dev.install(str(apks["markor"]), nolaunch=True, silent=True)
    assert sh(dev, f"appops get {MARKOR} MANAGE_EXTERNAL_STORAGE")[1] == "No operations.\nDefault mode: default\n"
    assert sh(dev, f"appops set --uid {MARKOR} MANAGE_EXTERNAL_STORAGE allow") == (0, "")
    assert sh(dev, f"appops get {MARKOR} MANAGE_EXTERNAL_STORAGE")[1] == "Uid mode: MANAGE_EXTERNAL_STORAGE: allow\n"
    assert "MANAGE_EXTERNAL_STORAGE: allow" in sh(dev, f"cmd appops get {MARKOR}")[1]
    assert sh(dev, f"appops set {MARKOR} MANAGE_EXTERNAL_STORAGE sometimes")[0] != 0
    assert sh(dev, f"pm grant {MARKOR} android.permission.RECORD_AUDIO")[0] == 0
    sh(dev, f"echo x > /data/data/{MARKOR}/shared_prefs/app.xml")
    assert sh(dev, f"pm clear {MARKOR}") == (0, "Success\n")
    assert sh(dev, f"appops get {MARKOR} MANAGE_EXTERNAL_STORAGE")[1].startswith("No operations.")
    assert "android.permission.RECORD_AUDIO: granted=false" in sh(dev, f"dumpsys package {MARKOR}")[1]
    assert sh(dev, f"ls /data/data/{MARKOR}/shared_prefs")[1] == ""
    assert MARKOR in packages(dev)


def test_the_launcher_lists_an_app_once_installed(clean, apks, adb_server):
    from emukit.device.driver import Driver

    dev = clean
    driver = Driver(dev.serial, adb_server.port, default_timeout=5)
    try:
        driver.home()
        sh(dev, "input swipe 540 1800 540 400 300")  # the all-apps drawer
        assert 'resource-id="com.google.android.apps.nexuslauncher:id/apps_list_view"' in driver.hierarchy()
        assert 'text="Markor"' not in driver.hierarchy()
        driver.back()  # closes All Apps
        dev.install(str(apks["markor"]), nolaunch=True, silent=True)
        driver.home()
        sh(dev, "input swipe 540 1800 540 400 300")
        assert 'text="Markor"' in driver.hierarchy()
    finally:
        driver.close()


# ---------------------------------------------------------------------------------------------- in process
def test_a_snapshot_keeps_what_was_installed(tmp_path):
    """The package records live in the device state, so a snapshot load brings the installed app back."""
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.shell import run_shell

    dev = VirtualDevice(tmp_path / "dev", mode="hardware")
    path = write_standin(dev.fs.host("/data/local/tmp"), MARKOR, 146, "2.10.9")
    out: list[bytes] = []
    assert run_shell(dev, f"pm install /data/local/tmp/{path.name}", out.append, out.append, b"", None) == 0
    dev.snapshots.save("installed")
    assert dev.uninstall_package(MARKOR)
    assert MARKOR not in dev.apps
    dev.snapshots.load("installed")
    assert MARKOR in dev.apps and dev.version_code(MARKOR) == 146
    reloaded = VirtualDevice(tmp_path / "dev", mode="hardware")
    assert MARKOR in reloaded.apps


def test_the_deterministic_device_has_every_app_installed_and_permitted(tmp_path):
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.shell import run_shell

    dev = VirtualDevice(tmp_path / "dev")
    out: list[bytes] = []
    run_shell(dev, f"pm list packages -3; dumpsys package {RETRO}", out.append, out.append, b"", None)
    text = b"".join(out).decode()
    assert f"package:{MARKOR}" in text and f"package:{RETRO}" in text
    assert f"{MEDIA}: granted=true" in text and f"{NOTIFY}: granted=true" in text
    assert dev.state.packages == {}
