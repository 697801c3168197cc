"""Run a list of device jobs on the devices of an audit: the attached ``serials`` if given, else ``devices``
embedded virtual devices started fresh (wiped) for the audit and stopped afterwards. One worker thread per
device takes the next job, leases a device and hands a :class:`Driver` to the job's function. Used by the
stability audit (stored pairs replayed from their templates) and the replay audit (exported branches replayed
action by action)."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from emukit.builder.pair import device_usable
from emukit.builder.run import BuildOptions, close_pool, make_pool
from emukit.device.adbserver import AdbServer
from emukit.device.driver import Driver
from emukit.errors import DeviceError

J = TypeVar("J")
R = TypeVar("R")


@dataclass
class DeviceRun(Generic[R]):
    """What :func:`run_on_devices` did: one result per job that ran, in the jobs' order (None: not run)."""

    results: list[R | None]
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def run_on_devices(jobs: Sequence[J], work: Callable[[Driver, J], R], *, data_dir: Path,
                   devices: int | None = None, serials: list[str] | None = None, adb_port: int = 5037,
                   vdevice_mode: str = "deterministic", failed: Callable[[R], bool] = lambda _r: False,
                   on_result: Callable[[J, R], None] | None = None) -> DeviceRun[R]:
    """``work(driver, job)`` for every job, spread over the devices. When ``failed(result)`` is true and the
    device no longer answers, the device is marked unhealthy (the pool replaces it)."""
    run: DeviceRun[R] = DeviceRun([None] * len(jobs))
    if not jobs:
        return run
    todo: queue.Queue[int] = queue.Queue()
    for i in range(len(jobs)):
        todo.put(i)
    options = BuildOptions(templates=[], data_dir=Path(data_dir), devices=None if serials else (devices or 1),
                           serials=list(serials or []), adb_port=adb_port, vdevice_mode=vdevice_mode)
    server = AdbServer(adb_port)
    server.start()
    pool, workers = make_pool(options, server)
    lock = threading.Lock()

    def worker() -> None:
        while True:
            try:
                i = todo.get_nowait()
            except queue.Empty:
                return
            try:
                with pool.lease() as lease:
                    driver = Driver(lease.serial, adb_port, default_timeout=10)
                    try:
                        result = work(driver, jobs[i])
                        if failed(result) and not device_usable(driver):
                            lease.mark_unhealthy("stopped answering during an audit replay")
                    finally:
                        driver.close()
            except DeviceError as exc:  # the pool could not give a device
                with lock:
                    run.errors.append(f"device pool: {exc}")
                return
            with lock:
                run.results[i] = result
            if on_result is not None:
                on_result(jobs[i], result)

    t0 = time.monotonic()
    try:
        pool.start()
        threads = [threading.Thread(target=worker, name=f"audit-device-{n}", daemon=True) for n in range(workers)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        close_pool(pool, server)
        run.wall_s = time.monotonic() - t0
    return run
