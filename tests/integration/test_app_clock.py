"""The Clock app's timers through uiautomator2 and adb only, as the Temporal Deadline templates drive them.

One real `emukit vdevice serve` process for the module; each test starts from cleared Clock data
(`pm clear`). Time passes with `adb shell sleep N` (instant on the virtual device's logical clock); state is
checked in DeskClock's preferences file (device-protected storage) read with `adb shell cat` and in the
notification shade, whose chronometer reads one second more than the time left (DeskClock pads its base).
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


def test_two_timers_started_at_different_times(clock, adb_device):
    d = clock
    start_timer(d, "300")
    adb_device.shell("sleep 60")
    start_timer(d, "300")
    assert [d(resourceId=rid("timer_text"), instance=i).get_text() for i in range(2)] == ["2:00", "3:00"]
    adb_device.shell("input keyevent KEYCODE_HOME; sleep 150")
    texts = shade_texts(d, adb_device)
    assert "Time's up" in texts and "Timer" in texts and "00:31" in texts
    p = prefs(adb_device)
    assert p["timers_list"] == ["0", "1"] and (p["timer_state_0"], p["timer_state_1"]) == (3, 1)


def test_paused_timer_keeps_its_remaining_time(clock, adb_device):
    d = clock
    start_timer(d, "500")
    adb_device.shell("sleep 60")
    d(description="Pause").click()
    adb_device.shell("sleep 600")
    assert d(resourceId=rid("timer_text")).get_text() == "4:00"
    assert d(resourceId=rid("play_pause")).info["contentDescription"] == "Start"
    d.press("home")
    texts = shade_texts(d, adb_device)
    assert "Timer paused" in texts and "04:01" in texts and "Time's up" not in texts
    p = prefs(adb_device)
    assert (p["timer_state_0"], p["timer_time_left_0"]) == (2, 240_000)


def test_pause_then_resume_from_the_notification(clock, adb_device):
    d = clock
    start_timer(d, "500")
    adb_device.shell("sleep 60")
    d(description="Pause").click()
    d.press("home")
    adb_device.shell("sleep 120; cmd statusbar expand-notifications")
    d(text="Resume").click()
    adb_device.shell("cmd statusbar collapse; sleep 200")
    texts = shade_texts(d, adb_device)
    assert "00:41" in texts and "Pause" in texts
    adb_device.shell("sleep 60")
    assert "Time's up" in shade_texts(d, adb_device)
    assert prefs(adb_device)["timer_state_0"] == 3


def test_pause_then_reset_restarts_at_full_duration(clock, adb_device):
    d = clock
    start_timer(d, "500")
    adb_device.shell("sleep 120")
    d(description="Pause").click()
    d(description="Reset").click()
    p = prefs(adb_device)
    assert (p["timer_state_0"], p["timer_time_left_0"]) == (4, 300_000)
    d(description="Start").click()
    adb_device.shell("input keyevent KEYCODE_HOME; sleep 240")
    texts = shade_texts(d, adb_device)
    assert "01:01" in texts and "Time's up" not in texts
    adb_device.shell("sleep 70")
    assert "Time's up" in shade_texts(d, adb_device)


def test_delete_then_restart_with_another_duration(clock, adb_device):
    d = clock
    start_timer(d, "1000")
    adb_device.shell("sleep 60")
    d(description="Pause").click()
    d(description="Delete").click()
    assert d(resourceId=rid("timer_setup_time")).exists  # no timers left: the keypad is back
    # type the new duration with key events, as `input keyevent` does
    adb_device.shell("input keyevent KEYCODE_2 KEYCODE_0 KEYCODE_0")
    assert d(resourceId=rid("timer_setup_time")).get_text() == "00h 02m 00s"
    d(description="Start").click()
    p = prefs(adb_device)
    assert p["timers_list"] == ["1"] and p["timer_setup_timet_1"] == 120_000
    assert not any(key.endswith("_0") for key in p)
    d.press("home")
    adb_device.shell("sleep 130")
    assert "Time's up" in shade_texts(d, adb_device)
    assert prefs(adb_device)["timer_state_1"] == 3


def test_force_stop_cancels_expiry_until_time_set_reaches_the_app(clock, adb_device):
    """``am force-stop`` cancels DeskClock's expiry alarm and its notifications: the timer does not fire while
    the app is stopped; TIME_SET sent with --include-stopped-packages makes the app recompute and it fires."""
    d = clock
    start_timer(d, "200")
    adb_device.shell(f"am force-stop {PKG}; sleep 180")
    assert "Time's up" not in shade_texts(d, adb_device)
    assert prefs(adb_device)["timer_state_0"] == 1
    assert "TIMER_EXPIRED" not in adb_device.shell("dumpsys alarm")
    adb_device.shell("am broadcast --include-stopped-packages -a android.intent.action.TIME_SET "
                     f"-n {PKG}/com.android.deskclock.AlarmInitReceiver")
    assert prefs(adb_device)["timer_state_0"] == 3
    texts = shade_texts(d, adb_device)
    assert "Time's up" in texts and "Stop" in texts
    adb_device.shell(f"am start -n {COMPONENT}")
    assert d(resourceId=rid("play_pause")).info["contentDescription"] == "Stop"


def test_app_honours_a_rewritten_prefs_file_on_restart(clock, adb_device, tmp_path):
    d = clock
    start_timer(d, "1000")
    adb_device.shell(f"am force-stop {PKG}")
    xml = adb_device.shell(f"cat {PREFS}")
    p = prefs(adb_device)
    warped = xml.replace(f'name="timer_start_time_0" value="{p["timer_start_time_0"]}"',
                         f'name="timer_start_time_0" value="{p["timer_start_time_0"] - 540_000}"')
    assert warped != xml
    local = tmp_path / "prefs.xml"
    local.write_text(warped)
    adb_device.sync.push(str(local), PREFS)
    adb_device.shell(f"am start -n {COMPONENT}")
    assert d(resourceId=rid("timer_text")).get_text() == "1:00"


def test_label_typed_with_set_text(clock, adb_device):
    d = clock
    start_timer(d, "500")
    d(resourceId=rid("timer_label")).click()
    d(resourceId=rid("label_input_field")).set_text("Pasta")
    d(text="OK").click()
    assert prefs(adb_device)["timer_label_0"] == "Pasta"
    d.press("home")
    assert "Pasta" in shade_texts(d, adb_device)
