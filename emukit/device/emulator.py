"""Launch a real Android emulator headless, with explicit ports, and shut it down.

Written from the emulator's documented command line and the anchors' launchers (android_env,
android_world); not yet verified on hardware here (no system image can be fetched on these machines).
The adb-side steps (boot wait, setup, health) are in :mod:`emukit.device.boot` and are shared with the
virtual device.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from emukit.device import boot, lifeline
from emukit.device.adbserver import AdbServer
from emukit.device.sdk import AndroidSdk
from emukit.errors import DeviceError
from emukit.settings import home_dir

DEFAULT_FEATURES = ("AllowSnapshotMigration", "MigratableSnapshotSave")


def check_console_port(port: int) -> int:
    """An emulator console port: even, in 1024..65534 (adb uses the next one)."""
    if port % 2 or not 1024 <= port < 65535:
        raise ValueError(f"console_port must be an even port in 1024..65534, got {port}")
    return port


class EmulatorConfig(BaseModel):
    """How one emulator instance is started. ``console_port`` is even; adb uses ``console_port + 1`` and
    the serial is ``emulator-<console_port>``."""

    avd_name: str
    console_port: int = 5554
    grpc_port: int | None = 8554
    window: bool = False
    audio: bool = False
    boot_animation: bool = False
    gpu: str = "swiftshader_indirect"
    accel: Literal["on", "off", "auto"] = "on"
    memory_mb: int | None = 2048
    snapshot: str | None = Field(default=None, description="boot from this snapshot; None = -no-snapshot")
    read_only: bool = False
    features: list[str] = list(DEFAULT_FEATURES)
    extra_args: list[str] = []
    env: dict[str, str] = Field(default_factory=dict, description="extra environment for the emulator")
    boot_timeout_s: float = 300.0
    boot_poll_interval_s: float = 2.0
    shutdown_timeout_s: float = 30.0
    log_dir: Path | None = None

    @field_validator("console_port")
    @classmethod
    def _even_port(cls, port: int) -> int:
        return check_console_port(port)

    @property
    def adb_port(self) -> int:
        return self.console_port + 1

    @property
    def serial(self) -> str:
        return f"emulator-{self.console_port}"


def build_command(emulator: Path | str, config: EmulatorConfig) -> list[str]:
    """The emulator command line for ``config``, e.g. ``emulator -avd NAME -no-window -no-audio
    -no-boot-anim -gpu swiftshader_indirect -accel on -memory 2048 -ports 5554,5555 -grpc 8554
    -no-snapshot -feature AllowSnapshotMigration,MigratableSnapshotSave``."""
    cmd = [str(emulator), "-avd", config.avd_name]
    if not config.window:
        cmd.append("-no-window")
    if not config.audio:
        cmd.append("-no-audio")
    if not config.boot_animation:
        cmd.append("-no-boot-anim")
    cmd += ["-gpu", config.gpu, "-accel", config.accel]
    if config.memory_mb:
        cmd += ["-memory", str(config.memory_mb)]
    cmd += ["-ports", f"{config.console_port},{config.adb_port}"]
    if config.grpc_port is not None:
        cmd += ["-grpc", str(config.grpc_port)]
    cmd += ["-snapshot", config.snapshot] if config.snapshot else ["-no-snapshot"]
    if config.read_only:
        cmd.append("-read-only")
    if config.features:
        cmd += ["-feature", ",".join(config.features)]
    return cmd + list(config.extra_args)


def emulator_env(sdk: AndroidSdk, server: AdbServer, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The emulator's environment: the adb server's (its port, its HOME with the console token), the SDK
    variables, then ``extra``."""
    env = dict(server.env)
    env["ANDROID_SDK_ROOT"] = str(sdk.root)
    env["ANDROID_HOME"] = str(sdk.root)
    for var in ("ANDROID_AVD_HOME", "ANDROID_USER_HOME", "ANDROID_EMULATOR_HOME"):
        if sdk.env.get(var) and var not in env:
            env[var] = sdk.env[var]
    env.update(extra or {})
    return env


_PROP_LINE = re.compile(r"^\[([^\]]+)\]: \[(.*)$")


def parse_getprop(text: str) -> dict[str, str]:
    """``adb shell getprop`` output (``[name]: [value]`` lines; a value may span lines) as a dict."""
    props: dict[str, str] = {}
    key: str | None = None
    value = ""
    for line in text.splitlines():
        m = _PROP_LINE.match(line) if key is None else None
        if m:
            key, value = m.group(1), m.group(2)
        elif key is not None:
            value += "\n" + line
        else:
            continue
        if value.endswith("]"):
            props[key] = value[:-1]
            key = None
    return props


class DeviceProps(BaseModel):
    """What emukit checks in a device's properties."""

    sdk: int | None
    release: str | None
    model: str | None
    abi: str | None
    build_type: str | None
    avd_name: str | None
    is_emulator: bool
    boot_completed: bool

    @property
    def root_capable(self) -> bool:
        """``adb root`` works on userdebug/eng builds (Google APIs images), not on user (Google Play)."""
        return self.build_type in ("userdebug", "eng")


def summarize_props(props: Mapping[str, str]) -> DeviceProps:
    """The :class:`DeviceProps` of a parsed ``getprop`` dump."""
    sdk = props.get("ro.build.version.sdk", "")
    return DeviceProps(sdk=int(sdk) if sdk.isdigit() else None, release=props.get("ro.build.version.release"),
                       model=props.get("ro.product.model"), abi=props.get("ro.product.cpu.abi"),
                       build_type=props.get("ro.build.type"),
                       avd_name=props.get("ro.boot.qemu.avd_name") or props.get("ro.kernel.qemu.avd_name"),
                       is_emulator="1" in (props.get("ro.boot.qemu"), props.get("ro.kernel.qemu")),
                       boot_completed=props.get("sys.boot_completed") == "1")


def port_in_use(port: int) -> bool:
    """True when something listens on 127.0.0.1:``port`` (TIME_WAIT leftovers of a dead process do not
    count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def tail(path: Path | None, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file ("" when there is none)."""
    if path is None or not Path(path).is_file():
        return ""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        fh.seek(max(0, fh.tell() - 64 * 1024))
        text = fh.read().decode("utf-8", "replace")
    return "\n".join(text.splitlines()[-lines:])


class EmulatorProcess:
    """One emulator process: start it, wait for boot, stop it. Output goes to ``log_path``."""

    def __init__(self, config: EmulatorConfig, sdk: AndroidSdk, server: AdbServer,
                 log_path: Path | None = None) -> None:
        self.config = config
        self.sdk = sdk
        self.server = server
        log_dir = config.log_dir or home_dir() / "logs"
        self.log_path = Path(log_path) if log_path else Path(log_dir) / f"{config.serial}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def serial(self) -> str:
        return self.config.serial

    def command(self) -> list[str]:
        """The full command line this process runs."""
        return build_command(self.sdk.emulator(), self.config)

    def start(self) -> None:
        """Start the emulator in its own session (so a kill reaches its children); returns at once."""
        if self.alive():
            raise DeviceError(f"{self.serial}: emulator already running (pid {self.proc.pid})")
        cmd = self.command()
        busy = [p for p in (self.config.console_port, self.config.adb_port, self.config.grpc_port)
                if p is not None and port_in_use(p)]
        if busy:
            raise DeviceError(f"{self.serial}: port(s) {busy} already in use on 127.0.0.1 "
                              "(another emulator or virtual device?)")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            log.write(f"$ {' '.join(cmd)}\n".encode())
            log.flush()
            try:
                # under the lifeline: the emulator (qemu and its helpers: one process group) is stopped by the
                # watchdog if this command dies (emukit.device.lifeline)
                self.proc = lifeline.popen(cmd, what=f"emulator {self.serial}",
                                           env=emulator_env(self.sdk, self.server, self.config.env),
                                           stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            except OSError as exc:
                raise DeviceError(f"{self.serial}: cannot start {cmd[0]}: {exc}") from exc

    def alive(self) -> bool:
        """True while the emulator process runs."""
        return self.proc is not None and self.proc.poll() is None

    def wait_booted(self, timeout: float | None = None) -> float:
        """Wait for ``sys.boot_completed=1``; returns the seconds waited. Fails fast if the process exits."""
        return boot.wait_boot_completed(self.server, self.serial, timeout or self.config.boot_timeout_s,
                                        self.config.boot_poll_interval_s, alive=self.alive)

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the emulator's log."""
        return tail(self.log_path, lines)

    def stop(self, timeout: float | None = None) -> int | None:
        """``adb emu kill``, wait for the process to exit, then SIGTERM and SIGKILL its process group;
        returns the exit code (None when it was never started)."""
        if self.proc is None:
            return None
        timeout = self.config.shutdown_timeout_s if timeout is None else timeout
        if self.proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired, DeviceError, OSError):
                self.server.adb("-s", self.serial, "emu", "kill", timeout=min(10.0, timeout), check=False)
            deadline = time.monotonic() + timeout
            while self.proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                continue
        if self.proc.poll() is not None:
            lifeline.forget(self.proc)
        return self.proc.poll()
