"""The Clock app's over-adb smoke test: a timer through uiautomator2 and adb only, as the Temporal Deadline
templates drive it.

One real `emukit vdevice serve` process for the module; the test starts from cleared Clock data (`pm clear`).
Time passes with `adb shell sleep N` (instant on the virtual device's logical clock); state is checked in
DeskClock's preferences file (device-protected storage) read with `adb shell cat` and in the notification shade
(`cmd statusbar expand-notifications` and a hierarchy dump), whose chronometer reads one second more than the
time left (DeskClock pads its base). A five-minute timer is typed on the keypad, runs in the background, fires
only after its deadline and is stopped from its notification.

The other scenarios (two timers started at different times, pause, resume from the notification, reset, delete
and restart, a force stop that cancels the expiry until TIME_SET reaches the app, a rewritten preferences file
honoured on restart, a label typed with set_text) are checked in-process in tests/vdevice/test_app_clock.py.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

PKG = "com.google.android.deskclock"
COMPONENT = f"{PKG}/com.android.deskclock.DeskClock"
PREFS = f"/data/user_de/0/{PKG}/shared_prefs/{PKG}_preferences.xml"
TIMER_KEYS = ("timer_state_", "timer_setup_timet_", "timer_original_timet_", "timer_start_time_",
              "timer_wall_clock_time_", "timer_time_left_", "timer_label_", "delete_after_use_")


@pytest.fixture(scope="module")
def d(vdevice):
    import uiautomator2

    dev = uiautomator2.connect(vdevice.serial)
    yield dev
    dev.stop_uiautomator()


@pytest.fixture
def clock(d, adb_device):
    """Fresh Clock data, the Timer tab open."""
    adb_device.shell(f"cmd statusbar collapse; pm clear {PKG}; input keyevent KEYCODE_HOME")
    adb_device.shell(f"am start -n {COMPONENT} --ei deskclock.select.tab 2")
    assert d(resourceId=f"{PKG}:id/timer_setup_time").get_text() == "00h 00m 00s"
    yield d
    adb_device.shell("cmd statusbar collapse")


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def prefs(adb_device) -> dict[str, object]:
    """DeskClock's preferences, read with `cat` and parsed as SharedPreferences XML."""
    root = ET.fromstring(adb_device.shell(f"cat {PREFS}"))
    assert root.tag == "map"
    out: dict[str, object] = {}
    for node in root:
        name = node.get("name")
        if node.tag == "set":
            out[name] = sorted(child.text for child in node)
        elif node.tag == "string":
            out[name] = node.text or ""
        elif node.tag == "boolean":
            out[name] = node.get("value") == "true"
        else:
            out[name] = int(node.get("value"))
    return out


def start_timer(d, digits: str) -> None:
    """The keypad as a user types it; "Add timer" first when timers exist."""
    if d(description="Add timer").exists:
        d(description="Add timer").click()
    for digit in digits:
        d(resourceId=rid(f"timer_setup_digit_{digit}")).click()
    d(description="Start").click()


def shade_texts(d, adb_device) -> list[str]:
    """Open the shade, read every text of the dumped hierarchy, close it again."""
    adb_device.shell("cmd statusbar expand-notifications")
    root = ET.fromstring(d.dump_hierarchy())
    adb_device.shell("cmd statusbar collapse")
    return [n.get("text") for n in root.iter("node") if n.get("text")]


def test_five_minute_timer_fires_only_after_its_deadline(clock, adb_device):
    d = clock
    start_timer(d, "500")
    p = prefs(adb_device)
    assert p["timers_list"] == ["0"] and p["next_timer_id"] == 1
    assert set(p) >= {f"{key}0" for key in TIMER_KEYS}
    assert (p["timer_state_0"], p["timer_setup_timet_0"], p["timer_time_left_0"]) == (1, 300_000, 300_000)
    assert p["timer_start_time_0"] == int(float(adb_device.shell("cat /proc/uptime").split()[0]) * 1000)
    assert p["timer_label_0"] == "" and p["delete_after_use_0"] is False
    assert d(resourceId=rid("timer_text")).get_text() == "5:00"
    d.press("home")
    adb_device.shell("sleep 240")
    texts = shade_texts(d, adb_device)
    assert "Timer" in texts and "01:01" in texts and "Pause" in texts and "Time's up" not in texts
    adb_device.shell("sleep 120")
    texts = shade_texts(d, adb_device)
    assert "Time's up" in texts and "Stop" in texts and "Pause" not in texts
    assert prefs(adb_device)["timer_state_0"] == 3
    adb_device.shell("cmd statusbar expand-notifications")
    d(text="Stop").click()  # Stop in the notification resets the timer
    adb_device.shell("cmd statusbar collapse")
    p = prefs(adb_device)
    assert (p["timer_state_0"], p["timer_time_left_0"]) == (4, 300_000)
