"""Where a run's devices come from: the given serials, else every attached device, else embedded virtual
devices; and giving them back (:func:`make_pool`, :func:`close_pool`, :func:`default_device_count`)."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from emukit.device.adbserver import AdbServer
from emukit.device.launcher import DeviceLauncher
from emukit.device.pool import DevicePool
from emukit.errors import ConfigError, DeviceError
from emukit.provenance import DEFAULT_VIRTUAL_MODE, VirtualMode
from emukit.screens import check_screen
from emukit.workers.context import DeviceContext


class EmbeddedDevices(BaseModel):
    """How the embedded virtual devices a command starts behave and look (they are started only when no
    device is given or attached, or ``--devices N`` asks for them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: VirtualMode = DEFAULT_VIRTUAL_MODE  # --vdevice-mode
    screen: tuple[int, int, int] | None = None  # --vdevice-screen: (width, height, dpi)

    @field_validator("screen")
    @classmethod
    def _screen(cls, value: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        if value is not None:
            check_screen(tuple(value))  # type: ignore[arg-type]
        return value


class DeviceRequest(BaseModel):
    """The devices a command asked for, built once from its options and nested in every options class
    (android_env's ``EmulatorConfig`` inside its environment config is the model).

    ``serials`` (``--device``) names attached devices to use; else ``count`` (``--devices N``) embedded virtual
    devices are started as ``embedded`` says; with neither, every attached device is used, and when none is
    attached, :func:`default_device_count` embedded ones. Attached devices that other emukit commands hold are
    waited for up to ``wait_s`` seconds (``--wait``); a run never falls back to another kind of device on its
    own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    serials: tuple[str, ...] = ()
    count: int | None = Field(default=None, ge=1)
    embedded: EmbeddedDevices = EmbeddedDevices()
    wait_s: float = Field(default=0.0, ge=0)

    def one(self) -> str | None:
        """The one serial a single-device command was given, or None."""
        if len(self.serials) > 1:
            raise ConfigError(f"this command uses one device; --device was given {len(self.serials)} times")
        return self.serials[0] if self.serials else None


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


WAIT_POLL_S = 1.0  # how often a --wait run looks again for an attached device another command holds


def make_pool(request: DeviceRequest, server: AdbServer, data_dir: Path,
              on_note: Callable[[str], None] | None = None) -> tuple[DevicePool, int]:
    """Devices for the run: the given serials, else every attached device, else embedded virtual devices
    (state under ``data_dir/vdevices``).

    Attached devices (ones this command does not start) are announced through ``on_note`` (default: a line
    on stderr) and claimed for the run (:class:`emukit.device.ownership.SerialClaim`). A device that another
    live emukit command holds is waited for up to ``request.wait_s`` seconds; when none of the attached (or
    given) devices can be had by then, the run fails with a :class:`ConfigError` naming each holder and the
    options (``--devices N`` for embedded virtual devices, ``--wait S``): it never starts another kind of
    device on its own."""
    note = on_note or _note_to_stderr
    serials = list(request.serials)
    explicit = bool(serials)
    if not serials and not request.count:
        serials = [s for s, state in server.devices().items() if state == "device"]
    if serials:
        missing = [s for s in serials if server.state(s) != "device"]
        if missing:
            raise ConfigError(f"device(s) not attached: {', '.join(missing)}")
        claims = _claim_attached(serials, server, explicit=explicit, wait_s=request.wait_s, note=note)
        used = [c.serial for c in claims]
        why = "given with --device" if explicit else (
            f"attached to the adb server on port {server.port}; give --devices N for embedded virtual "
            "devices instead")
        note(f"using attached device(s) {', '.join(used)} (not started by emukit: {why})")
        return DevicePool([AttachedLauncher(c.serial, server, claim=c) for c in claims]), len(claims)
    n = request.count or default_device_count()
    from emukit.settings import vdevice_port_base

    # private ports (outside the range adb servers scan): only this command's adb server lists them
    embedded = request.embedded
    screen = {} if embedded.screen is None else {"screen": tuple(embedded.screen)}
    from emukit.provision.embedded import provisioner_for

    pool = DevicePool.virtual(n, server, data_dir / "vdevices", start_port=vdevice_port_base(),
                              mode=embedded.mode, **screen,
                              provision=provisioner_for(data_dir, server.port))
    return pool, n


def _claim_attached(serials: list[str], server: AdbServer, *, explicit: bool, wait_s: float,
                    note: Callable[[str], None]) -> list[Any]:
    """Claims on ``serials``: every one (``explicit``: the ``--device`` list) or every one free (attached
    devices found), waiting up to ``wait_s`` seconds for held ones; ConfigError naming the holders when the
    wait ends without enough."""
    from emukit.device.ownership import DeviceInUse, SerialClaim

    claims: dict[str, SerialClaim] = {}
    held: dict[str, str] = {}
    deadline = time.monotonic() + wait_s
    announced = False
    try:
        while True:
            for serial in serials:
                if serial in claims:
                    continue
                try:
                    claims[serial] = SerialClaim.acquire(server.port, serial)
                    held.pop(serial, None)
                except DeviceInUse as exc:
                    held[serial] = str(exc)
            enough = not held if explicit else bool(claims)
            if enough:
                for serial in sorted(held):  # found attached, held elsewhere: left to its holder, and said so
                    note(f"skipping attached device {serial}: {held[serial]}")
                return [claims[s] for s in serials if s in claims]
            if time.monotonic() >= deadline:
                break
            if not announced:  # said now, on stderr: a command's notes are printed once its devices are in hand
                _note_to_stderr(f"waiting up to {wait_s:g} s for held device(s) {', '.join(sorted(held))}")
                announced = True
            time.sleep(min(WAIT_POLL_S, max(0.0, deadline - time.monotonic())))
    except BaseException:
        for claim in claims.values():
            claim.release()
        raise
    for claim in claims.values():
        claim.release()
    holders = "; ".join(held[s] for s in sorted(held))
    waited = f" after waiting {wait_s:g} s" if wait_s else ""
    if explicit:
        raise ConfigError(f"--device: held by another emukit command{waited}: {holders}. Wait for it (--wait S), "
                          "or choose another device")
    raise ConfigError(f"every attached device is held by another emukit command{waited}: {holders}. "
                      "Give --devices N to build on N embedded virtual devices instead, or --wait S to wait "
                      "for the attached ones; emukit does not switch to another kind of device on its own")


def close_pool(pool: DevicePool, server: AdbServer) -> None:
    """Stop the pool's devices, then release the adb server: stopped when this command started it and only
    the devices it started were on it (:meth:`AdbServer.release`)."""
    started = [launcher.serial for launcher in pool.launchers if not isinstance(launcher, AttachedLauncher)]
    try:
        pool.close()
    finally:
        server.release(started)


@contextlib.contextmanager
def one_device(request: DeviceRequest, data_dir: Path, **options: Any) -> Iterator[DeviceContext]:
    """The context of one chosen device (:func:`emukit.device.select.one_device`: the serial the request
    gives, else the only attached device, else an embedded virtual device of the request's kind living as
    long as the block, provisioned as its mode needs: :func:`emukit.provision.embedded.provisioner_for`);
    ``options``: ``embedded``, ``force_embedded``. Base snapshots built on it record their fingerprints under
    ``data_dir``."""
    from emukit.device.select import one_device as select_device
    from emukit.provision.embedded import provisioner_for
    from emukit.settings import adb_server_port

    port = adb_server_port()
    mode = request.embedded.mode
    with select_device(request.one(), data_dir, vdevice_mode=mode,
                       provision=provisioner_for(data_dir, port), **options) as driver:
        device = DeviceContext(driver.serial, adb_port=driver.adb_port, data_dir=data_dir, driver=driver)
        try:
            yield device
        finally:
            device.close()
