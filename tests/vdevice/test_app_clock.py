"""The virtual Clock app in-process: keypad, timers, DeskClock's preferences file (in device-protected storage),
expiry on the logical clock (also while the app is stopped), the timer notifications (DeskClock's custom
chronometer/state content in SystemUI rows), tabs, stopwatch and alarms. Ids and strings are spelled out here
as Google Clock / AOSP DeskClock show them, independently of the selector table the app is drawn from."""

from __future__ import annotations

import sqlite3
import time
import xml.etree.ElementTree as ET
from contextlib import closing

import pytest

from emukit.vdevice.apps.clock import ClockApp
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.kit.prefs import Prefs
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.ui.view import View

PKG = "com.google.android.deskclock"
ACT = "com.android.deskclock.DeskClock"
PREFS = f"/data/user_de/0/{PKG}/shared_prefs/{PKG}_preferences.xml"
CE_PREFS = f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml"
ROW = "com.android.systemui:id/expandableNotificationRow"
MIN = 60_000


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.wm.crash_on_error = False  # an app error fails the test instead of "crashing" the app
    return dev


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def views(dev: VirtualDevice, **attrs: object) -> list[View]:
    return [v for win in dev.wm.windows() for v in win.walk()
            if all(getattr(v, k) == val for k, val in attrs.items())]


def find(dev: VirtualDevice, **attrs: object) -> View:
    found = views(dev, **attrs)
    assert found, attrs
    return found[0]


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def texts(dev: VirtualDevice) -> list[str]:
    return [v.text for win in dev.wm.windows() for v in win.walk() if v.text]


def prefs_xml(dev: VirtualDevice) -> dict[str, tuple[str, object]]:
    """The preferences file parsed independently of the app: name -> (tag, value)."""
    root = ET.fromstring(dev.fs.read_bytes(PREFS))
    assert root.tag == "map"
    out: dict[str, tuple[str, object]] = {}
    for node in root:
        if node.tag == "set":
            out[node.get("name")] = ("set", sorted(c.text for c in node))
        elif node.tag == "string":
            out[node.get("name")] = ("string", node.text or "")
        else:
            out[node.get("name")] = (node.tag, node.get("value"))
    return out


def value(dev: VirtualDevice, key: str) -> object:
    return prefs_xml(dev)[key][1]


def open_timer_tab(dev: VirtualDevice) -> None:
    dev.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})


def start_timer(dev: VirtualDevice, digits: str) -> None:
    """Type ``digits`` on the keypad (opening it with "Add timer" when timers exist) and press Start."""
    if views(dev, content_desc="Add timer"):
        tap(dev, content_desc="Add timer")
    for d in digits:
        tap(dev, resource_id=rid(f"timer_setup_digit_{d}"))
    tap(dev, content_desc="Start")


def shade(dev: VirtualDevice) -> list[str]:
    dev.wm.expand_notifications()
    found = [v.text for v in dev.wm.windows()[-1].walk() if v.text]
    dev.wm.collapse_notifications()
    return found


def clock_notes(dev: VirtualDevice) -> list[tuple[str, str, list[str]]]:
    """(state line, chronometer text, action labels) of each Clock notification."""
    out = []
    for n in dev.notifications():
        if n.package != PKG:
            continue
        texts = {v.resource_id: v.text for v in n.content}
        out.append((texts[rid("state")], texts[rid("chronometer")], list(n.actions)))
    return out


# ---------------------------------------------------------------------- keypad
def test_keypad_enters_digits_right_to_left(device: VirtualDevice) -> None:
    open_timer_tab(device)
    assert device.current_focus() == (PKG, ACT)

    def display() -> str:
        return find(device, resource_id=rid("timer_setup_time")).text

    assert display() == "00h 00m 00s"
    assert not views(device, content_desc="Start")  # nothing to start yet
    assert not find(device, content_desc="Delete").enabled  # the keypad's backspace
    assert find(device, resource_id=rid("timer_setup_time")).content_desc == "0 hours, 0 minutes, 0 seconds"
    tap(device, resource_id=rid("timer_setup_digit_0"))  # a leading zero is ignored
    assert display() == "00h 00m 00s"
    for d in "1234567":  # the seventh digit is ignored
        tap(device, resource_id=rid(f"timer_setup_digit_{d}"))
    assert display() == "12h 34m 56s"
    assert find(device, resource_id=rid("timer_setup_time")).content_desc == "12 hours, 34 minutes, 56 seconds"
    assert find(device, resource_id=rid("fab")).content_desc == "Start"
    assert find(device, resource_id=rid("fab")).cls == "android.widget.Button"
    tap(device, content_desc="Delete")
    assert display() == "01h 23m 45s"
    device.wm.long_press(*find(device, content_desc="Delete").center)
    assert display() == "00h 00m 00s"
    for code in (12, 7, 7):  # KEYCODE_5, KEYCODE_0, KEYCODE_0
        device.wm.key(code)
    assert display() == "00h 05m 00s"
    device.wm.key(67)  # DEL
    assert display() == "00h 00m 50s"


def test_start_writes_deskclock_prefs(device: VirtualDevice) -> None:
    open_timer_tab(device)
    elapsed, wall = device.elapsed_ms(), device.wall_ms()
    start_timer(device, "500")
    raw = device.fs.read_bytes(PREFS).decode()
    assert raw.startswith("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n    <")
    assert '<set name="timers_list">\n        <string>0</string>\n    </set>' in raw
    assert prefs_xml(device) == {
        "next_timer_id": ("int", "1"), "selected_tab": ("int", "2"), "timers_list": ("set", ["0"]),
        "timer_state_0": ("int", "1"), "timer_setup_timet_0": ("long", "300000"),
        "timer_original_timet_0": ("long", "300000"), "timer_start_time_0": ("long", str(elapsed)),
        "timer_wall_clock_time_0": ("long", str(wall)), "timer_time_left_0": ("long", "300000"),
        "timer_label_0": ("string", ""), "delete_after_use_0": ("boolean", "false"),
    }
    assert '<string name="timer_label_0"></string>' in raw
    assert f'<long name="timer_start_time_0" value="{elapsed}" />' in raw  # what a driver's text edit rewrites
    assert find(device, resource_id=rid("timer_text")).text == "5:00"
    assert find(device, resource_id=rid("timer_text")).content_desc == "5 minutes, 0 seconds"
    assert find(device, resource_id=rid("play_pause")).content_desc == "Pause"
    assert not views(device, resource_id=rid("timer_setup_time"))  # the list replaced the keypad
    assert not device.fs.host(CE_PREFS).exists()  # nothing in credential-encrypted storage


# ---------------------------------------------------------------------- countdown, expiry, notifications
def test_countdown_expiry_and_notifications(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "500")
    device.advance(1)
    assert find(device, resource_id=rid("timer_text")).text == "5:00"  # rounds up like DeskClock
    device.advance(240_000 - 1)
    assert find(device, resource_id=rid("timer_text")).text == "1:00"
    assert clock_notes(device) == []  # DeskClock hides its ongoing notification while it is open
    device.wm.key(3)  # HOME
    # the chronometer's base is padded by one second (TimerNotificationBuilder.getChronometerBase)
    assert clock_notes(device) == [("Timer", "01:01", ["Pause", "Add 1 min"])]
    assert "01:01" in shade(device)
    device.advance(120_000)
    assert value(device, "timer_state_0") == "3"
    deadline = int(value(device, "timer_wall_clock_time_0"))
    assert int(value(device, "timer_start_time_0")) == 60_000 + 300_000  # expired at the deadline itself
    assert value(device, "timer_time_left_0") == "0"
    assert deadline == device.wall_ms() - 60_000
    assert clock_notes(device) == [("Time's up", "\u221201:00", ["Stop", "Add 1 min"])]
    found = shade(device)
    assert "Time's up" in found and "Stop" in found and "Pause" not in found
    device.wm.expand_notifications()
    tap(device, text="Stop")
    assert value(device, "timer_state_0") == "4"
    assert value(device, "timer_time_left_0") == "300000"
    assert value(device, "timer_start_time_0") == str(T.UNUSED)
    assert clock_notes(device) == []
    device.wm.collapse_notifications()


def test_notification_rows_actions_and_tap_to_open(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "500")
    device.wm.key(3)
    status_icons = [v.content_desc for v in device.wm.windows()[1].walk() if v.content_desc]
    assert "Clock notification: " in status_icons  # no title: nothing after the colon
    device.wm.expand_notifications()
    row = find(device, resource_id=ROW)
    assert (row.cls, row.clickable, row.content_desc) == ("android.widget.FrameLayout", True, "")
    inside = [v for v in row.walk() if v is not row]
    assert [(v.resource_id, v.text) for v in inside if v.text] == [
        ("android:id/app_name_text", "Clock"), (rid("chronometer"), "05:01"), (rid("state"), "Timer"),
        ("android:id/action0", "Pause"), ("android:id/action0", "Add 1 min")]
    chrono = find(device, resource_id=rid("chronometer"))
    assert (chrono.cls, chrono.content_desc) == ("android.widget.Chronometer", "5 minutes, 1 second")
    assert not views(device, resource_id="android:id/title")  # a custom-view notification has no title
    tap(device, text="Add 1 min")
    assert value(device, "timer_time_left_0") == "360000"
    tap(device, text="Pause")
    assert value(device, "timer_state_0") == "2"
    assert find(device, resource_id=rid("state")).text == "Timer paused"
    assert [v.text for v in views(device, resource_id="android:id/action0")] == ["Resume", "Reset"]
    tap(device, text="Reset")
    assert value(device, "timer_state_0") == "4" and clock_notes(device) == []
    open_timer_tab(device)
    tap(device, content_desc="Start")
    device.wm.key(3)
    device.wm.expand_notifications()
    tap(device, resource_id=rid("chronometer"))  # the row's content, not a button: the content intent
    assert not device.state.ui.shade_open and device.current_focus() == (PKG, ACT)
    assert find(device, resource_id=rid("play_pause")).content_desc == "Pause"


def test_expired_timer_and_stop_in_app(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "10")
    device.advance(15_000)
    assert find(device, resource_id=rid("timer_text")).text == "-0:05"
    assert find(device, resource_id=rid("play_pause")).content_desc == "Stop"
    assert clock_notes(device) == [("Time's up", "\u221200:05", ["Stop", "Add 1 min"])]  # shown while open
    tap(device, content_desc="Stop")
    assert value(device, "timer_state_0") == "4"
    assert find(device, resource_id=rid("timer_text")).text == "0:10"
    assert find(device, resource_id=rid("play_pause")).content_desc == "Start"


def test_pause_start_reset_add_minute_and_delete(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "500")
    device.advance(2 * MIN)
    tap(device, content_desc="Pause")
    assert value(device, "timer_state_0") == "2"
    assert value(device, "timer_time_left_0") == "180000"
    assert value(device, "timer_start_time_0") == str(T.UNUSED)
    device.advance(10 * MIN)
    assert find(device, resource_id=rid("timer_text")).text == "3:00"  # paused: unchanged
    assert find(device, resource_id=rid("play_pause")).content_desc == "Start"  # the app has no "Resume"
    assert views(device, content_desc="Reset")
    device.wm.key(3)
    assert clock_notes(device) == [("Timer paused", "03:01", ["Resume", "Reset"])]
    open_timer_tab(device)
    tap(device, resource_id=rid("play_pause"), content_desc="Start")
    assert value(device, "timer_state_0") == "1"
    assert value(device, "timer_start_time_0") == str(device.elapsed_ms())
    device.advance(MIN)
    tap(device, text="+ 1:00")
    assert value(device, "timer_time_left_0") == "240000"
    assert value(device, "timer_original_timet_0") == "360000"
    assert find(device, resource_id=rid("timer_text")).text == "3:00"
    tap(device, content_desc="Reset")
    assert value(device, "timer_state_0") == "4"
    assert value(device, "timer_time_left_0") == "300000" == value(device, "timer_original_timet_0")
    assert find(device, resource_id=rid("timer_text")).text == "5:00"
    assert not views(device, content_desc="Reset")  # a reset timer has nothing to reset
    tap(device, content_desc="Start")
    assert value(device, "timer_state_0") == "1"
    delete = find(device, resource_id=rid("tertiary_button"))
    assert delete.content_desc == "Delete"
    device.wm.tap(*delete.center)
    assert value(device, "timers_list") == []
    assert not any(k.endswith("_0") for k in prefs_xml(device))
    assert find(device, resource_id=rid("timer_setup_time")).text == "00h 00m 00s"  # back to the keypad
    start_timer(device, "200")  # restart with another duration: a new id
    assert value(device, "timers_list") == ["1"] and value(device, "timer_setup_timet_1") == "120000"


def test_two_timers_started_at_different_times(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "300")
    device.advance(2 * MIN)
    start_timer(device, "300")
    assert [v.text for v in views(device, resource_id=rid("timer_text"))] == ["1:00", "3:00"]
    assert [v.content_desc for v in views(device, resource_id=rid("play_pause"))] == ["Pause", "Pause"]
    device.wm.key(3)
    assert clock_notes(device) == [("2 timers", "01:01", ["Reset all timers"])]
    device.advance(90_000)
    assert value(device, "timer_state_0") == "3" and value(device, "timer_state_1") == "1"
    assert clock_notes(device) == [("Time's up", "\u221200:30", ["Stop", "Add 1 min"]),
                                   ("Timer", "01:31", ["Pause", "Add 1 min"])]
    device.advance(90_000)
    assert clock_notes(device) == [("2 timers expired", "\u221202:00", ["Stop all timers"])]


def test_label_dialog(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "500")
    assert find(device, resource_id=rid("timer_label")).text == "Label"
    tap(device, resource_id=rid("timer_label"))
    assert device.state.ui.focused_id == rid("label_input_field")  # the keyboard comes up
    device.wm.input_text("Tea")
    device.wm.key(4)  # hides the keyboard
    device.wm.key(4)  # closes the dialog without saving
    assert "Add label" not in texts(device)
    assert value(device, "timer_label_0") == ""
    tap(device, resource_id=rid("timer_label"))
    device.wm.input_text("Tea")
    tap(device, text="OK")
    assert value(device, "timer_label_0") == "Tea"
    assert find(device, resource_id=rid("timer_label")).text == "Tea"
    device.wm.key(3)
    assert clock_notes(device)[0][0] == "Tea"


# ---------------------------------------------------------------------- time outside the app
def test_expiry_in_the_background_comes_from_the_alarm(device: VirtualDevice) -> None:
    """Not stopped (HOME only): the AlarmManager alarm DeskClock set fires at the deadline."""
    open_timer_tab(device)
    start_timer(device, "200")
    [alarm] = [a for a in device.state.alarms if a.package == PKG]
    assert (alarm.tag, alarm.type) == ("com.android.deskclock.action.TIMER_EXPIRED", "ELAPSED_REALTIME_WAKEUP")
    assert alarm.when_ms == device.elapsed_ms() + 2 * MIN
    device.go_home()
    device.advance(3 * MIN)
    assert value(device, "timer_state_0") == "3"
    assert not [a for a in device.state.alarms if a.package == PKG]  # delivered, nothing else runs
    assert clock_notes(device) == [("Time's up", "\u221201:00", ["Stop", "Add 1 min"])]


def test_force_stop_cancels_the_alarm_and_the_notifications(device: VirtualDevice) -> None:
    """``am force-stop``: no alarm, no notification, the timer stays "running" in the file past its deadline;
    an implicit or stopped-blind TIME_SET does not reach it, one with --include-stopped-packages does and the
    app's recomputation expires it."""
    open_timer_tab(device)
    start_timer(device, "200")
    device.force_stop(PKG)
    assert PKG not in device.state.running and device.state.packages[PKG].stopped
    assert not [a for a in device.state.alarms if a.package == PKG]
    device.advance(3 * MIN)
    assert value(device, "timer_state_0") == "1"
    assert clock_notes(device) == []
    out: list[bytes] = []
    run_shell(device, "am broadcast -a android.intent.action.TIME_SET "
                      f"-n {PKG}/com.android.deskclock.AlarmInitReceiver", out.append, out.append, b"", None)
    assert value(device, "timer_state_0") == "1" and PKG not in device.state.running
    run_shell(device, "am broadcast --include-stopped-packages -a android.intent.action.TIME_SET "
                      f"-n {PKG}/com.android.deskclock.AlarmInitReceiver", out.append, out.append, b"", None)
    assert PKG in device.state.running and not device.state.packages[PKG].stopped
    assert value(device, "timer_state_0") == "3"
    assert clock_notes(device) == [("Time's up", "\u221201:00", ["Stop", "Add 1 min"])]
    device.start_activity(PKG)
    assert find(device, resource_id=rid("play_pause")).content_desc == "Stop"
    assert find(device, resource_id=rid("timer_text")).text == "-1:00"


def test_external_prefs_edit_is_read_and_rescheduled_on_time_set(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "1000")  # 10 minutes
    device.force_stop(PKG)
    prefs = Prefs.parse(device.fs.read_bytes(PREFS))
    now = device.elapsed_ms()
    prefs.put_long("timer_start_time_0", now - 9 * MIN)  # a driver warped 9 minutes
    prefs.put_long("timer_time_left_0", 10 * MIN)
    device.fs.write_bytes(PREFS, prefs.to_xml().encode())
    device.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    assert find(device, resource_id=rid("timer_text")).text == "1:00"
    device.force_stop(PKG)
    prefs.put_long("timer_start_time_0", now - 11 * MIN)  # already past the deadline
    device.fs.write_bytes(PREFS, prefs.to_xml().encode())
    device.ensure_process(PKG)  # a process start only reads the file: DeskClock sets no alarm there
    assert value(device, "timer_state_0") == "1"
    assert device.send_broadcast("android.intent.action.TIME_SET") == [
        f"{PKG}/com.android.deskclock.AlarmInitReceiver"]
    assert value(device, "timer_state_0") == "3"  # re-anchored, rescheduled, the due alarm fired at once
    assert value(device, "timer_start_time_0") == str(now - MIN)


def test_date_does_not_expire_and_reboot_carries_time_over(device: VirtualDevice) -> None:
    open_timer_tab(device)
    device.advance(MIN)
    start_timer(device, "500")
    device.set_wall_ms(device.wall_ms() + 3600_000)  # `date`: elapsed-realtime does not move
    assert value(device, "timer_state_0") == "1"
    device.advance(MIN)
    device.reboot()  # elapsed-realtime restarts; DeskClock carries the time over by the wall clock
    device.advance(MIN)
    left = T.get(device, 0)
    assert left is not None and left.state == T.State.RUNNING
    assert left.remaining_at(device.elapsed_ms()) == 3 * MIN


# ---------------------------------------------------------------------- tabs, back, other tabs
def test_tabs_extras_persisted_tab_and_back(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    assert find(device, selected=True, resource_id=rid("tab_menu_clock")).content_desc == "Clock"
    assert find(device, resource_id=rid("digital_clock")).text == "09:00"
    tap(device, content_desc="Stopwatch")
    assert value(device, "selected_tab") == "3"
    device.force_stop(PKG)
    device.start_activity(PKG)  # reopens on the last tab
    assert find(device, selected=True, resource_id=rid("tab_menu_stopwatch"))
    tap(device, content_desc="Timer")
    start_timer(device, "100")
    tap(device, content_desc="Add timer")
    assert views(device, text="Cancel")
    device.wm.key(4)  # BACK leaves the keypad for the list
    assert views(device, resource_id=rid("timer_text"))
    tap(device, content_desc="Add timer")
    tap(device, text="Cancel")
    assert views(device, resource_id=rid("timer_text"))
    device.wm.key(4)  # BACK leaves the app
    assert device.top.package != PKG


def test_stopwatch_start_lap_pause_reset(device: VirtualDevice) -> None:
    device.start_activity(PKG, ACT, {"deskclock.select.tab": "3"})
    assert find(device, resource_id=rid("stopwatch_time_text")).text == "0:00"
    tap(device, content_desc="Start")
    assert value(device, "sw_state") == "1"
    device.advance(12_340)
    tap(device, content_desc="Lap")
    device.advance(5_000)
    assert find(device, resource_id=rid("stopwatch_time_text")).text == "0:17"
    assert find(device, resource_id=rid("stopwatch_hundredths_text")).text == "34"
    tap(device, content_desc="Pause")
    assert (value(device, "sw_state"), value(device, "sw_accum_time")) == ("2", "17340")
    assert (value(device, "sw_lap_num"), value(device, "sw_lap_time_1")) == ("1", "12340")
    device.advance(MIN)
    assert find(device, resource_id=rid("stopwatch_time_text")).text == "0:17"
    tap(device, content_desc="Reset")
    assert value(device, "sw_state") == "0" and value(device, "sw_lap_num") == "0"
    assert "sw_lap_time_1" not in prefs_xml(device)


def test_alarms_database(device: VirtualDevice) -> None:
    device.start_activity(PKG, ACT, {"deskclock.select.tab": "0"})
    db_path = device.fs.host(f"/data/user_de/0/{PKG}/databases/alarms.db")  # ClockProvider: device-protected

    def rows() -> list[tuple]:
        with closing(sqlite3.connect(db_path)) as db:
            return db.execute("SELECT hour, minutes, daysofweek, enabled FROM alarm_templates "
                              "ORDER BY hour, minutes").fetchall()

    assert rows() == [(8, 30, 31, 0), (9, 0, 96, 0)]
    assert "Mon, Tue, Wed, Thu, Fri" in texts(device)
    tap(device, resource_id=rid("onoff"))
    assert rows()[0] == (8, 30, 31, 1)
    tap(device, content_desc="Add alarm")
    tap(device, content_desc="Increase Hour")
    tap(device, content_desc="Increase Minute")
    device.wm.key(4)  # BACK cancels
    assert len(rows()) == 2
    tap(device, content_desc="Add alarm")
    tap(device, content_desc="Decrease Hour")
    tap(device, text="OK")
    assert (7, 0, 0, 1) in rows()
    for _ in range(3):
        tap(device, content_desc="Delete alarm")
    assert rows() == [] and "No alarms" in texts(device)


def test_build_is_cheap_and_state_serialises(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "500")
    start_timer(device, "130")
    t0 = time.perf_counter()
    for _ in range(20):
        device.wm.windows()
    assert (time.perf_counter() - t0) / 20 < 0.05
    device.persist()  # everything in the state model is JSON
    assert isinstance(device.apps[PKG], ClockApp)
    assert device.apps[PKG].version_name.endswith("-emukit-virtual")


# ---------------------------------------------------------------------- storage: device-protected, pm clear
def test_prefs_move_to_device_protected_storage_at_process_start(device: VirtualDevice) -> None:
    """DeskClockApplication moves a credential-encrypted copy over (moveSharedPreferencesFrom)."""
    open_timer_tab(device)
    start_timer(device, "300")
    device.force_stop(PKG)
    raw = device.fs.read_bytes(PREFS)
    device.fs.host(PREFS).unlink()
    device.fs.makedirs(CE_PREFS.rsplit("/", 1)[0])
    device.fs.write_bytes(CE_PREFS, raw)
    device.ensure_process(PKG)
    assert device.fs.read_bytes(PREFS) == raw and not device.fs.host(CE_PREFS).exists()
    assert value(device, "timer_state_0") == "1"


def test_pm_clear_wipes_device_protected_data(device: VirtualDevice) -> None:
    open_timer_tab(device)
    start_timer(device, "300")
    device.start_activity(PKG, ACT, {"deskclock.select.tab": "0"})  # creates the alarms database
    assert device.fs.host(f"/data/user_de/0/{PKG}/databases/alarms.db").exists()
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not device.fs.host(PREFS).exists()
    assert not device.fs.host(f"/data/user_de/0/{PKG}/databases/alarms.db").exists()
    open_timer_tab(device)
    assert find(device, resource_id=rid("timer_setup_time")).text == "00h 00m 00s"


def test_frame_toolbar_title_and_tab_items(device: VirtualDevice) -> None:
    open_timer_tab(device)
    toolbar = find(device, resource_id=rid("toolbar"))
    assert toolbar.cls == "android.view.ViewGroup"
    assert [v.text for v in toolbar.walk() if v.resource_id == rid("action_bar_title")] == ["Timer"]
    items = [(v.resource_id, v.content_desc, v.cls, v.selected) for v in views(device, clickable=True)
             if v.resource_id.startswith(rid("tab_menu_"))]
    assert items == [(rid(f"tab_menu_{k}"), k.capitalize(), "android.widget.FrameLayout", k == "timer")
                     for k in ("alarm", "clock", "timer", "stopwatch")]


def test_time_set_broadcast_to_stopped_clock(device: VirtualDevice) -> None:
    """The warp's broadcast: ``--include-stopped-packages`` sets FLAG_INCLUDE_STOPPED_PACKAGES (0x20)."""
    out: list[bytes] = []
    rc = run_shell(device, "am broadcast --include-stopped-packages -a android.intent.action.TIME_SET "
                           f"-n {PKG}/com.android.deskclock.AlarmInitReceiver", out.append, out.append, b"", None)
    text = b"".join(out).decode()
    assert rc == 0 and "flg=0x400020" in text and "Broadcast completed: result=0" in text


# ---------------------------------------------------------------------- timers as the deadline templates drive them
# Moved in-process from the over-adb module (tests/integration/test_app_clock.py, which keeps one smoke test):
# fresh Clock data, the Timer tab open, time passing on the logical clock (`adb shell sleep N` there), state read
# in the preferences file and in the notification shade, whose chronometer reads one second more than the time
# left (DeskClock pads its base).
@pytest.fixture
def timer_tab(device: VirtualDevice) -> VirtualDevice:
    open_timer_tab(device)
    assert find(device, resource_id=rid("timer_setup_time")).text == "00h 00m 00s"
    return device


def test_two_timers_started_a_minute_apart(timer_tab: VirtualDevice) -> None:
    dev = timer_tab
    start_timer(dev, "300")
    dev.advance(MIN)
    start_timer(dev, "300")
    assert [v.text for v in views(dev, resource_id=rid("timer_text"))] == ["2:00", "3:00"]
    dev.wm.key(3)  # HOME
    dev.advance(150_000)
    found = shade(dev)
    assert "Time's up" in found and "Timer" in found and "00:31" in found
    assert value(dev, "timers_list") == ["0", "1"]
    assert (value(dev, "timer_state_0"), value(dev, "timer_state_1")) == ("3", "1")


def test_pause_then_resume_from_the_notification(timer_tab: VirtualDevice) -> None:
    dev = timer_tab
    start_timer(dev, "500")
    dev.advance(MIN)
    tap(dev, content_desc="Pause")
    dev.wm.key(3)
    dev.advance(2 * MIN)
    dev.wm.expand_notifications()
    tap(dev, text="Resume")
    dev.wm.collapse_notifications()
    dev.advance(200_000)
    found = shade(dev)
    assert "00:41" in found and "Pause" in found
    dev.advance(MIN)
    assert "Time's up" in shade(dev)
    assert value(dev, "timer_state_0") == "3"


def test_pause_then_reset_restarts_at_full_duration(timer_tab: VirtualDevice) -> None:
    dev = timer_tab
    start_timer(dev, "500")
    dev.advance(2 * MIN)
    tap(dev, content_desc="Pause")
    tap(dev, content_desc="Reset")
    assert (value(dev, "timer_state_0"), value(dev, "timer_time_left_0")) == ("4", "300000")
    tap(dev, content_desc="Start")
    dev.wm.key(3)
    dev.advance(4 * MIN)
    found = shade(dev)
    assert "01:01" in found and "Time's up" not in found
    dev.advance(70_000)
    assert "Time's up" in shade(dev)


def test_delete_a_paused_timer_then_restart_with_another_duration(timer_tab: VirtualDevice) -> None:
    dev = timer_tab
    start_timer(dev, "1000")
    dev.advance(MIN)
    tap(dev, content_desc="Pause")
    tap(dev, content_desc="Delete")
    assert views(dev, resource_id=rid("timer_setup_time"))  # no timers left: the keypad is back
    for code in (9, 7, 7):  # `input keyevent KEYCODE_2 KEYCODE_0 KEYCODE_0`
        dev.wm.key(code)
    assert find(dev, resource_id=rid("timer_setup_time")).text == "00h 02m 00s"
    tap(dev, content_desc="Start")
    assert value(dev, "timers_list") == ["1"] and value(dev, "timer_setup_timet_1") == "120000"
    assert not any(key.endswith("_0") for key in prefs_xml(dev))
    dev.wm.key(3)
    dev.advance(130_000)
    assert "Time's up" in shade(dev)
    assert value(dev, "timer_state_1") == "3"


def test_label_set_with_set_text_shows_in_the_shade(timer_tab: VirtualDevice) -> None:
    dev = timer_tab
    start_timer(dev, "500")
    tap(dev, resource_id=rid("timer_label"))
    dev.wm.set_text(rid("label_input_field"), "Pasta")  # uiautomator's setText
    tap(dev, text="OK")
    assert value(dev, "timer_label_0") == "Pasta"
    dev.wm.key(3)
    assert "Pasta" in shade(dev)
