"""AlarmManager (``device.alarm_manager``): one alarm per (package, tag), delivered to the app's ``on_alarm``
when the clock passes it (its process started for it), earliest first, RTC alarms at the current offset
between the clocks, cancelled by a force-stop but not by ``am kill``, forgotten by a reboot."""

from __future__ import annotations

from emukit.vdevice.services.alarms import AlarmManager
from emukit.vdevice.state import DEFAULT_ELAPSED_MS, DEFAULT_WALL_MS, PendingAlarm
from tests.vdevice.services.conftest import PROBE


def test_an_alarm_fires_when_the_clock_passes_it(det, probe):
    alarms = det.alarm_manager
    assert isinstance(alarms, AlarmManager)
    alarms.set(PROBE, "tick", DEFAULT_ELAPSED_MS + 1000)
    assert [(a.package, a.tag, a.type) for a in det.state.alarms] == [(PROBE, "tick", "ELAPSED_REALTIME_WAKEUP")]
    det.advance(999)
    assert probe.seen("alarm") == [] and PROBE not in det.state.running
    det.advance(1)
    assert probe.seen("alarm") == [("alarm", "tick", DEFAULT_ELAPSED_MS + 1000)]
    assert det.state.alarms == []
    # the receiving process was started for it, before the hook ran
    assert probe.calls.index(("process_start",)) < probe.calls.index(probe.seen("alarm")[0])
    assert PROBE in det.state.running


def test_setting_again_replaces_and_a_due_alarm_fires_at_once(det, probe):
    det.alarm_manager.set(PROBE, "tick", DEFAULT_ELAPSED_MS + 1000)
    det.set_alarm(PROBE, "tick", DEFAULT_ELAPSED_MS + 5000)  # the device delegates
    assert [a.when_ms for a in det.state.alarms] == [DEFAULT_ELAPSED_MS + 5000]
    det.alarm_manager.set(PROBE, "now", DEFAULT_ELAPSED_MS)
    assert probe.seen("alarm") == [("alarm", "now", DEFAULT_ELAPSED_MS)]
    assert [a.tag for a in det.state.alarms] == ["tick"]


def test_due_alarms_fire_earliest_first_and_a_chained_one_in_the_same_pass(det, probe):
    def chain(device, alarm):
        if alarm.tag == "a":
            device.alarm_manager.set(PROBE, "c", DEFAULT_ELAPSED_MS + 150)  # no re-entry: same pass

    probe.on_alarm_then = chain
    det.alarm_manager.set(PROBE, "b", DEFAULT_ELAPSED_MS + 200)
    det.alarm_manager.set(PROBE, "a", DEFAULT_ELAPSED_MS + 100)
    assert [a.tag for a in det.state.alarms] == ["a", "b"]  # kept in trigger order
    det.advance(300)
    assert [c[1] for c in probe.seen("alarm")] == ["a", "c", "b"]


def test_rtc_alarms_follow_the_wall_clock(det, probe):
    alarms = det.alarm_manager
    rtc = PendingAlarm(package=PROBE, tag="rtc", type="RTC_WAKEUP", when_ms=DEFAULT_WALL_MS + 500)
    assert alarms.elapsed_time(rtc) == DEFAULT_ELAPSED_MS + 500
    alarms.set(PROBE, "rtc", DEFAULT_WALL_MS + 500, type="RTC_WAKEUP")
    det.set_wall_ms(DEFAULT_WALL_MS + 600)  # elapsed-realtime stands still, the RTC alarm comes due
    assert probe.seen("alarm") == [("alarm", "rtc", DEFAULT_ELAPSED_MS)]


def test_cancel_one_tag_or_every_alarm_of_the_package(det, probe):
    alarms = det.alarm_manager
    for tag in ("a", "b", "c"):
        alarms.set(PROBE, tag, DEFAULT_ELAPSED_MS + 1000)
    alarms.set("com.google.android.deskclock", "x", DEFAULT_ELAPSED_MS + 1000)
    alarms.cancel(PROBE, "b")
    assert sorted(a.tag for a in det.state.alarms) == ["a", "c", "x"]
    det.cancel_alarms(PROBE)  # the device delegates
    assert [a.tag for a in det.state.alarms] == ["x"]
    alarms.clear()
    assert det.state.alarms == []


def test_force_stop_cancels_alarms_and_am_kill_keeps_them(det, probe):
    det.alarm_manager.set(PROBE, "tick", DEFAULT_ELAPSED_MS + 1000)
    det.kill_process(PROBE)
    assert [a.tag for a in det.state.alarms] == ["tick"]
    det.force_stop(PROBE)
    assert det.state.alarms == []


def test_an_alarm_of_an_app_without_a_hook_is_dropped(det):
    det.alarm_manager.set("com.android.settings", "x", DEFAULT_ELAPSED_MS)
    assert det.state.alarms == [] and "com.android.settings" not in det.state.running


def test_a_reboot_forgets_pending_alarms(det, probe):
    det.alarm_manager.set(PROBE, "tick", DEFAULT_ELAPSED_MS + 1000)
    det.reboot()
    assert det.state.alarms == []
    det.advance(5000)
    assert probe.seen("alarm") == []
