"""The worker pool and the per-device context, on two real virtual devices behind the real adb server: every
job runs once; a worker keeps one context (one driver, one console login) per device from job to job; a job
that raises DeviceError or retires its device gets the lease marked unhealthy, the device relaunched and a
fresh context on its next lease; a pool with no device left reports it, hands the job back and stops the
worker; snapshots are built, listed and loaded through the context's kept console connection, and the
clipboard read over one kept gRPC channel."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from emukit.device.pool import DevicePool
from emukit.errors import DeviceError
from emukit.workers import DeviceContext, WorkerPool


@pytest.fixture(scope="module")
def pool(adb_server, tmp_path_factory):
    pool = DevicePool.virtual(2, adb_server, tmp_path_factory.mktemp("workers"), start_port=30061)
    assert len(pool.start()) == 2
    yield pool
    pool.close()


def _queue(jobs: list[int]):
    lock = threading.Lock()

    def take() -> int | None:
        with lock:
            return jobs.pop(0) if jobs else None

    return take


def test_each_job_runs_once_and_a_worker_keeps_its_device_context(pool, adb_server, tmp_path):
    seen: list[tuple[int, str, int, int, int]] = []
    lock = threading.Lock()

    def work(device: DeviceContext, job: int) -> None:
        assert device.driver.shell("echo ok").text.strip() == "ok"
        assert device.console.ping()
        with lock:
            seen.append((job, device.serial, id(device), id(device.driver), id(device.console)))

    WorkerPool(pool, 2, adb_port=adb_server.port, data_dir=tmp_path).run(_queue(list(range(12))), work)
    assert sorted(j for j, *_ in seen) == list(range(12))
    by_context: dict[int, set[tuple[str, int, int]]] = {}
    for _job, serial, ctx, drv, con in seen:
        by_context.setdefault(ctx, set()).add((serial, drv, con))
    # a context belongs to one device and keeps one driver and one console connection for all its jobs
    assert all(len(v) == 1 for v in by_context.values())
    assert len(by_context) <= 4  # at most one context per (worker, device)
    assert {s for s, *_ in (next(iter(v)) for v in by_context.values())} <= set(pool.serials)


def test_a_failing_job_gives_its_device_up_and_the_next_lease_gets_a_fresh_context(pool, adb_server, tmp_path):
    before = pool.stats()
    contexts: list[tuple[int, str, DeviceContext]] = []
    lock = threading.Lock()

    def work(device: DeviceContext, job: int) -> None:
        with lock:
            contexts.append((job, device.serial, device))
        if job == 0:
            raise DeviceError("the device stopped answering (test)")
        if job == 1:
            device.retire("retired by the job (test)")

    WorkerPool(pool, 1, adb_port=adb_server.port, data_dir=tmp_path).run(_queue(list(range(6))), work)
    after = pool.stats()
    assert [j for j, *_ in contexts] == list(range(6))
    assert after.health_failures == before.health_failures + 2  # both give-ups reached the pool
    assert after.relaunches == before.relaunches + 2 and after.dropped == 0 and after.free == 2
    first, second = contexts[0][2], contexts[1][2]
    assert first.retired == "the device stopped answering (test)" and second.retired == "retired by the job (test)"
    assert first._driver is None and first._console is None  # closed when given up
    later = [c for j, s, c in contexts if j >= 2 and s == contexts[0][1]]
    assert all(c is not first for c in later)


def test_a_pool_without_devices_reports_and_returns_the_job(adb_server, tmp_path):
    pool = DevicePool([])
    pool.close()
    errors: list[str] = []
    abandoned: list[int] = []
    ran: Counter = Counter()
    WorkerPool(pool, 2, adb_port=adb_server.port, data_dir=tmp_path, on_pool_error=lambda e: errors.append(str(e)),
               abandon=abandoned.append).run(_queue([1, 2, 3]), lambda _d, job: ran.update([job]))
    assert not ran and sorted(abandoned) == [1, 2] and errors == ["device pool is closed"] * 2


def test_snapshots_go_through_the_contexts_console(pool, adb_server, tmp_path):
    lease = pool.lease(timeout=60)
    device = DeviceContext(lease.serial, adb_port=adb_server.port, data_dir=tmp_path)
    try:
        console = device.console
        device.ensure_snapshot("files_base")
        assert device.has_snapshot("files_base") and device.console is console
        device.load_base("files_base")
        built = device.built_fingerprint("files_base")
        assert built and device.measured_fingerprint("files_base") == built
        device.save_snapshot("workers_test")
        assert device.has_snapshot("workers_test")
        # the clipboard is read over the driver's one kept gRPC channel
        from emukit.probes import probe_clipboard

        grpc = device.grpc
        assert probe_clipboard(device.driver).canonical == probe_clipboard(device.driver).canonical
        assert device.grpc is grpc and device.driver.emulator_controller() is grpc
    finally:
        device.close()
        lease.release()
