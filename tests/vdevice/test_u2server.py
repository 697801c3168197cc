"""The virtual uiautomator2 server, in process: raw HTTP through ``serve_connection`` and the real
uiautomator2 3.x client over a socket pair (no adb involved).

The window manager is being written separately, so these tests replace ``device.wm`` with
:class:`RecordingWM`, a thin wrapper around the real one: it delegates ``windows()``, ``hierarchy_xml()``,
``screenshot_image()`` and ``memo()`` to the real window manager, records every input call (tap, swipe, key...) and
applies the few effects the tests check itself (``on_click`` of the tapped view, ``on_text`` of a field).
"""

from __future__ import annotations

import base64
import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from emukit.vdevice.apps.base import App
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.state import Activity
from emukit.vdevice.u2server import serve_connection
from emukit.vdevice.ui.view import Bounds, View

PKG = "com.example.demo"
ROWS = 30
ROW_H = 150


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


class DemoApp(App):
    """One screen: a title, two buttons, a search field, a checkbox and a scrollable list of rows."""

    package = PKG
    label = "Demo"
    activities = (".MainActivity",)

    def __init__(self) -> None:
        self.frame: Bounds = (0, 0, 0, 0)

    def build(self, device: VirtualDevice, act: Activity, frame: Bounds) -> View:
        self.frame = frame
        left, top, right, bottom = frame
        st = act.state
        focused = device.state.ui.focused_id

        def set_query(text: str) -> None:
            st["query"] = text

        def scroll(dy: int) -> None:
            st["offset"] = max(0, min((ROWS - 4) * ROW_H, st.get("offset", 0) + dy))

        root = View(bounds=frame, resource_id="android:id/content")
        root.add(View(cls="android.widget.TextView", bounds=(left, top, right, top + 150), text="Hello Demo",
                      resource_id=rid("title")))
        root.add(View(cls="android.widget.Button", bounds=(40, top + 200, 520, top + 350), text="OK",
                      resource_id=rid("ok"), content_desc="Confirm button", clickable=True,
                      on_click=lambda: st.__setitem__("ok", st.get("ok", 0) + 1)))
        root.add(View(cls="android.widget.Button", bounds=(560, top + 200, 1040, top + 350), text="Cancel",
                      resource_id=rid("cancel"), clickable=True, long_clickable=True))
        root.add(View(cls="android.widget.EditText", bounds=(40, top + 400, 1040, top + 520),
                      text=st.get("query", ""), hint="Search", resource_id=rid("query"), editable=True,
                      clickable=True, focused=focused == rid("query"), on_text=set_query))
        root.add(View(cls="android.widget.CheckBox", bounds=(40, top + 560, 1040, top + 660), text="Remember",
                      checkable=True, checked=bool(st.get("remember")), clickable=True))
        if st.get("banner"):
            root.add(View(cls="android.widget.TextView", bounds=(40, top + 680, 1040, top + 760),
                          text="Banner shown", resource_id=rid("banner")))
        list_top = top + 800
        rows = View(cls="androidx.recyclerview.widget.RecyclerView", resource_id=rid("list"),
                    bounds=(0, list_top, 1080, list_top + 600), scrollable=True, on_scroll=scroll)
        first = st.get("offset", 0) // ROW_H
        for i in range(first, min(ROWS, first + 4)):
            y = list_top + (i - first) * ROW_H
            row = View(cls="android.widget.LinearLayout", bounds=(0, y, 1080, y + ROW_H), clickable=True,
                       resource_id=rid("row"))
            row.add(View(cls="android.widget.TextView", bounds=(40, y, 700, y + ROW_H), text=f"Item {i}"),
                    View(cls="android.widget.ImageView", bounds=(900, y, 1040, y + ROW_H),
                         content_desc=f"icon {i}"))
            rows.add(row)
        root.add(rows)
        return root


class RecordingWM:
    """Thin wrapper around the real window manager (see the module docstring)."""

    def __init__(self, device: VirtualDevice, real: Any) -> None:
        self.device = device
        self.real = real
        self.calls: list[tuple[Any, ...]] = []

    # delegated to the real window manager
    def windows(self) -> list[View]:
        return self.real.windows()

    def hierarchy_xml(self, max_depth: int | None = None) -> str:
        return self.real.hierarchy_xml(max_depth=max_depth)

    def screenshot_image(self) -> Image.Image:
        return self.real.screenshot_image()

    def memo(self, name: object, compute: Any) -> Any:
        return self.real.memo(name, compute)

    # recorded input
    def _views(self) -> Iterator[View]:
        for window in self.windows():
            yield from window.walk()

    def tap(self, x: int, y: int) -> None:
        self.calls.append(("tap", x, y))
        hits = [v for v in self._views() if v.contains(x, y) and v.on_click]
        if hits:
            hits[-1].on_click()

    def long_press(self, x: int, y: int, duration_ms: int) -> None:
        self.calls.append(("long_press", x, y, duration_ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        self.calls.append(("swipe", x1, y1, x2, y2, duration_ms))

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        self.calls.append(("drag", x1, y1, x2, y2, duration_ms))

    def touch(self, action: int, x: int, y: int) -> None:
        self.calls.append(("touch", action, x, y))

    def key(self, code: int) -> None:
        self.calls.append(("key", code))

    def expand_notifications(self) -> None:
        self.calls.append(("expand_notifications",))

    def collapse_notifications(self) -> None:
        self.calls.append(("collapse_notifications",))

    def set_text(self, key: str, text: str) -> bool:
        self.calls.append(("set_text", key, text))
        view = next((v for v in self._views() if v.editable and v.id_key == key), None)
        if view is None or view.on_text is None:
            return False
        view.on_text(text)
        return True

    def input_text(self, text: str) -> None:
        self.calls.append(("input_text", text))
        key = self.device.state.ui.focused_id
        view = next((v for v in self._views() if v.editable and v.id_key == key), None)
        if view is not None and view.on_text is not None:
            view.on_text(view.text + text)


@pytest.fixture()
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev")
    dev.apps[PKG] = DemoApp()
    dev.start_activity(PKG)
    dev.wm = RecordingWM(dev, dev.wm)
    return dev


def wm(dev: VirtualDevice) -> RecordingWM:
    assert isinstance(dev.wm, RecordingWM)
    return dev.wm


# ---------------------------------------------------------------------------------------------- raw HTTP
def http_request(method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: localhost:9008", "Accept-Encoding: "]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if body:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def rpc_body(method: str, *params: Any, req_id: Any = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": req_id, "method": method, "params": list(params)}).encode()


def serve(dev: VirtualDevice, chunks: list[bytes]) -> bytes:
    """Feed ``chunks`` to one stream (then close it) and return everything the server sent."""
    feed = iter(chunks)
    out = bytearray()
    serve_connection(dev, lambda: next(feed, b""), out.extend)
    return bytes(out)


def parse_responses(data: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers["content-length"])
        out.append((status, headers, rest[:length]))
        data = rest[length:]
    return out


def call(dev: VirtualDevice, method: str, *params: Any) -> dict[str, Any]:
    """One JSON-RPC call over a fresh stream; the whole response object."""
    (status, headers, body), = parse_responses(serve(dev, [http_request("POST", "/jsonrpc/0",
                                                                         rpc_body(method, *params))]))
    assert status == 200 and headers["content-type"].startswith("application/json")
    return json.loads(body)


def result(dev: VirtualDevice, method: str, *params: Any) -> Any:
    response = call(dev, method, *params)
    assert "error" not in response, response
    return response["result"]


def sel(**fields: Any) -> dict[str, Any]:
    """The JSON uiautomator2 sends for ``Selector(**fields)``."""
    from uiautomator2._selector import Selector

    return json.loads(json.dumps(Selector(**fields)))


def test_ping_and_unknown_path(device):
    responses = parse_responses(serve(device, [http_request("GET", "/ping"), http_request("GET", "/nope"),
                                               http_request("GET", "/jsonrpc/0")]))
    assert [(s, b) for s, _, b in responses] == [(200, b"pong"), (404, b"Not Found"),
                                                 (405, b"Method Not Allowed")]
    assert responses[0][1]["content-type"].startswith("text/plain")


def test_two_requests_on_one_stream(device):
    data = http_request("GET", "/ping") + http_request("POST", "/jsonrpc/0", rpc_body("deviceInfo", req_id=7))
    (s1, _, b1), (s2, _, b2) = parse_responses(serve(device, [data]))
    assert (s1, b1) == (200, b"pong")
    reply = json.loads(b2)
    assert reply["id"] == 7 and reply["jsonrpc"] == "2.0"
    assert reply["result"]["currentPackageName"] == PKG


def test_request_split_into_small_chunks(device):
    data = http_request("POST", "/jsonrpc/0", rpc_body("getText", sel(text="OK")))
    chunks = [data[i:i + 3] for i in range(0, len(data), 3)]
    (status, _, body), = parse_responses(serve(device, chunks))
    assert status == 200 and json.loads(body)["result"] == "OK"


def test_body_split_from_headers(device):
    data = http_request("POST", "/jsonrpc/0", rpc_body("exist", sel(text="Cancel")))
    head_end = data.index(b"\r\n\r\n") + 4
    (_, _, body), = parse_responses(serve(device, [data[:head_end], data[head_end:head_end + 5],
                                                   data[head_end + 5:]]))
    assert json.loads(body)["result"] is True


def test_connection_close_stops_serving(device):
    data = http_request("GET", "/ping", headers={"Connection": "close"}) + http_request("GET", "/ping")
    responses = parse_responses(serve(device, [data]))
    assert len(responses) == 1 and responses[0][1]["connection"] == "close"


def test_chunked_body(device):
    body = rpc_body("getText", sel(text="Cancel"))
    head = b"POST /jsonrpc/0 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:])) + b"0\r\n\r\n"
    (_, _, reply), = parse_responses(serve(device, [head + chunked]))
    assert json.loads(reply)["result"] == "Cancel"


def test_host_gone_while_answering(device):
    def send(data: bytes) -> None:
        raise ConnectionResetError("stream closed")

    feed = iter([http_request("GET", "/ping") * 2])
    serve_connection(device, lambda: next(feed, b""), send)  # returns quietly


def test_bad_request_line_is_400(device):
    (status, _, _), = parse_responses(serve(device, [b"garbage\r\n\r\n"]))
    assert status == 400


def test_jsonrpc_errors(device):
    assert call(device, "noSuchMethod")["error"]["code"] == -32601
    assert call(device, "click", "a", "b")["error"]["code"] == -32602
    assert call(device, "swipe", 1, 2)["error"]["code"] == -32602
    assert call(device, "objInfo", "not a selector")["error"]["code"] == -32602
    assert call(device, "exist", sel(textMatches="(unclosed"))["error"]["code"] == -32602
    (_, _, body), = parse_responses(serve(device, [http_request("POST", "/jsonrpc/0", b"{not json")]))
    assert json.loads(body)["error"]["code"] == -32700
    missing = call(device, "objInfo", sel(text="Nope"))
    assert missing["id"] == 1 and missing["error"]["code"] == -32002
    assert "uiautomator.UiObjectNotFoundException" in missing["error"]["message"]
    assert "TEXT=Nope" in missing["error"]["message"]


def test_device_info_and_info_route(device):
    info = result(device, "deviceInfo")
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400 and info["sdkInt"] == 34
    assert info["displayRotation"] == 0 and info["naturalOrientation"] is True and info["screenOn"] is True
    assert (info["displaySizeDpX"], info["displaySizeDpY"]) == (411, 914)
    (_, _, body), = parse_responses(serve(device, [http_request("GET", "/info")]))
    assert json.loads(body)["currentPackageName"] == PKG


def test_hierarchy_and_screenshot(device):
    xml = result(device, "dumpWindowHierarchy", False, 50)
    assert xml.startswith("<?xml") and 'text="Hello Demo"' in xml and '<hierarchy rotation="0">' in xml
    jpg = base64.b64decode(result(device, "takeScreenshot", 0.5, 80))
    image = Image.open(io.BytesIO(jpg))
    assert image.format == "JPEG" and image.size == (540, 1200)


def test_selector_matching(device):
    assert result(device, "exist", sel(text="OK")) is True
    assert result(device, "exist", sel(text="ok")) is False
    assert result(device, "exist", sel(textContains="ello D")) is True
    assert result(device, "exist", sel(textStartsWith="Hell")) is True
    assert result(device, "exist", sel(textMatches="Item [0-9]+")) is True
    assert result(device, "exist", sel(textMatches="Item")) is False  # a full match, like Java's
    assert result(device, "exist", sel(description="Confirm button")) is True
    assert result(device, "exist", sel(descriptionContains="Confirm")) is True
    assert result(device, "exist", sel(descriptionMatches="icon \\d")) is True
    assert result(device, "exist", sel(descriptionStartsWith="icon")) is True
    assert result(device, "exist", sel(resourceId=rid("ok"))) is True
    assert result(device, "exist", sel(resourceId="ok")) is False  # the full id string
    assert result(device, "count", sel(resourceIdMatches=".*:id/(ok|cancel)")) == 2
    assert result(device, "count", sel(className="android.widget.Button")) == 2
    assert result(device, "count", sel(classNameMatches=".*Button", clickable=True, packageName=PKG)) == 2
    assert result(device, "count", sel(className="android.widget.Button", longClickable=True)) == 1
    assert result(device, "count", sel(packageNameMatches="com\\.example\\..*", checkable=True)) == 1
    assert result(device, "count", sel(scrollable=True, packageName=PKG)) == 1
    assert result(device, "count", sel(resourceId=rid("row"))) == 4
    assert result(device, "getText", sel(textStartsWith="Item ", instance=2)) == "Item 2"
    assert result(device, "exist", sel(textStartsWith="Item ", instance=4)) is False
    assert result(device, "count", sel(textStartsWith="Item ", instance=2)) == 4  # count ignores instance
    assert result(device, "getText", sel(className="android.widget.TextView", index=0,
                                         packageName=PKG)) == "Hello Demo"
    assert result(device, "getText", sel(className="android.widget.EditText")) == ""
    assert result(device, "exist", sel(checked=False, text="Remember")) is True
    assert result(device, "exist", sel(checked=True, text="Remember")) is False


def test_child_and_sibling(device):
    from uiautomator2._selector import Selector

    row = Selector(resourceId=rid("row"))
    child = json.loads(json.dumps(row.clone().child(className="android.widget.ImageView")))
    assert result(device, "count", child) == 4
    child["childOrSiblingSelector"][-1]["instance"] = 1
    child["childOrSiblingSelector"][-1]["mask"] |= 0x01000000
    assert result(device, "objInfo", child)["contentDescription"] == "icon 1"
    sibling = json.loads(json.dumps(Selector(text="Item 3").sibling(className="android.widget.ImageView")))
    assert result(device, "objInfo", sibling)["contentDescription"] == "icon 3"
    missing = json.loads(json.dumps(Selector(text="OK").child(text="Item 1")))
    assert result(device, "exist", missing) is False


def test_obj_info(device):
    info = result(device, "objInfo", sel(text="OK"))
    top = wm(device).real.device.app(PKG).frame[1]
    assert info["bounds"] == {"left": 40, "top": top + 200, "right": 520, "bottom": top + 350}
    assert info["visibleBounds"] == info["bounds"]
    assert info["className"] == "android.widget.Button" and info["packageName"] == PKG
    assert info["resourceName"] == rid("ok") and info["contentDescription"] == "Confirm button"
    assert info["clickable"] is True and info["enabled"] is True and info["checkable"] is False
    assert info["childCount"] == 0 and info["text"] == "OK"
    assert result(device, "getChildCount", sel(resourceId=rid("list"))) == 4
    infos = result(device, "objInfoOfAllInstances", sel(textStartsWith="Item "))
    assert [i["text"] for i in infos] == ["Item 0", "Item 1", "Item 2", "Item 3"]


def test_input_methods_reach_the_window_manager(device):
    calls = wm(device).calls
    assert result(device, "click", 100, 200) is True
    assert result(device, "click", 100.7, 200.2, 800) is True
    assert result(device, "swipe", 10, 20, 30, 40, 10) is True
    assert result(device, "drag", 1, 2, 3, 4, 100) is True
    assert result(device, "injectInputEvent", 0, 5.0, 6.0, 0) is True
    assert result(device, "swipePoints", [1, 2, 3, 4], 20) is True
    assert result(device, "swipePoints", [1, 2, 3, 4, 5, 6], 20) is True
    assert calls[:6] == [("tap", 100, 200), ("long_press", 100, 200, 800), ("swipe", 10, 20, 30, 40, 50),
                         ("drag", 1, 2, 3, 4, 500), ("touch", 0, 5, 6), ("swipe", 1, 2, 3, 4, 100)]
    assert calls[6:] == [("touch", 0, 1, 2), ("touch", 2, 3, 4), ("touch", 2, 5, 6), ("touch", 1, 5, 6)]
    calls.clear()
    for name in ("home", "back", "recent", "enter", "del", "volume_up", "POWER"):
        assert result(device, "pressKey", name) is True
    assert result(device, "pressKey", "no_such_key") is False
    assert result(device, "pressKeyCode", 29) is True
    assert result(device, "pressKeyCode", 29, 1) is True
    assert [c[1] for c in calls] == [3, 4, 187, 66, 67, 24, 26, 29, 29]
    calls.clear()
    assert result(device, "openNotification") is True and calls == [("expand_notifications",)]


def test_click_and_long_click_by_selector(device):
    info = result(device, "objInfo", sel(text="OK"))
    b = info["bounds"]
    assert result(device, "click", sel(text="OK")) is True
    assert wm(device).calls[-1] == ("tap", (b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2)
    assert device.top.state["ok"] == 1
    assert result(device, "longClick", sel(text="Cancel")) is True
    assert wm(device).calls[-1][0] == "long_press"
    assert call(device, "click", sel(text="Nope"))["error"]["code"] == -32002


def test_text_methods_and_clipboard(device):
    field = sel(resourceId=rid("query"))
    assert result(device, "setText", field, "hello") is True
    assert result(device, "getText", field) == "hello"
    assert device.state.ui.focused_id == rid("query")
    assert result(device, "objInfo", field)["focused"] is True
    assert result(device, "exist", sel(focused=True, packageName=PKG)) is True
    assert result(device, "setText", sel(text="OK"), "x") is False  # not editable
    result(device, "clearTextField", field)
    assert result(device, "getText", field) == ""
    assert result(device, "setClipboard", None, "pasted") is None
    assert result(device, "getClipboard") == "pasted"
    result(device, "pasteClipboard")
    assert result(device, "getText", field) == "pasted"
    result(device, "clearInputText")
    assert result(device, "getText", field) == ""
    result(device, "setClipboard", "lbl", "two")
    assert device.get_clip().label == "lbl" and device.get_clip().text == "two"


def test_toast_screen_and_misc(device):
    assert result(device, "getLastToast") is None
    assert result(device, "makeToast", "Saved", 1000.0) is True
    assert result(device, "getLastToast") == "Saved"
    result(device, "clearLastToast")
    assert result(device, "getLastToast") is None
    result(device, "sleep")
    assert result(device, "isScreenOn") is False and result(device, "deviceInfo")["screenOn"] is False
    result(device, "wakeUp")
    assert result(device, "isScreenOn") is True
    assert result(device, "freezeRotation", True) is None
    assert result(device, "setOrientation", "natural") is None
    assert "error" in call(device, "setOrientation", "left")
    assert result(device, "getLastTraversedText") is None


def test_wait_for_exists_polls_without_holding_the_lock(device):
    def show_banner() -> None:
        time.sleep(0.2)
        with device.lock:  # blocks forever if the waiting call held the lock
            device.top.state["banner"] = True

    thread = threading.Thread(target=show_banner)
    thread.start()
    start = time.monotonic()
    assert result(device, "waitForExists", sel(text="Banner shown"), 5000) is True
    assert 0.15 < time.monotonic() - start < 3
    thread.join()
    start = time.monotonic()
    assert result(device, "waitForExists", sel(text="Never"), 300) is False
    assert 0.25 < time.monotonic() - start < 2
    assert result(device, "waitUntilGone", sel(text="Never"), 1000) is True
    assert result(device, "waitUntilGone", sel(text="OK"), 100) is False


def test_scrolling(device):
    lst = sel(resourceId=rid("list"))
    assert result(device, "scrollForward", lst, True, 20) is True
    assert result(device, "exist", sel(text="Item 0")) is False
    assert result(device, "scrollBackward", lst, True, 20) is True
    assert result(device, "scrollBackward", lst, True, 20) is False  # already at the top
    assert result(device, "scrollTo", lst, sel(text="Item 20"), True) is True
    assert result(device, "exist", sel(text="Item 20")) is True
    assert result(device, "scrollToBeginning", lst, True, 50, 20) is True
    assert result(device, "exist", sel(text="Item 0")) is True
    assert result(device, "scrollForward", lst, False, 20) is False  # horizontal: a swipe, recorded
    assert wm(device).calls[-1][0] == "swipe"
    found = result(device, "childByText", lst, sel(resourceId=rid("row")), "Item 12", True)
    assert result(device, "objInfo", found)["resourceName"] == rid("row")
    item = {**sel(className="android.widget.TextView"), "childOrSibling": ["child"],
            "childOrSiblingSelector": [sel(className="android.widget.TextView")]}
    assert result(device, "exist", item) is False  # a TextView has no TextView below it
    label = {**found, "childOrSibling": [*found["childOrSibling"], "child"],
             "childOrSiblingSelector": [*found["childOrSiblingSelector"],
                                        sel(className="android.widget.TextView")]}
    assert [i["text"] for i in result(device, "objInfoOfAllInstances", label)] == ["Item 12"]
    missing = call(device, "childByText", lst, sel(resourceId=rid("row")), "Item 99", False)
    assert missing["error"]["code"] == -32002


# ---------------------------------------------------------------------------------------------- real client
class FakeAdbDevice:
    """Just what uiautomator2's HTTP path and the calls below need from ``adbutils.AdbDevice``: every
    ``create_connection`` is a socket pair whose far end is served by :func:`serve_connection`."""

    serial = "emulator-5554"

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.threads: list[threading.Thread] = []

    def create_connection(self, network: Any, port: int) -> socket.socket:
        assert port == 9008
        client, server = socket.socketpair()

        def run() -> None:
            with server:
                serve_connection(self.device, lambda: server.recv(65536), server.sendall)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self.threads.append(thread)
        return client

    def shell2(self, cmdargs: Any, timeout: float | None = None) -> Any:
        class Result:
            output = ""
            returncode = 0

        return Result()

    def window_size(self) -> tuple[int, int]:
        return 1080, 2400


@pytest.fixture()
def u2(device):
    import uiautomator2

    d = uiautomator2.Device.__new__(uiautomator2.Device)  # skip the jar push and server launch over adb
    d._dev = FakeAdbDevice(device)
    d._device_server_port = 9008
    d._debug = False
    d._process = None
    d._BaseClient__serial = "emulator-5554"
    return d


def test_uiautomator2_client(device, u2):
    from uiautomator2.exceptions import UiObjectNotFoundError

    assert u2.info["currentPackageName"] == PKG
    assert u2(text="OK").exists and not u2(text="Nope").exists
    assert u2(text="OK").get_text() == "OK"
    u2(text="OK").click()
    assert device.top.state["ok"] == 1
    assert u2(textStartsWith="Item ").count == 4
    assert u2(textStartsWith="Item ")[-1].get_text() == "Item 3"
    assert u2(resourceId=rid("row")).child(className="android.widget.TextView")[2].get_text() == "Item 2"
    icon = u2(text="Item 1").sibling(className="android.widget.ImageView")
    assert icon.info["contentDescription"] == "icon 1"
    assert u2(text="OK").right(text="Cancel").get_text() == "Cancel"
    with pytest.raises(UiObjectNotFoundError):
        u2(text="Nope").get_text(timeout=0.2)
    with pytest.raises(UiObjectNotFoundError):
        u2.jsonrpc.objInfo({"text": "Nope", "mask": 1})
    u2(resourceId=rid("query")).set_text("typed")
    assert u2(resourceId=rid("query")).get_text() == "typed"
    u2.send_keys(" more")
    assert u2(resourceId=rid("query")).get_text() == "typed more"
    u2.clear_text()
    assert u2(resourceId=rid("query")).get_text() == ""
    assert "Hello Demo" in u2.dump_hierarchy()
    assert u2.screenshot().size == (1080, 2400)
    u2.xpath('//*[@text="Cancel"]').click()
    assert wm(device).calls[-1][0] == "tap"
    u2.press("back")
    assert wm(device).calls[-1] == ("key", 4)
    u2.swipe(100, 1000, 100, 200, steps=20)
    assert wm(device).calls[-1] == ("swipe", 100, 1000, 100, 200, 100)
    u2(resourceId=rid("list")).scroll.to(text="Item 25")
    assert u2(text="Item 25").exists
    row = u2(resourceId=rid("list")).child_by_text("Item 26", resourceId=rid("row"))
    assert row.info["resourceName"] == rid("row")
    u2.clipboard = "clip"
    assert u2.clipboard == "clip"
    assert u2.last_toast is None
