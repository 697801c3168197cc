"""Device launchers: one interface over a real emulator and a virtual device.

:class:`DeviceLauncher` holds what every kind needs (attempt counting, bounded retries, the log tail on
failure, one error type, post-boot setup through adb); each kind implements ``_launch_impl``,
``_stop_impl``, ``_alive`` and ``log_tail``.
"""

from __future__ import annotations

import abc
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from emukit.device import boot
from emukit.device.adbserver import AdbServer
from emukit.device.boot import PostBootConfig
from emukit.device.emulator import EmulatorConfig, EmulatorProcess, tail
from emukit.device.sdk import AndroidSdk, find_sdk
from emukit.device.virtual import VirtualDeviceProcess
from emukit.errors import DeviceError

log = logging.getLogger(__name__)


class DeviceLauncher(abc.ABC):
    """Launch, check, relaunch and stop one device reached through ``server``.

    ``max_attempts`` bounds the tries of one :meth:`launch` (android_env: 3). When an attempt fails and the
    adb server no longer answers, it is restarted before the next attempt (``restart_adb_on_failure``).
    """

    kind: ClassVar[str]

    def __init__(self, server: AdbServer, *, setup: PostBootConfig | None = None, max_attempts: int = 3,
                 restart_adb_on_failure: bool = True, health_timeout_s: float = 10.0,
                 provision: Callable[[str], None] | None = None) -> None:
        if max_attempts < 1:
            raise DeviceError(f"max_attempts must be >= 1, got {max_attempts}")
        self.server = server
        self.setup = setup or PostBootConfig()
        self.provision = provision  # run with the serial after post-boot setup (emukit.provision.embedded)
        self.max_attempts = max_attempts
        self.restart_adb_on_failure = restart_adb_on_failure
        self.health_timeout_s = health_timeout_s
        self.attempts = 0  # every attempt ever made
        self.launches = 0  # successful launches
        self.failures: list[str] = []  # one line per failed attempt
        self.running = False
        self._lock = threading.RLock()

    @property
    @abc.abstractmethod
    def serial(self) -> str:
        """The adb serial (``emulator-N``), known before launch because ports are explicit."""

    @abc.abstractmethod
    def _launch_impl(self) -> None:
        """Start the device and return once adb reports boot completed; raise on failure."""

    @abc.abstractmethod
    def _stop_impl(self) -> None:
        """Stop the device (no error when it is not running)."""

    @abc.abstractmethod
    def _alive(self) -> bool:
        """True while the device process runs."""

    @abc.abstractmethod
    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the device process's log."""

    def launch(self) -> str:
        """Start the device, wait for boot, run post-boot setup; retried up to ``max_attempts`` times.
        Returns the serial (at once when the device already runs); raises DeviceError with every attempt's
        error and the last log tail."""
        with self._lock:
            if self.running and self._alive():
                return self.serial
            errors: list[str] = []
            last_tail = ""
            for attempt in range(1, self.max_attempts + 1):
                self.attempts += 1
                try:
                    self._launch_impl()
                    boot.post_boot_setup(self.server, self.serial, self.setup)
                    if self.provision is not None:
                        self.provision(self.serial)
                except Exception as exc:  # noqa: BLE001 -- every failure becomes one DeviceError
                    line = f"attempt {attempt}/{self.max_attempts}: {type(exc).__name__}: {exc}"
                    errors.append(line)
                    self.failures.append(line)
                    last_tail = self.log_tail()
                    log.warning("%s %s launch failed: %s", self.kind, self.serial, line)
                    self._safe_stop()
                    if self.restart_adb_on_failure and not boot.adb_server_ok(self.server):
                        self._restart_adb()
                    continue
                self.launches += 1
                self.running = True
                return self.serial
            self.running = False
            detail = "\n  ".join(errors)
            log_part = f"\nlast log lines:\n{last_tail}" if last_tail else ""
            raise DeviceError(f"{self.kind} device {self.serial} failed to launch after {self.max_attempts} "
                              f"attempt(s):\n  {detail}{log_part}")

    def healthy(self, timeout: float | None = None) -> bool:
        """True when the process runs, ``shell echo ok`` answers within the timeout and boot is complete."""
        return self._alive() and boot.healthy(self.server, self.serial, timeout or self.health_timeout_s)

    def relaunch(self) -> str:
        """Stop the device and launch it again (bounded retries); returns the serial."""
        with self._lock:
            self.stop()
            return self.launch()

    def stop(self) -> None:
        """Stop the device; safe to call when it is not running."""
        with self._lock:
            self._safe_stop()
            self.running = False

    def close(self) -> None:
        """The pool is done with this device for good (after :meth:`stop`): release what the launcher holds
        beyond the device itself. Nothing by default."""

    def after_snapshot_load(self) -> list[str]:
        """Re-root and re-pin the clock after a snapshot load; returns the commands that ran."""
        return boot.after_snapshot_load(self.server, self.serial, self.setup)

    def _safe_stop(self) -> None:
        try:
            self._stop_impl()
        except Exception as exc:  # noqa: BLE001 -- best effort; keep the original error
            log.warning("%s %s: stop failed: %s", self.kind, self.serial, exc)

    def _restart_adb(self) -> None:
        try:
            boot.restart_adb_server(self.server)
        except DeviceError as exc:
            log.warning("adb server restart failed: %s", exc)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.serial}, running={self.running}, attempts={self.attempts})"


class EmulatorLauncher(DeviceLauncher):
    """A real emulator from an AVD (see :mod:`emukit.device.emulator`)."""

    kind = "avd"

    def __init__(self, config: EmulatorConfig, server: AdbServer, *, sdk: AndroidSdk | None = None,
                 setup: PostBootConfig | None = None, max_attempts: int = 3,
                 restart_adb_on_failure: bool = True, health_timeout_s: float = 10.0) -> None:
        super().__init__(server, setup=setup, max_attempts=max_attempts,
                         restart_adb_on_failure=restart_adb_on_failure, health_timeout_s=health_timeout_s)
        self.config = config
        self.process = EmulatorProcess(config, sdk or find_sdk(), server)

    @property
    def serial(self) -> str:
        return self.config.serial

    def command(self) -> list[str]:
        """The emulator command line a launch runs."""
        return self.process.command()

    def _launch_impl(self) -> None:
        self.process.start()
        self.process.wait_booted()

    def _stop_impl(self) -> None:
        self.process.stop()

    def _alive(self) -> bool:
        return self.process.alive()

    def log_tail(self, lines: int = 40) -> str:
        return self.process.log_tail(lines)


class VirtualLauncher(DeviceLauncher):
    """A virtual device (``emukit vdevice serve``) on ``adb_port`` with its state in ``state_dir``, the
    display ``screen`` (width, height, dpi; None: the default 1080x2400 at 420 dpi) and the behaviour
    ``mode`` ("deterministic" or "hardware", :data:`emukit.device.virtual.VDEVICE_MODES`)."""

    kind = "virtual"

    def __init__(self, adb_port: int, state_dir: Path, server: AdbServer, *, wipe: bool = True,
                 clock: str = "logical", start_timeout_s: float = 30.0, setup: PostBootConfig | None = None,
                 max_attempts: int = 3, restart_adb_on_failure: bool = True,
                 health_timeout_s: float = 10.0, screen: tuple[int, int, int] | None = None,
                 mode: str = "deterministic", provision: Callable[[str], None] | None = None) -> None:
        super().__init__(server, setup=setup, max_attempts=max_attempts,
                         restart_adb_on_failure=restart_adb_on_failure, health_timeout_s=health_timeout_s,
                         provision=provision)
        self.start_timeout_s = start_timeout_s
        self.process = VirtualDeviceProcess(adb_port, Path(state_dir), server, wipe=wipe, clock=clock,
                                            screen=screen, mode=mode)

    @property
    def serial(self) -> str:
        return self.process.serial

    def _launch_impl(self) -> None:
        self.process.start(self.start_timeout_s)
        boot.wait_boot_completed(self.server, self.serial, self.start_timeout_s, 0.05, alive=self._alive)

    def _stop_impl(self) -> None:
        self.process.stop()

    def _alive(self) -> bool:
        return self.process.proc is not None and self.process.proc.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        return tail(self.process.log_path, lines)
