"""The session's device pool: deterministic virtual devices started once per test session (per pytest-xdist
worker), leased to a test module at a time and given back in a known state by loading a snapshot instead of
starting a new process.

A lease starts from the device's **clean snapshot** (``emukit_clean`` of the session's template: the state a
wiped device has right after boot). Giving a device back and leasing it again:

1. puts the device's snapshot folder back as the template made it (a snapshot a test saved is removed, one
   it overwrote or deleted is copied again from the template; a save always writes a new folder, so a
   changed one is told by its inode);
2. loads the clean snapshot through the emulator console (files, settings, clipboard, timers and alarms,
   the music queue, installed apps and the back stack are all in it) and waits until adb answers;
3. clears the log buffers (``logcat -c``; logd's buffers are not part of a snapshot's files).

What a snapshot cannot hold, the process's faults switched on by ``fault`` console commands, stays with the
process: tests that inject faults, kill, restart or re-port a device, or need the hardware-like mode or
another display start their own through ``vdevice_factory`` and say why in their docstring.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from emukit.device.adbserver import AdbServer
from emukit.device.driver import Driver
from emukit.device.virtual import VirtualDeviceProcess, install_snapshot, read_template
from emukit.errors import DeviceError
from emukit.snapshots import load_clean


class SessionDevices:
    """Idle devices of this session, each reset before it is leased again."""

    def __init__(self, start: Callable[[], VirtualDeviceProcess], template: Path, server: AdbServer) -> None:
        self._start = start
        self.template = Path(template)
        self.server = server
        self._names = set(read_template(self.template)["snapshots"])
        self._idle: list[VirtualDeviceProcess] = []
        self._baseline: dict[str, dict[str, int]] = {}  # serial -> snapshot name -> inode of its folder
        self.started = 0
        self.resets = 0
        self.dropped = 0

    def lease(self) -> VirtualDeviceProcess:
        """An idle device reset to its clean snapshot, else a new one (started from the template)."""
        while self._idle:
            proc = self._idle.pop()
            if proc.proc is not None and proc.proc.poll() is None:
                try:
                    self.reset(proc)
                except (DeviceError, OSError):  # a test left it unusable (a fault, a dropped transport): a new one instead
                    self.dropped += 1
                    proc.stop()
                    continue
                return proc
            proc.stop()  # it died while idle: drop it
        proc = self._start()
        self.started += 1
        self._baseline[proc.serial] = self._inodes(proc)
        return proc

    def give_back(self, proc: VirtualDeviceProcess) -> None:
        if proc.proc is not None and proc.proc.poll() is None:
            self._idle.append(proc)
        else:
            proc.stop()

    def _inodes(self, proc: VirtualDeviceProcess) -> dict[str, int]:
        root = proc.state_dir / "snapshots"
        return {p.name: p.stat().st_ino for p in root.iterdir() if not p.name.startswith(".")} if root.exists() else {}

    def reset(self, proc: VirtualDeviceProcess, timeout: float = 30.0) -> None:
        """Back to the clean snapshot, with the template's snapshots and nothing else."""
        root = proc.state_dir / "snapshots"
        baseline = self._baseline.get(proc.serial, {})
        now = self._inodes(proc)
        for name in now:
            if name not in self._names:
                shutil.rmtree(root / name)
        for name in self._names:
            if now.get(name) != baseline.get(name):
                install_snapshot(self.template / "snapshots" / name, root)
        self._baseline[proc.serial] = self._inodes(proc)
        driver = Driver(proc.serial, self.server.port)
        try:
            load_clean(driver, timeout)  # through the console, then until adb answers again
            driver.shell("logcat -c", check=True)
        finally:
            driver.close()
        self.resets += 1

    def close(self) -> None:
        for proc in self._idle:
            proc.stop()
        self._idle.clear()
