"""One leased device, as a worker uses it: :class:`DeviceContext`.

The context owns the device's connections (the uiautomator2 driver with its kept-alive RPC stream, the
emulator's gRPC controller the clipboard is read through, the emulator console) for as long as the worker holds the device, and every snapshot operation a job does on it:
build a base when the device lacks it, load a base or the clean snapshot (waiting until the device answers
and re-pinning root and the clock: the post-load setup), save the clean snapshot, read the fingerprint the
base was built with or measure it after loading. The builder, the stress suites, the stability and replay
audits, task sessions and the annotator all reach their device through one. A job that finds its device
broken calls :meth:`DeviceContext.retire`; the worker pool then marks the lease unhealthy (the pool replaces
the device) and opens a fresh context on the next device it gets.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from emukit.device.console import ConsoleClient
from emukit.device.driver import Driver
from emukit.device.emulator_grpc import EmulatorControllerClient
from emukit.device.facts import DeviceFacts
from emukit.errors import DeviceError
from emukit.snapshots import (
    CONTENT_KEYS,
    build_snapshot,
    content_fingerprint,
    ensure_snapshot,
    fingerprint,
    load_base,
    load_clean,
    load_spec,
    save_clean,
    save_fingerprint,
    spec_digest,
    verify_snapshot,
)


def device_usable(driver: Driver, timeout: float = 5.0) -> bool:
    """True when the device answers a shell command within ``timeout`` (after a transient drop too)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(DeviceError, OSError):
            if driver.shell("echo ok", timeout=2).text.strip() == "ok":
                return True
        time.sleep(0.1)
    return False


class DeviceContext:
    """What a worker does with one device. ``data_dir`` holds the fingerprints of the bases built here."""

    def __init__(self, serial: str, *, adb_port: int, data_dir: Path | None = None,
                 default_timeout: float = 10.0, driver: Driver | None = None) -> None:
        self.serial = serial
        self.adb_port = adb_port
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self.default_timeout = default_timeout
        self._driver = driver
        self._owns_driver = driver is None  # a driver given by the caller is the caller's to close
        self._console: ConsoleClient | None = None
        self.retired: str | None = None  # why a job gave the device up (the pool marks the lease unhealthy)
        self._facts: DeviceFacts | None = None

    def __repr__(self) -> str:
        return f"DeviceContext({self.serial!r})"

    # -- connections -----------------------------------------------------------------------------------------
    @property
    def driver(self) -> Driver:
        """The device's driver, opened on first use and kept (its uiautomator2 session carries over)."""
        if self._driver is None:
            self._driver = Driver(self.serial, self.adb_port, default_timeout=self.default_timeout)
            self._owns_driver = True
        return self._driver

    @property
    def facts(self) -> DeviceFacts:
        """What the device says about itself (kind, build, display, app builds), read once for this context:
        the provenance of every record built on it."""
        if self._facts is None:
            self._facts = DeviceFacts(self.driver)
        return self._facts

    @property
    def console(self) -> ConsoleClient:
        """The device's emulator console, connected on first use and kept (it reconnects once if dropped)."""
        if self._console is None:
            self._console = ConsoleClient.for_serial(self.serial)
        return self._console

    @property
    def grpc(self) -> EmulatorControllerClient:
        """The device's emulator gRPC controller, connected on first use and kept with the driver."""
        return self.driver.emulator_controller()

    def usable(self, timeout: float = 5.0) -> bool:
        """True when the device answers a shell command within ``timeout`` (after a transient drop too)."""
        return device_usable(self.driver, timeout)

    def retire(self, reason: str) -> None:
        """Give the device up after this job: the worker pool marks its lease unhealthy with ``reason``."""
        self.retired = reason

    def close(self) -> None:
        """Close the console and the driver this context opened (the device itself is the pool's)."""
        driver, self._driver = self._driver, None
        console, self._console = self._console, None
        if driver is not None and self._owns_driver:
            driver.close()
        if console is not None:
            with contextlib.suppress(OSError, DeviceError):
                console.close()

    # -- snapshots -------------------------------------------------------------------------------------------
    def _data_dir(self) -> Path:
        if self.data_dir is None:
            from emukit.settings import data_dir

            return data_dir()
        return self.data_dir

    def ensure_snapshot(self, name: str) -> None:
        """Build base snapshot ``name`` on the device (from its clean snapshot) unless it has it."""
        ensure_snapshot(self.driver, name, self._data_dir(), console=self.console)

    def build_snapshot(self, name: str) -> tuple[dict[str, Any], Path]:
        """Build base snapshot ``name`` now (over one the device has) and record its fingerprint; returns the
        fingerprint and where it was recorded."""
        fp = build_snapshot(self.driver, load_spec(name), console=self.console)
        return fp, save_fingerprint(self._data_dir(), self.serial, name, fp)

    def verify_snapshot(self, name: str) -> tuple[bool, dict[str, Any], dict[str, Any]]:
        """Load ``name`` and compare its fingerprint with the one recorded when it was built here:
        ``(same, recorded, measured)``."""
        return verify_snapshot(self.driver, name, self._data_dir(), console=self.console)

    def load_base(self, name: str, *, spec: str | None = None, timeout: float = 60.0) -> None:
        """Load ``name`` and run the post-load setup (root and the clock pinned to the spec's anchor when the
        load did not restore them); ``spec``: the spec holding the anchor when ``name`` is saved on a base."""
        load_base(self.driver, name, timeout, spec=spec, console=self.console)

    def load_clean(self, timeout: float = 60.0) -> None:
        """Load the clean snapshot (saving it first on a device that has none)."""
        load_clean(self.driver, timeout, console=self.console)

    def save_clean(self, *, force: bool = False) -> bool:
        """Save the present state as the clean snapshot unless there is one (True when saved now)."""
        return save_clean(self.driver, force=force, console=self.console)

    def save_snapshot(self, name: str) -> None:
        """Save the present state as console snapshot ``name``."""
        self.console.snapshot_save(name)

    def has_snapshot(self, name: str) -> bool:
        """Whether the device holds console snapshot ``name``."""
        return name in self.console.snapshot_list()

    def built_fingerprint(self, name: str) -> dict[str, Any]:
        """The content fingerprint recorded when base ``name`` was built on this device ({} if none here)."""
        return content_fingerprint(self._data_dir(), self.serial, name)

    def measured_fingerprint(self, name: str) -> dict[str, Any]:
        """The content fingerprint of the device's present state, read on the device (right after loading
        ``name``: the base's content whatever built it)."""
        fp = {**fingerprint(self.driver), "spec": spec_digest(load_spec(name))}
        return {k: fp[k] for k in CONTENT_KEYS if k in fp}
