"""uiautomator2 JSON-RPC over kept-alive streams (emukit.device.adbwire).

The adb smart-socket handshake is replaced by socket pairs (``AdbWire._connect`` is patched to hand out one
end); the other end is served by the virtual device's real uiautomator2 HTTP server (``serve_connection``)
on a real in-process VirtualDevice. The end-to-end path through the adb server is covered by the driver
and builder tests."""

from __future__ import annotations

import socket
import threading

import pytest

from emukit.device.adbwire import AdbWire, JsonRpcError
from emukit.errors import DeviceError
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.u2server import serve_connection


class Streams:
    """Hands out device streams; each one is served until either side closes it."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.opened: list[socket.socket] = []  # the device-side ends
        self.services: list[str] = []

    def connect(self, service: str, timeout: float | None = None) -> socket.socket:
        self.services.append(service)
        client, server = socket.socketpair()
        client.settimeout(timeout or 5)
        self.opened.append(server)

        def run() -> None:
            with server:
                serve_connection(self.device, lambda: server.recv(65536), server.sendall)

        threading.Thread(target=run, daemon=True).start()
        return client


@pytest.fixture
def wire(tmp_path, monkeypatch) -> tuple[AdbWire, Streams]:
    streams = Streams(VirtualDevice(tmp_path / "dev", wipe=True))
    wire = AdbWire("emulator-5554", 1)
    monkeypatch.setattr(wire, "_connect", streams.connect)
    yield wire, streams
    wire.close()


def test_calls_share_one_stream(wire) -> None:
    w, streams = wire
    for _ in range(5):
        assert w.jsonrpc("waitForIdle", [100]) is True
    assert w.jsonrpc("deviceInfo")["displayWidth"] == 1080
    assert streams.services == ["tcp:9008"]
    with pytest.raises(JsonRpcError) as err:  # an RPC error leaves the stream usable
        w.jsonrpc("objInfo", [{"mask": 1, "childOrSibling": [], "childOrSiblingSelector": [], "text": "nope"}])
    assert err.value.not_found
    assert w.jsonrpc("isScreenOn") is True
    assert len(streams.services) == 1


def test_a_stream_closed_while_idle_is_replaced_once(wire) -> None:
    w, streams = wire
    assert w.jsonrpc("isScreenOn") is True
    streams.opened[0].shutdown(socket.SHUT_RDWR)  # the device side goes away between calls
    assert w.jsonrpc("isScreenOn") is True
    assert streams.services == ["tcp:9008", "tcp:9008"]
    assert w.jsonrpc("isScreenOn") is True and len(streams.services) == 2


def test_a_fresh_stream_closed_without_answer_is_an_error(wire, monkeypatch) -> None:
    w, streams = wire

    def dead(service: str, timeout: float | None = None) -> socket.socket:
        streams.services.append(service)
        client, server = socket.socketpair()
        server.close()
        return client

    monkeypatch.setattr(w, "_connect", dead)
    with pytest.raises(DeviceError, match="closed the stream without answering"):
        w.jsonrpc("isScreenOn")
    assert streams.services == ["tcp:9008"]  # no retry on a stream that was never kept
