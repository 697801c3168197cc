"""The device's local time and how system UI formats it (status bar, shade, Settings, launcher widget).

Month and weekday names are English and independent of the host locale, so screens stay deterministic.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ZONE_NAMES = {"UTC": "Coordinated Universal Time", "GMT": "Greenwich Mean Time", "BST": "British Summer Time",
              "CET": "Central European Standard Time", "CEST": "Central European Summer Time",
              "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time", "PST": "Pacific Standard Time",
              "PDT": "Pacific Daylight Time", "IST": "India Standard Time", "JST": "Japan Standard Time",
              "AEST": "Australian Eastern Standard Time", "AEDT": "Australian Eastern Daylight Time"}


def device_tz(device: VirtualDevice) -> tzinfo:
    """The device time zone (``state.clock.timezone``); unknown names fall back to UTC."""
    name = device.state.clock.timezone or "UTC"
    if name in ("UTC", "GMT", "Etc/UTC"):
        return UTC
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:  # noqa: BLE001 - missing tzdata or a bad name: behave like UTC
        return UTC


def local_now(device: VirtualDevice) -> datetime:
    """``System.currentTimeMillis()`` as an aware local datetime."""
    return datetime.fromtimestamp(device.wall_ms() / 1000, UTC).astimezone(device_tz(device))


def uses_24h(device: VirtualDevice) -> bool:
    return device.state.settings.get("system", {}).get("time_12_24", "24") != "12"


def format_time(device: VirtualDevice, when: datetime | None = None, am_pm: bool = True) -> str:
    """``09:05`` (24-hour) or ``9:05 AM`` (12-hour; ``am_pm=False`` leaves the marker out, like the clock)."""
    when = when or local_now(device)
    if uses_24h(device):
        return f"{when.hour:02d}:{when.minute:02d}"
    hour = when.hour % 12 or 12
    marker = (" AM" if when.hour < 12 else " PM") if am_pm else ""
    return f"{hour}:{when.minute:02d}{marker}"


def format_date_long(when: datetime) -> str:
    """``January 15, 2026``."""
    return f"{MONTHS[when.month - 1]} {when.day}, {when.year}"


def format_date_short(when: datetime) -> str:
    """``Thu, Jan 15``."""
    return f"{WEEKDAYS[when.weekday()][:3]}, {MONTHS[when.month - 1][:3]} {when.day}"


def format_date_widget(when: datetime) -> str:
    """``Thursday, January 15`` (the launcher's At a Glance line)."""
    return f"{WEEKDAYS[when.weekday()]}, {MONTHS[when.month - 1]} {when.day}"


def tz_label(device: VirtualDevice) -> str:
    """``GMT+00:00 Coordinated Universal Time`` style label of the current zone."""
    tz = device_tz(device)
    now = local_now(device)
    offset = now.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    gmt = f"GMT{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    abbrev = "UTC" if tz is UTC else (now.tzname() or str(tz))
    name = ZONE_NAMES.get(abbrev, abbrev)
    return f"{gmt} {name}"
