"""``log`` and ``logcat`` over the device's log buffers (:mod:`emukit.vdevice.logd`).

``log [-p PRI] [-t TAG] MESSAGE...`` is toybox's (landley/toybox toys/android/log.c: priority INFO and tag
"log" by default, ``-p`` one of d e f i s v w). ``logcat`` reads the buffers as system/logging's logcat does
(logcat/logcat.cpp, liblog/logprint.cpp; msft-mirror-aosp/platform.system.logging 044eb451):

* buffers ``-b main,system,crash`` by default (``-b default``, ``-b all``), several ``-b`` allowed;
* ``-d`` dumps and exits, ``-t N`` the last N entries and exits, ``-T N`` the last N then keeps reading,
  ``-c`` clears the chosen buffers and exits, ``-g`` prints the buffers' sizes; without ``-d``/``-t``/``-c``
  logcat prints what is there and waits for new entries until the stream closes;
* ``-v FORMAT`` (brief, process, tag, thread, raw, time, threadtime (default), long), filter specs
  ``TAG:PRI`` and ``*:PRI`` (``-s`` means ``*:S``), ``-e REGEX`` on the message, ``--pid PID``;
* with more than one buffer, ``--------- beginning of NAME`` before a buffer's first printed entry.
"""

from __future__ import annotations

import re
import time

from emukit.vdevice.logd import BUFFERS, DEFAULT_BUFFERS, MAX_ENTRIES, LogEntry
from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, getopt
from emukit.vdevice.shell.commands.procs import SHELL_PID

SHELL_UID = 2000
LEVELS = "VDIWEFS"  # increasing priority; S silences
FORMATS = ("brief", "process", "tag", "thread", "raw", "time", "threadtime", "long")
LOG_PRIORITIES = {"d": "D", "e": "E", "f": "F", "i": "I", "s": "S", "v": "V", "w": "W"}
POLL_S = 0.2  # a live logcat looks for the host closing the stream this often


@command("log")
def log(ctx: Ctx) -> int:
    try:
        opts, words = getopt(ctx, ctx.args, "p:t:", stop_at_operand=True)
    except UsageError as exc:
        return ctx.fail(str(exc))
    priority = "I"
    if "p" in opts:
        pri = str(opts["p"])
        if len(pri) != 1 or pri.lower() not in LOG_PRIORITIES:
            return ctx.fail(f"bad -p '{pri}'")
        priority = LOG_PRIORITIES[pri.lower()]
    tag = str(opts.get("t", "log"))
    message = " ".join(words) if words else ctx.read_stdin().decode("utf-8", "replace").rstrip("\n")
    if message and len(message.encode()) >= 1024:
        message = message.encode()[:1024].decode("utf-8", "ignore")
        ctx.error("log cut at 1024 bytes")
    if priority != "S":  # SILENT is never logged
        ctx.device.log(priority, tag, message, pid=SHELL_PID + 1, uid=SHELL_UID)
    return 0


# ------------------------------------------------------------------------------------------ formatting
def _time(wall_ms: int) -> str:
    """``MM-DD HH:MM:SS.mmm`` in the device's time zone (UTC on this image)."""
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(wall_ms // 1000)) + f".{wall_ms % 1000:03d}"


def format_entry(entry: LogEntry, fmt: str) -> str:
    """One entry as logprint.cpp's android_log_formatLogLine prints it (every message line gets the prefix)."""
    p, tag, pid, tid = entry.priority, entry.tag, entry.pid, entry.tid
    if fmt == "long":
        return f"[ {_time(entry.wall_ms)} {pid:5d}:{tid:5d} {p}/{tag:<8} ]\n{entry.message}\n\n"
    prefix, suffix = {
        "brief": (f"{p}/{tag:<8}({pid:5d}): ", ""),
        "process": (f"{p}({pid:5d}) ", f"  ({tag})"),
        "tag": (f"{p}/{tag:<8}: ", ""),
        "thread": (f"{p}({pid:5d}:{tid:5d}) ", ""),
        "raw": ("", ""),
        "time": (f"{_time(entry.wall_ms)} {p}/{tag:<8}({pid:5d}): ", ""),
        "threadtime": (f"{_time(entry.wall_ms)} {pid:5d} {tid:5d} {p} {tag:<8}: ", ""),
    }[fmt]
    return "".join(f"{prefix}{line}{suffix}\n" for line in entry.message.split("\n"))


class _Filter:
    """Filter specs ``TAG:PRI`` / ``*:PRI`` (default ``*:V``), a message regex and a pid."""

    def __init__(self, specs: list[str], regex: str | None, pid: int | None) -> None:
        self.default = "V"
        self.tags: dict[str, str] = {}
        for spec in specs:
            tag, _, pri = spec.rpartition(":") if ":" in spec else (spec, "", "V")
            pri = pri.upper() or "V"
            if pri not in LEVELS:
                raise UsageError(f"Invalid filter expression '{spec}'")
            if tag == "*":
                self.default = pri
            else:
                self.tags[tag] = pri
        self.regex = re.compile(regex) if regex else None
        self.pid = pid

    def accepts(self, entry: LogEntry) -> bool:
        level = self.tags.get(entry.tag, self.default)
        if level == "S" or LEVELS.index(entry.priority) < LEVELS.index(level):
            return False
        if self.pid is not None and entry.pid != self.pid:
            return False
        return self.regex is None or self.regex.search(entry.message) is not None


def _buffers(values: list[str]) -> tuple[str, ...]:
    chosen: list[str] = []
    for value in values:
        for name in re.split(r"[,|\s]+", value.strip()):
            names = DEFAULT_BUFFERS if name == "default" else BUFFERS if name == "all" else (name,)
            for one in names:
                if one not in BUFFERS:
                    raise UsageError(f"unknown buffer {one}")
                if one not in chosen:
                    chosen.append(one)
    return tuple(chosen) if chosen else DEFAULT_BUFFERS


LONG = {"dump": "d", "clear": "c", "buffer": "b", "format": "v", "regex": "e", "pid": "P", "silent": "s",
        "tail": "T", "last": "L", "dividers": "D", "buffer-size": "g", "max-count": "m", "uid": "U"}


@command("logcat", unlocked=True)
def logcat(ctx: Ctx) -> int:
    try:
        opts, specs = getopt(ctx, ctx.args, "cdDgLsb:v:t:T:e:P:m:U:f:r:n:G:", multi="bv", long=LONG)
    except UsageError as exc:
        return ctx.fail(str(exc))
    try:
        buffers = _buffers(list(opts.get("b", [])))
        fmt = "threadtime"
        for value in opts.get("v", []):
            for word in str(value).split(","):
                if word in FORMATS:
                    fmt = word
        filt = _Filter((["*:S"] if opts.get("s") else []) + specs, opts.get("e"),
                       int(opts["P"]) if "P" in opts else None)
    except (UsageError, re.error, ValueError) as exc:
        return ctx.fail(str(exc))
    logs = ctx.device.logs
    if opts.get("c"):
        logs.clear(buffers)
        return 0
    if opts.get("g"):
        for name in buffers:
            used = logs.usage(name)
            ctx.write(f"{name}: ring buffer is 256 KiB ({used} B consumed), max entry is 5120 B, "
                      f"max payload is 4068 B\n")
        return 0
    tail = opts.get("t") or opts.get("T")
    dump = bool(opts.get("d") or opts.get("t") or opts.get("L"))
    count = int(opts["m"]) if "m" in opts and str(opts["m"]).isdigit() else None
    printed: set[str] = set()
    shown = 0

    def emit(entries: list[LogEntry]) -> bool:
        """Print what passes the filter; False once ``-m`` entries were printed."""
        nonlocal shown
        for entry in entries:
            if not filt.accepts(entry):
                continue
            if len(buffers) > 1 and entry.buffer not in printed:
                ctx.write(f"--------- beginning of {entry.buffer}\n")
            printed.add(entry.buffer)
            ctx.write(format_entry(entry, fmt))
            shown += 1
            if count is not None and shown >= count:
                return False
        return True

    entries, last = logs.entries(buffers)
    if tail is not None:
        n = int(tail) if str(tail).isdigit() else MAX_ENTRIES
        entries = [e for e in entries if filt.accepts(e)][-max(n, 1):]
    if not emit(entries) or dump:
        return 0
    closed = ctx.shell.closed
    if ctx.background or closed is None:
        return 0
    ctx.flush()
    while not closed.is_set():
        if logs.wait_newer(last, POLL_S):
            fresh, last = logs.entries(buffers, after=last)
            if not emit(fresh):
                return 0
            ctx.flush()
    return 0
