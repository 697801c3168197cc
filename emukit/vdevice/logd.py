"""The device's log buffers (what ``logd`` keeps and ``logcat`` reads): ring buffers ``main``, ``system``,
``crash``, ``events``, ``radio`` and ``kernel``, each entry stamped with the device's wall clock, pid, tid,
priority and tag. Writers are ``log`` (toybox ``log``: main buffer) and the system itself (activity starts as
``ActivityTaskManager`` lines in the system buffer, as system_server logs them).

The buffers live in memory only, like logd's: they are not part of a snapshot's device state, and adbd's
``reboot:`` service empties them. Each buffer keeps its newest :data:`MAX_ENTRIES` entries.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

BUFFERS = ("main", "radio", "events", "system", "crash", "kernel")  # log_id_t order (android/log.h)
DEFAULT_BUFFERS = ("main", "system", "crash")  # logcat's "-b default" and what it reads without -b
PRIORITIES = "??VDIWEFS"  # android_LogPriority: 2 VERBOSE .. 7 FATAL, 8 SILENT
MAX_ENTRIES = 4096


@dataclass(frozen=True)
class LogEntry:
    """One log record."""

    seq: int  # order of arrival across every buffer
    buffer: str
    wall_ms: int
    pid: int
    tid: int
    uid: int
    priority: str  # V D I W E F
    tag: str
    message: str


class LogBuffers:
    """The ring buffers of one device; ``clock`` gives the wall time in ms for new entries."""

    def __init__(self, clock: Callable[[], int]) -> None:
        self._clock = clock
        self._buffers: dict[str, deque[LogEntry]] = {name: deque(maxlen=MAX_ENTRIES) for name in BUFFERS}
        self._seq = 0
        self._cond = threading.Condition()

    def append(self, buffer: str, priority: str, tag: str, message: str, *, pid: int, tid: int | None = None,
               uid: int = 0) -> LogEntry:
        """Log ``message`` (one entry per line, as liblog splits nothing but logcat prints each line with
        the same header) and wake every reader waiting for new entries."""
        if buffer not in self._buffers:
            raise ValueError(f"unknown log buffer {buffer!r}")
        priority = priority.upper()
        if priority not in "VDIWEF":
            raise ValueError(f"bad log priority {priority!r}")
        wall = self._clock()
        with self._cond:
            self._seq += 1
            entry = LogEntry(self._seq, buffer, wall, pid, pid if tid is None else tid, uid, priority, tag,
                             message)
            self._buffers[buffer].append(entry)
            self._cond.notify_all()
        return entry

    def clear(self, buffers: tuple[str, ...] = DEFAULT_BUFFERS) -> None:
        with self._cond:
            for name in buffers:
                self._buffers[name].clear()

    def entries(self, buffers: tuple[str, ...], after: int = 0) -> tuple[list[LogEntry], int]:
        """The entries of ``buffers`` newer than sequence number ``after``, oldest first, and the newest
        sequence number of all buffers at that moment (what a reader waits past next)."""
        with self._cond:
            found = [e for name in buffers for e in self._buffers[name] if e.seq > after]
            return sorted(found, key=lambda e: e.seq), self._seq

    def wait_newer(self, after: int, timeout: float) -> bool:
        """Block until an entry newer than ``after`` arrives or ``timeout`` passes; True when one did."""
        with self._cond:
            return self._cond.wait_for(lambda: self._seq > after, timeout)

    def usage(self, buffer: str) -> int:
        """Bytes an entry costs in logd, roughly: header + tag + message."""
        with self._cond:
            return sum(28 + len(e.tag) + len(e.message) + 2 for e in self._buffers[buffer])
