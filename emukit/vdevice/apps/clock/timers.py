"""Countdown timers exactly as AOSP DeskClock keeps them: in the app's default SharedPreferences, which live in
device-protected storage (``/data/user_de/0/<pkg>/shared_prefs/<pkg>_preferences.xml``).

``DeskClockApplication.getDefaultSharedPreferences`` (LineageOS/android_packages_apps_DeskClock lineage-17.1
eac5d7688f48, ``src/com/android/deskclock/DeskClockApplication.java`` 50-63; unchanged at lineage-21.0
501626741b61, 47-58) opens the preferences through ``createDeviceProtectedStorageContext()`` and first moves a
credential-encrypted copy (``/data/data/<pkg>/shared_prefs/...``) over with ``moveSharedPreferencesFrom``;
:func:`migrate` does that move when the process starts.

Keys (``TimerDAO``): ``timers_list`` (string set of ids), ``next_timer_id`` (int) and per timer id N
``timer_state_N`` (int, :class:`State`), ``timer_setup_timet_N`` (long, the length the user set),
``timer_original_timet_N`` (long, the length including added minutes), ``timer_start_time_N`` (long,
elapsed-realtime ms of the last start/resume, ``Long.MIN_VALUE`` when unused), ``timer_wall_clock_time_N``
(long, wall ms at that moment), ``timer_time_left_N`` (long, ms left as of ``timer_start_time_N``),
``timer_label_N`` (string) and ``delete_after_use_N`` (boolean).

A running timer's remaining time is ``time_left - (elapsedRealtime - start_time)``. Nothing is cached in
the process: every read goes to the file, so a file rewritten by somebody else (a driver warping time) is what
the app shows next. A timer expires only as DeskClock makes it: every timer change sets an AlarmManager alarm
for the next expiry (:func:`schedule`) and the alarm's delivery expires the timer (:func:`on_expired_alarm`);
``am force-stop`` cancels the alarm, so a stopped Clock's timers stay "running" in the file until the app
recomputes them: on TIME_SET (:func:`on_time_set`, the timers re-anchored) or after a reboot
(:func:`on_boot`, carried over by the wall clock), each of which reschedules (and fires an alarm already due).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import TYPE_CHECKING

from emukit.vdevice.kit import prefs as P
from emukit.vdevice.apps.clock.common import PACKAGE

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PREFS_PATH = f"/data/user_de/0/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"  # device-protected storage
CE_PREFS_PATH = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"  # where a pre-N copy would be
UNUSED = -(2**63)  # Long.MIN_VALUE: no start time
MINUTE_MS = 60_000
MAX_LENGTH_MS = (99 * 3600 + 99 * 60 + 99) * 1000
MISSED_THRESHOLD = -MINUTE_MS  # TimerModel.MISSED_THRESHOLD: a running timer this late at boot is missed
TIMER_EXPIRED = "com.android.deskclock.action.TIMER_EXPIRED"  # TimerService.ACTION_TIMER_EXPIRED
ALARM_TYPE = "ELAPSED_REALTIME_WAKEUP"  # TimerModel.schedulePendingIntent: setExactAndAllowWhileIdle

TIMERS_LIST, NEXT_TIMER_ID = "timers_list", "next_timer_id"
STATE, LENGTH, TOTAL_LENGTH = "timer_state_", "timer_setup_timet_", "timer_original_timet_"
START_TIME, WALL_CLOCK_TIME, TIME_LEFT = "timer_start_time_", "timer_wall_clock_time_", "timer_time_left_"
LABEL, DELETE_AFTER_USE = "timer_label_", "delete_after_use_"
PER_TIMER_KEYS = (STATE, LENGTH, TOTAL_LENGTH, START_TIME, WALL_CLOCK_TIME, TIME_LEFT, LABEL, DELETE_AFTER_USE)


class State(IntEnum):
    """``Timer.State`` values as stored in ``timer_state_N``."""

    RUNNING = 1
    PAUSED = 2
    EXPIRED = 3
    RESET = 4
    MISSED = 5


TICKING = (State.RUNNING, State.EXPIRED, State.MISSED)  # states whose remaining time moves with the clock


@dataclass(frozen=True)
class Timer:
    """One timer as stored (``remaining`` is the stored ``timer_time_left``, valid at ``last_start``)."""

    id: int
    state: State
    length: int
    total_length: int
    last_start: int
    last_wall: int
    remaining: int
    label: str = ""
    delete_after_use: bool = False

    def remaining_at(self, now: int) -> int:
        """Milliseconds left at elapsed-realtime ``now`` (negative once expired)."""
        if self.state in TICKING and self.last_start != UNUSED:
            return self.remaining - (now - self.last_start)
        return self.remaining

    def deadline(self) -> int | None:
        """Elapsed-realtime ms at which a running timer expires."""
        if self.state == State.RUNNING and self.last_start != UNUSED:
            return self.last_start + self.remaining
        return None


# ---------------------------------------------------------------------- file <-> timers
def read(prefs: P.Prefs) -> list[Timer]:
    """The timers of a preferences file, in id order (unknown states are read as reset)."""
    timers = []
    for text in prefs.get_set(TIMERS_LIST):
        try:
            tid = int(text)
        except ValueError:
            continue
        try:
            state = State(prefs.get_int(f"{STATE}{tid}", State.RESET))
        except ValueError:
            state = State.RESET
        length = prefs.get_int(f"{LENGTH}{tid}", 0)
        timers.append(Timer(
            id=tid, state=state, length=length, total_length=prefs.get_int(f"{TOTAL_LENGTH}{tid}", length),
            last_start=prefs.get_int(f"{START_TIME}{tid}", UNUSED),
            last_wall=prefs.get_int(f"{WALL_CLOCK_TIME}{tid}", UNUSED),
            remaining=prefs.get_int(f"{TIME_LEFT}{tid}", length), label=prefs.get_str(f"{LABEL}{tid}"),
            delete_after_use=prefs.get_bool(f"{DELETE_AFTER_USE}{tid}")))
    return sorted(timers, key=lambda t: t.id)


def write(prefs: P.Prefs, timer: Timer) -> None:
    """Store every key of ``timer`` (``TimerDAO.updateTimer``) and list its id."""
    tid = timer.id
    prefs.put_int(f"{STATE}{tid}", int(timer.state))
    prefs.put_long(f"{LENGTH}{tid}", timer.length)
    prefs.put_long(f"{TOTAL_LENGTH}{tid}", timer.total_length)
    prefs.put_long(f"{START_TIME}{tid}", timer.last_start)
    prefs.put_long(f"{WALL_CLOCK_TIME}{tid}", timer.last_wall)
    prefs.put_long(f"{TIME_LEFT}{tid}", timer.remaining)
    prefs.put_str(f"{LABEL}{tid}", timer.label)
    prefs.put_bool(f"{DELETE_AFTER_USE}{tid}", timer.delete_after_use)
    ids = set(prefs.get_set(TIMERS_LIST))
    ids.add(str(tid))
    prefs.put_set(TIMERS_LIST, sorted(ids))


def _remove(prefs: P.Prefs, tid: int) -> None:
    prefs.remove(*(f"{key}{tid}" for key in PER_TIMER_KEYS))
    prefs.put_set(TIMERS_LIST, [i for i in prefs.get_set(TIMERS_LIST) if i != str(tid)])


# ---------------------------------------------------------------------- lifecycle (Timer.java semantics)
def start(t: Timer, now: int, wall: int) -> Timer:
    if t.state in TICKING:
        return t
    return replace(t, state=State.RUNNING, last_start=now, last_wall=wall)


def pause(t: Timer, now: int) -> Timer:
    if t.state in (State.PAUSED, State.RESET):
        return t
    return replace(t, state=State.PAUSED, last_start=UNUSED, last_wall=UNUSED, remaining=t.remaining_at(now))


def expire(t: Timer, now: int, wall: int) -> Timer:
    """Expire at the deadline (when it lies in the past) so the overrun keeps counting from there."""
    if t.state != State.RUNNING:
        return t
    deadline = t.deadline()
    at = now if deadline is None or deadline > now else deadline
    return replace(t, state=State.EXPIRED, last_start=at, last_wall=wall - (now - at),
                   remaining=min(0, t.remaining_at(at)))


def reset(t: Timer) -> Timer:
    return replace(t, state=State.RESET, total_length=t.length, last_start=UNUSED, last_wall=UNUSED,
                   remaining=t.length)


def add_minute(t: Timer, now: int, wall: int) -> Timer:
    """``+1:00``: expired and missed timers restart with one minute; others get a minute more."""
    if t.state == State.RESET:
        return t
    if t.state in (State.EXPIRED, State.MISSED):
        target = MINUTE_MS
        delta = target - t.remaining
        return replace(t, state=State.RUNNING, total_length=t.total_length + delta, last_start=now,
                       last_wall=wall, remaining=target)
    return replace(t, total_length=t.total_length + MINUTE_MS, remaining=t.remaining + MINUTE_MS)


def after_reboot(t: Timer, now: int, wall: int) -> Timer:
    """``Timer.updateAfterReboot``: elapsed-realtime restarted, carry the time over by the wall clock."""
    if t.state in (State.RESET, State.PAUSED):
        return t
    delta = max(0, wall - t.last_wall) if t.last_wall != UNUSED else 0
    return replace(t, last_start=now, last_wall=wall, remaining=t.remaining - delta)


def after_time_set(t: Timer, now: int, wall: int) -> Timer:
    """``Timer.updateAfterTimeSet``: the wall clock was set; re-anchor both clocks, same time left."""
    if t.state in (State.RESET, State.PAUSED) or now < t.last_start:
        return t
    return replace(t, last_start=now, last_wall=wall, remaining=t.remaining_at(now))


def _moved_apart(t: Timer, now: int, wall: int) -> bool:
    """The wall clock no longer matches elapsed-realtime since the timer's anchor (``date`` was set)."""
    return t.last_wall != UNUSED and wall - t.last_wall != now - t.last_start


# ---------------------------------------------------------------------- device-level operations
def clocks(device: VirtualDevice) -> tuple[int, int]:
    """(elapsed-realtime, wall) ms read at one instant (both move together on the device)."""
    now = device.elapsed_ms()
    return now, device.state.clock.wall_ms


def load(device: VirtualDevice) -> P.Prefs:
    return P.load(device, PREFS_PATH)


def migrate(device: VirtualDevice) -> bool:
    """``moveSharedPreferencesFrom`` at process start: a credential-encrypted copy of the preferences is copied
    over the device-protected one (replacing it) and deleted, as ``ContextImpl.moveFiles`` does
    (aosp-mirror/platform_frameworks_base 0018505370e3 ``core/java/android/app/ContextImpl.java``
    ``moveFiles``/``moveSharedPreferencesFrom``: ``FileUtils.copyFileOrThrow`` onto the target, then the source
    is deleted); returns whether a file moved. Apart from this one move at process start the app never reads
    the credential-encrypted copy."""
    fs = device.fs
    if not fs.host(CE_PREFS_PATH).is_file():
        return False
    fs.makedirs(PREFS_PATH.rsplit("/", 1)[0])
    os.replace(fs.host(CE_PREFS_PATH), fs.host(PREFS_PATH))
    return True


def save(device: VirtualDevice, prefs: P.Prefs) -> None:
    P.save(device, PREFS_PATH, prefs)


def commit(device: VirtualDevice, prefs: P.Prefs) -> None:
    """Store a timer change and update the expiry alarm, as every ``TimerModel.doUpdateTimer`` /
    ``doRemoveTimer`` does (``updateAlarmManager``)."""
    save(device, prefs)
    schedule(device, read(prefs))


def sync(device: VirtualDevice) -> list[Timer]:
    """The timers as the app sees them: read from the file, nothing changed (expiry comes from the alarm)."""
    return read(load(device))


def next_expiring(timers: list[Timer]) -> Timer | None:
    """The running timer that expires first (``TimerModel.updateAlarmManager``'s choice)."""
    running = [t for t in timers if t.deadline() is not None]
    return min(running, key=lambda t: (t.deadline(), t.id)) if running else None


def schedule(device: VirtualDevice, timers: list[Timer] | None = None) -> None:
    """``TimerModel.updateAlarmManager``: an exact ``ELAPSED_REALTIME_WAKEUP`` alarm for the next expiring
    timer's expiration time, whose PendingIntent starts ``TimerService`` with action
    ``com.android.deskclock.action.TIMER_EXPIRED``; with no running timer the alarm is cancelled
    (LineageOS/android_packages_apps_DeskClock lineage-21.0 501626741b61 ``src/com/android/deskclock/data/
    TimerModel.java`` 663-698 and ``schedulePendingIntent`` 838-841, ``timer/TimerService.java`` 58-59, 68-73).
    An alarm already due fires at once."""
    first = next_expiring(sync(device) if timers is None else timers)
    if first is None:
        device.cancel_alarms(PACKAGE, TIMER_EXPIRED)
    else:
        device.set_alarm(PACKAGE, TIMER_EXPIRED, int(first.deadline()), ALARM_TYPE)  # type: ignore[arg-type]


def on_expired_alarm(device: VirtualDevice) -> None:
    """``TimerService`` handling ``TIMER_EXPIRED``: ``TimerModel.expireTimer`` for the timer the alarm was set
    for, then the alarm moves on to the next one (TimerService.java 157-160, TimerModel.java 242-256)."""
    prefs = load(device)
    now, wall = clocks(device)
    first = next_expiring(read(prefs))
    if first is None or first.deadline() > now:  # type: ignore[operator]
        schedule(device)
        return
    write(prefs, expire(first, now, wall))
    commit(device, prefs)


def on_time_set(device: VirtualDevice) -> None:
    """``AlarmInitReceiver`` on TIME_SET: ``DataModel.updateAfterTimeSet`` re-anchors every running, expired or
    missed timer at the current clocks with the same time left, and each update reschedules the expiry alarm
    (AlarmInitReceiver.java 86-94, TimerModel.java 331-343 and 652-655, ``Timer.updateAfterTimeSet``)."""
    prefs = load(device)
    now, wall = clocks(device)
    for t in read(prefs):
        write(prefs, after_time_set(t, now, wall))
    commit(device, prefs)


def on_boot(device: VirtualDevice) -> None:
    """``AlarmInitReceiver`` on LOCKED_BOOT_COMPLETED: ``updateAfterReboot`` carries each timer over by the
    wall clock and marks a running one that is over a minute late as missed (``MISSED_THRESHOLD``,
    TimerModel.java 63 and 644-650; AlarmInitReceiver.java 54 and 88-89)."""
    prefs = load(device)
    now, wall = clocks(device)
    for t in read(prefs):
        new = after_reboot(t, now, wall)
        if new.state == State.RUNNING and new.remaining_at(now) < MISSED_THRESHOLD:
            new = miss(new, now, wall)
        write(prefs, new)
    commit(device, prefs)


def miss(t: Timer, now: int, wall: int) -> Timer:
    """``Timer.miss``: state missed, the overrun kept."""
    if t.state in (State.RESET, State.MISSED):
        return t
    return replace(t, state=State.MISSED, last_start=now, last_wall=wall, remaining=min(0, t.remaining_at(now)))


def get(device: VirtualDevice, tid: int) -> Timer | None:
    return next((t for t in sync(device) if t.id == tid), None)


def create(device: VirtualDevice, length_ms: int, label: str = "", delete_after_use: bool = False,
           running: bool = True) -> int:
    """``TimerModel.addTimer`` (+ ``startTimer``): a new timer under ``next_timer_id``; returns its id."""
    prefs = load(device)
    tid = prefs.get_int(NEXT_TIMER_ID, 0)
    prefs.put_int(NEXT_TIMER_ID, tid + 1)
    length = max(1000, min(int(length_ms), MAX_LENGTH_MS))
    timer = Timer(tid, State.RESET, length, length, UNUSED, UNUSED, length, label, delete_after_use)
    if running:
        timer = start(timer, *clocks(device))
    write(prefs, timer)
    commit(device, prefs)
    return tid


def update(device: VirtualDevice, tid: int, action: str) -> None:
    """Apply one user action to timer ``tid``: start, pause, reset, add_minute, delete or stop."""
    timers = {t.id: t for t in sync(device)}
    timer = timers.get(tid)
    if timer is None:
        return
    prefs = load(device)
    now, wall = clocks(device)
    if action == "delete" or (action == "stop" and timer.delete_after_use):
        _remove(prefs, tid)
    else:
        new = {"start": lambda: start(timer, now, wall), "pause": lambda: pause(timer, now),
               "reset": lambda: reset(timer), "stop": lambda: reset(timer),
               "add_minute": lambda: add_minute(timer, now, wall)}[action]()
        if new == timer:
            return
        write(prefs, new)
    commit(device, prefs)


def set_label(device: VirtualDevice, tid: int, label: str) -> None:
    timer = get(device, tid)
    if timer is None:
        return
    prefs = load(device)
    write(prefs, replace(timer, label=label))
    commit(device, prefs)


# ---------------------------------------------------------------------- formatting
def shown_seconds(ms: int) -> int:
    """The whole seconds the app shows for ``ms`` left: rounded up while counting down, down once negative."""
    if ms >= 0:
        return -(-ms // 1000)
    return -((-ms) // 1000)


def format_remaining(ms: int) -> str:
    """The timer's text in the app (``TimerTextController``): ``4:59``, ``1:04:59``, ``-0:05``; rounds up."""
    seconds = shown_seconds(ms)
    h, rest = divmod(abs(seconds), 3600)
    m, s = divmod(rest, 60)
    text = f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
    return ("-" if seconds < 0 else "") + text


def format_chronometer(ms: int) -> str:
    """The notification's counting-down ``Chronometer``: ``04:01`` for 4:00.x left.

    DeskClock sets the chronometer's base to now + remaining + 1 s for a positive remainder (so it reads like
    the app's rounded-up display; ``TimerNotificationBuilder.getChronometerBase``, lineage-17.1 389-397) and
    the Chronometer shows ``DateUtils.formatElapsedTime`` of the whole seconds to the base, a negative time
    (an expired timer) with a leading minus sign (frameworks ``core/java/android/widget/Chronometer.java``
    ``updateText``, ``R.string.negative_duration``)."""
    seconds = _chronometer_seconds(ms)
    h, rest = divmod(abs(seconds), 3600)
    m, s = divmod(rest, 60)
    text = f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"
    return ("\u2212" if seconds < 0 else "") + text


def _chronometer_seconds(ms: int) -> int:
    """Whole seconds between now and the chronometer's base (Java's truncating ``long`` division)."""
    base_ms = ms + 1000 if ms >= 0 else ms
    return int(base_ms / 1000)


def chronometer_seconds(ms: int) -> int:
    """The absolute whole seconds the chronometer's content-desc speaks (``Chronometer.formatDuration``)."""
    return abs(_chronometer_seconds(ms))


def format_setup(digits: str) -> str:
    """The keypad display: ``00h 05m 00s`` from up to six digits typed right to left."""
    d = digits.rjust(6, "0")[-6:]
    return f"{d[0:2]}h {d[2:4]}m {d[4:6]}s"


def setup_ms(digits: str) -> int:
    d = digits.rjust(6, "0")[-6:]
    return (int(d[0:2]) * 3600 + int(d[2:4]) * 60 + int(d[4:6])) * 1000
