"""Time on the hardware-like virtual device: clocks that follow the host (also across a snapshot load), a
status-bar clock and countdowns that tick, the caret's 500 ms blink, SystemUI demo mode, AlarmManager alarms
with the stopped state and broadcast delivery, ``dumpsys alarm`` and the time warp against the Clock app as
AOSP DeskClock behaves (the old warp leaves a due timer unfired; the new one fires exactly the due ones).

The in-process tests build ``VirtualDevice(mode="hardware")`` directly; the warp tests run a real
``emukit vdevice serve --mode hardware`` process behind the real adb server. Nothing is mocked: the waits are
real (short) sleeps on the host clock the hardware mode follows.
"""

from __future__ import annotations

import datetime as dt
import shlex
import time

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes import probe
from emukit.probes.alarms import parse_alarm_dump, parse_duration, read_alarms
from emukit.probes.temporal import (
    PREFS_CE,
    parse_prefs,
    read_clock_file,
    timers_from_prefs,
)
from emukit.timewarp import TIME_SET_RECEIVER, check_warp, reanchor, warp
from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.shell.commands.dumpsys import format_duration
from emukit.vdevice.ui.view import View
from tests.integration.helpers import wait_usable

PKG = "com.google.android.deskclock"
ACT = "com.android.deskclock.DeskClock"
EXPIRED = "com.android.deskclock.action.TIMER_EXPIRED"
RECEIVER = f"{PKG}/com.android.deskclock.AlarmInitReceiver"
SYSUI_CLOCK = "com.android.systemui:id/clock"


@pytest.fixture
def hw(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "hw", wipe=True, mode="hardware")
    dev.wm.crash_on_error = False
    return dev


@pytest.fixture
def det(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "det", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def sh(dev: VirtualDevice, command: str) -> tuple[int, str]:
    out: list[bytes] = []
    rc = run_shell(dev, command, out.append, out.append, b"", None)
    return rc, b"".join(out).decode()


def views(dev: VirtualDevice, **attrs: object) -> list[View]:
    return [v for win in dev.wm.windows() for v in win.walk()
            if all(getattr(v, k) == val for k, val in attrs.items())]


def text_of(dev: VirtualDevice, resource_id: str) -> str:
    found = views(dev, resource_id=resource_id)
    assert found, resource_id
    return found[0].text


def clock_alarms(dev: VirtualDevice) -> list:
    return [a for a in dev.state.alarms if a.package == PKG]


# ---------------------------------------------------------------------- clocks
def test_hardware_clocks_follow_the_host(hw: VirtualDevice) -> None:
    e0, w0 = hw.elapsed_ms(), hw.wall_ms()
    time.sleep(0.3)
    e1, w1 = hw.elapsed_ms(), hw.wall_ms()
    assert 250 <= e1 - e0 < 2000 and 250 <= w1 - w0 < 2000


def test_snapshot_load_keeps_elapsed_running_and_the_wall_clock_with_the_host(hw: VirtualDevice) -> None:
    saved = hw.snapshots.save("base")
    time.sleep(0.3)
    shift = 3_600_000
    hw.set_wall_ms(hw.wall_ms() + shift)  # `date` moves the wall clock an hour on
    wall_before = hw.wall_ms()
    hw.snapshots.load("base")
    elapsed, wall = hw.elapsed_ms(), hw.wall_ms()
    assert 0 <= elapsed - saved.vm_clock_ms < 250  # elapsed-realtime is the snapshot's again...
    assert 0 <= wall - wall_before < 250  # ...but the wall clock did not jump back to the save
    assert wall - saved.saved_wall_ms >= shift
    time.sleep(0.3)
    assert 250 <= hw.elapsed_ms() - elapsed < 2000  # and it keeps running from there


def test_deterministic_snapshot_load_restores_both_clocks(det: VirtualDevice) -> None:
    saved = det.snapshots.save("base")
    det.advance(90_000)
    det.set_wall_ms(det.wall_ms() + 3_600_000)
    det.snapshots.load("base")
    assert (det.elapsed_ms(), det.wall_ms()) == (saved.vm_clock_ms, saved.saved_wall_ms)


def test_status_bar_clock_crosses_a_minute_boundary(hw: VirtualDevice) -> None:
    hw.state.rooted = True  # `adb root`: date may set the clock
    rc, _ = sh(hw, "date -u 011512342026.59")  # 2026-01-15 12:34:59 UTC
    assert rc == 0
    assert text_of(hw, SYSUI_CLOCK) == "12:34"
    time.sleep(1.2)
    assert text_of(hw, SYSUI_CLOCK) == "12:35"


def test_running_countdown_ticks(hw: VirtualDevice) -> None:
    hw.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(hw, 5 * 60_000)
    first = text_of(hw, f"{PKG}:id/timer_text")
    time.sleep(1.1)
    second = text_of(hw, f"{PKG}:id/timer_text")
    assert first in ("5:00", "4:59") and second != first


# ---------------------------------------------------------------------- caret
def _focus_label_field(dev: VirtualDevice) -> None:
    dev.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(dev, 5 * 60_000)
    [label] = views(dev, resource_id=f"{PKG}:id/timer_label")
    dev.wm.tap(*label.center)
    assert dev.state.ui.focused_id is not None


def _caret_shown(dev: VirtualDevice) -> bool:
    [field] = [v for v in views(dev, focused=True) if v.editable]
    return getattr(field.style, "caret_visible", True)


HALF = 0.5  # s: Editor.BLINK, each half of the caret's period


def _framed(fn):
    """Run ``fn`` (which composes a frame) and return (its result, the monotonic times before and after): the
    frame's own clock reading lies in between."""
    before = time.monotonic()
    out = fn()
    return out, before, time.monotonic()


def _restart(dev: VirtualDevice, change) -> tuple[float, float]:
    """Apply ``change`` (an edit or a caret move) and compose a frame after it: the first frame after the change
    restarts the phase visible; returns the bracket of that restart (from before the change, in case the change
    composes one itself)."""
    before = time.monotonic()
    change()
    shown, _, after = _framed(lambda: _caret_shown(dev))
    assert shown  # the restart is visible
    return before, after


def _phase(anchor: tuple[float, float], before: float, after: float) -> int | None:
    """The half-period index of a frame composed between ``before`` and ``after`` when it is certain (the
    anchor and the frame are each known only within their brackets, and a loaded machine makes frames slow);
    None when the bracket straddles a phase boundary."""
    lo, hi = before - anchor[1], after - anchor[0]
    return int(lo // HALF) if int(lo // HALF) == int(hi // HALF) else None


def _expect(dev: VirtualDevice, anchor: tuple[float, float], visible: bool, frame=None) -> object:
    """Wait for a frame certainly in a ``visible`` (even) or hidden (odd) half-period and check the caret there;
    any certain frame on the way must agree with its phase. Returns ``frame()``'s result composed in that
    phase (default: none)."""
    middle = (anchor[0] + anchor[1]) / 2
    for _ in range(8):
        elapsed = time.monotonic() - middle
        k = int(elapsed // HALF) + 1
        if (k % 2 == 0) != visible:
            k += 1
        time.sleep(max(0.0, middle + (k + 0.5) * HALF - time.monotonic()))
        shown, before, after = _framed(lambda: _caret_shown(dev))
        phase = _phase(anchor, before, after)
        if phase is None:
            continue
        assert shown == (phase % 2 == 0), (phase, shown)
        if shown == visible:
            if frame is None:
                return None
            out, before, after = _framed(frame)
            if _phase(anchor, before, after) == phase:
                return out
    raise AssertionError(f"no frame certainly in a {'visible' if visible else 'hidden'} phase")


def test_caret_blinks_in_500_ms_phases_and_restarts_on_edits(hw: VirtualDevice) -> None:
    """The caret shows for 500 ms and hides for 500 ms from the last edit or caret move. Each check runs on a
    frame whose phase is certain whatever the frame took to compose (hardware mode reads the real clock)."""
    _focus_label_field(hw)
    anchor = _restart(hw, lambda: hw.wm.input_text("T"))  # a fresh edit: visible
    shot_on = _expect(hw, anchor, True, hw.screenshot_png)
    shot_off = _expect(hw, anchor, False, hw.screenshot_png)  # 500-1000 ms after the edit: hidden
    assert shot_on is not None and shot_off is not None and shot_off != shot_on
    anchor = _restart(hw, lambda: hw.wm.input_text("e"))  # an edit restarts the phase
    _expect(hw, anchor, False)
    anchor = _restart(hw, lambda: hw.wm.key(21))  # DPAD_LEFT moves the caret: visible again
    _expect(hw, anchor, False)
    _expect(hw, anchor, True)  # the next period


def test_caret_does_not_blink_in_deterministic_mode(det: VirtualDevice) -> None:
    _focus_label_field(det)
    det.wm.input_text("Tea")
    shot = det.screenshot_png()
    det.advance(750)
    assert _caret_shown(det) and det.screenshot_png() == shot


# ---------------------------------------------------------------------- SystemUI demo mode
@pytest.mark.parametrize("mode", ["deterministic", "hardware"])
def test_demo_mode_fixes_the_status_bar(tmp_path, mode: str) -> None:
    dev = VirtualDevice(tmp_path / mode, wipe=True, mode=mode)
    dev.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(dev, 5 * 60_000)
    dev.go_home()  # the running timer's notification icon shows in the status bar
    demo = "am broadcast -a com.android.systemui.demo -e command"
    assert sh(dev, f"{demo} clock -e hhmm 1200")[0] == 0
    assert not dev.state.demo.active and text_of(dev, SYSUI_CLOCK) != "12:00"  # not allowed yet: ignored
    assert "isInDemoMode=false" in sh(dev, "dumpsys activity service com.android.systemui/.SystemUIService")[1]
    sh(dev, "settings put global sysui_demo_allowed 1")
    assert sh(dev, "settings get global sysui_demo_allowed")[1].strip() == "1"
    for args in ("enter", "clock -e hhmm 1200", "battery -e level 100 -e plugged false",
                 "network -e wifi show -e level 4", "network -e mobile hide", "notifications -e visible false"):
        sh(dev, f"{demo} {args}")
    assert text_of(dev, SYSUI_CLOCK) == "12:00"
    bar = [v for v in dev.wm.windows()[1].walk()]
    descs = [v.content_desc for v in bar if v.content_desc]
    assert "Battery 100 percent." in descs and "Wifi signal full." in descs
    assert not any(d.startswith("Phone") for d in descs)  # mobile hidden
    assert not any("notification" in d for d in descs)  # notification icons hidden
    dump = sh(dev, "dumpsys activity service SystemUIService")[1]
    assert "DemoModeController state -" in dump and "isInDemoMode=true" in dump and "isDemoModeAllowed=true" in dump
    sh(dev, f"{demo} network -e wifi show -e level 2")
    assert "Wifi two bars." in [v.content_desc for v in dev.wm.windows()[1].walk()]
    sh(dev, f"{demo} exit")
    assert not dev.state.demo.active and text_of(dev, SYSUI_CLOCK) != "12:00"
    assert any("notification" in v.content_desc for v in dev.wm.windows()[1].walk())


# ---------------------------------------------------------------------- alarms, stopped state, broadcasts
def test_alarm_per_next_expiring_timer_and_dumpsys_alarm(hw: VirtualDevice) -> None:
    hw.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(hw, 600_000)
    T.create(hw, 60_000)
    [alarm] = clock_alarms(hw)
    timers = T.sync(hw)
    assert alarm.tag == EXPIRED and alarm.when_ms == min(t.deadline() for t in timers)
    dump = parse_alarm_dump(sh(hw, "dumpsys alarm")[1])
    [parsed] = dump.find(PKG, EXPIRED)
    assert (parsed.type, parsed.when_elapsed_ms, parsed.orig_when_ms) == (
        "ELAPSED_REALTIME_WAKEUP", alarm.when_ms, alarm.when_ms)
    assert 0 < parsed.when_elapsed_ms - dump.now_elapsed_ms <= 60_000
    T.update(hw, timers[1].id, "pause")  # the alarm moves to the other timer
    assert [a.when_ms for a in clock_alarms(hw)] == [timers[0].deadline()]
    sh(hw, f"am force-stop {PKG}")
    assert clock_alarms(hw) == [] and parse_alarm_dump(sh(hw, "dumpsys alarm")[1]).alarms == []


def test_format_and_parse_durations() -> None:
    for ms, text in ((480_000, "+8m0s0ms"), (-1_500, "-1s500ms"), (0, "0"), (5, "+5ms"),
                     (90_061_001, "+1d1h1m1s1ms")):
        assert format_duration(ms) == text and parse_duration(text) == ms


def test_broadcasts_skip_stopped_packages_and_am_kill_does_not_stop(hw: VirtualDevice) -> None:
    hw.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(hw, 300_000)
    hw.go_home()
    sh(hw, f"am kill {PKG}")  # not the stopped state: alarm kept
    assert PKG not in hw.state.running and not hw.package_stopped(PKG) and clock_alarms(hw)
    assert hw.send_broadcast("android.intent.action.TIME_SET") == [RECEIVER]  # starts the process
    assert PKG in hw.state.running
    hw.force_stop(PKG)
    assert hw.package_stopped(PKG)
    assert hw.send_broadcast("android.intent.action.TIME_SET") == []
    assert hw.send_broadcast("android.intent.action.TIME_SET", component=(PKG, ".AlarmInitReceiver")) == []
    assert hw.send_broadcast("android.intent.action.TIME_SET", include_stopped=True) == [RECEIVER]
    assert not hw.package_stopped(PKG) and clock_alarms(hw)  # the TIME_SET handler rescheduled
    hw.force_stop(PKG)
    hw.start_activity(PKG)  # a launch clears the stopped state too
    assert not hw.package_stopped(PKG)


def test_ce_write_is_ignored_but_a_ce_file_moves_over_at_process_start(det: VirtualDevice) -> None:
    det.start_activity(PKG, ACT, {"deskclock.select.tab": "2"})
    T.create(det, 300_000)
    de = det.fs.read_bytes(T.PREFS_PATH)
    prefs = T.load(det)
    prefs.put_long("timer_time_left_0", 1_000)
    det.fs.makedirs(PREFS_CE.rsplit("/", 1)[0])
    det.fs.write_bytes(PREFS_CE, prefs.to_xml().encode())  # a CE-only write while the app runs
    det.send_broadcast("android.intent.action.TIME_SET")
    assert T.get(det, 0).remaining_at(det.elapsed_ms()) == 300_000  # the app reads the DE copy only
    assert det.fs.read_bytes(T.PREFS_PATH) == de  # untouched: re-anchoring changed nothing
    det.force_stop(PKG)
    det.ensure_process(PKG)  # moveSharedPreferencesFrom: the CE file replaces the DE one and is deleted
    assert not det.fs.host(PREFS_CE).exists()
    assert T.get(det, 0).remaining == 1_000


# ---------------------------------------------------------------------- the time warp on the real prefs
@pytest.fixture(scope="module")
def hw_driver(vdevice_factory, adb_server):
    """A hardware-mode device of its own (the pool's are deterministic): its clocks run."""
    proc = vdevice_factory(mode="hardware")
    Driver(proc.serial, adb_server.port).adbutils().root()
    wait_usable(adb_server, proc.serial)
    d = Driver(proc.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()
    proc.stop()


def _two_timers(driver: Driver) -> None:
    """A cleared Clock running a 60 s and a 600 s timer, started through the profile; then HOME."""
    driver.shell(f"pm clear {PKG}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(60)
    clock.start_timer(600)
    driver.home()


def _states(driver: Driver) -> dict[int, tuple[str, int]]:
    xml_text, elapsed, _ = read_clock_file(driver)
    return {int(t["id"]): (str(t["state"]), int(t["remaining_ms"]))  # type: ignore[call-overload]
            for t in timers_from_prefs(parse_prefs(xml_text), elapsed)}


def _old_warp(driver: Driver, seconds: int) -> None:
    """The warp as it was: force-stop, ``date``, the re-anchored timers written to the credential-encrypted
    copy, TIME_SET without --include-stopped-packages."""
    driver.shell(f"am force-stop {PKG}", check=True)
    wall = int(driver.shell("date +%s", check=True).text.strip()) + seconds
    driver.shell(f"date -u {dt.datetime.fromtimestamp(wall, dt.UTC):%m%d%H%M%Y.%S}", check=True)
    xml_text, elapsed, _ = read_clock_file(driver)
    changes = {}
    for t in timers_from_prefs(parse_prefs(xml_text), elapsed):
        if t["state"] == "running":
            changes[f"timer_start_time_{t['id']}"] = elapsed
            changes[f"timer_time_left_{t['id']}"] = int(t["remaining_ms"]) - seconds * 1000  # type: ignore
    driver.shell(f"mkdir -p {shlex.quote(PREFS_CE.rsplit('/', 1)[0])}", check=True)
    driver.adbutils().sync.push(reanchor(xml_text, changes).encode(), PREFS_CE)
    driver.shell(f"am broadcast -a android.intent.action.TIME_SET -n {shlex.quote(TIME_SET_RECEIVER)}", check=True)


def test_old_warp_leaves_the_due_timer_unfired(hw_driver: Driver) -> None:
    _two_timers(hw_driver)
    before = _states(hw_driver)
    _old_warp(hw_driver, 120)
    after = _states(hw_driver)
    assert [s for s, _ in after.values()] == ["running", "running"]  # the 60 s timer did not fire
    assert 30_000 < after[0][1] <= 60_000 and after[1][1] > 500_000  # nothing moved by the warp
    assert read_alarms(hw_driver).find(PKG, EXPIRED) == []  # force-stop cancelled the alarm; nothing re-set it
    hw_driver.shell("cmd statusbar expand-notifications", check=True)
    assert not hw_driver.exists(text="Time's up")
    hw_driver.shell("cmd statusbar collapse", check=True)
    with pytest.raises(DeviceError, match="timer 0 .* must have expired but is running"):
        check_warp(hw_driver.serial,
                   [{"id": i, "state": s, "remaining_ms": r} for i, (s, r) in before.items()],
                   [{"id": i, "state": s, "remaining_ms": r} for i, (s, r) in after.items()],
                   0, 0, 120_000, read_alarms(hw_driver))


def test_new_warp_fires_exactly_the_due_timers(hw_driver: Driver) -> None:
    _two_timers(hw_driver)
    record = warp(hw_driver, 120)
    after = _states(hw_driver)
    assert after[0][0] == "expired"  # 60 s left <= 120 s warp
    assert after[1][0] == "running" and 470_000 < after[1][1] <= 480_000  # 600 s - 120 s, minus real time
    alarm = record.details["alarm"]
    [pending] = read_alarms(hw_driver).find(PKG, EXPIRED)
    assert alarm["timer_id"] == 1 and abs(pending.when_elapsed_ms - alarm["expected_elapsed_ms"]) <= 100
    assert probe(hw_driver, "temporal", timer_id=1).canonical["timer_active"] is True
    hw_driver.shell("cmd statusbar expand-notifications", check=True)
    assert hw_driver.exists(text="Time's up")
    hw_driver.shell("cmd statusbar collapse", check=True)
    warp(hw_driver, 600)  # the second one is due now too
    assert [s for s, _ in _states(hw_driver).values()] == ["expired", "expired"]
    assert read_alarms(hw_driver).find(PKG, EXPIRED) == []
