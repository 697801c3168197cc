"""``date`` over the device's logical wall clock (display, ``+FORMAT``, ``-d``, ``-r``, and setting the
clock as root with ``-s DATE``, ``@EPOCH`` or ``MMDDhhmm[[CC]YY][.ss]``)."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.base import Ctx, command, getopt
from emukit.vdevice.shell.commands.fsutil import device_tz

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
_POSIX_STAMP = re.compile(r"(\d{2})(\d{2})(\d{2})(\d{2})((?:\d{2})?\d{2})?(?:\.(\d{2}))?$")


def format_time(device: VirtualDevice, secs: float, fmt: str, utc: bool = False) -> str:
    """strftime with toybox extras (``%s`` epoch seconds, ``%N`` nanoseconds), in the device zone."""
    tz = dt.timezone.utc if utc else device_tz(device)
    when = dt.datetime.fromtimestamp(secs, tz)
    out: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c != "%" or i + 1 >= len(fmt):
            out.append(c)
            i += 1
            continue
        spec = fmt[i + 1]
        i += 2
        if spec == "s":
            out.append(str(int(secs // 1)))
        elif spec == "N":
            out.append(f"{int(round((secs % 1) * 1e9)) % 1_000_000_000:09d}")
        elif spec == "%":
            out.append("%")
        elif spec == "e":
            out.append(f"{when.day:2d}")
        elif spec == "Z":
            out.append("UTC" if utc else (when.tzname() or "UTC"))
        else:
            out.append(when.strftime("%" + spec))
    return "".join(out)


def _tz(device: VirtualDevice, utc: bool) -> dt.tzinfo:
    return dt.timezone.utc if utc else device_tz(device)


def parse_date(device: VirtualDevice, text: str, utc: bool = False) -> float:
    """Epoch seconds for ``@N``, ``YYYY-MM-DD[ hh:mm[:ss]]``, ``hh:mm[:ss]`` or ``MMDDhhmm[[CC]YY][.ss]``."""
    text = text.strip()
    tz = _tz(device, utc)
    if text.startswith("@"):
        return float(text[1:])
    if text == "now":
        return device.wall_ms() / 1000
    m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?(Z)?", text)
    if m:
        y, mo, d, h, mi, s, frac, zulu = m.groups()
        when = dt.datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
                           tzinfo=dt.timezone.utc if zulu else tz)
        return when.timestamp() + (float("0." + frac) if frac else 0.0)
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text)
    if m:
        today = dt.datetime.fromtimestamp(device.wall_ms() / 1000, tz)
        return today.replace(hour=int(m.group(1)), minute=int(m.group(2)), second=int(m.group(3) or 0),
                             microsecond=0).timestamp()
    m = _POSIX_STAMP.fullmatch(text)
    if m:
        month, day, hour, minute, year, sec = m.groups()
        now = dt.datetime.fromtimestamp(device.wall_ms() / 1000, tz)
        if year is None:
            full_year = now.year
        elif len(year) == 2:
            full_year = (1900 if int(year) >= 69 else 2000) + int(year)
        else:
            full_year = int(year)
        return dt.datetime(full_year, int(month), int(day), int(hour), int(minute), int(sec or 0),
                           tzinfo=tz).timestamp()
    raise ValueError(f"bad date '{text}'")


def parse_touch_stamp(device: VirtualDevice, text: str) -> float:
    """``touch -t [[CC]YY]MMDDhhmm[.ss]``."""
    m = re.fullmatch(r"((?:\d{2})?\d{2})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?", text)
    if not m:
        raise ValueError(f"bad date '{text}'")
    year, month, day, hour, minute, sec = m.groups()
    stamp = f"{month}{day}{hour}{minute}{year or ''}" + (f".{sec}" if sec else "")
    return parse_date(device, stamp)


@command("date")
def date(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "ud:s:r:D:IR", long={"utc": "u", "date": "d", "set": "s",
                                                                 "reference": "r"})
    utc = bool(opts.get("u"))
    fmt = DEFAULT_FORMAT
    if opts.get("R"):
        fmt = "%a, %d %b %Y %H:%M:%S %z"
    elif opts.get("I"):
        fmt = "%Y-%m-%d"
    set_to = opts.get("s")
    for arg in operands:
        if arg.startswith("+"):
            fmt = arg[1:]
        elif set_to is None:
            set_to = arg
        else:
            return ctx.fail(f"extra operand '{arg}'")
    device = ctx.device
    try:
        if set_to is not None:
            secs = parse_date(device, set_to, utc)
            if not ctx.rooted:
                return ctx.fail("cannot set date: Operation not permitted")
            device.set_wall_ms(int(round(secs * 1000)))
        elif "d" in opts:
            secs = parse_date(device, opts["d"], utc)
        elif "r" in opts:
            secs = ctx.fs.stat(opts["r"], ctx.cwd).st_mtime
        else:
            secs = device.wall_ms() / 1000
    except ValueError as exc:
        return ctx.fail(str(exc))
    ctx.write(format_time(device, secs, fmt, utc) + "\n")
    return 0
