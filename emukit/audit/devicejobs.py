"""Run a list of device jobs on the devices of an audit: the attached ``serials`` if given, else ``devices``
embedded virtual devices started fresh (wiped) for the audit and stopped afterwards. The jobs go through the
worker pool (:class:`emukit.workers.WorkerPool`), which hands each one the leased device's
:class:`~emukit.workers.DeviceContext`. Used by the stability audit (stored pairs replayed from their
templates) and the replay audit (exported branches replayed action by action, suite trajectories executed
again from their rows)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from emukit.device.adbserver import AdbServer
from emukit.errors import DeviceError
from emukit.workers import DeviceContext, DeviceRequest, WorkerPool, close_pool, make_pool

J = TypeVar("J")
R = TypeVar("R")


@dataclass
class DeviceRun(Generic[R]):
    """What :func:`run_on_devices` did: one result per job that ran, in the jobs' order (None: not run)."""

    results: list[R | None]
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def run_on_devices(jobs: Sequence[J], work: Callable[[DeviceContext, J], R], *, data_dir: Path,
                   devices: DeviceRequest | None = None, adb_port: int = 5037,
                   failed: Callable[[R], bool] = lambda _r: False,
                   on_result: Callable[[J, R], None] | None = None, attached_first: bool = False) -> DeviceRun[R]:
    """``work(device, job)`` for every job, spread over the devices ``devices`` asks for: its serials, else its
    count of embedded virtual devices (default 1; with ``attached_first`` and no count: every attached device,
    else as many embedded ones as :func:`emukit.workers.default_device_count`). When ``failed(result)`` is true
    and the device no longer answers, the device is given up (the pool replaces it)."""
    run: DeviceRun[R] = DeviceRun([None] * len(jobs))
    if not jobs:
        return run
    todo = list(range(len(jobs)))
    lock = threading.Lock()

    def take() -> int | None:
        with lock:
            return todo.pop(0) if todo else None

    def one(device: DeviceContext, i: int) -> None:
        result = work(device, jobs[i])
        if failed(result) and not device.usable():
            device.retire("stopped answering during an audit replay")
        with lock:
            run.results[i] = result
        if on_result is not None:
            on_result(jobs[i], result)

    def pool_failed(exc: DeviceError) -> None:
        with lock:
            run.errors.append(f"device pool: {exc}")

    request = devices or DeviceRequest()
    if not attached_first and not request.serials and request.count is None:
        request = request.model_copy(update={"count": 1})
    server = AdbServer(adb_port)
    server.start()
    pool, workers = make_pool(request, server, Path(data_dir))
    t0 = time.monotonic()
    try:
        pool.start()
        WorkerPool(pool, workers, adb_port=adb_port, data_dir=Path(data_dir), name="audit-device",
                   on_pool_error=pool_failed).run(take, one)
    finally:
        close_pool(pool, server)
        run.wall_s = time.monotonic() - t0
    return run
