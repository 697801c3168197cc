"""Where a run's devices come from: the given serials, else every attached device, else embedded virtual
devices; and giving them back (:func:`make_pool`, :func:`close_pool`, :func:`default_device_count`)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.device.adbserver import AdbServer
from emukit.device.launcher import DeviceLauncher
from emukit.device.pool import DevicePool
from emukit.errors import ConfigError, DeviceError
from emukit.workers.context import DeviceContext


@dataclass
class DeviceRequest:
    """The devices a command asked for: ``serials`` (``--device``), else ``devices`` embedded virtual ones
    (``--devices N``; none: every attached device, else :func:`default_device_count`), started under
    ``data_dir`` in ``vdevice_mode`` with the display ``vdevice_screen``."""

    data_dir: Path
    devices: int | None = None
    serials: list[str] = field(default_factory=list)
    vdevice_mode: str = "deterministic"
    vdevice_screen: tuple[int, int, int] | None = None


def default_device_count() -> int:
    """Embedded virtual devices started when none is given or attached: one more than the CPU cores (a
    device waits for the host part of its attempts and for adb round trips about a third of the time), at
    least 2 and at most 8."""
    return max(2, min(8, (os.cpu_count() or 1) + 1))


class AttachedLauncher(DeviceLauncher):
    """A device that is already running (a real emulator or a device started elsewhere): health checks
    only; emukit neither launches nor relaunches it."""

    kind = "attached"

    def __init__(self, serial: str, server: AdbServer, claim=None) -> None:
        super().__init__(server, max_attempts=1, restart_adb_on_failure=False)
        self._serial = serial
        self.claim = claim  # this command's SerialClaim on the device, released by close()

    @property
    def serial(self) -> str:
        return self._serial

    def _launch_impl(self) -> None:
        if self.server.state(self._serial) != "device":
            raise DeviceError(f"{self._serial} is not attached (adb state {self.server.state(self._serial)!r})")

    def _stop_impl(self) -> None:
        """Attached devices are left running."""

    def _alive(self) -> bool:
        return self.server.state(self._serial) == "device"

    def log_tail(self, lines: int = 40) -> str:
        return ""

    def launch(self) -> str:
        self._launch_impl()
        self.running = True
        return self._serial

    def close(self) -> None:
        """The run is over: let other emukit commands use the device."""
        if self.claim is not None:
            self.claim.release()
            self.claim = None


def _note_to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def make_pool(options: DeviceRequest, server: AdbServer,
              on_note: Callable[[str], None] | None = None) -> tuple[DevicePool, int]:
    """Devices for the run: the given serials, else every attached device, else embedded virtual devices.

    Attached devices (ones this command does not start) are announced through ``on_note`` (default: a line
    on stderr) and claimed for the run (:class:`emukit.device.ownership.SerialClaim`): a ``--device`` that
    another live emukit command holds is refused; an attached device found without ``--device`` that another
    command holds is skipped, and the run falls back to embedded devices when none is left."""
    from emukit.device.ownership import DeviceInUse, SerialClaim

    note = on_note or _note_to_stderr
    serials = list(options.serials)
    explicit = bool(serials)
    if not serials and not options.devices:
        serials = [s for s, state in server.devices().items() if state == "device"]
    if serials:
        missing = [s for s in serials if server.state(s) != "device"]
        if missing:
            raise ConfigError(f"device(s) not attached: {', '.join(missing)}")
        claims: list[SerialClaim] = []
        try:
            for serial in serials:
                try:
                    claims.append(SerialClaim.acquire(server.port, serial))
                except DeviceInUse as exc:
                    if explicit:
                        raise
                    note(f"skipping attached device {serial}: {exc}")
        except BaseException:
            for claim in claims:
                claim.release()
            raise
        if claims:
            used = [c.serial for c in claims]
            why = "given with --device" if explicit else (
                f"attached to the adb server on port {server.port}; give --devices N for embedded virtual "
                "devices instead")
            note(f"using attached device(s) {', '.join(used)} (not started by emukit: {why})")
            return DevicePool([AttachedLauncher(c.serial, server, claim=c) for c in claims]), len(claims)
        note("every attached device is held by another emukit command: starting embedded virtual devices")
    n = options.devices or default_device_count()
    from emukit.settings import vdevice_port_base

    # private ports (outside the range adb servers scan): only this command's adb server lists them
    screen = {} if options.vdevice_screen is None else {"screen": tuple(options.vdevice_screen)}
    from emukit.provision.embedded import provisioner_for

    pool = DevicePool.virtual(n, server, options.data_dir / "vdevices", start_port=vdevice_port_base(),
                              mode=options.vdevice_mode, **screen,
                              provision=provisioner_for(options.vdevice_mode, options.data_dir, server.port))
    return pool, n


def close_pool(pool: DevicePool, server: AdbServer) -> None:
    """Stop the pool's devices, then release the adb server: stopped when this command started it and only
    the devices it started were on it (:meth:`AdbServer.release`)."""
    started = [launcher.serial for launcher in pool.launchers if not isinstance(launcher, AttachedLauncher)]
    try:
        pool.close()
    finally:
        server.release(started)


@contextlib.contextmanager
def one_device(serial: str | None, data_dir: Path, *, vdevice_mode: str = "deterministic",
               **options: Any) -> Iterator[DeviceContext]:
    """The context of one chosen device (:func:`emukit.device.select.one_device`: the given or only attached
    device, else an embedded virtual device living as long as the block, provisioned as its mode needs:
    :func:`emukit.provision.embedded.provisioner_for`); ``options``: ``embedded``, ``force_embedded``. Base
    snapshots built on it record their fingerprints under ``data_dir``."""
    from emukit.device.select import one_device as select_device
    from emukit.provision.embedded import provisioner_for
    from emukit.settings import adb_server_port

    port = adb_server_port()
    with select_device(serial, data_dir, vdevice_mode=vdevice_mode,
                       provision=provisioner_for(vdevice_mode, data_dir, port), **options) as driver:
        device = DeviceContext(driver.serial, adb_port=driver.adb_port, data_dir=data_dir, driver=driver)
        try:
            yield device
        finally:
            device.close()
