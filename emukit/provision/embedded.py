"""Provisioning for the devices a command starts itself.

A hardware-like virtual device (``emukit vdevice serve --mode hardware``) starts as a real AVD does: the
downloaded apps absent, nothing granted, first-run screens pending, no demo mode. Before a command builds on
it, the launcher that started it runs :func:`emukit.provision.setup.setup_device` with the stand-in APKs
(which such a device installs and a real one refuses), leaving the base snapshots to be built when first
needed. Deterministic virtual devices start provisioned and need none of it; real AVDs are provisioned once
with ``emukit avd setup`` before their snapshots are saved.
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


def provisioner_for(mode: str, data_dir: Path, adb_port: int) -> Callable[[str], None] | None:
    """The provisioning an embedded virtual device of ``mode`` needs: none for the deterministic mode."""
    return standin_provisioner(data_dir, adb_port) if mode == "hardware" else None
