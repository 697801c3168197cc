"""Pick the device a single-device command works on: ``--device SERIAL``, else the one attached device,
else an embedded virtual device started for the command (and stopped after it)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from emukit.device.adbserver import AdbServer
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.settings import adb_server_port


def pick_serial(server: AdbServer, serial: str | None) -> str | None:
    """``serial`` when it is attached (ConfigError otherwise); without one, the single attached device, None
    when none is attached, ConfigError when several are."""
    if serial is not None:
        if server.state(serial) != "device":
            raise ConfigError(f"device {serial} is not attached (adb devices lists "
                              f"{', '.join(server.devices()) or 'nothing'})")
        return serial
    attached = [s for s, state in server.devices().items() if state == "device"]
    if len(attached) > 1:
        raise ConfigError(f"several devices attached ({', '.join(attached)}); choose one with --device SERIAL")
    return attached[0] if attached else None


@contextmanager
def one_device(serial: str | None, data_dir: Path, *, embedded: bool = True,
               vdevice_mode: str = "deterministic", force_embedded: bool = False,
               provision: Callable[[str], None] | None = None) -> Iterator[Driver]:
    """A driver for the chosen device; with no device attached and ``embedded``, a fresh virtual device
    (state under ``data_dir/vdevices``, behaving as ``vdevice_mode`` says) that lives as long as the block,
    prepared by ``provision(serial)`` when given (the provisioning layer's
    :func:`emukit.provision.embedded.provisioner_for` says what a mode needs; this layer does not import it).
    ``force_embedded``: that fresh virtual device even when devices are attached (they are left alone)."""
    from emukit.device.ownership import SerialClaim

    server = AdbServer(adb_server_port())
    server.start()
    proc = None
    claim = None
    given = serial is not None
    if force_embedded and given:
        server.release()
        raise ConfigError("--embedded starts a device of its own: give it or --device, not both")
    try:
        serial = None if force_embedded else pick_serial(server, serial)
        if serial is not None:  # a device this command did not start: say so, and hold it for the command
            claim = SerialClaim.acquire(server.port, serial)
            why = "given with --device" if given else "the one device attached; give --device to choose"
            print(f"using attached device {serial} (not started by emukit: {why})", file=sys.stderr, flush=True)
    except BaseException:
        server.release()
        raise
    if serial is None:
        if not embedded:
            raise ConfigError("no device attached; give --device SERIAL")
        from emukit.device.virtual import VirtualDeviceProcess, free_adb_ports
        from emukit.settings import vdevice_port_base

        port = free_adb_ports(1, start=vdevice_port_base())[0]  # private: only our adb server lists it
        proc = VirtualDeviceProcess(port, data_dir / "vdevices" / f"embedded-{port}", server,
                                    mode=vdevice_mode)
        serial = proc.start()
        if provision is not None:
            try:
                provision(serial)
            except BaseException:
                proc.stop()
                server.release([serial])
                raise
    driver = Driver(serial, adb_server_port())
    try:
        yield driver
    finally:
        driver.close()
        if proc is not None:
            proc.stop()
        if claim is not None:
            claim.release()
        server.release([serial] if proc is not None else ())
