"""The real-emulator code paths that can be checked without a system image: the command line and
environment, getprop parsing, the boot wait (against a virtual device, which answers
``getprop sys.boot_completed`` with 1), post-boot setup, and the launch retry bookkeeping.

Launches use the fake ``emulator`` script from ``fake_sdk.py``: it mocks the real emulator binary because no
system image can run here. In "vdevice" mode it starts a virtual device on the ``-ports`` adb port, so
:class:`EmulatorLauncher` runs its real start / boot-wait / setup / ``adb emu kill`` path through the real
adb server.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from emukit.device import boot
from emukit.device.emulator import (
    EmulatorConfig,
    build_command,
    emulator_env,
    parse_getprop,
    summarize_props,
)
from emukit.device.launcher import EmulatorLauncher
from emukit.device.sdk import AndroidSdk
from emukit.device.virtual import free_adb_ports
from emukit.errors import DeviceError
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports
from tests.device.fake_sdk import FIXTURES, make_fake_sdk

ANCHOR = dt.datetime(2024, 3, 18, 9, 30, 15)


@pytest.fixture
def fake_sdk_root(tmp_path: Path) -> Path:
    return make_fake_sdk(tmp_path / "sdk")


# --- command line ---------------------------------------------------------------------------------------

def test_default_command_line():
    cfg = EmulatorConfig(avd_name="Pixel_6_API_34")
    assert build_command("/sdk/emulator/emulator", cfg) == [
        "/sdk/emulator/emulator", "-avd", "Pixel_6_API_34", "-no-window", "-no-audio", "-no-boot-anim",
        "-gpu", "swiftshader_indirect", "-accel", "on", "-memory", "2048", "-ports", "5554,5555",
        "-grpc", "8554", "-no-snapshot", "-feature", "AllowSnapshotMigration,MigratableSnapshotSave"]
    assert (cfg.serial, cfg.adb_port) == ("emulator-5554", 5555)


def test_command_line_options():
    cfg = EmulatorConfig(avd_name="A", console_port=5560, grpc_port=None, snapshot="task_000_init",
                         read_only=True, window=True, audio=True, boot_animation=True, gpu="off",
                         accel="auto", memory_mb=None, features=[], extra_args=["-camera-back", "none"])
    cmd = build_command("emulator", cfg)
    assert cmd == ["emulator", "-avd", "A", "-gpu", "off", "-accel", "auto", "-ports", "5560,5561",
                   "-snapshot", "task_000_init", "-read-only", "-camera-back", "none"]
    assert "-no-snapshot" not in cmd and "-grpc" not in cmd


@pytest.mark.parametrize("port", [5555, 80, 70000])
def test_console_port_must_be_even_and_in_range(port):
    with pytest.raises(ValidationError, match="console_port"):
        EmulatorConfig(avd_name="A", console_port=port)


def test_emulator_env_carries_adb_server_port_home_and_sdk(adb_server, fake_sdk_root):
    sdk = AndroidSdk(fake_sdk_root, env={"ANDROID_AVD_HOME": "/avds"})
    env = emulator_env(sdk, adb_server, {"ANDROID_EMULATOR_KVM_DEVICE": "/dev/kvm"})
    assert env["ANDROID_ADB_SERVER_PORT"] == str(adb_server.port)
    assert env["HOME"] == adb_server.env["HOME"]
    assert env["ANDROID_SDK_ROOT"] == env["ANDROID_HOME"] == str(fake_sdk_root)
    assert env["ANDROID_AVD_HOME"] == "/avds"
    assert env["ANDROID_EMULATOR_KVM_DEVICE"] == "/dev/kvm"


# --- getprop and setup commands --------------------------------------------------------------------------

def test_parse_getprop_of_a_pixel_api34_emulator():
    props = parse_getprop((FIXTURES / "getprop-pixel6-api34-google_apis-x86_64.txt").read_text())
    assert len(props) == 176
    assert props["ro.build.version.sdk"] == "34"
    assert props["ro.board.platform"] == ""
    info = summarize_props(props)
    assert (info.sdk, info.release, info.abi) == (34, "14", "x86_64")
    assert info.avd_name == "Pixel_6_API_34"
    assert info.is_emulator and info.boot_completed and info.root_capable


def test_parse_getprop_multiline_value_and_user_build():
    props = parse_getprop("[a]: [line one\nline two]\n[ro.build.type]: [user]\n[x]: []\n")
    assert props == {"a": "line one\nline two", "ro.build.type": "user", "x": ""}
    assert not summarize_props(props).root_capable


def test_virtual_device_getprop_has_the_same_shape(adb_server, vdevice):
    """The boot poll and the props summary read the same keys on the virtual device."""
    props = parse_getprop(boot.adb_shell(adb_server, vdevice.serial, "getprop"))
    info = summarize_props(props)
    assert info.boot_completed and info.is_emulator and info.sdk


def test_setup_commands_and_date_command():
    assert boot.setup_commands(boot.PostBootConfig()) == [
        "settings put global window_animation_scale 0", "settings put global transition_animation_scale 0",
        "settings put global animator_duration_scale 0", "settings put global auto_time 0",
        "settings put global auto_time_zone 0", "settings put system time_12_24 24"]
    assert boot.setup_commands(boot.PostBootConfig(disable_animations=False, auto_time_off=False,
                                                   time_24h=False)) == []
    assert boot.date_command(ANCHOR) == "date 0318093024.15"
    aware = dt.datetime(2024, 3, 18, 11, 30, 15, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert boot.date_command(aware) == "date -u 0318093024.15"


# --- boot wait against a virtual device ------------------------------------------------------------------

def test_boot_wait_against_a_virtual_device(adb_server, vdevice):
    boot.wait_boot_completed(adb_server, vdevice.serial, timeout=10, interval=0.05)
    assert boot.healthy(adb_server, vdevice.serial)


def test_boot_wait_times_out_naming_serial_and_condition(adb_server):
    with pytest.raises(DeviceError, match=r"emulator-5998: timed out .* sys.boot_completed=1"):
        boot.wait_boot_completed(adb_server, "emulator-5998", timeout=0.3, interval=0.05)
    assert not boot.healthy(adb_server, "emulator-5998", timeout=2)


def test_boot_wait_fails_fast_when_the_process_died(adb_server):
    start = time.monotonic()
    with pytest.raises(DeviceError, match="process exited"):
        boot.wait_boot_completed(adb_server, "emulator-5998", timeout=30, interval=0.05, alive=lambda: False)
    assert time.monotonic() - start < 3


def test_offline_counts_as_not_booted_yet(adb_server, vdevice):
    """``fault offline`` makes adb list the device as offline/absent for a moment; the poll waits it out."""
    adb_server.adb("-s", vdevice.serial, "emu", "fault", "offline", "2")
    boot.wait_until(lambda: adb_server.state(vdevice.serial) != "device", serial=vdevice.serial,
                    what="the device to drop off", timeout=2, interval=0.01)
    with pytest.raises(DeviceError, match="adb lists it as (offline|absent)"):
        boot.boot_completed(adb_server, vdevice.serial)  # what the boot poll treats as "not yet"
    boot.wait_boot_completed(adb_server, vdevice.serial, timeout=20, interval=0.05)
    assert adb_server.state(vdevice.serial) == "device"


# --- launching through the fake emulator -----------------------------------------------------------------

def _launcher(adb_server, fake_sdk_root, tmp_path, **env: str) -> EmulatorLauncher:
    console = free_adb_ports(1, start=TEST_PORT_BASE + 200)[0] - 1
    # the virtual device behind the fake serves gRPC on adb port + 3000: configure the same port
    cfg = EmulatorConfig(avd_name="Fake_AVD", console_port=console, grpc_port=console + 3001, boot_timeout_s=30,
                         boot_poll_interval_s=0.05, shutdown_timeout_s=10, log_dir=tmp_path / "logs",
                         env={"FAKE_EMU_STATE_DIR": str(tmp_path / "state"),
                              "FAKE_EMU_COUNTER": str(tmp_path / "calls"), **env})
    setup = boot.PostBootConfig(clock_anchor=ANCHOR)
    return EmulatorLauncher(cfg, adb_server, sdk=AndroidSdk(fake_sdk_root), setup=setup)


def test_launch_failures_are_retried_then_reported_with_the_log_tail(adb_server, fake_sdk_root, tmp_path):
    launcher = _launcher(adb_server, fake_sdk_root, tmp_path, FAKE_EMU_MODE="fail")
    with pytest.raises(DeviceError) as err:
        launcher.launch()
    msg = str(err.value)
    assert f"avd device {launcher.serial} failed to launch after 3 attempt(s)" in msg
    assert "attempt 3/3" in msg and "process exited" in msg
    assert "Unknown AVD name [Fake_AVD]" in msg  # the log tail
    assert launcher.attempts == 3 and len(launcher.failures) == 3 and launcher.launches == 0
    assert (tmp_path / "calls").read_text() == "3"
    assert not launcher.running


def test_launch_boot_setup_health_and_shutdown(adb_server, fake_sdk_root, tmp_path):
    """First start fails, the retry boots; post-boot setup is applied through adb; ``stop`` ends it with
    ``adb emu kill``."""
    launcher = _launcher(adb_server, fake_sdk_root, tmp_path, FAKE_EMU_FAIL_FIRST="1")
    try:
        assert launcher.command()[:3] == [str(fake_sdk_root / "emulator" / "emulator"), "-avd", "Fake_AVD"]
        assert launcher.launch() == launcher.serial
        assert launcher.attempts == 2 and launcher.launches == 1 and len(launcher.failures) == 1
        assert launcher.healthy()
        shell = lambda cmd: boot.adb_shell(adb_server, launcher.serial, cmd)
        assert shell("id -u") == "0"
        assert shell("settings get global window_animation_scale") == "0"
        assert shell("settings get global auto_time") == "0"
        assert shell("settings get system time_12_24") == "24"
        assert shell("date +%Y-%m-%dT%H:%M") == "2024-03-18T09:30"
        proc = launcher.process.proc
        launcher.stop()
        assert proc.poll() == 0  # exited cleanly on 'adb emu kill', no signal needed
        assert not launcher.healthy()
    finally:
        launcher.stop()


def test_relaunch_brings_a_killed_emulator_back(adb_server, fake_sdk_root, tmp_path):
    launcher = _launcher(adb_server, fake_sdk_root, tmp_path)
    try:
        launcher.launch()
        launcher.process.proc.kill()
        launcher.process.proc.wait(10)
        assert not launcher.healthy()
        assert launcher.relaunch() == launcher.serial
        assert launcher.healthy() and launcher.launches == 2
    finally:
        launcher.stop()


@pytest.mark.usefixtures("adb_server")  # the device lane; the session's server keeps serving other tests
def test_restart_adb_server_reannounces_its_devices(tmp_path):
    """kill-server / start-server on a separate adb server (the session's one keeps serving other tests);
    a fresh server only scans 5555-5585, so the device it knew is announced again and comes back."""
    from emukit.device.adbserver import AdbServer, free_port
    from emukit.device.launcher import VirtualLauncher

    server = AdbServer(free_port(), home=tmp_path / "adbhome")
    server.start()
    launcher = VirtualLauncher(free_adb_ports(1, start=TEST_PORT_BASE + 240)[0], tmp_path / "dev", server,
                               setup=boot.PostBootConfig(root=False))
    try:
        launcher.launch()
        assert launcher.process.adb_port in boot.restart_adb_server(server)  # (+ any found on 5555-5585)
        assert server.running() and boot.adb_server_ok(server)
        boot.wait_usable(server, launcher.serial, timeout=20)
        assert launcher.healthy()
    finally:
        launcher.stop()
        server.kill()


def test_launch_refuses_ports_already_in_use(adb_server, fake_sdk_root, tmp_path, vdevice):
    """A stale device on the same ports would answer the boot poll: refuse to start instead."""
    launcher = _launcher(adb_server, fake_sdk_root, tmp_path)
    launcher.config.console_port = vdevice.adb_port - 1
    launcher.max_attempts = 1
    with pytest.raises(DeviceError, match=r"already in use"):
        launcher.launch()
    assert not (tmp_path / "calls").exists()  # the emulator was never started
