"""Faults on demand through the console: each one happens, and the device recovers.

Real adb server and `adb emu fault ...` against a real `emukit vdevice serve` process.
"""

from __future__ import annotations

import statistics
import time

import adbutils
import pytest

from tests.integration.helpers import emu


def wait_state(server, serial, want, timeout=30.0) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if server.state(serial) == want:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"{serial} not {want!r} after {timeout} s (now {server.state(serial)!r})")


@pytest.fixture()
def fresh(vdevice_factory, adb_server):
    """A process of its own per test: faults switched on through the console live in the process, which no
    snapshot load resets, and some tests end with the device offline."""
    proc = vdevice_factory()
    yield proc, adbutils.AdbClient(port=adb_server.port).device(proc.serial)
    proc.stop()


def test_faults_are_off_by_default(fresh, adb_server):
    proc, _ = fresh
    assert "delay_ms=0 offline_s=0.0 corrupt_next=0" in emu(adb_server, proc.serial, "fault", "status")


def test_drop_transport_then_recover(fresh, adb_server):
    proc, dev = fresh
    emu(adb_server, proc.serial, "fault", "drop")
    # the server may still list the old transport as "device" for a moment after the drop, and a command sent
    # then meets "device offline": recovery means a shell answers again within the deadline
    deadline = time.monotonic() + 30
    while True:
        wait_state(adb_server, proc.serial, "device")
        try:
            assert adbutils.AdbClient(port=adb_server.port).device(proc.serial).shell("echo back") == "back"
            break
        except adbutils.AdbError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_offline_for_n_seconds(fresh, adb_server):
    proc, _ = fresh
    emu(adb_server, proc.serial, "fault", "offline", "2")
    # the transport goes away: the server stops listing it as a usable device
    deadline = time.monotonic() + 1.5
    seen_gone = False
    while time.monotonic() < deadline:
        if adb_server.state(proc.serial) != "device":
            seen_gone = True
            break
        time.sleep(0.02)
    assert seen_gone
    with pytest.raises(adbutils.AdbError):
        adbutils.AdbClient(port=adb_server.port).device(proc.serial).shell("echo x", timeout=1)
    wait_state(adb_server, proc.serial, "device", timeout=30)
    assert adbutils.AdbClient(port=adb_server.port).device(proc.serial).shell("echo x") == "x"


def test_delay_replies(fresh, adb_server):
    proc, dev = fresh

    def median_latency() -> float:
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            dev.shell("echo hi")
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    base = median_latency()
    emu(adb_server, proc.serial, "fault", "delay", "300")
    slow = median_latency()
    emu(adb_server, proc.serial, "fault", "clear")
    assert slow >= base + 0.25
    assert median_latency() < base + 0.2


def test_crash_foreground_app(fresh, adb_server):
    proc, dev = fresh
    dev.shell("am start -n com.android.settings/.Settings")
    assert dev.app_current().package == "com.android.settings"
    assert "crashed com.android.settings" in emu(adb_server, proc.serial, "fault", "crash")
    assert dev.app_current().package == "com.google.android.apps.nexuslauncher"
    assert dev.shell("pidof com.android.settings") == ""
    dev.shell("am start -n com.android.settings/.Settings")
    assert dev.app_current().package == "com.android.settings"


def test_corrupt_one_reply(fresh, adb_server):
    proc, dev = fresh
    emu(adb_server, proc.serial, "fault", "corrupt", "1")
    assert dev.shell("echo hello") != "hello"
    assert dev.shell("echo hello") == "hello"
