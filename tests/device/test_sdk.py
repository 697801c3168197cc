"""Android SDK discovery, AVD listing, ``avdmanager`` and ``-accel-check`` parsing, KVM checks.

Parsers run on outputs in ``tests/fixtures/real/`` (written from the documented formats; see its README).
Where a tool is run, the ``emulator`` binary is the fake script from ``fake_sdk.py``: it mocks the real
binary because no system image or emulator can run here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from emukit.device import sdk
from emukit.errors import DeviceError
from tests.device.fake_sdk import FIXTURES, isolated_env, make_fake_sdk


@pytest.fixture
def fake_sdk_root(tmp_path: Path) -> Path:
    return make_fake_sdk(tmp_path / "sdk")


@pytest.fixture
def sdk_env(fake_sdk_root: Path, tmp_path: Path) -> dict[str, str]:
    return isolated_env(fake_sdk_root, tmp_path / "home")


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


# --- finding the SDK and its tools -----------------------------------------------------------------------

def test_find_sdk_from_env(sdk_env, fake_sdk_root):
    found = sdk.find_sdk(env=sdk_env)
    assert found.root == fake_sdk_root
    assert found.emulator() == fake_sdk_root / "emulator" / "emulator"
    assert found.tool_env()["ANDROID_SDK_ROOT"] == str(fake_sdk_root)
    assert found.tool_env()["ANDROID_HOME"] == str(fake_sdk_root)


def test_android_home_is_used_when_sdk_root_is_unset(sdk_env, fake_sdk_root, tmp_path):
    env = dict(sdk_env)
    env["ANDROID_SDK_ROOT"] = str(tmp_path / "nothing-here")
    env["ANDROID_HOME"] = str(fake_sdk_root)
    assert sdk.find_sdk(env=env).root == fake_sdk_root


def test_common_default_under_home_is_found(tmp_path):
    home = tmp_path / "home"
    make_fake_sdk(home / "Android" / "Sdk")
    assert sdk.find_sdk(env={"HOME": str(home)}).root == home / "Android" / "Sdk"


def test_candidates_env_first_then_defaults(tmp_path):
    env = {"HOME": str(tmp_path), "ANDROID_SDK_ROOT": "/a", "ANDROID_HOME": "/b"}
    candidates = sdk.sdk_candidates(env)
    assert candidates[:3] == [Path("/a"), Path("/b"), tmp_path / "Android" / "Sdk"]
    assert Path("/opt/android-sdk") in candidates


def test_missing_sdk_error_names_the_variables_and_places(tmp_path):
    env = {"HOME": str(tmp_path), "ANDROID_SDK_ROOT": str(tmp_path / "nope")}
    with pytest.raises(DeviceError) as err:
        sdk.find_sdk(env=env)
    msg = str(err.value)
    assert "ANDROID_SDK_ROOT" in msg and "ANDROID_HOME" in msg and str(tmp_path / "nope") in msg


def test_missing_tools_are_named(tmp_path):
    root = tmp_path / "sdk"
    (root / "platform-tools").mkdir(parents=True)
    found = sdk.find_sdk(root)
    with pytest.raises(DeviceError, match="no emulator .*'emulator' SDK package"):
        found.emulator()
    with pytest.raises(DeviceError, match="cmdline-tools;latest"):
        found.avdmanager()
    with pytest.raises(DeviceError, match="platform-tools"):
        found.adb()


def test_avdmanager_in_cmdline_tools(tmp_path):
    root = tmp_path / "sdk"
    for folder in ("cmdline-tools/11.0/bin", "emulator"):
        (root / folder).mkdir(parents=True)
    tool = root / "cmdline-tools" / "11.0" / "bin" / "avdmanager"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert sdk.AndroidSdk(root).avdmanager() == tool
    latest = root / "cmdline-tools" / "latest" / "bin"
    latest.mkdir(parents=True)
    (latest / "avdmanager").write_text("#!/bin/sh\n")
    (latest / "avdmanager").chmod(0o755)
    assert sdk.AndroidSdk(root).avdmanager() == latest / "avdmanager"


# --- AVDs -----------------------------------------------------------------------------------------------

def test_parse_list_avds_skips_emulator_log_lines():
    assert sdk.parse_list_avds(fixture("list-avds.txt")) == ["Pixel_6_API_34", "Pixel_6_API_34_ro",
                                                              "Small_Phone_API_30"]
    assert sdk.parse_list_avds("") == []


def test_list_avds_runs_the_emulator(sdk_env):
    """The fake ``emulator`` prints the captured ``-list-avds`` output."""
    env = dict(sdk_env, FAKE_EMU_OUTPUT=str(FIXTURES / "list-avds.txt"))
    assert sdk.find_sdk(env=env).list_avds() == ["Pixel_6_API_34", "Pixel_6_API_34_ro", "Small_Phone_API_30"]


def test_list_avds_failure_is_reported(sdk_env, tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("emulator: ERROR: cannot find the SDK\n")
    env = dict(sdk_env, FAKE_EMU_OUTPUT=str(out), FAKE_EMU_RC="2")
    with pytest.raises(DeviceError, match="exited with 2"):
        sdk.find_sdk(env=env).list_avds()


def test_read_avd_ini_and_config():
    """``path=`` points at a folder that does not exist here, so ``path.rel`` is used."""
    info = sdk.read_avd(FIXTURES / "android_home" / "avd" / "Pixel_6_API_34.ini")
    assert info.name == "Pixel_6_API_34"
    assert info.path == FIXTURES / "android_home" / "avd" / "Pixel_6_API_34.avd"
    assert info.target == "android-34"
    assert info.sysdir == "system-images/android-34/google_apis/x86_64/"
    assert (info.tag_id, info.abi, info.device_name) == ("google_apis", "x86_64", "pixel_6")
    assert (info.lcd_width, info.lcd_height) == (1080, 2400)
    assert info.config["hw.ramSize"] == "2048"


def test_list_avd_files_uses_android_avd_home():
    env = {"ANDROID_AVD_HOME": str(FIXTURES / "android_home" / "avd")}
    assert [a.name for a in sdk.list_avd_files(env=env)] == ["Pixel_6_API_34"]
    assert sdk.list_avd_files(Path("/nonexistent-avd-home")) == []


def test_avd_home_precedence(tmp_path):
    assert sdk.avd_home({"HOME": str(tmp_path)}) == tmp_path / ".android" / "avd"
    assert sdk.avd_home({"HOME": "/h", "ANDROID_EMULATOR_HOME": "/e"}) == Path("/e/avd")
    assert sdk.avd_home({"ANDROID_USER_HOME": "/u", "ANDROID_EMULATOR_HOME": "/e"}) == Path("/u/avd")
    assert sdk.avd_home({"ANDROID_AVD_HOME": "/a", "ANDROID_USER_HOME": "/u"}) == Path("/a")


def test_read_avd_errors_name_the_file(tmp_path):
    with pytest.raises(DeviceError, match="does not exist"):
        sdk.read_avd(tmp_path / "Nope.ini")
    ini = tmp_path / "avd" / "Bad.ini"
    ini.parent.mkdir()
    ini.write_text("path=" + str(tmp_path / "avd" / "Bad.avd") + "\n")
    (tmp_path / "avd" / "Bad.avd").mkdir()
    with pytest.raises(DeviceError, match="Bad.avd.*config.ini"):
        sdk.read_avd(ini)
    ini.write_text("target=android-34\n")
    with pytest.raises(DeviceError, match="no 'path=' entry"):
        sdk.read_avd(ini)


def test_parse_avdmanager_list():
    entries = sdk.parse_avdmanager_list(fixture("avdmanager-list-avd.txt"))
    assert [e.name for e in entries] == ["Pixel_6_API_34", "Small_Phone_API_30", "Broken_API_33"]
    pixel = entries[0]
    assert pixel.device == "pixel_6 (Google)"
    assert pixel.path == "/home/user/.android/avd/Pixel_6_API_34.avd"
    assert pixel.target == "Google APIs (Google Inc.)"
    assert pixel.based_on == 'Android 14.0 ("UpsideDownCake")'
    assert pixel.tag_abi == "google_apis/x86_64"
    assert (pixel.skin, pixel.sdcard, pixel.error) == ("pixel_6", "512M", None)
    assert entries[1].tag_abi == "google_apis/x86"
    assert entries[2].error and "Missing system image" in entries[2].error


def test_parse_ini_ignores_comments_and_blank_lines():
    assert sdk.parse_ini("# c\n\na = 1\nb=x=y\nnoequals\n") == {"a": "1", "b": "x=y"}


# --- acceleration -----------------------------------------------------------------------------------------

def test_parse_accel_check_usable():
    status = sdk.parse_accel_check(fixture("accel-check-ok.txt"))
    assert status.usable and status.code == 0
    assert status.message == "KVM (version 12) is installed and usable."


@pytest.mark.parametrize("name, words", [("accel-check-no-kvm.txt", "/dev/kvm is not found"),
                                         ("accel-check-permission.txt", "permission denied")])
def test_parse_accel_check_failures(name, words):
    status = sdk.parse_accel_check(fixture(name))
    assert not status.usable and status.code != 0
    assert words in status.message


def test_parse_accel_check_with_log_noise_and_garbage():
    noisy = "INFO    | Android emulator version 34.2.16.0\n" + fixture("accel-check-ok.txt")
    assert sdk.parse_accel_check(noisy).usable
    with pytest.raises(DeviceError, match="unrecognised"):
        sdk.parse_accel_check("something else entirely")


def test_accel_check_runs_the_emulator_and_reads_failure_output(sdk_env):
    """The fake ``emulator`` prints the no-KVM output and exits non-zero, as the real one does."""
    env = dict(sdk_env, FAKE_EMU_OUTPUT=str(FIXTURES / "accel-check-no-kvm.txt"), FAKE_EMU_RC="10")
    status = sdk.find_sdk(env=env).accel_check()
    assert not status.usable and "VT disabled" in status.message


def test_kvm_status(tmp_path):
    missing = tmp_path / "kvm"
    ok, why = sdk.kvm_status(missing)
    assert not ok and "does not exist" in why
    with pytest.raises(DeviceError, match="KVM acceleration is not usable"):
        sdk.require_kvm(missing)
    missing.write_text("")
    assert sdk.kvm_status(missing)[0]
    sdk.require_kvm(missing)


def _kvm_status_as_unprivileged(dev):
    """kvm_status as a user without access: directly when not root; as root, in a forked child that drops
    to uid/gid 65534 (root can read and write any file, so the check would pass)."""
    if os.geteuid() != 0:
        return sdk.kvm_status(dev)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            ok, why = sdk.kvm_status(dev)
            os.write(write_end, f"{int(ok)}|{why}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    ok, _, why = data.partition("|")
    return ok == "1", why


def test_kvm_status_without_permission():
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="emukit-kvm-"))  # traversable by the unprivileged child
    folder.chmod(0o755)
    dev = folder / "kvm"
    dev.write_text("")
    dev.chmod(0)
    try:
        ok, why = _kvm_status_as_unprivileged(dev)
    finally:
        shutil.rmtree(folder)
    assert not ok and "group 'kvm'" in why
