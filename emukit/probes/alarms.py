"""``dumpsys alarm``: the pending AlarmManager alarms, read as Android 14 prints them.

AlarmManagerService's dump prints a header with ``nowRTC=<ms>=<date> nowELAPSED=<ms>`` and then its alarm store;
the default store (``LazyAlarmStore.dump``, aosp-mirror/platform_frameworks_base 42f3da9f8916
``apex/jobscheduler/service/java/com/android/server/alarm/LazyAlarmStore.java``) prints ``N pending alarms:``
and, per alarm, a header line ``<TYPE> #<i>: Alarm{<hash> type <int> origWhen <ms> whenElapsed <ms> <package>}``
(``Alarm.toString``) followed by ``Alarm.dump``: ``tag=*walarm*:<action>`` (``Alarm.makeTag``: ``*walarm*:``
for the wakeup types, ``*alarm*:`` otherwise, then the PendingIntent's action), ``type=<TYPE> origWhen=...``,
``policyWhenElapsed: ...``, ``whenElapsed=<relative> maxWhenElapsed=<relative>`` and ``operation=...``
(eba0cb7723bc ``.../alarm/Alarm.java``). Older builds that batch alarms (``Batch{...}`` blocks) use the same
per-alarm lines, so the parser keys on the ``Alarm{...}`` header and the ``tag=`` line, wherever they are.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from emukit.device.driver import Driver
from emukit.errors import DeviceError

TYPES = {0: "RTC_WAKEUP", 1: "RTC", 2: "ELAPSED_REALTIME_WAKEUP", 3: "ELAPSED_REALTIME"}  # AlarmManager ints
_NOW = re.compile(r"nowRTC=(-?\d+)(?:=[^\n]*?)?\s+nowELAPSED=(-?\d+)")
_HEADER = re.compile(r"^\s*(\S+) #(\d+): Alarm\{[0-9a-f]+ type (\d+) (?:origWhen|when) (-?\d+)"
                     r"(?: whenElapsed (-?\d+))? (\S+)\}\s*$")
_TAG = re.compile(r"^\s*tag=\*w?alarm\*:(.*)$")
_WHEN_ELAPSED = re.compile(r"^\s*whenElapsed=(\S+)")
_DURATION = re.compile(r"([+-])(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)$")


class Alarm(BaseModel):
    """One pending alarm: the creator package, the PendingIntent's action (``tag`` without its prefix), the
    type, the time the app asked for (``orig_when_ms`` on the type's clock) and when it will be delivered on
    the elapsed-realtime clock."""

    package: str
    tag: str
    type: str
    orig_when_ms: int
    when_elapsed_ms: int


class AlarmDump(BaseModel):
    now_rtc_ms: int
    now_elapsed_ms: int
    alarms: list[Alarm]

    def find(self, package: str, tag: str) -> list[Alarm]:
        return [a for a in self.alarms if a.package == package and a.tag == tag]


def parse_duration(text: str) -> int | None:
    """``TimeUtils.formatDuration`` back to ms: ``+8m0s0ms`` -> 480000, ``-1s5ms`` -> -1005, ``0`` -> 0."""
    if text == "0":
        return 0
    m = _DURATION.fullmatch(text)
    if m is None:
        return None
    d, h, mi, s, ms = (int(g or 0) for g in m.groups()[1:])
    value = (((d * 24 + h) * 60 + mi) * 60 + s) * 1000 + ms
    return value if m.group(1) == "+" else -value


def parse_alarm_dump(text: str) -> AlarmDump:
    """The clocks and every pending alarm of a ``dumpsys alarm`` output; raises ValueError when the output has
    no ``nowELAPSED`` header (not an alarm dump)."""
    now = _NOW.search(text)
    if now is None:
        raise ValueError("not a dumpsys alarm output: no nowRTC/nowELAPSED line")
    now_rtc, now_elapsed = int(now.group(1)), int(now.group(2))
    alarms: list[Alarm] = []
    current: dict[str, object] | None = None

    def flush() -> None:
        if current is not None and current.get("tag") is not None:
            alarms.append(Alarm.model_validate(current))

    for line in text.splitlines():
        header = _HEADER.match(line)
        if header is not None:
            flush()
            kind = TYPES.get(int(header.group(3)), header.group(1))
            orig = int(header.group(4))
            when = header.group(5)
            elapsed = int(when) if when is not None else (orig if kind.startswith("ELAPSED") else
                                                          orig - now_rtc + now_elapsed)
            current = {"package": header.group(6), "type": kind, "orig_when_ms": orig, "when_elapsed_ms": elapsed,
                       "tag": None}
            continue
        if current is None:
            continue
        tag = _TAG.match(line)
        if tag is not None:
            current["tag"] = tag.group(1).strip()
            continue
        when_line = _WHEN_ELAPSED.match(line)
        if when_line is not None and _HEADER.match(line) is None:
            relative = parse_duration(when_line.group(1))
            if relative is not None:
                current["when_elapsed_ms"] = now_elapsed + relative
    flush()
    return AlarmDump(now_rtc_ms=now_rtc, now_elapsed_ms=now_elapsed, alarms=alarms)


def read_alarms(driver: Driver) -> AlarmDump:
    """``dumpsys alarm`` on the device, parsed."""
    result = driver.shell("dumpsys alarm")
    if not result.ok:
        raise DeviceError(f"{driver.serial}: dumpsys alarm failed: {result.stderr.decode(errors='replace')}")
    try:
        return parse_alarm_dump(result.text)
    except ValueError as exc:
        raise DeviceError(f"{driver.serial}: {exc}") from None
