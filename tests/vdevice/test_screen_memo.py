"""The screen memo: reading requests reuse the composed screen, anything that may change the device (shell
commands, uiautomator2 actions, console commands) invalidates it. In process: the real shell interpreter,
uiautomator2 method table and console dispatcher against a real VirtualDevice (no adb involved)."""

from __future__ import annotations

import socket

import pytest

from emukit.vdevice.console import ConsoleSession
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from emukit.vdevice.u2server import call

DOWNLOADS = "/storage/emulated/0/Download"  # where the Files app opens


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.start_activity("com.google.android.documentsui")
    return dev


def sh(device: VirtualDevice, command: str) -> bytes:
    out: list[bytes] = []
    assert run_shell(device, command, out.append, out.append) == 0, out
    return b"".join(out)


def rpc(device: VirtualDevice, method: str, *params):
    response = call(device, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert "error" not in response, response
    return response["result"]


def test_reading_requests_share_one_composition(device: VirtualDevice) -> None:
    with device.ui_reading():
        first = device.wm.windows()
        assert device.wm.windows() is first
        assert device.wm.hierarchy_xml() is device.wm.hierarchy_xml()
    assert device.wm.windows() is not first  # outside a request: always afresh
    epoch = device.ui_epoch
    rpc(device, "dumpWindowHierarchy")
    rpc(device, "objInfo", {"mask": 1, "childOrSibling": [], "childOrSiblingSelector": [], "text": "No items"})
    sh(device, "screencap -p")
    assert device.ui_epoch == epoch  # reads never invalidate


def test_shell_commands_invalidate_what_the_screen_shows(device: VirtualDevice) -> None:
    before = rpc(device, "dumpWindowHierarchy")
    png = sh(device, "screencap -p")
    assert "memo_probe.txt" not in before
    epoch = device.ui_epoch
    sh(device, f"echo hi > {DOWNLOADS}/memo_probe.txt")
    assert device.ui_epoch >= epoch + 2  # before and after the command
    assert "memo_probe.txt" in rpc(device, "dumpWindowHierarchy")
    assert sh(device, "screencap -p") != png
    # a screenshot written to a file is a change too (the Files app lists it)
    epoch = device.ui_epoch
    sh(device, f"screencap -p {DOWNLOADS}/shot.png")
    assert device.ui_epoch > epoch and "shot.png" in rpc(device, "dumpWindowHierarchy")


def test_actions_and_console_commands_invalidate(device: VirtualDevice) -> None:
    files = rpc(device, "dumpWindowHierarchy")
    rpc(device, "pressKeyCode", 3)  # HOME
    home = rpc(device, "dumpWindowHierarchy")
    assert home != files and "Files in Downloads" not in home
    x, y = _center(device, resourceId="com.google.android.apps.nexuslauncher:id/hotseat")
    rpc(device, "swipe", x, y, x, y // 4, 30)  # up from the hotseat: All Apps
    assert rpc(device, "dumpWindowHierarchy") != home
    rpc(device, "click", *_center(device, text="Files"))
    assert rpc(device, "dumpWindowHierarchy") == files
    epoch = device.ui_epoch
    host, peer = socket.socketpair()
    with host, peer:
        session = ConsoleSession(host, device, on_kill=lambda: None, on_fault=lambda *_: "")
        session.authed = True
        assert session._handle("avd snapshot list")
        assert peer.recv(4096).endswith(b"OK\r\n")
    assert device.ui_epoch >= epoch + 2


def _center(device: VirtualDevice, **selector: str) -> tuple[int, int]:
    from uiautomator2._selector import Selector

    info = rpc(device, "objInfo", dict(Selector(**selector)))
    b = info["bounds"]
    return (b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2
