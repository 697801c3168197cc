"""Input dispatch for the window manager: gestures, keys and raw touch events (text editing is in
:mod:`emukit.vdevice.ui.editing`).

Hit-testing takes the top-most touchable window under the point (toasts are not touchable) and its
``hit_path``; behaviour is looked up from the deepest view upwards. App callbacks run through
``_run_app``: an exception there "crashes" the app (force-stop plus an "X has stopped" toast) unless
``crash_on_error`` is False, in which case it propagates.
"""

from __future__ import annotations

import abc
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emukit.vdevice.ui import theme
from emukit.vdevice.ui.editing import EditingMixin

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.ui.view import View

log = logging.getLogger("emukit.vdevice.ui")

ACTION_DOWN, ACTION_UP, ACTION_MOVE, ACTION_CANCEL = 0, 1, 2, 3
TOUCH_SLOP = theme.px(24)  # how far a finger may move and still tap (24 px at 420 dpi, ~9 dp)
LONG_PRESS_S = 0.5
SHADE_PULL = theme.px(200)  # how far a swipe from the status bar must travel down to open the shade

KEY_HOME, KEY_BACK, KEY_APP_SWITCH = 3, 4, 187
HARMLESS_KEYS = {26, 224, 223, 82, 24, 25, 164, 91, 220, 221}  # power, wake, sleep, menu, volume, mute, brightness


@dataclass
class _Touch:
    """A finger on the screen between ACTION_DOWN and ACTION_UP."""

    x: int
    y: int
    t_down: float
    t_moved: float | None = None
    last: tuple[int, int] = (0, 0)


class InputMixin(EditingMixin):
    """Gesture and key input for :class:`WindowManager` (which provides the windows and Overview)."""

    device: VirtualDevice
    crash_on_error: bool = True  # an exception in an app's build/callback "crashes" the app (else re-raised)

    def __init__(self) -> None:
        super().__init__()
        self._touch: _Touch | None = None

    # --------------------------------------------------------------- provided by the WindowManager
    @abc.abstractmethod
    def open_overview(self) -> None:
        """Show Overview (recent apps)."""

    @abc.abstractmethod
    def close_overview(self) -> None:
        """Hide Overview."""

    @property
    @abc.abstractmethod
    def overview_open(self) -> bool:
        """Whether Overview shows."""

    # --------------------------------------------------------------- calling into apps
    def _crash(self, package: str) -> None:
        """An app threw: like Android, kill it and tell the user."""
        log.exception("virtual app %s crashed", package)
        label = self.device.apps[package].label if package in self.device.apps else package
        self.device.force_stop(package)
        self.device.state.ui.toast = f"{label} has stopped"

    def _run_app(self, package: str, fn: Callable[..., object], *args: object) -> object:
        """Call app code; an exception crashes that app (system UI and launcher errors propagate)."""
        try:
            return fn(*args)
        except Exception:
            if (not self.crash_on_error or package not in self.device.apps
                    or package == self.device.launcher_package):
                raise
            self._crash(package)
            return None

    def _invoke(self, view: View, fn: Callable[..., object], *args: object) -> None:
        self._run_app(view.package, fn, *args)

    # --------------------------------------------------------------- hit testing
    def _hit(self, x: int, y: int) -> tuple[int, list[View]]:
        """(window index, hit path) of the top-most touchable window under (x, y); (-1, []) if none."""
        wins = self.windows()
        for i in range(len(wins) - 1, -1, -1):
            if wins[i].cls == "android.widget.Toast":
                continue
            path = wins[i].hit_path(x, y)
            if path:
                return i, path
        return -1, []

    def _begin(self) -> None:
        """Every input event hides a toast."""
        self.device.state.ui.toast = None

    # --------------------------------------------------------------- gestures
    def tap(self, x: int, y: int) -> None:
        """A short touch: click the deepest clickable view, or focus an editable one."""
        with self.device.lock:
            self._begin()
            self._tap(x, y)

    def _tap(self, x: int, y: int) -> None:
        index, path = self._hit(x, y)
        self.text_menu = None
        target = next((v for v in reversed(path) if v.on_click is not None or v.editable), None)
        if target is None:
            if index == 0:  # nothing clickable in the app: focus goes away with the keyboard
                self._clear_focus()
            return
        if not target.enabled:
            return
        if target.editable:
            self._focus(target)
        if target.on_click is not None:
            self._invoke(target, target.on_click)

    def hold(self, duration_ms: int) -> None:
        """In hardware mode a gesture takes its real duration: wait ``duration_ms`` with the device lock
        released (fully, even when the caller holds it) so the device goes on meanwhile, as the injected
        events of a real gesture are spread over its duration (``input swipe ... DURATION``; UiAutomator's
        InteractionController.swipe sleeps MOTION_EVENT_INJECTION_DELAY_MILLIS = 5 ms after each of its
        steps, androidx/androidx 17a86409 test/uiautomator/uiautomator/src/main/java/androidx/test/uiautomator/
        InteractionController.java). The deterministic mode does not wait."""
        if not self.device.hardware or duration_ms <= 0:
            return
        deadline = time.monotonic() + duration_ms / 1000
        released = threading.Condition(self.device.lock)  # wait() releases an RLock however deep it is held
        with released:
            while (left := deadline - time.monotonic()) > 0:
                released.wait(left)

    def long_press(self, x: int, y: int, duration_ms: int = 700) -> None:
        """Touch and hold: ``on_long_click_at(x, y)`` or ``on_long_click`` of the deepest view that has one."""
        self.hold(duration_ms)
        with self.device.lock:
            self._begin()
            self._long_press(x, y)

    def _long_press(self, x: int, y: int) -> None:
        _, path = self._hit(x, y)
        self.text_menu = None
        for view in reversed(path):
            if not view.enabled:
                return
            if view.on_long_click_at is not None:
                self._invoke(view, view.on_long_click_at, x, y)
                return
            if view.on_long_click is not None:
                self._invoke(view, view.on_long_click)
                return
            if view.editable:
                self.show_text_menu(view)
                return

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """A moving touch: drag handle, shade pull-down / push-up, or scroll (a still one is a tap/long press).
        The effect comes when the finger lifts, after the gesture's duration in hardware mode."""
        self.hold(duration_ms)
        with self.device.lock:
            self._begin()
            self._swipe(x1, y1, x2, y2, duration_ms)

    def _swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        if math.hypot(x2 - x1, y2 - y1) <= TOUCH_SLOP:
            if duration_ms >= LONG_PRESS_S * 1000:
                self._long_press(x1, y1)
            else:
                self._tap(x1, y1)
            return
        self.text_menu = None
        ui = self.device.state.ui
        if ui.shade_open:
            if y1 - y2 >= SHADE_PULL // 2:
                ui.shade_open = False
            return
        _, path = self._hit(x1, y1)
        handle = next((v for v in reversed(path) if v.on_drag is not None), None)
        if handle is not None:
            self._invoke(handle, handle.on_drag, x1, y1, x2, y2)
            return
        if y1 < theme.STATUS_H and y2 - y1 >= SHADE_PULL:
            self.expand_notifications()
            return
        dy = y1 - y2
        if dy and abs(dy) * 2 >= abs(x2 - x1):
            scroller = next((v for v in reversed(path) if v.on_scroll is not None), None)
            if scroller is not None:
                self._invoke(scroller, scroller.on_scroll, dy)

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 1000) -> None:
        """Long press then move (uiautomator drag, ``input draganddrop``): ``on_drag`` or swipe semantics."""
        self.hold(duration_ms)
        with self.device.lock:
            self._begin()
            self._drag(x1, y1, x2, y2, duration_ms)

    def _drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        _, path = self._hit(x1, y1)
        handle = next((v for v in reversed(path) if v.on_drag is not None), None)
        if handle is not None:
            self._invoke(handle, handle.on_drag, x1, y1, x2, y2)
        else:
            self._swipe(x1, y1, x2, y2, duration_ms)

    def touch(self, action: int, x: int, y: int) -> None:
        """Raw MotionEvents, fed one by one; ACTION_UP classifies the gesture by host time and distance."""
        with self.device.lock:
            now = time.monotonic()
            if action == ACTION_DOWN:
                self._begin()
                self._touch = _Touch(x, y, now, last=(x, y))
                return
            touch = self._touch
            if touch is None:
                return
            if action == ACTION_CANCEL:
                self._touch = None
                return
            touch.last = (x, y)
            if touch.t_moved is None and math.hypot(x - touch.x, y - touch.y) > TOUCH_SLOP:
                touch.t_moved = now
            if action != ACTION_UP:
                return
            self._touch = None
            held_ms = int((now - touch.t_down) * 1000)
            if touch.t_moved is None:
                if held_ms >= LONG_PRESS_S * 1000:
                    self._long_press(touch.x, touch.y)
                else:
                    self._tap(touch.x, touch.y)
            elif touch.t_moved - touch.t_down >= LONG_PRESS_S:
                self._drag(touch.x, touch.y, x, y, held_ms)
            else:
                self._swipe(touch.x, touch.y, x, y, held_ms)

    # --------------------------------------------------------------- shade
    def expand_notifications(self) -> None:
        with self.device.lock:
            self.device.state.ui.shade_open = True

    def collapse_notifications(self) -> None:
        with self.device.lock:
            self.device.state.ui.shade_open = False

    # --------------------------------------------------------------- keys
    def key(self, keycode: int) -> None:
        """An Android key event (``input keyevent``)."""
        with self.device.lock:
            self._begin()
            menu, self.text_menu = self.text_menu, None
            device, ui = self.device, self.device.state.ui
            if keycode == KEY_HOME:
                self.close_overview()
                ui.shade_open = False
                self._clear_focus()
                device.go_home()
            elif keycode == KEY_BACK:
                self._back()
            elif keycode == KEY_APP_SWITCH:
                if self.overview_open:
                    self.close_overview()
                else:
                    self.open_overview()
            elif keycode in HARMLESS_KEYS:
                return
            elif self._focused_field() is not None:
                self.text_menu = menu  # an editing key acts on the selection (DEL deletes it, typing replaces it)
                if self._edit_key(keycode):
                    return
                self.text_menu = None
                self._invoke_app_key(keycode)
            else:
                self._invoke_app_key(keycode)

    def _invoke_app_key(self, keycode: int) -> None:
        act = self.device.top
        app = self.device.app(act.package)
        self._run_app(act.package, app.on_key, self.device, act, keycode)

    def _back(self) -> None:
        device, ui = self.device, self.device.state.ui
        if self.overview_open:
            self.close_overview()
        elif ui.shade_open:
            ui.shade_open = False
        elif self._focused_field() is not None:
            self._clear_focus()
        else:
            act = device.top
            app = device.app(act.package)
            consumed = self._run_app(act.package, app.on_back, device, act)
            if consumed is None and act.package not in device.state.running:
                return  # it crashed
            if not consumed and act.package != device.launcher_package:
                device.finish_top()
