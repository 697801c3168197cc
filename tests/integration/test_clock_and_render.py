"""Logical clock and deterministic rendering, observed through adb and uiautomator2 only.

Real adb server and real `emukit vdevice serve` processes (devices leased from the session's pool, reset to
their clean snapshot for each test); nothing mocked.
"""

from __future__ import annotations

import datetime as dt
import time

import adbutils

from emukit.apps.selectors import table
from tests.integration.helpers import wait_usable

CLOCK = "com.google.android.deskclock"


def _device(adb_server, proc) -> adbutils.AdbDevice:
    return adbutils.AdbClient(port=adb_server.port).device(proc.serial)


def _uptime(dev: adbutils.AdbDevice) -> float:
    return float(dev.shell("cat /proc/uptime").split()[0])


def test_time_moves_only_when_told(pooled_device, adb_server):
    proc = pooled_device
    dev = _device(adb_server, proc)
    wall, up = dev.shell("date +%s"), _uptime(dev)
    time.sleep(1.2)
    assert dev.shell("date +%s") == wall and _uptime(dev) == up  # deterministic: no drift
    t0 = time.monotonic()
    dev.shell("sleep 600")  # the documented way to let time pass: instant on the virtual device
    assert time.monotonic() - t0 < 2
    assert int(dev.shell("date +%s")) == int(wall) + 600
    assert _uptime(dev) == up + 600


def test_date_needs_root_and_moves_only_wall_time(pooled_device, adb_server):
    proc = pooled_device
    dev = _device(adb_server, proc)
    refused = dev.shell2("date 031514302026.00", v2=True)
    assert refused.returncode != 0 and "not permitted" in refused.stderr.lower()
    dev.root()
    dev = wait_usable(adb_server, proc.serial)
    up = _uptime(dev)
    dev.shell("date 031514302026.00")  # MMDDhhmmCCYY.ss, as the anchors pin time
    assert dev.shell("date +%Y-%m-%dT%H:%M:%S") == "2026-03-15T14:30:00"
    assert _uptime(dev) == up  # elapsed-realtime is not affected by setting the wall clock
    xml = dev.dump_hierarchy()
    assert 'text="14:30"' in xml  # status bar clock shows logical time


def test_date_time_page_shows_logical_time(pooled_device, adb_server):
    import uiautomator2

    settings = table("com.android.settings")
    proc = pooled_device
    dev = _device(adb_server, proc)
    epoch = int(dev.shell("date +%s"))
    now = dt.datetime.fromtimestamp(epoch, dt.UTC)
    d = uiautomator2.connect(proc.serial)
    try:
        dev.shell("am start -n com.android.settings/.DateTimeSettings")
        assert d(**settings.query("page_title", title=settings.text("date_time"))).exists
        assert d(text=f"{now:%B} {now.day}, {now.year}").exists
        assert d(text=f"{now:%H:%M}").exists
        dev.shell("sleep 3600")
        later = now + dt.timedelta(hours=1)
        assert d(text=f"{later:%H:%M}").exists
    finally:
        d.stop_uiautomator()


def test_u2_set_text_and_send_keys(pooled_device, adb_server):
    """uiautomator2's set_text and send_keys on the Clock's timer label dialog (its EditText
    ``label_input_field``); the soft keyboard shows while the field is focused."""
    import uiautomator2

    clock = table(CLOCK)
    proc = pooled_device
    dev = _device(adb_server, proc)
    d = uiautomator2.connect(proc.serial)
    try:
        dev.shell(f"am start -n {CLOCK}/com.android.deskclock.DeskClock --ei deskclock.select.tab 2")
        dev.shell("input keyevent KEYCODE_3 KEYCODE_0 KEYCODE_0")
        d(**clock.query("timer_start")).click()
        d(**clock.query("card_label")).click()
        field = d(**clock.query("label_input"))
        field.set_text("Tea")
        assert field.get_text() == "Tea"
        assert "com.android.inputmethod.latin" in d.dump_hierarchy()
        field.clear_text()
        field.click()
        d.send_keys("Pasta")
        assert field.get_text() == "Pasta"
        d.press("back")  # hides the keyboard
        assert "com.android.inputmethod.latin" not in d.dump_hierarchy()
    finally:
        d.stop_uiautomator()


def test_same_state_same_pixels_across_processes(vdevice_factory, adb_server):
    """Two processes of their own: the point is that separate processes render the same state alike."""
    first, second = vdevice_factory(), vdevice_factory()
    shots = []
    for proc in (first, second):
        dev = _device(adb_server, proc)
        dev.shell("am start -n com.android.settings/.DateTimeSettings")
        shots.append((dev.shell("screencap -p", encoding=None), dev.dump_hierarchy()))
        proc.stop()
    assert shots[0][0] == shots[1][0]
    assert shots[0][1] == shots[1][1]
