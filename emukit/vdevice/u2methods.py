"""The JSON-RPC methods of the virtual uiautomator2 server (the Java ``AutomatorService`` of u2.jar).

Every method takes the device first and then the JSON-RPC params, positionally (a JSON array) or by name
(a JSON object). :data:`METHODS` maps the RPC name to a :class:`Method`; the front end
(:mod:`emukit.vdevice.u2server`) runs it under ``device.lock`` unless the method polls and takes the lock
itself (``waitForExists``/``waitUntilGone``, so that other calls can change the screen meanwhile).
Selector arguments are matched by :mod:`emukit.vdevice.u2selector`; a selector that matches nothing makes
object methods fail with ``androidx.test.uiautomator.UiObjectNotFoundException`` (code -32002), which the
client turns into ``UiObjectNotFoundError``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emukit.vdevice.u2selector import (
    Node,
    child_selector,
    click_point,
    describe,
    field_key,
    find,
    find_all,
    flatten,
    obj_info,
)

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

# uiautomator2 key names (UiDevice.pressXxx and the server's pressKey switch) -> Android key codes
KEY_NAMES: dict[str, int] = {
    "home": 3, "back": 4, "left": 21, "right": 22, "up": 19, "down": 20, "center": 23, "menu": 82,
    "search": 84, "enter": 66, "delete": 67, "del": 67, "recent": 187, "volume_up": 24, "volume_down": 25,
    "volume_mute": 164, "camera": 27, "power": 26,
}

ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
LONG_PRESS_MS = 600  # UiObject.longClick holds a little longer than ViewConfiguration's 400-500 ms
POLL_S = 0.05  # waitForExists / waitUntilGone poll interval (host seconds)
MAX_SEARCH_SWIPES = 30  # scrollTo / childByText give up after this many pages


class RpcError(Exception):
    """A JSON-RPC error object: ``{"code": code, "message": message, "data": data}``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class InvalidParams(RpcError):
    """-32602: the params do not fit the method."""

    def __init__(self, detail: str) -> None:
        super().__init__(-32602, f"Invalid params: {detail}", detail)


@dataclass
class Method:
    """One RPC method. ``locked`` methods run entirely under ``device.lock``; ``reads`` methods only read the
    screen and device state (they run in :meth:`VirtualDevice.ui_reading`, every other method in
    :meth:`VirtualDevice.ui_changing`)."""

    fn: Callable[..., Any]
    locked: bool = True
    reads: bool = False


METHODS: dict[str, Method] = {}


Handler = Callable[..., Any]


def rpc(name: str | None = None, *, locked: bool = True, reads: bool = False) -> Callable[[Handler], Handler]:
    """Register a function as the RPC method ``name`` (default: the function's name); ``reads``: it never
    changes the device."""

    def register(fn: Handler) -> Handler:
        METHODS[name or fn.__name__] = Method(fn, locked, reads)
        return fn

    return register


# ---------------------------------------------------------------------------------------------- params
def as_int(value: Any, name: str) -> int:
    """A JSON number as Java would convert it to ``int`` (floats truncate)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParams(f"{name} must be a number, got {value!r}")
    return int(value)


def as_float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParams(f"{name} must be a number, got {value!r}")
    return float(value)


def as_bool(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidParams(f"{name} must be a boolean, got {value!r}")
    return value


def as_str(value: Any, name: str, *, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise InvalidParams(f"{name} must be a string, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------- input
def _click_xy(dev: VirtualDevice, x: Any, y: Any, duration: Any = None) -> bool:
    px, py = as_int(x, "x"), as_int(y, "y")
    if duration is None:
        dev.wm.tap(px, py)
    else:
        dev.wm.long_press(px, py, max(0, as_int(duration, "durationMs")))
    return True


@rpc()
def click(dev: VirtualDevice, *args: Any) -> bool:
    """``click(x, y)``, ``click(x, y, durationMs)`` (long click) or ``click(selector)``."""
    if len(args) == 1 and isinstance(args[0], dict):
        return click_object(dev, args[0])
    if len(args) in (2, 3):
        return _click_xy(dev, *args)
    raise InvalidParams(f"click takes (x, y[, durationMs]) or (selector), got {len(args)} params")


@rpc()
def swipe(dev: VirtualDevice, startX: Any, startY: Any, endX: Any, endY: Any, steps: Any) -> bool:
    """UiDevice.swipe: every step takes about 5 ms."""
    n = max(1, as_int(steps, "steps"))
    dev.wm.swipe(as_int(startX, "startX"), as_int(startY, "startY"), as_int(endX, "endX"),
                 as_int(endY, "endY"), n * 5)
    return True


@rpc()
def swipePoints(dev: VirtualDevice, points: Any, segmentSteps: Any) -> bool:
    """A swipe through the points ``[x0, y0, x1, y1, ...]``; ``segmentSteps`` (5 ms each) per segment."""
    if not isinstance(points, list) or len(points) < 4 or len(points) % 2:
        raise InvalidParams("points must be a flat list [x0, y0, x1, y1, ...] of at least two points")
    xy = [as_int(v, "points") for v in points]
    pts = list(zip(xy[0::2], xy[1::2]))
    steps = max(1, as_int(segmentSteps, "segmentSteps"))
    if len(pts) == 2:
        dev.wm.swipe(*pts[0], *pts[1], steps * 5)
        return True
    dev.wm.touch(ACTION_DOWN, *pts[0])
    for p in pts[1:]:
        dev.wm.touch(ACTION_MOVE, *p)
    dev.wm.touch(ACTION_UP, *pts[-1])
    return True


@rpc()
def drag(dev: VirtualDevice, startX: Any, startY: Any, endX: Any, endY: Any, steps: Any) -> bool:
    n = max(1, as_int(steps, "steps"))
    dev.wm.drag(as_int(startX, "startX"), as_int(startY, "startY"), as_int(endX, "endX"),
                as_int(endY, "endY"), n * 5)
    return True


@rpc()
def injectInputEvent(dev: VirtualDevice, action: Any, x: Any, y: Any, metaState: Any = 0) -> bool:
    code = as_int(action, "action")
    as_int(metaState, "metaState")
    if code not in (ACTION_DOWN, ACTION_UP, ACTION_MOVE, 3):  # 3 = ACTION_CANCEL
        raise InvalidParams(f"unsupported motion action {code}")
    dev.wm.touch(code, round(as_float(x, "x")), round(as_float(y, "y")))
    return True


@rpc()
def pressKey(dev: VirtualDevice, key: Any) -> bool:
    """Press a named key; an unknown name is not pressed and gives False, like the real server."""
    code = KEY_NAMES.get(str(as_str(key, "key")).lower())
    if code is None:
        return False
    dev.wm.key(code)
    return True


@rpc()
def pressKeyCode(dev: VirtualDevice, keyCode: Any, metaState: Any = 0) -> bool:
    as_int(metaState, "metaState")
    dev.wm.key(as_int(keyCode, "keyCode"))
    return True


# ---------------------------------------------------------------------------------------------- text input
@rpc()
def setClipboard(dev: VirtualDevice, label: Any, text: Any) -> None:
    dev.set_clip(str(as_str(text, "text")), as_str(label, "label", nullable=True) or "")


@rpc(reads=True)
def getClipboard(dev: VirtualDevice) -> str | None:
    clip = dev.get_clip()
    return clip.text if clip is not None else None


@rpc()
def pasteClipboard(dev: VirtualDevice) -> None:
    """Type the clip's text into the focused field (what a paste into it does)."""
    clip = dev.get_clip()
    if clip is not None and clip.text:
        dev.wm.input_text(clip.text)


@rpc()
def clearInputText(dev: VirtualDevice) -> None:
    """Empty the focused field, if any."""
    focused = dev.state.ui.focused_id
    if focused:
        dev.wm.set_text(focused, "")


# ---------------------------------------------------------------------------------------------- UiObject
class ObjectNotFound(RpcError):
    """-32002: the selector matches nothing (``UiObjectNotFoundException`` on the real server)."""

    def __init__(self, selector: Any) -> None:
        text = describe(selector)
        super().__init__(-32002, f"androidx.test.uiautomator.UiObjectNotFoundException: {text}", text)


def screen_nodes(dev: VirtualDevice) -> list[Node]:
    """The composed screen, flattened for matching."""
    width, height, _ = dev.screen
    return dev.wm.memo("nodes", lambda: flatten(dev.wm.windows(), dev.state.ui.focused_id, (0, 0, width, height)))


def _sel(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidParams(f"a selector must be a JSON object, got {value!r}")
    return value


def find_node(dev: VirtualDevice, selector: Any) -> Node:
    node = find(screen_nodes(dev), _sel(selector))
    if node is None:
        raise ObjectNotFound(selector)
    return node


@rpc(reads=True)
def exist(dev: VirtualDevice, selector: Any) -> bool:
    return find(screen_nodes(dev), _sel(selector)) is not None


@rpc(reads=True)
def count(dev: VirtualDevice, selector: Any) -> int:
    """Number of matches; like the real server it ignores ``instance``."""
    return len(find_all(screen_nodes(dev), _sel(selector), use_instance=False))


@rpc(reads=True)
def objInfo(dev: VirtualDevice, selector: Any) -> dict[str, Any]:
    return obj_info(find_node(dev, selector))


@rpc(reads=True)
def objInfoOfAllInstances(dev: VirtualDevice, selector: Any) -> list[dict[str, Any]]:
    return [obj_info(n) for n in find_all(screen_nodes(dev), _sel(selector), use_instance=False)]


@rpc(reads=True)
def getText(dev: VirtualDevice, selector: Any) -> str:
    return find_node(dev, selector).view.text


@rpc(reads=True)
def getChildCount(dev: VirtualDevice, selector: Any) -> int:
    return len(find_node(dev, selector).children)


def _set_text(dev: VirtualDevice, node: Node, text: str) -> bool:
    """ACTION_SET_TEXT: focus the field and replace its text; False for a view that is not editable."""
    if not node.view.editable:
        return False
    key = field_key(node.view)
    dev.state.ui.focused_id = key
    dev.state.ui.cursor = None
    return bool(dev.wm.set_text(key, text))


@rpc()
def setText(dev: VirtualDevice, selector: Any, text: Any) -> bool:
    return _set_text(dev, find_node(dev, selector), as_str(text, "text", nullable=True) or "")


@rpc()
def clearTextField(dev: VirtualDevice, selector: Any) -> None:
    _set_text(dev, find_node(dev, selector), "")


def click_object(dev: VirtualDevice, selector: Any) -> bool:
    """``click(selector)``: tap the centre of the element's visible bounds."""
    dev.wm.tap(*click_point(find_node(dev, selector)))
    return True


@rpc()
def longClick(dev: VirtualDevice, selector: Any) -> bool:
    dev.wm.long_press(*click_point(find_node(dev, selector)), LONG_PRESS_MS)
    return True


@rpc()
def dragTo(dev: VirtualDevice, selector: Any, *args: Any) -> bool:
    """``dragTo(selector, x, y, steps)`` or ``dragTo(selector, destSelector, steps)``."""
    x1, y1 = click_point(find_node(dev, selector))
    if len(args) == 3:
        x2, y2, steps = as_int(args[0], "x"), as_int(args[1], "y"), args[2]
    elif len(args) == 2 and isinstance(args[0], dict):
        (x2, y2), steps = click_point(find_node(dev, args[0])), args[1]
    else:
        raise InvalidParams("dragTo takes (selector, x, y, steps) or (selector, destSelector, steps)")
    dev.wm.drag(x1, y1, x2, y2, max(1, as_int(steps, "steps")) * 5)
    return True


def _wait(dev: VirtualDevice, selector: Any, timeout: Any, present: bool) -> bool:
    """Poll every :data:`POLL_S` host seconds, holding ``device.lock`` only while looking."""
    sel = _sel(selector)
    deadline = time.monotonic() + max(0, as_int(timeout, "timeout")) / 1000
    while True:
        with dev.lock:
            if (find(screen_nodes(dev), sel) is not None) == present:
                return True
        if time.monotonic() >= deadline:
            return False
        dev.ui_changed()  # a wait exists to see changes nothing announced: look afresh next time
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))


@rpc(locked=False, reads=True)
def waitForExists(dev: VirtualDevice, selector: Any, timeout: Any) -> bool:
    return _wait(dev, selector, timeout, True)


@rpc(locked=False, reads=True)
def waitUntilGone(dev: VirtualDevice, selector: Any, timeout: Any) -> bool:
    return _wait(dev, selector, timeout, False)


# ---------------------------------------------------------------------------------------------- UiScrollable
def _signature(dev: VirtualDevice) -> tuple[tuple[Any, ...], ...]:
    return tuple((n.view.cls, n.view.text, n.view.content_desc, n.view.resource_id, n.view.bounds)
                 for n in screen_nodes(dev))


def _scroll(dev: VirtualDevice, selector: Any, vertical: Any, forward: bool, steps: Any = 55,
            fling: bool = False) -> bool:
    """Scroll the matched container one page (80 % of its visible size); True if the screen changed.

    A vertical scroll goes through the view's ``on_scroll`` when it has one; otherwise a swipe inside the
    view's visible bounds is dispatched like a finger would do it (forward = finger towards the top/left).
    """
    node = find_node(dev, selector)
    is_vertical = as_bool(vertical, "vertical")
    duration = max(1, as_int(steps, "steps")) * 5
    before = _signature(dev)
    left, top, right, bottom = node.visible_bounds
    if is_vertical and node.view.on_scroll is not None:
        distance = int((bottom - top) * (1.6 if fling else 0.8))
        node.view.on_scroll(distance if forward else -distance)
    elif is_vertical:
        near, far = bottom - (bottom - top) // 10, top + (bottom - top) // 10
        cx = (left + right) // 2
        y1, y2 = (near, far) if forward else (far, near)
        dev.wm.swipe(cx, y1, cx, y2, duration)
    else:
        near, far = right - (right - left) // 10, left + (right - left) // 10
        cy = (top + bottom) // 2
        x1, x2 = (near, far) if forward else (far, near)
        dev.wm.swipe(x1, cy, x2, cy, duration)
    return _signature(dev) != before


def _scroll_all(dev: VirtualDevice, selector: Any, vertical: Any, forward: bool, max_swipes: Any,
                steps: Any = 55, fling: bool = False) -> bool:
    for _ in range(max(0, as_int(max_swipes, "maxSwipes"))):
        if not _scroll(dev, selector, vertical, forward, steps, fling):
            break
    return True


@rpc()
def scrollForward(dev: VirtualDevice, selector: Any, vertical: Any = True, steps: Any = 55) -> bool:
    return _scroll(dev, selector, vertical, True, steps)


@rpc()
def scrollBackward(dev: VirtualDevice, selector: Any, vertical: Any = True, steps: Any = 55) -> bool:
    return _scroll(dev, selector, vertical, False, steps)


@rpc()
def scrollToBeginning(dev: VirtualDevice, selector: Any, vertical: Any = True, maxSwipes: Any = 500,
                      steps: Any = 55) -> bool:
    return _scroll_all(dev, selector, vertical, False, maxSwipes, steps)


@rpc()
def scrollToEnd(dev: VirtualDevice, selector: Any, vertical: Any = True, maxSwipes: Any = 500,
                steps: Any = 55) -> bool:
    return _scroll_all(dev, selector, vertical, True, maxSwipes, steps)


@rpc()
def flingForward(dev: VirtualDevice, selector: Any, vertical: Any = True) -> bool:
    return _scroll(dev, selector, vertical, True, 5, fling=True)


@rpc()
def flingBackward(dev: VirtualDevice, selector: Any, vertical: Any = True) -> bool:
    return _scroll(dev, selector, vertical, False, 5, fling=True)


@rpc()
def flingToBeginning(dev: VirtualDevice, selector: Any, vertical: Any = True, maxSwipes: Any = 500) -> bool:
    return _scroll_all(dev, selector, vertical, False, maxSwipes, 5, fling=True)


@rpc()
def flingToEnd(dev: VirtualDevice, selector: Any, vertical: Any = True, maxSwipes: Any = 500) -> bool:
    return _scroll_all(dev, selector, vertical, True, maxSwipes, 5, fling=True)


@rpc()
def scrollTo(dev: VirtualDevice, selector: Any, target: Any, vertical: Any = True) -> bool:
    """UiScrollable.scrollIntoView: scroll the container until ``target`` shows (forward, then back)."""
    target = _sel(target)
    if find(screen_nodes(dev), target) is not None:
        return True
    for forward in (True, False):
        for _ in range(MAX_SEARCH_SWIPES):
            if not _scroll(dev, selector, vertical, forward):
                break
            if find(screen_nodes(dev), target) is not None:
                return True
    return False


def _child_by(dev: VirtualDevice, selector: Any, child: Any, wanted: Callable[[Node], bool],
              allow_scroll: Any) -> dict[str, Any]:
    """UiCollection.getChildByText & co.: the selector of the first ``child`` match (a descendant of the
    container) whose subtree has a node satisfying ``wanted``; scrolls the container to look further."""
    sel, pattern = _sel(selector), _sel(child)
    scroll = as_bool(allow_scroll, "allowScrollSearch")
    probe = child_selector(sel, {k: v for k, v in pattern.items() if k != "instance"}, 0)
    for _ in range(MAX_SEARCH_SWIPES + 1):
        nodes = screen_nodes(dev)
        if find(nodes, sel) is None:
            raise ObjectNotFound(sel)
        for k, cand in enumerate(find_all(nodes, probe, use_instance=False)):
            if any(wanted(nodes[i]) for i in range(cand.pos, cand.end)):
                return child_selector(sel, pattern, k)
        if not scroll or not _scroll(dev, sel, True, True):
            break
    raise ObjectNotFound(pattern)


@rpc()
def childByText(dev: VirtualDevice, selector: Any, child: Any, text: Any,
                allowScrollSearch: Any = True) -> dict[str, Any]:
    value = as_str(text, "text")
    return _child_by(dev, selector, child, lambda n: n.view.text == value, allowScrollSearch)


@rpc()
def childByDescription(dev: VirtualDevice, selector: Any, child: Any, description: Any,
                       allowScrollSearch: Any = True) -> dict[str, Any]:
    value = as_str(description, "description")
    return _child_by(dev, selector, child, lambda n: n.view.content_desc == value, allowScrollSearch)


@rpc()
def childByInstance(dev: VirtualDevice, selector: Any, child: Any, instance: Any) -> dict[str, Any]:
    return child_selector(_sel(selector), _sel(child), as_int(instance, "instance"))
