"""Device work: where a run's devices come from (:mod:`~emukit.workers.devices`), what a worker does with
one leased device (:class:`DeviceContext`) and the worker pool that runs jobs over the devices
(:class:`WorkerPool`). The builder, the stress suites, the stability and replay audits, task sessions and
the annotator reach devices through these."""

from emukit.workers.context import DeviceContext, device_usable
from emukit.workers.devices import (
    AttachedLauncher,
    DeviceRequest,
    EmbeddedDevices,
    close_pool,
    default_device_count,
    make_pool,
    one_device,
)
from emukit.workers.runner import WorkerPool

__all__ = ["AttachedLauncher", "DeviceContext", "DeviceRequest", "EmbeddedDevices", "WorkerPool", "close_pool",
           "default_device_count", "device_usable", "make_pool", "one_device"]
