"""A pool of devices leased to worker threads.

Each device is owned by one :class:`~emukit.device.launcher.DeviceLauncher`. A lease hands a healthy serial to
one thread at a time; on release (and on lease) the device is health-checked, and a device that fails is
relaunched through its launcher (bounded retries); one that cannot be relaunched is dropped and reported.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from pydantic import BaseModel

from emukit.device.adbserver import AdbServer
from emukit.device.launcher import DeviceLauncher, VirtualLauncher
from emukit.device.ownership import PortClaim
from emukit.device.virtual import FIRST_TEST_PORT, port_pair_free
from emukit.errors import DeviceError

log = logging.getLogger(__name__)


@dataclass
class _Slot:
    launcher: DeviceLauncher
    state: str = "new"  # new | free | leased | repairing | dropped | stopped
    leases: int = 0
    relaunches: int = 0
    health_failures: int = 0
    dropped_reason: str = ""


class DeviceStats(BaseModel):
    """One device's line in :meth:`DevicePool.stats`."""

    serial: str
    kind: str
    state: str
    leases: int
    relaunches: int
    health_failures: int
    launch_attempts: int
    dropped_reason: str = ""


class PoolStats(BaseModel):
    """Counts over the whole pool plus one entry per device."""

    size: int
    free: int
    leased: int
    repairing: int
    dropped: int
    leases: int
    relaunches: int
    health_failures: int
    devices: list[DeviceStats]


class Lease:
    """A device lent to one thread; use as a context manager (``with pool.lease() as lease: lease.serial``)."""

    def __init__(self, pool: DevicePool, slot: _Slot) -> None:
        self._pool = pool
        self._slot = slot
        self.serial = slot.launcher.serial
        self.kind = slot.launcher.kind
        self.launcher = slot.launcher
        self.unhealthy_reason: str | None = None
        self.released = False

    def mark_unhealthy(self, reason: str = "marked unhealthy by its user") -> None:
        """Have the device replaced on release even if its health check would pass."""
        self.unhealthy_reason = reason

    def release(self) -> None:
        """Give the device back to the pool (idempotent)."""
        self._pool.release(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __repr__(self) -> str:
        return f"Lease({self.serial})"


class DevicePool:
    """Devices shared by worker threads; thread-safe. ``check_on_lease`` / ``check_on_release`` run the
    launcher's health check (``shell echo ok`` + boot completed) at those points."""

    def __init__(self, launchers: list[DeviceLauncher], *, check_on_lease: bool = True,
                 check_on_release: bool = True, max_relaunches: int = 3) -> None:
        serials = [launcher.serial for launcher in launchers]
        if len(set(serials)) != len(serials):
            raise DeviceError(f"device pool: duplicate serials in {serials}")
        self._slots = [_Slot(launcher) for launcher in launchers]
        self._free: collections.deque[_Slot] = collections.deque()
        self._cond = threading.Condition()
        self._closed = False
        self.check_on_lease = check_on_lease
        self.check_on_release = check_on_release
        self.max_relaunches = max_relaunches  # per device; then it is retired (dropped)
        self.leases_total = 0
        self._port_claims: list[PortClaim] = []  # embedded devices' ports, held until close()

    @classmethod
    def virtual(cls, n: int, adb_server: AdbServer, state_root: Path, *, start_port: int = FIRST_TEST_PORT,
                check_on_lease: bool = True, check_on_release: bool = True, **launcher_kwargs: object
                ) -> DevicePool:
        """A pool of ``n`` virtual devices on consecutive free adb ports (from ``start_port``), with state
        dirs ``state_root/emulator-N``; ``launcher_kwargs`` go to each :class:`VirtualLauncher`. The ports
        are claimed (:class:`~emukit.device.ownership.PortClaim`) until :meth:`close`, so concurrent emukit
        commands on one machine, sharing one adb server, never start devices on the same serial."""
        claims = claim_consecutive_adb_ports(n, start_port)
        launchers: list[DeviceLauncher] = [
            VirtualLauncher(c.port, Path(state_root) / f"emulator-{c.port - 1}", adb_server,
                            **launcher_kwargs)  # type: ignore[arg-type]
            for c in claims]
        pool = cls(launchers, check_on_lease=check_on_lease, check_on_release=check_on_release)
        pool._port_claims = claims
        return pool

    # --- start / close ------------------------------------------------------------------------------

    def start(self) -> list[str]:
        """Launch every device in parallel threads; returns the serials that came up. A device that fails
        all its attempts is dropped (see :meth:`stats`); raises DeviceError when none came up."""
        def run(slot: _Slot) -> None:
            try:
                slot.launcher.launch()
            except DeviceError as exc:
                self._drop(slot, str(exc))
                return
            with self._cond:
                slot.state = "free"
                self._free.append(slot)
                self._cond.notify_all()

        threads = [threading.Thread(target=run, args=(slot,), name=f"launch-{slot.launcher.serial}",
                                    daemon=True) for slot in self._slots if slot.state == "new"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        up = [slot.launcher.serial for slot in self._slots if slot.state == "free"]
        if not up:
            reasons = "; ".join(f"{s.launcher.serial}: {s.dropped_reason}" for s in self._slots)
            raise DeviceError(f"device pool: no device came up ({reasons})")
        return up

    def close(self) -> None:
        """Stop every device (in parallel); later leases raise DeviceError."""
        with self._cond:
            self._closed = True
            self._free.clear()
            self._cond.notify_all()
        threads = [threading.Thread(target=slot.launcher.stop, daemon=True) for slot in self._slots
                   if slot.state != "dropped"]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for slot in self._slots:
            slot.launcher.close()
        with self._cond:
            for slot in self._slots:
                if slot.state != "dropped":
                    slot.state = "stopped"
        for claim in self._port_claims:
            claim.release()
        self._port_claims = []

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- lease / release ----------------------------------------------------------------------------

    def lease(self, timeout: float | None = None) -> Lease:
        """Block until a healthy device is free; returns its :class:`Lease`. Raises DeviceError after
        ``timeout`` seconds (None = wait forever), when the pool is closed, or when every device was
        dropped."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._cond:
                while not self._free:
                    self._check_open()
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        busy = sum(s.state in ("leased", "repairing") for s in self._slots)
                        raise DeviceError(f"device pool: timed out after {timeout:.1f} s waiting for a free "
                                          f"device ({busy} busy)")
                    self._cond.wait(remaining)
                slot = self._free.popleft()
                slot.state = "leased"
            unhealthy = self.check_on_lease and not slot.launcher.healthy()
            if unhealthy and not self._repair(slot, "health check failed on lease"):
                continue
            with self._cond:
                slot.state = "leased"
                slot.leases += 1
                self.leases_total += 1
            return Lease(self, slot)

    def release(self, lease: Lease) -> None:
        """Take a device back: health-check it (unless ``check_on_release`` is off and it was not marked
        unhealthy), relaunch it if it failed (in the calling thread), and make it free again."""
        if lease.released:
            return
        lease.released = True
        slot = lease._slot
        if self._closed:
            return
        reason = lease.unhealthy_reason
        if reason is None and self.check_on_release and not slot.launcher.healthy():
            reason = "health check failed on release"
        if reason is not None and not self._repair(slot, reason):
            return
        with self._cond:
            if self._closed:
                return
            slot.state = "free"
            self._free.append(slot)
            self._cond.notify_all()

    def _repair(self, slot: _Slot, reason: str) -> bool:
        """Relaunch an unhealthy device; True when it is back, False when it was dropped."""
        log.warning("device pool: %s %s; relaunching", slot.launcher.serial, reason)
        with self._cond:
            slot.state = "repairing"
            slot.health_failures += 1
        if slot.relaunches >= self.max_relaunches:
            self._drop(slot, f"{reason}; already relaunched {slot.relaunches} times")
            return False
        try:
            slot.launcher.relaunch()
        except DeviceError as exc:
            self._drop(slot, f"{reason}; relaunch failed: {exc}")
            return False
        with self._cond:
            slot.relaunches += 1
        if not slot.launcher.healthy():  # an attached device cannot really be relaunched: it may still hang
            self._drop(slot, f"{reason}; still not answering after a relaunch")
            return False
        return True

    def _drop(self, slot: _Slot, reason: str) -> None:
        log.error("device pool: dropping %s: %s", slot.launcher.serial, reason)
        slot.launcher.stop()
        with self._cond:
            slot.state = "dropped"
            slot.dropped_reason = reason
            self._cond.notify_all()

    def _check_open(self) -> None:
        if self._closed:
            raise DeviceError("device pool is closed")
        if all(slot.state in ("dropped", "stopped") for slot in self._slots):
            reasons = "; ".join(f"{s.launcher.serial}: {s.dropped_reason}" for s in self._slots)
            raise DeviceError(f"device pool: every device was dropped ({reasons})")

    # --- reporting ----------------------------------------------------------------------------------

    @property
    def launchers(self) -> list[DeviceLauncher]:
        """Every device's launcher, dropped ones included."""
        return [slot.launcher for slot in self._slots]

    @property
    def serials(self) -> list[str]:
        """Serials of the devices not dropped."""
        return [slot.launcher.serial for slot in self._slots if slot.state != "dropped"]

    def stats(self) -> PoolStats:
        """A snapshot of the pool's counters."""
        with self._cond:
            devices = [DeviceStats(serial=s.launcher.serial, kind=s.launcher.kind, state=s.state,
                                   leases=s.leases, relaunches=s.relaunches, health_failures=s.health_failures,
                                   launch_attempts=s.launcher.attempts, dropped_reason=s.dropped_reason)
                       for s in self._slots]
            count = collections.Counter(s.state for s in self._slots)
            return PoolStats(size=len(self._slots), free=count["free"], leased=count["leased"],
                             repairing=count["repairing"], dropped=count["dropped"], leases=self.leases_total,
                             relaunches=sum(s.relaunches for s in self._slots),
                             health_failures=sum(s.health_failures for s in self._slots), devices=devices)


def consecutive_adb_ports(count: int, start: int = FIRST_TEST_PORT) -> list[int]:
    """``count`` adb ports ``P, P+2, ...`` (consecutive even console ports) whose port pairs are free."""
    port = start | 1
    while port + 2 * (count - 1) <= 65535:
        ports = [port + 2 * i for i in range(count)]
        bad = next((p for p in ports if not port_pair_free(p)), None)
        if bad is None:
            return ports
        port = bad + 2
    raise DeviceError(f"no {count} consecutive free port pairs from {start} on 127.0.0.1")


def claim_consecutive_adb_ports(count: int, start: int = FIRST_TEST_PORT) -> list[PortClaim]:
    """Like :func:`consecutive_adb_ports`, but each port is also claimed for this command; ports another
    live emukit command claimed are skipped even while its devices are still starting."""
    port = start
    while True:
        ports = consecutive_adb_ports(count, port)
        claims: list[PortClaim] = []
        for p in ports:
            claim = PortClaim.try_acquire(p)
            if claim is None:
                break
            claims.append(claim)
        if len(claims) == count:
            # Claimed: check again, since a device may have bound a port between the first check and the claim.
            if all(port_pair_free(c.port) for c in claims):
                return claims
        for claim in claims:
            claim.release()
        port = ports[len(claims)] + 2 if len(claims) < count else ports[0] + 2
