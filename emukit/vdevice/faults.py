"""Faults on demand, for reliability tests. All off by default; switched at run time from the console
(``adb emu fault ...``). Faults are process state, never part of a snapshot."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class Faults:
    """Active faults of one virtual device."""

    delay_ms: int = 0  # every reply of the ADB transport is delayed by this much
    offline_until: float = 0.0  # monotonic time until which the transport refuses the host
    drop_requested: threading.Event = field(default_factory=threading.Event)  # drop the live connection(s)
    corrupt_next: int = 0  # number of upcoming shell replies whose payload is corrupted
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def offline(self) -> bool:
        return time.monotonic() < self.offline_until

    def go_offline(self, seconds: float) -> None:
        self.offline_until = time.monotonic() + seconds
        self.drop_requested.set()

    def clear(self) -> None:
        self.delay_ms = 0
        self.offline_until = 0.0
        self.corrupt_next = 0
        self.drop_requested.clear()

    def take_corruption(self) -> bool:
        with self.lock:
            if self.corrupt_next > 0:
                self.corrupt_next -= 1
                return True
            return False

    def describe(self) -> str:
        remaining = max(0.0, self.offline_until - time.monotonic())
        return (f"delay_ms={self.delay_ms} offline_s={remaining:.1f} corrupt_next={self.corrupt_next}")
