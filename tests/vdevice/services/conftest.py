"""Fixtures of the service tests: in-process virtual devices (no adb server, no device process) and a small
recording app, a real :class:`~emukit.vdevice.apps.base.App` whose hooks write down what the services called.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from emukit.vdevice.apps.base import App, Notification
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.state import Activity, PendingAlarm
from emukit.vdevice.ui.view import Bounds, View

PROBE = "org.emukit.probe"
PING = "org.emukit.probe.PING"
RECEIVER = f"{PROBE}/{PROBE}.Receiver"


class ProbeApp(App):
    """An app that records every hook the device's services call, in order."""

    package = PROBE
    label = "Probe"
    activities = (".MainActivity", ".Second")
    receivers: ClassVar[dict[str, tuple[str, ...]]] = {
        ".Receiver": ("android.intent.action.TIME_SET", "android.intent.action.BOOT_COMPLETED", PING)}

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.on_alarm_then: Callable[[VirtualDevice, PendingAlarm], None] | None = None

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        return View(bounds=frame, package=PROBE)

    def on_create(self, device: VirtualDevice, act: Activity, extras: dict[str, str]) -> None:
        self.calls.append(("create", act.activity, dict(extras)))

    def on_process_start(self, device: VirtualDevice) -> None:
        self.calls.append(("process_start",))

    def on_process_stop(self, device: VirtualDevice) -> None:
        self.calls.append(("process_stop",))

    def on_pause(self, device: VirtualDevice, act: Activity) -> None:
        self.calls.append(("pause", act.activity))

    def on_resume(self, device: VirtualDevice, act: Activity) -> None:
        self.calls.append(("resume", act.activity))

    def on_time_changed(self, device: VirtualDevice) -> None:
        self.calls.append(("time", device.state.clock.wall_ms, device.state.clock.elapsed_ms))

    def on_alarm(self, device: VirtualDevice, alarm: PendingAlarm) -> None:
        self.calls.append(("alarm", alarm.tag, device.state.clock.elapsed_ms))
        if self.on_alarm_then is not None:
            self.on_alarm_then(device, alarm)

    def on_broadcast(self, device: VirtualDevice, receiver: str, action: str | None,
                     extras: dict[str, str]) -> None:
        self.calls.append(("broadcast", receiver, action, extras))

    def on_media_scan(self, device: VirtualDevice, path: str) -> None:
        self.calls.append(("media_scan", path))

    def notifications(self, device: VirtualDevice) -> list[Notification]:
        return [Notification(package=PROBE, key="probe", title="Probe running")]

    def seen(self, kind: str) -> list[tuple[Any, ...]]:
        return [c for c in self.calls if c[0] == kind]


def add_probe(device: VirtualDevice) -> ProbeApp:
    """Install the probe by hand (the package manager keeps entries added to its view)."""
    app = ProbeApp()
    device.apps[PROBE] = app
    return app


@pytest.fixture
def det(tmp_path: Path) -> VirtualDevice:
    """A fresh deterministic device: logical clocks, every virtual app installed."""
    return VirtualDevice(tmp_path / "dev", wipe=True)


@pytest.fixture
def hw(tmp_path: Path) -> VirtualDevice:
    """A fresh hardware-mode device: clocks that follow the host, downloaded apps absent until installed."""
    return VirtualDevice(tmp_path / "hw", wipe=True, mode="hardware")


@pytest.fixture
def probe(det: VirtualDevice) -> ProbeApp:
    return add_probe(det)
