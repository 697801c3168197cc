"""Provisioning for the devices a command starts itself.

A hardware-like virtual device (``emukit vdevice serve --mode hardware``) starts as a real AVD does: the
downloaded apps absent, nothing granted, first-run screens pending, no demo mode. Before a command builds on
it, the launcher that started it runs :func:`emukit.provision.setup.setup_device` with the stand-in APKs
(which such a device installs and a real one refuses), leaving the base snapshots to be built when first
needed. Deterministic virtual devices start provisioned and need none of it; real AVDs are provisioned once
with ``emukit avd setup`` before their snapshots are saved.

Which of these a started device is comes from the device (its kind, :func:`emukit.device.facts.device_kind`),
not from the options it was started with.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

STANDINS_DIRNAME = "standin-apks"


def standin_provisioner(data_dir: Path, adb_port: int) -> Callable[[str], None]:
    """A launcher's ``provision`` hook: set up the device ``serial`` with stand-ins written under
    ``data_dir``."""

    def provision(serial: str) -> None:
        from emukit.device.driver import Driver
        from emukit.provision.apks import write_standins
        from emukit.provision.setup import setup_device

        folder = Path(data_dir) / STANDINS_DIRNAME
        write_standins(folder)  # deterministic bytes: rewriting them changes nothing
        driver = Driver(serial, adb_port)
        try:
            setup_device(driver, folder, Path(data_dir), save_snapshots=False)
        finally:
            driver.close()

    return provision


def provisioner_for(data_dir: Path, adb_port: int) -> Callable[[str], None]:
    """A launcher's ``provision`` hook for the devices a command starts: reads the started device's kind and
    provisions a hardware-like virtual device with stand-ins (:func:`standin_provisioner`); a deterministic
    one needs nothing."""
    standins = standin_provisioner(data_dir, adb_port)

    def provision(serial: str) -> None:
        from emukit.device.driver import Driver
        from emukit.device.emulator import parse_getprop
        from emukit.device.facts import device_kind

        driver = Driver(serial, adb_port)
        try:
            kind = device_kind(parse_getprop(driver.shell("getprop").text))
        finally:
            driver.close()
        if kind == "virtual-hardware":
            standins(serial)

    return provision
