"""Start and stop virtual devices (``emukit vdevice serve`` processes) for the driver, tests and the builder.

The rest of emukit reaches a virtual device only through adb, exactly like an emulator; this module only
launches the process and waits until the adb server lists it as ``device``.

A device started here never outlives its owner: it is started through :mod:`emukit.device.lifeline`
(stopped by the watchdog, and by itself, when the owning command dies by any signal) and its state dir is
locked for the owner (:class:`emukit.device.ownership.DeviceClaim`), so that ``emukit devices --reap`` can
tell a leftover from a device in use. Embedded devices listen on ports from
:func:`emukit.settings.vdevice_port_base` (:data:`FIRST_PRIVATE_PORT` unless ``EMUKIT_VDEVICE_PORTS`` says
otherwise), outside 5555-5585, the range every adb server scans for emulators: only the adb server they
register with (their owner's) ever lists them.

A freshly wiped device can start from a **template** (``EMUKIT_VDEVICE_TEMPLATE``, written by ``emukit
vdevice template``): the clean snapshot and every base snapshot, built once on another device of the same
mode and display and linked into the new device's state dir before it starts, so the device holds them
without building them (:func:`seed_from_template`). A saved snapshot's files never change (a save writes a new
folder and renames it into place; a load copies out of it), so the template's files are hard-linked, not copied
(copied where the filesystem cannot link them).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Self

from emukit.device import lifeline
from emukit.device.adbserver import AdbServer
from emukit.device.ownership import DeviceClaim
from emukit.errors import ConfigError, DeviceError
from emukit.provenance import VIRTUAL_MODES
from emukit.screens import DEFAULT_SCREEN
from emukit.settings import DEFAULT_VDEVICE_PORT

SCANNED_PORTS = range(5555, 5586)  # adb servers look for emulators on these adb ports at start
FIRST_TEST_PORT = 20001  # tests' devices, outside the scanned range
FIRST_PRIVATE_PORT = DEFAULT_VDEVICE_PORT  # embedded devices of emukit commands (EMUKIT_VDEVICE_PORTS moves it)


GRPC_OFFSET = 3000  # `emukit vdevice serve` puts its gRPC controller on adb port + 3000 by default


def port_pair_free(adb_port: int) -> bool:
    """The adb port, the console port (adb port - 1) and the default gRPC port can be bound on loopback."""
    for port in (adb_port - 1, adb_port, adb_port + GRPC_OFFSET):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                return False
    return True


def free_adb_ports(count: int, start: int = FIRST_TEST_PORT) -> list[int]:
    """``count`` odd adb ports whose console ports are free too."""
    ports: list[int] = []
    port = start | 1
    while len(ports) < count:
        if port > 65535:
            raise DeviceError("no free port pairs left on 127.0.0.1")
        if port_pair_free(port):
            ports.append(port)
        port += 2
    return ports


class PortInUse(DeviceError):
    """The device could not bind its ports (another process took them first): retry on other ports."""


Screen = tuple[int, int, int]  # (width px, height px, density dpi)


VDEVICE_MODES = VIRTUAL_MODES  # defined once, in emukit.provenance

TEMPLATE_MANIFEST = "template.json"
TEMPLATE_FORMAT = 1


def read_template(template: Path) -> dict:
    """The manifest of a virtual-device template folder (``{"format", "mode", "screen", "snapshots"}``);
    ConfigError naming the file when it is missing or malformed."""
    path = Path(template) / TEMPLATE_MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: not a virtual-device template ({exc.strerror}); write one with "
                          "`emukit vdevice template --out DIR`") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != TEMPLATE_FORMAT:
        raise ConfigError(f"{path}: format {manifest.get('format') if isinstance(manifest, dict) else None!r} "
                          f"is not {TEMPLATE_FORMAT}; write the template again with `emukit vdevice template`")
    for key, kind in (("mode", str), ("screen", list), ("snapshots", dict)):
        if not isinstance(manifest.get(key), kind):
            raise ConfigError(f"{path}: field {key!r} is missing or not a {kind.__name__}")
    return manifest


def seed_from_template(template: Path, state_dir: Path, *, mode: str, screen: Screen | None) -> list[str]:
    """Put the template's snapshots that ``state_dir`` lacks into it (:func:`install_snapshot`); returns their
    names. A template is made on one kind of device: for another mode or display nothing is put there (the
    device builds its own)."""
    manifest = read_template(template)
    if manifest["mode"] != mode or tuple(manifest["screen"]) != tuple(screen or DEFAULT_SCREEN):
        return []
    target = Path(state_dir) / "snapshots"
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for name in sorted(manifest["snapshots"]):
        source = Path(template) / "snapshots" / name
        if (target / name).exists():
            continue
        if not (source / "meta.json").exists():
            raise ConfigError(f"{source}: listed in {Path(template) / TEMPLATE_MANIFEST} but missing")
        install_snapshot(source, target)
        copied.append(name)
    return copied


def install_snapshot(source: Path, snapshots_dir: Path) -> None:
    """Put snapshot folder ``source`` into a device's ``snapshots_dir`` under its own name, replacing one of
    that name; its files are hard links to the source's where the filesystem allows (a saved snapshot is never
    written to: see :mod:`emukit.vdevice.snapshots`), else copies; renamed into place only once complete."""
    partial = snapshots_dir / f".{source.name}.seeding"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, symlinks=True, copy_function=_link_or_copy)
    shutil.rmtree(snapshots_dir / source.name, ignore_errors=True)
    os.replace(partial, snapshots_dir / source.name)


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link ``dst`` to ``src``; a copy where they are on different filesystems or links are refused
    (``shutil.copytree``'s ``copy_function``)."""
    try:
        os.link(src, dst)
    except OSError:  # EXDEV, EPERM, EMLINK, or a filesystem without hard links
        shutil.copy2(src, dst)


class VirtualDeviceProcess:
    """One ``emukit vdevice serve`` child process; ``screen`` (width, height, dpi) is its display (default:
    the virtual device's, 1080x2400 at 420 dpi) and ``mode`` its behaviour (:data:`VDEVICE_MODES`; default
    deterministic), both fixed for the life of the process. ``template``: the template folder a wiped device
    starts from (:func:`seed_from_template`); default ``$EMUKIT_VDEVICE_TEMPLATE``, ``False`` for none.
    ``env``: variables added to the process's environment (e.g. a ``PYTHONPATH`` holding outside apps named by
    ``emukit.virtual_apps`` entry points)."""

    def __init__(self, adb_port: int, state_dir: Path, server: AdbServer, *, wipe: bool = True,
                 clock: str = "logical", log_path: Path | None = None, screen: Screen | None = None,
                 mode: str = "deterministic", template: Path | bool | None = None,
                 env: dict[str, str] | None = None) -> None:
        if mode not in VDEVICE_MODES:
            raise ValueError(f"virtual device mode {mode!r} is not one of {', '.join(VDEVICE_MODES)}")
        if screen is not None:
            from emukit.screens import check_screen

            check_screen(tuple(screen))  # type: ignore[arg-type]
        self.adb_port = adb_port
        self.state_dir = Path(state_dir)
        self.server = server
        self.wipe = wipe
        self.clock = clock
        self.mode = mode
        self.screen: Screen | None = tuple(screen) if screen is not None else None  # type: ignore[assignment]
        self.log_path = log_path or self.state_dir.with_suffix(".log")
        if template is None or template is True:
            from emukit.settings import vdevice_template

            template = vdevice_template()
        self.template: Path | None = Path(template) if template else None
        self.extra_env = dict(env or {})
        self.proc: subprocess.Popen[bytes] | None = None
        self.claim: DeviceClaim | None = None

    @property
    def serial(self) -> str:
        return f"emulator-{self.adb_port - 1}"

    def start(self, timeout: float = 30.0) -> str:
        """Launch the process and wait until adb lists it as ``device``; returns the serial."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if self.claim is None:
            self.claim = DeviceClaim.acquire(self.serial, self.state_dir, adb_port=self.adb_port,
                                             adb_server_port=self.server.port)
        if self.wipe and self.template is not None:
            seed_from_template(self.template, self.state_dir, mode=self.mode, screen=self.screen)
        cmd = [sys.executable, "-m", "emukit", "vdevice", "serve", "--port", str(self.adb_port),
               "--state-dir", str(self.state_dir.resolve()), "--clock", self.clock, "--mode", self.mode]
        if self.wipe:
            cmd.append("--wipe-data")
        if self.screen is not None:
            from emukit.screens import format_screen

            cmd += ["--screen", format_screen(self.screen)]
        env = {**self.server.env, **self.extra_env}
        with open(self.log_path, "ab") as log:
            self.proc = lifeline.popen(cmd, what=f"virtual device {self.serial}", env=env,
                                       stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.claim.update(device_pid=self.proc.pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
                kind = PortInUse if "is not free" in tail else DeviceError
                self.stop()
                raise kind(f"virtual device {self.serial} exited with {self.proc.returncode}; "
                           f"see {self.log_path}: {tail.strip().splitlines()[-1] if tail.strip() else ''}")
            if self.server.state(self.serial) == "device":
                return self.serial
            time.sleep(0.05)
        self.stop()
        raise DeviceError(f"virtual device {self.serial} did not come up within {timeout:.0f} s; "
                          f"see {self.log_path}")

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout``; returns the exit code. Releases the state dir's claim."""
        try:
            return self._stop_process(timeout)
        finally:
            if self.claim is not None:
                self.claim.release()
                self.claim = None

    def _stop_process(self, timeout: float) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        lifeline.forget(self.proc)
        return self.proc.returncode

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
