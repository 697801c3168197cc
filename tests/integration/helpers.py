"""Small helpers shared by the integration tests (real adb server, real virtual device processes)."""

from __future__ import annotations

import subprocess
import time

import adbutils

from emukit.device.adbserver import AdbServer, adb_binary


def emu(server: AdbServer, serial: str, *args: str) -> str:
    """``adb emu ARGS`` through the real adb client; returns what it printed."""
    out = subprocess.run([adb_binary(), "-P", str(server.port), "-s", serial, "emu", *args], env=server.env,
                         capture_output=True, text=True, timeout=60)
    return out.stdout + out.stderr


def device(server: AdbServer, serial: str) -> adbutils.AdbDevice:
    return adbutils.AdbClient(port=server.port).device(serial)


def wait_usable(server: AdbServer, serial: str, timeout: float = 30.0) -> adbutils.AdbDevice:
    """After adbd restarts (root) or the transport drops, poll until a shell command goes through again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            dev = device(server, serial)
            if dev.shell("echo ok") == "ok":
                return dev
        except adbutils.AdbError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)
