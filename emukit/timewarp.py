"""Logical-time warp: let D seconds pass for the Clock app's timers without waiting D seconds.

On a real emulator DeskClock's timers run on elapsed-realtime, so neither ``date`` nor any host trick moves
them; the warp therefore acts only through Android-level mechanisms, identically on real and virtual
devices (a device needs ``adb root``):

1. ``am force-stop`` the Clock app, so no in-memory model overwrites its persisted timers;
2. move the wall clock forward by D with ``date`` (what a user would see after waiting);
3. rewrite the Clock's shared-prefs timers: every running timer is re-anchored at the current
   elapsed-realtime with ``time_left`` reduced by D (<= 0 means its deadline has passed). The file written is
   the one read: DeskClock's device-protected ``/data/user_de/0/<pkg>/shared_prefs/<pkg>_preferences.xml``,
   which the app opens (:mod:`emukit.probes.temporal` has the source), else the credential-encrypted copy;
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
5. if the Clock was the app in the foreground, start it again, so the screen shows what a person who
   waited with the Clock open would see (the Clock on the tab it remembers, hiding its own running/paused
   timer notifications) rather than whatever the force-stop uncovered.

Paused, expired and reset timers are untouched. The returned :class:`WarpRecord` is audit-only and never
shown to a model.
"""

from __future__ import annotations

import datetime as dt
import shlex
import xml.etree.ElementTree as ET

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.temporal import (
    CLOCK_PACKAGE,
    PREFS,
    parse_prefs,
    read_clock,
    read_clock_file,
    timers_from_prefs,
)
from emukit.records import WarpRecord

METHOD = "force-stop+date+prefs-reanchor+TIME_SET"
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
    xml_text, elapsed, path = read_clock_file(driver)
    path = path or PREFS  # no file yet: the one the app reads
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
                     f"restorecon {target} 2>/dev/null; true")
    broadcast = driver.shell("am broadcast --include-stopped-packages -a android.intent.action.TIME_SET "
                             f"-n {shlex.quote(TIME_SET_RECEIVER)}")
    after_prefs, after_elapsed = read_clock(driver)
    after = timers_from_prefs(after_prefs, after_elapsed)
    if clock_in_front:
        driver.start_app(CLOCK_PACKAGE, CLOCK_ACTIVITY)
    return WarpRecord(seconds=seconds, method=METHOD, details={
        "wall_before": wall_before, "wall_after": int(driver.shell("date +%s").text.strip()),
        "elapsed_realtime_ms": elapsed, "timers_before": before, "timers_after": after,
        "prefs_path": path, "broadcast_exit": broadcast.exit_code, "clock_restarted_in_front": clock_in_front})
