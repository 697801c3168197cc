"""The real-AVD path end to end: ``emukit avd start`` launches an AVD through the SDK's ``emulator`` binary,
``emukit avd setup`` provisions it, ``emukit doctor`` passes, Ctrl-C stops it.

This machine cannot run an Android emulator, so the SDK is a fake (tests/device/fake_sdk.py): its ``emulator``
script starts a hardware-like virtual device (fresh, apps absent, first-run screens pending) on the ports the
real command line gives. Everything else (the launcher, the boot wait, post-boot setup, the console, gRPC,
setup and doctor) is emukit's real code over the real adb server.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

from emukit.device.driver import Driver
from emukit.device.virtual import free_adb_ports
from emukit.provision.apks import write_standins
from emukit.provision.doctor import run_doctor
from emukit.provision.setup import setup_device
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports
from tests.device.fake_sdk import make_fake_sdk


def _lines(stream) -> queue.Queue:
    out: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in iter(stream.readline, ""):
            out.put(line)
        out.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return out


def _wait_for(lines: queue.Queue, needle: str, timeout: float, seen: list[str]) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            return False
        if line is None:
            return False
        seen.append(line)
        if needle in line:
            return True
    return False


def test_avd_start_setup_doctor_and_stop(emukit_cli, adb_server, tmp_path: Path) -> None:
    sdk = make_fake_sdk(tmp_path / "sdk")
    adb_port = free_adb_ports(1, start=TEST_PORT_BASE + 200)[0]
    console_port = adb_port - 1
    grpc_port = adb_port + 3000
    env = dict(os.environ, ANDROID_SDK_ROOT=str(sdk), FAKE_EMU_STATE_DIR=str(tmp_path / "avd-state"),
               FAKE_EMU_VDEVICE_MODE="hardware", EMUKIT_DATA=str(tmp_path / "data"))
    proc = subprocess.Popen([*emukit_cli, "avd", "start", "emukit_pixel6",
                             "--console-port", str(console_port), "--grpc-port", str(grpc_port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, seen = _lines(proc.stdout), []
    serial = f"emulator-{console_port}"
    try:
        assert _wait_for(lines, "booted and set up", 90, seen), "".join(seen)
        assert any("-avd emukit_pixel6" in line and f"-grpc {grpc_port}" in line for line in seen), "".join(seen)
        apks = tmp_path / "apks"
        write_standins(apks)
        driver = Driver(serial, adb_server.port, default_timeout=10)
        try:
            assert driver.shell("pm list packages net.gsantner.markor").text.strip() == ""  # a fresh AVD
            report = setup_device(driver, apks, tmp_path / "data")
            assert report.changed
            checks = run_doctor(driver, tmp_path / "data")
        finally:
            driver.close()
        assert [(c.name, c.detail) for c in checks if not c.ok] == []
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert _wait_for(lines, f"{serial} stopped", 5, seen) or any(f"{serial} stopped" in s for s in seen)
        assert adb_server.state(serial) != "device"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
