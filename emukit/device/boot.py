"""The adb side of a device's life, the same for an emulator and a virtual device: wait for boot, post-boot
setup (animations off, automatic time off, 24-hour clock, root, pinned clock), health checks, and the adb
server restart that android_env does when adb itself fails.

Every wait polls a condition with a deadline and raises DeviceError naming the serial and what it awaited.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import subprocess
import time
from collections.abc import Callable, Iterable

from pydantic import BaseModel, Field

from emukit.device.adbserver import AdbServer
from emukit.errors import DeviceError

NOT_READY_STATES = ("offline", "unauthorized", "authorizing", "connecting", "no permissions")
ANIMATION_SETTINGS = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")


class PostBootConfig(BaseModel):
    """What :func:`post_boot_setup` does after boot (and :func:`after_snapshot_load` after a load)."""

    root: bool = True
    disable_animations: bool = True
    auto_time_off: bool = True
    time_24h: bool = True
    clock_anchor: dt.datetime | None = Field(
        default=None, description="wall time pinned with `date` (naive = device local time, aware = UTC)")
    command_timeout_s: float = 30.0
    root_timeout_s: float = 60.0
    poll_interval_s: float = 0.1


def adb_shell(server: AdbServer, serial: str, command: str, timeout: float = 30.0) -> str:
    """Run ``adb -s SERIAL shell COMMAND``; returns stdout without the trailing newline. Raises DeviceError
    (naming the serial and command) on a non-zero exit or when the command outlives ``timeout``."""
    try:
        out = server.adb("-s", serial, "shell", command, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise DeviceError(f"{serial}: 'adb shell {command}' did not finish within {timeout:.0f} s") from exc
    except DeviceError as exc:
        raise DeviceError(f"{serial}: {exc}") from exc
    return out.rstrip("\r\n")


def wait_until(check: Callable[[], bool], *, serial: str, what: str, timeout: float, interval: float,
               alive: Callable[[], bool] | None = None) -> float:
    """Poll ``check`` (a DeviceError from it counts as "not yet") every ``interval`` s until it is true;
    returns the seconds waited. Raises DeviceError when ``timeout`` passes or ``alive`` turns false."""
    start = time.monotonic()
    last = "no answer yet"
    while True:
        if alive is not None and not alive():
            raise DeviceError(f"{serial}: the device process exited while waiting for {what}")
        try:
            if check():
                return time.monotonic() - start
        except DeviceError as exc:
            last = str(exc)
        if time.monotonic() - start > timeout:
            raise DeviceError(f"{serial}: timed out after {timeout:.0f} s waiting for {what} (last: {last})")
        time.sleep(interval)


def _state_is_device(server: AdbServer, serial: str) -> bool:
    state = server.state(serial)
    if state != "device":
        raise DeviceError(f"adb lists it as {state or 'absent'}")
    return True


def responds(server: AdbServer, serial: str, timeout: float = 10.0) -> bool:
    """True when adb lists ``serial`` as ``device`` and ``shell echo ok`` answers within ``timeout``."""
    return _state_is_device(server, serial) and adb_shell(server, serial, "echo ok", timeout) == "ok"


def wait_usable(server: AdbServer, serial: str, timeout: float = 60.0, interval: float = 0.1,
                alive: Callable[[], bool] | None = None) -> float:
    """Wait until adb lists the device as ``device`` (not offline/unauthorized) and a shell command goes
    through; returns the seconds waited."""
    return wait_until(lambda: responds(server, serial, min(10.0, timeout)), serial=serial,
                      what="adb state 'device' and 'shell echo ok'", timeout=timeout, interval=interval,
                      alive=alive)


def boot_completed(server: AdbServer, serial: str, timeout: float = 10.0) -> bool:
    """True when the device is listed as ``device`` and ``getprop sys.boot_completed`` is ``1``."""
    return (_state_is_device(server, serial)
            and adb_shell(server, serial, "getprop sys.boot_completed", timeout).strip() == "1")


def wait_boot_completed(server: AdbServer, serial: str, timeout: float = 300.0, interval: float = 2.0,
                        alive: Callable[[], bool] | None = None) -> float:
    """Poll ``getprop sys.boot_completed`` until it is ``1`` (``offline``/``unauthorized`` count as not
    yet); returns the seconds waited. ``alive`` lets the poll fail fast when the emulator process died."""
    return wait_until(lambda: boot_completed(server, serial, min(10.0, timeout)), serial=serial,
                      what="sys.boot_completed=1", timeout=timeout, interval=interval, alive=alive)


def healthy(server: AdbServer, serial: str, timeout: float = 10.0) -> bool:
    """True when ``shell echo ok`` answers within ``timeout`` and boot is complete; never raises."""
    try:
        out = adb_shell(server, serial, "echo ok; getprop sys.boot_completed", timeout)
    except DeviceError:
        return False
    return out.split() == ["ok", "1"] and server.state(serial) == "device"


def enable_root(server: AdbServer, serial: str, timeout: float = 60.0, interval: float = 0.1) -> None:
    """``adb root``, then wait until a shell answers again as uid 0 (adbd restarts, the device drops off
    adb for a moment). Raises DeviceError on a production build, where adbd cannot run as root."""
    try:
        out = server.adb("-s", serial, "root", timeout=min(30.0, timeout), check=False)
    except subprocess.TimeoutExpired as exc:
        raise DeviceError(f"{serial}: 'adb root' did not finish within {min(30.0, timeout):.0f} s") from exc
    if "cannot run as root" in out:
        raise DeviceError(f"{serial}: {out.strip()} (use a Google APIs system image, not Google Play)")
    wait_until(lambda: _state_is_device(server, serial) and adb_shell(server, serial, "id -u", 10.0) == "0",
               serial=serial, what="adbd running as root after 'adb root'", timeout=timeout, interval=interval)


def date_command(when: dt.datetime) -> str:
    """The toybox ``date`` command that sets the clock to ``when``: ``date MMDDhhmmYY.ss`` in device local
    time for a naive datetime, ``date -u ...`` (in UTC) for an aware one."""
    if when.tzinfo is not None:
        return "date -u " + when.astimezone(dt.UTC).strftime("%m%d%H%M%y.%S")
    return "date " + when.strftime("%m%d%H%M%y.%S")


def pin_clock(server: AdbServer, serial: str, when: dt.datetime, timeout: float = 30.0) -> None:
    """Set the device wall clock to ``when`` (needs root)."""
    adb_shell(server, serial, date_command(when), timeout)


def setup_commands(config: PostBootConfig) -> list[str]:
    """The ``settings put`` commands :func:`post_boot_setup` runs, in order."""
    cmds: list[str] = []
    if config.disable_animations:
        cmds += [f"settings put global {name} 0" for name in ANIMATION_SETTINGS]
    if config.auto_time_off:
        cmds += ["settings put global auto_time 0", "settings put global auto_time_zone 0"]
    if config.time_24h:
        cmds.append("settings put system time_12_24 24")
    return cmds


def post_boot_setup(server: AdbServer, serial: str, config: PostBootConfig | None = None) -> list[str]:
    """Root (if configured), settings, then the pinned clock; returns the shell commands that ran."""
    config = config or PostBootConfig()
    done: list[str] = []
    if config.root:
        enable_root(server, serial, config.root_timeout_s, config.poll_interval_s)
        done.append("adb root")
    cmds = setup_commands(config)
    if cmds:
        adb_shell(server, serial, " && ".join(cmds), config.command_timeout_s)
        done += cmds
    if config.clock_anchor is not None:
        pin_clock(server, serial, config.clock_anchor, config.command_timeout_s)
        done.append(date_command(config.clock_anchor))
    return done


def after_snapshot_load(server: AdbServer, serial: str, config: PostBootConfig | None = None) -> list[str]:
    """Re-root and re-pin the clock after a snapshot load (a load can roll the guest clock back and
    restores adbd's user); returns the commands that ran."""
    config = config or PostBootConfig()
    done: list[str] = []
    if config.root:
        enable_root(server, serial, config.root_timeout_s, config.poll_interval_s)
        done.append("adb root")
    if config.clock_anchor is not None:
        pin_clock(server, serial, config.clock_anchor, config.command_timeout_s)
        done.append(date_command(config.clock_anchor))
    return done


def adb_server_ok(server: AdbServer, timeout: float = 10.0) -> bool:
    """True when the adb server answers ``adb devices`` within ``timeout``."""
    try:
        server.adb("devices", timeout=timeout)
    except (DeviceError, subprocess.TimeoutExpired, OSError):
        return False
    return True


def announce_emulator(server: AdbServer, adb_port: int) -> None:
    """Send ``host:emulator:<adb_port>`` to the adb server (what an emulator does when it boots), so the
    server connects to an emulator-style device on any port; raises DeviceError if the server is down."""
    request = f"host:emulator:{adb_port}".encode()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(b"%04x" % len(request) + request)
    except OSError as exc:
        raise DeviceError(f"adb server on port {server.port}: cannot announce emulator port {adb_port}: "
                          f"{exc}") from exc


def restart_adb_server(server: AdbServer, timeout: float = 30.0, reannounce: Iterable[int] = ()) -> list[int]:
    """kill-server, start-server, then ``adb devices`` (android_env's recovery from a failed adb call).

    A fresh server only scans ports 5555-5585, so every ``emulator-N`` it listed before the restart, plus
    the adb ports in ``reannounce``, is announced to it again; returns those adb ports."""
    ports = set(reannounce)
    for serial in server.devices():
        if serial.startswith("emulator-") and serial[9:].isdigit():
            ports.add(int(serial[9:]) + 1)
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.adb("kill-server", check=False, timeout=10)
    wait_until(lambda: not server.running(), serial=f"adb server :{server.port}", what="kill-server",
               timeout=10, interval=0.05)
    server.start(timeout)
    for port in sorted(ports):
        announce_emulator(server, port)
    if not adb_server_ok(server, timeout):
        raise DeviceError(f"adb server on port {server.port} does not answer after a restart")
    return sorted(ports)
