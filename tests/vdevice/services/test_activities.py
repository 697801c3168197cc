"""ActivityManager (``device.activity_manager``): process starts, the back stack (``am start``, an app's own
screens, BACK, HOME), pause/resume around every change, force-stop against ``am kill`` and a crash."""

from __future__ import annotations

import pytest

from emukit.vdevice.services.activities import ActivityManager
from tests.vdevice.services.conftest import PROBE

LAUNCHER, SETTINGS = "com.google.android.apps.nexuslauncher", "com.android.settings"


def stack(device) -> list[tuple[str, str]]:
    return [(a.package, a.activity) for a in device.state.back_stack]


def test_start_activity_starts_the_process_and_pauses_what_was_in_front(det, probe):
    am = det.activity_manager
    assert isinstance(am, ActivityManager)
    next_pid = det.state.next_pid
    act = am.start_activity(PROBE, extras={"k": "v"})
    assert am.top is act and det.top is act and stack(det) == [(LAUNCHER, ".NexusLauncherActivity"),
                                                             (PROBE, ".MainActivity")]
    assert det.state.pids[PROBE] == next_pid and det.state.next_pid == next_pid + 1
    assert probe.calls == [("process_start",), ("create", ".MainActivity", {"k": "v"}), ("resume", ".MainActivity")]
    assert am.current_focus() == (PROBE, f"{PROBE}.MainActivity") == det.current_focus()


def test_an_app_opens_its_own_screens_and_back_finishes_them(det, probe):
    am = det.activity_manager
    am.start_activity(PROBE)
    am.push_activity(PROBE, ".Second", {"n": 1})
    assert det.top.state == {"n": 1}
    assert probe.calls[-3:] == [("create", ".Second", {}), ("pause", ".MainActivity"), ("resume", ".Second")]
    am.finish_top()
    assert probe.calls[-2:] == [("pause", ".Second"), ("resume", ".MainActivity")]
    am.finish_top()
    am.finish_top()  # the launcher is never finished
    assert stack(det) == [(LAUNCHER, ".NexusLauncherActivity")]


def test_a_task_is_resumed_as_it_was_and_home_clears_the_stack(det, probe):
    am = det.activity_manager
    am.start_activity(PROBE)
    am.push_activity(PROBE, ".Second")
    am.start_activity(SETTINGS)
    am.start_activity(PROBE)  # no activity named: the task comes back to front as it was
    assert stack(det) == [(LAUNCHER, ".NexusLauncherActivity"), (SETTINGS, ".Settings"), (PROBE, ".MainActivity"),
                          (PROBE, ".Second")]
    am.start_activity(PROBE, ".MainActivity")  # an activity named, a new task: it replaces the app's task
    assert stack(det)[-2:] == [(SETTINGS, ".Settings"), (PROBE, ".MainActivity")]
    am.go_home()
    assert stack(det) == [(LAUNCHER, ".NexusLauncherActivity")]
    assert probe.calls[-1] == ("pause", ".MainActivity")


def test_an_unknown_activity_is_refused_with_ams_message(det):
    with pytest.raises(KeyError, match=r"Activity class \{com.android.settings/com.android.settings.Nope\} does not"):
        det.activity_manager.start_activity(SETTINGS, ".Nope")


def test_force_stop_against_kill(det, probe):
    am = det.activity_manager
    am.start_activity(PROBE)
    am.kill_process(PROBE)
    assert PROBE not in det.state.running and PROBE not in det.state.pids
    assert not det.package_stopped(PROBE) and det.top.package == LAUNCHER
    am.start_activity(PROBE)
    am.force_stop(PROBE)
    assert det.package_stopped(PROBE) and PROBE not in det.state.running
    assert probe.seen("process_stop") == [("process_stop",), ("process_stop",)]
    am.force_stop("com.nope")  # not installed: nothing happens


def test_ending_the_last_process_brings_the_launcher_back(det, probe):
    am = det.activity_manager
    am.start_activity(PROBE)
    det.state.back_stack = det.state.back_stack[-1:]
    am.end_process(PROBE)
    assert stack(det) == [(LAUNCHER, ".NexusLauncherActivity")] and LAUNCHER in det.state.running


def test_a_crash_kills_the_foreground_app_with_a_toast(det, probe):
    am = det.activity_manager
    assert am.crash_foreground() == LAUNCHER and LAUNCHER in det.state.running  # the launcher does not crash
    am.start_activity(PROBE)
    assert det.crash_foreground() == PROBE  # the device delegates
    assert det.state.ui.toast == "Probe has stopped"
    assert PROBE not in det.state.running and not det.package_stopped(PROBE)


def test_ensure_process_leaves_the_stopped_state(det, probe):
    det.force_stop(PROBE)
    det.activity_manager.ensure_process(PROBE)
    assert PROBE in det.state.running and not det.package_stopped(PROBE)
    det.activity_manager.ensure_process(PROBE)  # already running: no second start
    assert probe.seen("process_start") == [("process_start",)]
