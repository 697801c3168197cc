"""The worker pool: one thread per device of a :class:`~emukit.device.pool.DevicePool`, each taking the next
job, leasing a device and running the job on that device's :class:`~emukit.workers.context.DeviceContext`.
The builder, the stress suites and the stability and replay audits run their device work through it.

What the pool does around a job, once for all of them:

* a worker keeps one context per device it has leased (the driver's uiautomator2 session and the console
  connection carry over from job to job) and closes them all when it stops;
* a job that raises :class:`~emukit.errors.DeviceError`, or calls :meth:`DeviceContext.retire`, gives its
  device up: the lease is marked unhealthy (the pool repairs or replaces the device) and the device's
  context is closed, so the next lease of it starts a fresh one;
* when the pool cannot give a device at all, ``on_pool_error`` hears why, ``abandon`` gets the job back,
  and the worker stops (the other workers go on with the devices they have).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from emukit.device.pool import DevicePool
from emukit.errors import DeviceError
from emukit.workers.context import DeviceContext

J = TypeVar("J")


class WorkerPool(Generic[J]):
    """Runs jobs from ``take`` (None: no more work for this worker) with ``work(context, job)`` on ``workers``
    threads over ``pool``'s devices."""

    def __init__(self, pool: DevicePool, workers: int, *, adb_port: int, data_dir: Path | None = None,
                 name: str = "worker", default_timeout: float = 10.0,
                 on_pool_error: Callable[[DeviceError], None] | None = None,
                 abandon: Callable[[J], None] | None = None) -> None:
        self.pool = pool
        self.workers = workers
        self.adb_port = adb_port
        self.data_dir = data_dir
        self.name = name
        self.default_timeout = default_timeout
        self.on_pool_error = on_pool_error or (lambda _exc: None)
        self.abandon = abandon or (lambda _job: None)

    def context(self, serial: str) -> DeviceContext:
        """A new context for ``serial`` (a worker's first lease of it, or the first after it was given up)."""
        return DeviceContext(serial, adb_port=self.adb_port, data_dir=self.data_dir,
                             default_timeout=self.default_timeout)

    def run(self, take: Callable[[], J | None], work: Callable[[DeviceContext, J], None]) -> None:
        """Start the workers and wait until every one has stopped."""
        threads = [threading.Thread(target=self._worker, args=(take, work), name=f"{self.name}-{i}", daemon=True)
                   for i in range(self.workers)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

    def _worker(self, take: Callable[[], J | None], work: Callable[[DeviceContext, J], None]) -> None:
        contexts: dict[str, DeviceContext] = {}
        try:
            while True:
                job = take()
                if job is None:
                    return
                try:
                    with self.pool.lease() as lease:
                        device = contexts.get(lease.serial)
                        if device is None:
                            device = contexts[lease.serial] = self.context(lease.serial)
                        try:
                            work(device, job)
                        except DeviceError as exc:
                            device.retire(str(exc)[:200])
                        if device.retired is not None:
                            lease.mark_unhealthy(device.retired)
                            contexts.pop(lease.serial).close()
                except DeviceError as exc:  # the pool could not give a device
                    self.on_pool_error(exc)
                    self.abandon(job)
                    return
        finally:
            for device in contexts.values():
                device.close()
