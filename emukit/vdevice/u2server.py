"""The virtual uiautomator2 server: HTTP/1.1 and JSON-RPC 2.0 over a ``tcp:9008`` stream.

uiautomator2 3.x talks to ``com.wetest.uia2.Main`` (u2.jar) through ``adb forward``-less streams: for every
request it opens a ``tcp:9008`` stream with adbutils' ``create_connection`` and runs an ``http.client``
request over it. The ADB transport calls :func:`serve_connection` in its own thread for each such stream.

Routes: ``GET /ping`` -> ``pong``; ``POST /jsonrpc/0`` -> JSON-RPC (input, text and selector methods in
:mod:`emukit.vdevice.u2methods`, device-level ones - info, dump, screenshot, screen, toast - at the end of
this module); ``GET /info`` -> ``deviceInfo``; anything else -> 404. Every method runs under
``device.lock`` except the polling waits, which take it for each look.
"""

from __future__ import annotations

import base64
import inspect
import io
import json
import logging
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emukit.vdevice.u2methods import (
    METHODS,
    InvalidParams,
    RpcError,
    as_bool,
    as_float,
    as_int,
    as_str,
    rpc,
)
from emukit.vdevice.u2selector import SelectorError

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

log = logging.getLogger(__name__)

SDK_INT = 34
MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
TEXT_TYPE = "text/plain; charset=utf-8"
JSON_TYPE = "application/json; charset=utf-8"
ROUTES = {"/ping": "GET", "/jsonrpc/0": "POST", "/info": "GET"}  # path -> the one method it answers
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           413: "Payload Too Large", 431: "Request Header Fields Too Large", 500: "Internal Server Error"}


# ============================================================================================== HTTP
class HttpError(Exception):
    """A request we answer with ``status`` and then close the stream."""

    def __init__(self, status: int, detail: str = "") -> None:
        super().__init__(detail or REASONS.get(status, ""))
        self.status = status


@dataclass
class Request:
    method: str
    path: str
    version: str
    headers: dict[str, str]
    body: bytes

    @property
    def keep_alive(self) -> bool:
        conn = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in conn
        return "close" not in conn


class _Reader:
    """Buffered reads over ``recv()`` chunks; ``recv()`` returning ``b""`` is the end of the stream."""

    def __init__(self, recv: Callable[[], bytes]) -> None:
        self._recv = recv
        self._buf = bytearray()
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = self._recv()
        if not chunk:
            self._eof = True
            return False
        self._buf += chunk
        return True

    def until(self, sep: bytes, limit: int) -> bytes | None:
        """Bytes up to and excluding ``sep`` (consumed); None at the end of the stream."""
        start = 0
        while True:
            at = self._buf.find(sep, start)
            if at >= 0:
                out = bytes(self._buf[:at])
                del self._buf[:at + len(sep)]
                return out
            if len(self._buf) > limit:
                raise HttpError(431)
            start = max(0, len(self._buf) - len(sep) + 1)
            if not self._fill():
                return None

    def exact(self, n: int) -> bytes | None:
        while len(self._buf) < n:
            if not self._fill():
                return None
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def skip_blank_lines(self) -> bool:
        """Drop CR/LF between requests; False when the stream ended first."""
        while True:
            while self._buf[:1] in (b"\r", b"\n"):
                del self._buf[:1]
            if self._buf or not self._fill():
                return bool(self._buf)


def read_request(reader: _Reader) -> Request | None:
    """The next request on the stream, or None once the host closed it."""
    if not reader.skip_blank_lines():
        return None
    head = reader.until(b"\r\n\r\n", MAX_HEAD)
    if head is None:
        return None  # the host went away in the middle of a request
    lines = head.decode("iso-8859-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise HttpError(400, f"bad request line {lines[0]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            raise HttpError(400, f"bad header line {line!r}")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _read_chunked(reader)
    else:
        try:
            length = int(headers.get("content-length", "0"))
        except ValueError:
            raise HttpError(400, "bad Content-Length") from None
        if length < 0:
            raise HttpError(400, "bad Content-Length")
        if length > MAX_BODY:
            raise HttpError(413)
        body = reader.exact(length)
    if body is None:
        return None
    return Request(parts[0].upper(), parts[1].split("?", 1)[0], parts[2], headers, body)


def _read_chunked(reader: _Reader) -> bytes | None:
    body = bytearray()
    while True:
        line = reader.until(b"\r\n", MAX_HEAD)
        if line is None:
            return None
        try:
            size = int(line.split(b";", 1)[0].strip() or b"x", 16)
        except ValueError:
            raise HttpError(400, "bad chunk size") from None
        if size == 0:
            while True:  # trailers, up to the empty line
                trailer = reader.until(b"\r\n", MAX_HEAD)
                if not trailer:
                    return bytes(body) if trailer is not None else None
        if len(body) + size > MAX_BODY:
            raise HttpError(413)
        chunk = reader.exact(size + 2)
        if chunk is None:
            return None
        body += chunk[:-2]


def http_response(status: int, body: bytes, content_type: str, close: bool = False) -> bytes:
    head = (f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n")
    return head.encode("ascii") + body


def serve_connection(device: VirtualDevice, recv: Callable[[], bytes], send: Callable[[bytes], None]) -> None:
    """Serve HTTP requests on one stream until the host closes it (or asks to with ``Connection: close``).

    ``recv()`` gives the next chunk from the host (``b""`` once it closed the stream), ``send()`` writes to
    it; an exception from either means the stream is gone and ends the loop quietly.
    """
    reader = _Reader(recv)
    while True:
        try:
            req = read_request(reader)
        except HttpError as exc:
            _send(send, http_response(exc.status, str(exc).encode(), TEXT_TYPE, close=True))
            return
        except Exception:  # noqa: BLE001 - the transport's "stream closed" errors
            return
        if req is None:
            return
        status, body, ctype = route(device, req)
        sent = _send(send, http_response(status, body, ctype, close=not req.keep_alive))
        if not sent or not req.keep_alive:
            return


def _send(send: Callable[[bytes], None], data: bytes) -> bool:
    try:
        send(data)
        return True
    except Exception:  # noqa: BLE001 - the host went away; nothing left to answer
        return False


def route(device: VirtualDevice, req: Request) -> tuple[int, bytes, str]:
    """(status, body, content type) for one request."""
    path = req.path.rstrip("/") or "/"
    if path not in ROUTES:
        return 404, b"Not Found", TEXT_TYPE
    if req.method != ROUTES[path]:
        return 405, b"Method Not Allowed", TEXT_TYPE
    if path == "/ping":
        return 200, b"pong", TEXT_TYPE
    if path == "/info":
        info = call(device, {"jsonrpc": "2.0", "id": 1, "method": "deviceInfo"}).get("result")
        return 200, _dumps(info), JSON_TYPE
    return 200, handle_jsonrpc(device, req.body), JSON_TYPE


# ============================================================================================== JSON-RPC
def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _error(req_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": req_id, "error": err}


def _encode(response: dict[str, Any]) -> bytes:
    """The response as JSON; a result that is not JSON-serialisable becomes an internal error."""
    try:
        return _dumps(response)
    except (TypeError, ValueError) as exc:
        return _dumps(_error(response.get("id"), -32603, "Internal error", f"result is not JSON: {exc}"))


def handle_jsonrpc(device: VirtualDevice, body: bytes) -> bytes:
    """A JSON-RPC 2.0 response body (or a batch of them) for a request body."""
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return _dumps(_error(None, -32700, "Parse error", str(exc)))
    if isinstance(payload, list):
        if not payload:
            return _dumps(_error(None, -32600, "Invalid Request", "empty batch"))
        return b"[" + b",".join(_encode(call(device, item)) for item in payload) + b"]"
    return _encode(call(device, payload))


def call(device: VirtualDevice, req: Any) -> dict[str, Any]:
    """Run one JSON-RPC request object and build its response object."""
    if not isinstance(req, dict) or not isinstance(req.get("method"), str):
        return _error(req.get("id") if isinstance(req, dict) else None, -32600, "Invalid Request")
    req_id, name, params = req.get("id"), req["method"], req.get("params")
    method = METHODS.get(name)
    if method is None:
        return _error(req_id, -32601, "Method not found", name)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    if isinstance(params, list):
        args = params
    elif isinstance(params, dict):
        kwargs = params
    elif params is not None:
        return _error(req_id, -32602, "Invalid params", "params must be an array or an object")
    try:
        inspect.signature(method.fn).bind(device, *args, **kwargs)
    except TypeError as exc:
        return _error(req_id, -32602, f"Invalid params: {name}: {exc}")
    try:
        with device.ui_reading() if method.reads else device.ui_changing():
            if method.locked:
                with device.lock:
                    result = method.fn(device, *args, **kwargs)
            else:
                result = method.fn(device, *args, **kwargs)
    except RpcError as exc:
        return _error(req_id, exc.code, exc.message, exc.data)
    except SelectorError as exc:
        return _error(req_id, -32602, f"Invalid params: {exc}", str(exc))
    except Exception as exc:  # noqa: BLE001 - any failure of the device is an RPC error, never a dead stream
        log.exception("uiautomator2 method %s failed", name)
        return _error(req_id, -32001, f"java.lang.RuntimeException: {type(exc).__name__}: {exc}",
                      traceback.format_exc())
    return {"jsonrpc": "2.0", "id": req_id, "result": result}


# ============================================================================================= device methods
_SCREEN_ON: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def screen_on(dev: VirtualDevice) -> bool:
    """Whether the screen is on: the state model's ``ui.screen_on`` if it has one, else kept here."""
    value = getattr(dev.state.ui, "screen_on", None)
    return value if isinstance(value, bool) else _SCREEN_ON.get(dev, True)


def _set_screen_on(dev: VirtualDevice, on: bool) -> None:
    if isinstance(getattr(dev.state.ui, "screen_on", None), bool):
        dev.state.ui.screen_on = on  # type: ignore[attr-defined]
    _SCREEN_ON[dev] = on


def display_size_dp(screen: tuple[int, int, int]) -> tuple[int, int]:
    """``UiDevice.getDisplaySizeDp``: the display in dp, rounded (411 x 914 for 1080x2400 at 420 dpi)."""
    width, height, dpi = screen
    return round(width * 160 / dpi), round(height * 160 / dpi)


@rpc(reads=True)
def deviceInfo(dev: VirtualDevice) -> dict[str, Any]:
    package, _ = dev.current_focus()
    width, height, _ = dev.screen
    dp_x, dp_y = display_size_dp(dev.screen)
    return {
        "currentPackageName": package,
        "displayHeight": height,
        "displayWidth": width,
        "displayRotation": 0,
        "displaySizeDpX": dp_x,
        "displaySizeDpY": dp_y,
        "naturalOrientation": True,
        "productName": dev.state.props.get("ro.product.name", "sdk_gphone64_x86_64"),
        "screenOn": screen_on(dev),
        "sdkInt": SDK_INT,
    }


@rpc(reads=True)
def dumpWindowHierarchy(dev: VirtualDevice, compressed: Any = False, maxDepth: Any = None,
                        rootInActive: Any = None) -> str:
    """The uiautomator dump of the composed screen (``compressed`` and ``rootInActive`` change nothing:
    the virtual screen has no unimportant views and one active window tree)."""
    as_bool(compressed, "compressed")
    depth = None if maxDepth is None else as_int(maxDepth, "maxDepth")
    if depth is not None and depth <= 0:
        depth = None
    return dev.wm.hierarchy_xml(max_depth=depth)


@rpc(reads=True)
def takeScreenshot(dev: VirtualDevice, scale: Any = 1.0, quality: Any = 100) -> str:
    """The screen as a base64 JPEG, scaled by ``scale`` (0 < scale <= 1 on the real server)."""
    factor = as_float(scale, "scale")
    q = max(1, min(100, as_int(quality, "quality")))
    image = dev.wm.screenshot_image().convert("RGB")
    if factor <= 0:
        raise InvalidParams(f"scale must be positive, got {factor}")
    if factor != 1.0:
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        image = image.resize(size)
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=q)
    return base64.b64encode(buf.getvalue()).decode("ascii")


@rpc()
def wakeUp(dev: VirtualDevice) -> None:
    _set_screen_on(dev, True)


@rpc()
def sleep(dev: VirtualDevice) -> None:
    _set_screen_on(dev, False)


@rpc(reads=True)
def isScreenOn(dev: VirtualDevice) -> bool:
    return screen_on(dev)


@rpc(reads=True)
def waitForIdle(dev: VirtualDevice, timeout: Any = 10000) -> bool:
    """UiDevice.waitForIdle: the virtual device applies every event before answering, so it is idle."""
    as_int(timeout, "timeout")
    return True


@rpc()
def freezeRotation(dev: VirtualDevice, freeze: Any = True) -> None:
    """Accepted and ignored: the virtual device never rotates."""
    as_bool(freeze, "freeze")


@rpc()
def setOrientation(dev: VirtualDevice, direction: Any) -> None:
    """Only the natural orientation exists on the virtual device; asking for another is an error."""
    value = as_str(direction, "direction")
    if value not in ("natural", "n", "0"):
        raise RpcError(-32001, f"java.lang.UnsupportedOperationException: the virtual device cannot rotate "
                               f"to {value!r}")


@rpc()
def openNotification(dev: VirtualDevice) -> bool:
    dev.wm.expand_notifications()
    return True


@rpc()
def openQuickSettings(dev: VirtualDevice) -> bool:
    dev.wm.expand_notifications()
    return True


@rpc(reads=True)
def getLastToast(dev: VirtualDevice) -> str | None:
    return dev.state.ui.toast


@rpc()
def clearLastToast(dev: VirtualDevice) -> None:
    dev.state.ui.toast = None


@rpc()
def makeToast(dev: VirtualDevice, text: Any, duration: Any = 1000) -> bool:
    as_float(duration, "duration")
    dev.state.ui.toast = as_str(text, "text")
    return True


@rpc(reads=True)
def getLastTraversedText(dev: VirtualDevice) -> None:
    """No accessibility traversal events happen on the virtual device."""


@rpc()
def clearLastTraversedText(dev: VirtualDevice) -> None:
    """Nothing to clear (see :func:`getLastTraversedText`)."""
