"""Logical-time warp: let D seconds pass for the Clock app's timers without waiting D seconds.

On a real emulator DeskClock's timers run on elapsed-realtime, so neither ``date`` nor any host trick moves
them; the warp therefore acts only through Android-level mechanisms, identically on real and virtual
devices (a device needs ``adb root``):

1. ``am force-stop`` the Clock app, so no in-memory model overwrites its persisted timers;
2. move the wall clock forward by D with ``date`` (what a user would see after waiting);
3. rewrite the Clock's shared-prefs timers: every running timer is re-anchored at the current
   elapsed-realtime with ``time_left`` reduced by D (<= 0 means its deadline has passed). The file written is
   the one read: DeskClock's device-protected ``/data/user_de/0/<pkg>/shared_prefs/<pkg>_preferences.xml``,
   which the app opens (:mod:`emukit.probes.temporal` has the source);
4. send DeskClock's own time-set broadcast so it reloads its timers and posts what is due. The force-stop put
   the package in the stopped state, and broadcasts do not reach stopped packages unless the intent says so,
   so the broadcast carries ``--include-stopped-packages`` (``Intent.parseCommandArgs`` adds
   FLAG_INCLUDE_STOPPED_PACKAGES for it; ``am broadcast`` parses its intent there through
   ``ActivityManagerShellCommand.makeIntent``: aosp-mirror/platform_frameworks_base 426c31323cb8
   ``core/java/android/content/Intent.java``, c014fb5ca964
   ``services/core/java/com/android/server/am/ActivityManagerShellCommand.java``). The receiver is
   ``AlarmInitReceiver``, which handles TIME_SET with ``DataModel.updateAfterTimeSet`` and is
   ``directBootAware`` (LineageOS/android_packages_apps_DeskClock lineage-17.1 eac5d7688f48
   ``AndroidManifest.xml`` 168-180, ``src/com/android/deskclock/AlarmInitReceiver.java`` 86-87);
5. check that the app took it: the prefs are read again and every timer must be where the warp put it (a
   running timer whose remaining time was at most D has expired, the others run with D less, paused, reset
   and expired ones keep their state), and ``dumpsys alarm`` must list the Clock's
   ``com.android.deskclock.action.TIMER_EXPIRED`` alarm (``TimerModel.updateAlarmManager`` sets it for the
   next expiring timer on every timer update, the TIME_SET re-anchoring included: LineageOS/
   android_packages_apps_DeskClock lineage-21.0 501626741b61 ``src/com/android/deskclock/data/TimerModel.java``
   331-343, 652-655, 663-695) at that timer's new deadline on the elapsed clock. Anything else raises
   DeviceError naming what differs (the broadcast did not reach the app, the app read another file, ...);
6. if the Clock was the app in the foreground, start it again, so the screen shows what a person who
   waited with the Clock open would see (the Clock on the tab it remembers, hiding its own running/paused
   timer notifications) rather than whatever the force-stop uncovered.

The file written is always the device-protected copy. A credential-encrypted copy left next to it would be
moved over it by ``moveSharedPreferencesFrom`` when the broadcast starts the app, so the warp writes the
device-protected file and removes that copy, which is exactly the move the app would make.

Paused, expired and reset timers are untouched. The returned :class:`WarpRecord` is audit-only and never
shown to a model.
"""

from __future__ import annotations

import datetime as dt
import shlex
import time
import xml.etree.ElementTree as ET

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.alarms import AlarmDump, read_alarms
from emukit.probes.temporal import (
    CLOCK_PACKAGE,
    PREFS,
    PREFS_CE,
    parse_prefs,
    read_clock,
    read_clock_file,
    timers_from_prefs,
)
from emukit.records import WarpRecord

METHOD = "force-stop+date+prefs-reanchor+TIME_SET"
TIMER_EXPIRED = "com.android.deskclock.action.TIMER_EXPIRED"  # TimerService.ACTION_TIMER_EXPIRED
# How far a re-read remaining time or alarm time may be from the expected one: /proc/uptime has 10 ms steps
# and the prefs store whole milliseconds; a warp that missed would be off by the warp itself.
TOLERANCE_MS = 100
SETTLE_S = 3.0  # how long the app may take to act on TIME_SET and on an alarm already due
TIME_SET_RECEIVER = f"{CLOCK_PACKAGE}/com.android.deskclock.AlarmInitReceiver"
CLOCK_ACTIVITY = "com.android.deskclock.DeskClock"


def reanchor(xml_text: str, changes: dict[str, int]) -> str:
    """The prefs XML with the given ``<int>``/``<long>`` values replaced, everything else kept verbatim."""
    root = ET.fromstring(xml_text)
    seen = set()
    for node in root:
        name = node.get("name", "")
        if name in changes:
            node.set("value", str(changes[name]))
            seen.add(name)
    for name in sorted(set(changes) - seen):
        ET.SubElement(root, "long", {"name": name, "value": str(changes[name])})
    return "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n" + ET.tostring(root, encoding="unicode") + "\n"


def _set_wall_clock(driver: Driver, epoch: int) -> None:
    when = dt.datetime.fromtimestamp(epoch, dt.UTC)
    driver.shell(f"date -u {when:%m%d%H%M%Y.%S}", check=True)


def warp(driver: Driver, seconds: float) -> WarpRecord:
    """Advance the device's logical time for timers by ``seconds``; returns the audit record."""
    if seconds < 0:
        raise ValueError("a warp only moves time forward")
    ms = round(seconds * 1000)
    if driver.shell("id").text.find("uid=0(") < 0:
        raise DeviceError(f"{driver.serial}: warp needs adb root (date and the Clock's prefs)")
    try:
        clock_in_front = driver.current_app()[0] == CLOCK_PACKAGE
    except DeviceError:  # no focused app window (e.g. the shade is open)
        clock_in_front = False
    driver.shell(f"am force-stop {CLOCK_PACKAGE}", check=True)
    wall_before = int(driver.shell("date +%s", check=True).text.strip())
    _set_wall_clock(driver, wall_before + round(seconds))
    xml_text, elapsed, source = read_clock_file(driver)
    path = PREFS  # the copy the app reads (a credential-encrypted one is moved over it, see above)
    before = timers_from_prefs(parse_prefs(xml_text), elapsed)
    changes: dict[str, int] = {}
    for timer in before:
        if timer["state"] == "running":
            tid = timer["id"]
            changes[f"timer_start_time_{tid}"] = elapsed
            changes[f"timer_time_left_{tid}"] = int(timer["remaining_ms"]) - ms  # type: ignore[arg-type]
            changes[f"timer_wall_clock_time_{tid}"] = (wall_before + round(seconds)) * 1000
    if changes:
        driver.adbutils().sync.push(reanchor(xml_text, changes).encode(), path)
        folder, target = shlex.quote(path.rsplit("/", 1)[0]), shlex.quote(path)
        # keep the file the app's own: owner, mode and SELinux label of its folder
        driver.shell(f"chown $(stat -c %u:%g {folder}) {target}; chmod 660 {target}; "
                     f"restorecon {target} 2>/dev/null; rm -f {shlex.quote(PREFS_CE)}; true")
    broadcast = driver.shell("am broadcast --include-stopped-packages -a android.intent.action.TIME_SET "
                             f"-n {shlex.quote(TIME_SET_RECEIVER)}")
    # The receiver re-anchors before the broadcast completes, but an alarm already due is delivered by
    # AlarmManager a moment later (TimerService then expires the timer): re-read until it settles.
    settle = time.monotonic() + SETTLE_S
    while True:
        after_prefs, after_elapsed = read_clock(driver)
        after = timers_from_prefs(after_prefs, after_elapsed)
        alarms = read_alarms(driver)
        try:
            evidence = check_warp(driver.serial, before, after, elapsed, after_elapsed, ms, alarms)
            break
        except DeviceError:
            if time.monotonic() >= settle:
                raise
            time.sleep(0.25)
    if clock_in_front:
        driver.start_app(CLOCK_PACKAGE, CLOCK_ACTIVITY)
    return WarpRecord(seconds=seconds, method=METHOD, details={
        "wall_before": wall_before, "wall_after": int(driver.shell("date +%s").text.strip()),
        "elapsed_realtime_ms": elapsed, "timers_before": before, "timers_after": after,
        "prefs_path": path, "prefs_read_from": source, "broadcast_exit": broadcast.exit_code,
        "clock_restarted_in_front": clock_in_front, "alarm": evidence})


def check_warp(serial: str, before: list[dict[str, object]], after: list[dict[str, object]], elapsed: int,
               after_elapsed: int, ms: int, alarms: AlarmDump) -> dict[str, object]:
    """Compare the timers and the Clock's expiry alarm after a warp of ``ms`` with what the app must show;
    returns the alarm evidence, raises DeviceError listing every difference."""
    problems: list[str] = []
    found = {int(t["id"]): t for t in after}  # type: ignore[call-overload]
    running_after: list[tuple[int, int]] = []  # (expected remaining at after_elapsed, id)
    for timer in before:
        tid = int(timer["id"])  # type: ignore[call-overload]
        now = found.get(tid)
        if now is None:
            problems.append(f"timer {tid} is gone from the prefs after the warp")
            continue
        if timer["state"] != "running":
            if now["state"] != timer["state"]:
                problems.append(f"timer {tid} was {timer['state']} and is {now['state']} after the warp")
            continue
        left = int(timer["remaining_ms"]) - ms  # type: ignore[call-overload]
        if left <= 0:
            if now["state"] != "expired":
                problems.append(f"timer {tid} had {timer['remaining_ms']} ms left, the warp was {ms} ms: it must "
                                f"have expired but is {now['state']} (the TIME_SET broadcast did not reach the app, "
                                "or the app read another prefs file)")
            continue
        expected = left - (after_elapsed - elapsed)
        actual = int(now["remaining_ms"])  # type: ignore[call-overload]
        if now["state"] != "running" or abs(actual - expected) > TOLERANCE_MS:
            problems.append(f"timer {tid} must be running with {expected} ms left but is {now['state']} with "
                            f"{actual} ms")
            continue
        running_after.append((actual, tid))
    pending = [a.model_dump() for a in alarms.find(CLOCK_PACKAGE, TIMER_EXPIRED)]
    evidence: dict[str, object] = {"now_elapsed_ms": alarms.now_elapsed_ms, "pending": pending}
    if running_after:
        remaining, tid = min(running_after)
        due = after_elapsed + remaining
        evidence.update(expected_elapsed_ms=due, timer_id=tid)
        if not pending:
            problems.append(f"no {TIMER_EXPIRED} alarm of {CLOCK_PACKAGE} is pending for timer {tid} (due at "
                            f"elapsed {due} ms)")
        elif all(abs(int(a["when_elapsed_ms"]) - due) > TOLERANCE_MS for a in pending):
            problems.append(f"the {TIMER_EXPIRED} alarm is set for elapsed "
                            f"{', '.join(str(a['when_elapsed_ms']) for a in pending)} ms, timer {tid} is due at "
                            f"{due} ms")
    if problems:
        raise DeviceError(f"{serial}: the time warp did not take: " + "; ".join(problems))
    return evidence
