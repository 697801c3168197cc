"""Attached devices are announced and claimed, and a build never stalls in silence.

Real builds on a virtual device behind the session's adb server; the stalls come from the virtual device's
fault injector, driven through its emulator console (``adb emu fault ...``): replies delayed for ten minutes
(replies that never come) and a device offline for ten minutes (offline forever, for the length of a test).
A second real adb server attached to the same device covers the two-servers case. Nothing is mocked.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from emukit.builder.run import BuildOptions
from emukit.device.adbserver import AdbServer, free_port
from emukit.device.boot import announce_emulator
from emukit.device.ownership import SerialClaim
from emukit.store import Store
from emukit.templates import load_templates
from emukit.workers import DeviceRequest
from tests.integration.helpers import emu

TEMPLATE = ["copy_direct"]


def _cli(emukit_cli, adb_server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*emukit_cli, "build-pairs", "--family", "persistent", *args],
                          env=adb_server.env, capture_output=True, text=True, timeout=300)


def test_attached_devices_are_announced_and_a_held_one_is_refused(emukit_cli, vdevice, adb_server, tmp_path):
    claim = SerialClaim.acquire(adb_server.port, vdevice.serial)  # as another live emukit command would
    try:
        held = _cli(emukit_cli, adb_server, "--device", vdevice.serial, "--template", "copy_direct", "--count", "1",
                    "--data-dir", str(tmp_path / "held"), "--quiet")
    finally:
        claim.release()
    assert held.returncode == 1
    assert f"{vdevice.serial} is in use by another emukit command: pid" in held.stdout + held.stderr
    assert "building pairs" not in held.stderr
    used = _cli(emukit_cli, adb_server, "--device", vdevice.serial, "--template", "copy_direct", "--count", "1",
                "--data-dir", str(tmp_path / "used"), "--quiet")
    assert used.returncode == 0, used.stdout + used.stderr
    text = used.stdout + used.stderr
    assert f"using attached device(s) {vdevice.serial} (not started by emukit: given with --device)" in text
    assert text.index("using attached device") < text.index("strict pairs")  # announced before the work
    found = _cli(emukit_cli, adb_server, "--template", "copy_direct", "--count", "1", "--data-dir", str(tmp_path / "found"),
                 "--quiet")  # no --device: every attached device is used, and said so
    assert found.returncode == 0, found.stdout + found.stderr
    assert "using attached device(s)" in found.stdout + found.stderr
    assert "give --devices N for embedded virtual devices instead" in found.stdout + found.stderr


def test_a_build_whose_attached_devices_are_all_held_fails_naming_the_holders(emukit_cli, vdevice, adb_server,
                                                                               tmp_path):
    """The one device attached to a private adb server held by another live emukit command (this test process
    claims it as one would): the build fails with a message naming the holder and the two ways on, and starts
    no embedded device; with ``--wait`` it waits, and builds once the holder lets go. (A private server: the
    session's has other tests' devices coming and going.)"""
    own = AdbServer(free_port())
    own.start()
    env = {**adb_server.env, "ANDROID_ADB_SERVER_PORT": str(own.port)}

    def build(data: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([*emukit_cli, "build-pairs", "--family", "persistent", "--template", "copy_direct",
                               "--count", "1", "--data-dir", str(tmp_path / data), "--quiet", *extra], env=env,
                              capture_output=True, text=True, timeout=300)

    try:
        announce_emulator(own, vdevice.adb_port)
        deadline = time.monotonic() + 30
        while own.state(vdevice.serial) != "device" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [s for s, state in own.devices().items() if state == "device"] == [vdevice.serial]
        claim = SerialClaim.acquire(own.port, vdevice.serial)
        try:
            held = build("held")
        finally:
            claim.release()
        text = held.stdout + held.stderr
        assert held.returncode == 1, text
        assert "every attached device is held by another emukit command" in text
        assert f"{vdevice.serial} is in use by another emukit command: pid {os.getpid()}" in text
        assert "--devices N" in text and "--wait S" in text
        assert not (tmp_path / "held" / "vdevices").exists()  # no embedded device was started instead

        claim = SerialClaim.acquire(own.port, vdevice.serial)
        try:  # the holder lets go once the build says it is waiting
            proc = subprocess.Popen([*emukit_cli, "build-pairs", "--family", "persistent", "--template",
                                     "copy_direct", "--count", "1", "--data-dir", str(tmp_path / "waited"), "--quiet",
                                     "--wait", "60"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            first = proc.stderr.readline() if proc.stderr else ""
        finally:
            claim.release()
        out, err = proc.communicate(timeout=300)
        waited = subprocess.CompletedProcess(proc.args, proc.returncode, out, first + err)
        text = waited.stdout + waited.stderr
        assert waited.returncode == 0, text
        assert "waiting up to 60 s for held device(s)" in text and "using attached device(s)" in text
        with Store(data_dir=tmp_path / "waited") as store:
            assert [p.built_on.kind for p in store.pairs()] == ["virtual-deterministic"]
    finally:
        own.kill()


@pytest.fixture()
def stalling_device(vdevice_factory):
    """A process of its own per test: the test switches on faults (the process keeps them) that stall it."""
    proc = vdevice_factory()
    yield proc
    proc.stop()


@pytest.mark.parametrize("fault", [("delay", "600000"), ("offline", "600")], ids=["replies-never-come",
                                                                                 "offline-forever"])
def test_a_device_that_stops_answering_is_given_up_in_bounded_time(pair_builder, stalling_device, adb_server, tmp_path,
                                                                   fault):
    data = tmp_path / "data"
    options = BuildOptions(templates=load_templates(names=TEMPLATE), count_per_family=6, data_dir=data,
                           devices=DeviceRequest(serials=(stalling_device.serial,)), adb_port=adb_server.port, attempt_timeout_s=5)
    injected = threading.Event()

    def inject() -> None:  # once the first pair is stored, the device stops answering mid-build
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (data / "emukit.db").exists():
                with Store(data_dir=data) as store:
                    if store.count_pairs() >= 1:
                        break
            time.sleep(0.2)
        emu(adb_server, stalling_device.serial, "fault", *fault)
        injected.set()

    thread = threading.Thread(target=inject, daemon=True)
    thread.start()
    t0 = time.monotonic()
    runner = pair_builder(options)
    wall = time.monotonic() - t0
    thread.join(5)
    assert injected.is_set()
    emu(adb_server, stalling_device.serial, "fault", "clear")
    assert runner.total_done < 6  # it could not finish on a device that stopped answering...
    assert wall < 150, wall  # ...and it said so in bounded time instead of hanging
    assert any("every device was dropped" in e and stalling_device.serial in e for e in runner.errors), \
        runner.errors
    with Store(data_dir=data) as store:
        rejections = list(store.rejections())
    stalled = [r for r in rejections if r.reason in ("device_timeout", "device_error")]
    assert stalled, rejections  # recorded, with the device and the step that did not answer
    for r in stalled:
        assert r.device == stalling_device.serial and stalling_device.serial in r.detail
        assert "branch" in r.detail or "ran out of time" in r.detail


def test_a_deadline_bounds_every_request_and_names_the_step(stalling_device, adb_server):
    from emukit.device.adbwire import DeadlinePassed
    from emukit.device.driver import Driver
    from emukit.errors import DeviceError

    driver = Driver(stalling_device.serial, adb_server.port)
    try:
        assert driver.shell("echo ok").text.strip() == "ok"
        emu(adb_server, stalling_device.serial, "fault", "delay", "600000")  # replies that never come
        t0 = time.monotonic()
        with driver.deadline(1.5, "copy_direct slot 3"):
            with pytest.raises(DeviceError, match="timed out"):
                driver.shell("echo late", timeout=30)  # cut to the 1.5 s left
            with pytest.raises(DeadlinePassed, match=r"copy_direct slot 3 \(deadline 1.5 s\) ran out of time "
                                                     r"before shell"):
                driver.shell("echo later")
            with pytest.raises(DeadlinePassed):
                driver.adbutils()  # adbutils and uiautomator2 requests are bounded by the same deadline
        assert time.monotonic() - t0 < 4
        assert driver.wire.deadline is None  # the block restores the previous (no) deadline
    finally:
        emu(adb_server, stalling_device.serial, "fault", "clear")
        driver.close()


def test_two_adb_servers_attached_to_one_device_do_not_stall_a_build(pair_builder, vdevice, adb_server, tmp_path):
    other = AdbServer(free_port(), home=tmp_path / "other-home")
    other.start()
    try:
        announce_emulator(other, vdevice.adb_port)
        deadline = time.monotonic() + 30
        while other.state(vdevice.serial) != "device" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert other.state(vdevice.serial) == "device"  # both servers hold a transport to the device
        options = BuildOptions(templates=load_templates(names=TEMPLATE), count_per_family=2,
                               data_dir=tmp_path / "data", devices=DeviceRequest(serials=(vdevice.serial,)), adb_port=adb_server.port,
                               attempt_timeout_s=30)
        t0 = time.monotonic()
        runner = pair_builder(options)
        assert time.monotonic() - t0 < 120
        assert runner.total_done == 2 and not runner.errors, runner.errors
    finally:
        other.kill()
    assert Path(tmp_path / "data" / "emukit.db").exists()
