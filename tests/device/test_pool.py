"""The device pool: virtual devices (real ``emukit vdevice serve`` processes behind the real adb server)
leased to worker threads, a device killed mid-lease detected on release and relaunched, and the drop /
timeout / close bookkeeping (with a scripted launcher that needs no device)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from emukit.device import boot
from emukit.device.launcher import DeviceLauncher
from emukit.device.pool import (
    DevicePool,
    claim_consecutive_adb_ports,
    consecutive_adb_ports,
)
from emukit.errors import DeviceError
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports


@pytest.fixture(scope="module")
def pool(adb_server, tmp_path_factory):
    pool = DevicePool.virtual(3, adb_server, tmp_path_factory.mktemp("pool"), start_port=30001)
    serials = pool.start()
    assert len(serials) == 3
    yield pool
    pool.close()


def test_consecutive_ports():
    ports = consecutive_adb_ports(3, start=TEST_PORT_BASE + 200)
    assert ports[0] % 2 == 1 and ports == [ports[0], ports[0] + 2, ports[0] + 4]


def test_ports_claimed_by_another_command_are_skipped():
    """Two emukit commands on one machine (here: this test and a child process, same EMUKIT_HOME) asking for
    ports at the same time get disjoint ones, and a dead holder's claims are free again."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from emukit.device.pool import claim_consecutive_adb_ports as c; "
         "print(' '.join(str(x.port) for x in c(2, 31101)), flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        held = [int(p) for p in holder.stdout.readline().split()]
        assert len(held) == 2
        mine = claim_consecutive_adb_ports(2, 31101)
        try:
            assert not {c.port for c in mine} & set(held), (held, [c.port for c in mine])
            assert mine[1].port == mine[0].port + 2
        finally:
            for claim in mine:
                claim.release()
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    again = claim_consecutive_adb_ports(2, 31101)
    try:
        assert [c.port for c in again] == held  # the holder exited: its ports are free to claim
    finally:
        for claim in again:
            claim.release()


def test_virtual_pool_started_with_setup_applied(pool, adb_server):
    stats = pool.stats()
    assert (stats.size, stats.free, stats.leased, stats.dropped) == (3, 3, 0, 0)
    ports = sorted(int(s.split("-")[1]) for s in pool.serials)
    assert ports == [ports[0], ports[0] + 2, ports[0] + 4]
    for serial in pool.serials:
        assert boot.adb_shell(adb_server, serial, "id -u") == "0"
        assert boot.adb_shell(adb_server, serial, "settings get global animator_duration_scale") == "0"


def test_four_workers_share_three_devices(pool, adb_server):
    in_use: set[str] = set()
    lock = threading.Lock()
    used: Counter[str] = Counter()
    errors: list[BaseException] = []
    max_parallel = 0

    def worker(n: int) -> None:
        nonlocal max_parallel
        try:
            for i in range(4):
                with pool.lease(timeout=30) as lease:
                    with lock:
                        assert lease.serial not in in_use, f"{lease.serial} leased twice"
                        in_use.add(lease.serial)
                        max_parallel = max(max_parallel, len(in_use))
                    out = boot.adb_shell(adb_server, lease.serial, f"echo w{n}-{i}")
                    assert out == f"w{n}-{i}"
                    with lock:
                        in_use.remove(lease.serial)
                        used[lease.serial] += 1
        except BaseException as exc:  # noqa: BLE001 -- surfaced in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert sum(used.values()) == 16
    assert max_parallel <= 3
    stats = pool.stats()
    assert stats.leases >= 16 and stats.free == 3 and stats.leased == 0


@pytest.mark.parametrize("how", ["process", "emu kill"])
def test_device_killed_mid_lease_is_replaced(pool, adb_server, how):
    before = pool.stats()
    lease = pool.lease(timeout=10)
    serial = lease.serial
    if how == "process":
        lease.launcher.process.stop()
    else:
        adb_server.adb("-s", serial, "emu", "kill", check=False)
        lease.launcher.process.proc.wait(15)
    assert not lease.launcher.healthy()
    lease.release()  # health check fails -> relaunched in this thread
    after = pool.stats()
    assert after.relaunches == before.relaunches + 1
    assert after.health_failures == before.health_failures + 1
    assert after.dropped == 0 and after.free == 3
    device = next(d for d in after.devices if d.serial == serial)
    assert device.relaunches >= 1 and device.state == "free"
    leases = [pool.lease(timeout=10) for _ in range(3)]  # every device, the replaced one included
    try:
        assert serial in {le.serial for le in leases}
        for le in leases:
            assert boot.adb_shell(adb_server, le.serial, "echo ok") == "ok"
    finally:
        for le in leases:
            le.release()


def test_lease_times_out_when_all_busy(pool):
    leases = [pool.lease(timeout=10) for _ in range(3)]
    try:
        start = time.monotonic()
        with pytest.raises(DeviceError, match="timed out after 0.2 s waiting for a free device"):
            pool.lease(timeout=0.2)
        assert time.monotonic() - start < 5
    finally:
        for le in leases:
            le.release()
            le.release()  # idempotent
    assert pool.stats().free == 3


# --- bookkeeping with a scripted launcher ----------------------------------------------------------------

class ScriptedLauncher(DeviceLauncher):
    """A launcher with no device: launches fail while ``fail_launches`` > 0; health is a flag."""

    kind = "scripted"

    def __init__(self, server, n: int, fail_launches: int = 0, max_attempts: int = 3) -> None:
        super().__init__(server, max_attempts=max_attempts, restart_adb_on_failure=False)
        self.n = n
        self.fail_launches = fail_launches
        self.ok = False

    @property
    def serial(self) -> str:
        return f"emulator-{40000 + 2 * self.n}"

    def _launch_impl(self) -> None:
        if self.fail_launches > 0:
            self.fail_launches -= 1
            raise DeviceError("scripted launch failure")
        self.ok = True

    def launch(self) -> str:  # skip the adb post-boot setup: there is no device behind this serial
        self.setup = self.setup.model_copy(update={"root": False, "disable_animations": False,
                                                   "auto_time_off": False, "time_24h": False})
        return super().launch()

    def _stop_impl(self) -> None:
        self.ok = False

    def _alive(self) -> bool:
        return self.ok

    def healthy(self, timeout: float | None = None) -> bool:
        return self.ok

    def log_tail(self, lines: int = 40) -> str:
        return "scripted log line"


def test_failed_relaunch_drops_the_device_and_reports(adb_server):
    good, bad = ScriptedLauncher(adb_server, 0), ScriptedLauncher(adb_server, 1)
    pool = DevicePool([good, bad])
    assert pool.start() == [good.serial, bad.serial]
    lease = pool.lease(timeout=1)
    other = pool.lease(timeout=1)
    victim = lease if lease.serial == bad.serial else other
    keeper = other if victim is lease else lease
    victim.launcher.fail_launches = 99
    victim.mark_unhealthy("test says so")
    victim.release()
    keeper.release()
    stats = pool.stats()
    assert stats.dropped == 1 and stats.free == 1 and stats.health_failures == 1 and stats.relaunches == 0
    dropped = next(d for d in stats.devices if d.state == "dropped")
    assert "test says so" in dropped.dropped_reason and "failed to launch after 3 attempt(s)" in \
        dropped.dropped_reason and "scripted log line" in dropped.dropped_reason
    assert victim.launcher.attempts == 4  # 1 initial + 3 bounded retries
    assert pool.serials == [keeper.serial]
    for _ in range(3):
        with pool.lease(timeout=1) as again:
            assert again.serial == keeper.serial
    pool.close()
    with pytest.raises(DeviceError, match="closed"):
        pool.lease(timeout=1)


def test_start_keeps_what_came_up_and_fails_when_nothing_did(adb_server):
    pool = DevicePool([ScriptedLauncher(adb_server, 0), ScriptedLauncher(adb_server, 1, fail_launches=5)])
    assert pool.start() == ["emulator-40000"]
    assert pool.stats().dropped == 1
    pool.close()
    with pytest.raises(DeviceError, match="no device came up"):
        DevicePool([ScriptedLauncher(adb_server, 2, fail_launches=5, max_attempts=2)]).start()


def test_unhealthy_on_lease_is_relaunched_and_waiters_fail_when_all_dropped(adb_server):
    launcher = ScriptedLauncher(adb_server, 0)
    pool = DevicePool([launcher])
    pool.start()
    launcher.ok = False  # died while free
    with pool.lease(timeout=1) as lease:
        assert lease.serial == launcher.serial and launcher.launches == 2
    launcher.ok = False
    launcher.fail_launches = 99
    with pytest.raises(DeviceError, match="every device was dropped"):
        pool.lease(timeout=5)
    pool.close()


def test_duplicate_serials_are_refused(adb_server):
    with pytest.raises(DeviceError, match="duplicate serials"):
        DevicePool([ScriptedLauncher(adb_server, 0), ScriptedLauncher(adb_server, 0)])
