"""The driver: everything templates, tasks and probes do to a device, on any device, through adb.

Shell commands, screenshots and hierarchy dumps go through :mod:`emukit.device.adbwire` (the adb server's
protocol, without the client-side stalls); UI input and selectors go to the uiautomator2 server on the
device (started once through the unmodified ``uiautomator2`` package, then called over JSON-RPC). Every wait
polls a condition with a deadline and raises :class:`DeviceError` naming the serial and what it awaited.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from emukit.actions import Action, Element
from emukit.device.adbwire import AdbWire, DeadlinePassed, JsonRpcError, ShellResult
from emukit.errors import DeviceError
from emukit.hierarchy import elements_of

if TYPE_CHECKING:
    from emukit.device.emulator_grpc import EmulatorControllerClient

T = TypeVar("T")
CARET_WATCH_S = 1.1  # two blink periods of Android's caret (Editor.BLINK = 500 ms) and a capture
_FOCUS_RE = re.compile(r"mCurrentFocus=Window\{.*\s+(?P<package>[^\s/]+)/(?P<activity>[^\s}]+)\}")
SELECTOR_KEYS = {"text", "textContains", "textMatches", "textStartsWith", "className", "classNameMatches",
                 "description", "descriptionContains", "descriptionMatches", "descriptionStartsWith",
                 "resourceId", "resourceIdMatches", "packageName", "packageNameMatches", "checkable",
                 "checked", "clickable", "longClickable", "scrollable", "enabled", "focusable", "focused",
                 "selected", "index", "instance"}


def element_from_info(info: dict[str, Any]) -> Element:
    b = info.get("bounds") or {}
    return Element(text=info.get("text") or "", resource_id=info.get("resourceName") or "",
                   content_desc=info.get("contentDescription") or "", cls=info.get("className") or "",
                   bounds=(b.get("left", 0), b.get("top", 0), b.get("right", 0), b.get("bottom", 0)))


def _last_value(text: str, pattern: str) -> tuple[str, ...] | None:
    """The groups of the last line of ``wm`` output matching ``pattern`` (an ``Override`` line follows the
    ``Physical`` one)."""
    found = None
    for line in text.splitlines():
        m = re.search(pattern, line)
        if m:
            found = m.groups()
    return found


class ActionRecorder(Protocol):
    """Sees every action a driver executes: ``before`` runs first (e.g. to capture the observation the
    action was chosen from), ``after`` gets the executed action's record."""

    def before(self, driver: Driver, action: Action) -> None: ...

    def after(self, driver: Driver, action: Action) -> None: ...


class Driver:
    """One device by serial, through the adb server on ``adb_port``."""

    recorder: ActionRecorder | None = None

    def __init__(self, serial: str, adb_port: int = 5037, *, default_timeout: float = 10.0) -> None:
        self.serial = serial
        self.adb_port = adb_port
        self.wire = AdbWire(serial, adb_port)
        self.default_timeout = default_timeout
        self._u2: Any = None
        self._screen: tuple[int, int, int] | None = None
        self._blinks: bool | None = None  # whether the caret blinks on this device (learnt: _caret_blinks)
        self._grpc: Any = None  # the emulator's gRPC controller client, opened on first use

    def screen(self) -> tuple[int, int, int]:
        """(width, height, density dpi) of the display, from ``wm size`` / ``wm density`` (an override, when
        set, wins, as it does for the apps); read once per driver. Profiles derive every gesture from this and
        from element bounds, never from a fixed screen."""
        if self._screen is None:
            size = self.shell("wm size", check=True).text
            dens = self.shell("wm density", check=True).text
            w_h = _last_value(size, r"(\d+)x(\d+)")
            dpi = _last_value(dens, r"(\d+)")
            if w_h is None or dpi is None:
                raise DeviceError(f"{self.serial}: cannot read the screen size from {size.strip()!r} / "
                                  f"{dens.strip()!r}")
            self._screen = (int(w_h[0]), int(w_h[1]), int(dpi[0]))
        return self._screen

    def dp(self, value: float) -> int:
        """``value`` density-independent pixels in this display's pixels."""
        return round(value * self.screen()[2] / 160)

    @contextlib.contextmanager
    def deadline(self, seconds: float | None, what: str) -> Iterator[None]:
        """Within the block every adb request must finish by ``seconds`` from now: each request's timeout is
        cut to the time left, and once none is left the next request raises
        :class:`~emukit.device.adbwire.DeadlinePassed` naming ``what`` and the step. Nested deadlines keep the
        earlier one. ``None`` means no deadline."""
        wire = self.wire
        saved = (wire.deadline, wire.deadline_what)
        if seconds is not None:
            end = time.monotonic() + seconds
            if wire.deadline is None or end < wire.deadline:
                wire.deadline, wire.deadline_what = end, f"{what} (deadline {seconds:g} s)"
        try:
            yield
        finally:
            wire.deadline, wire.deadline_what = saved

    # ------------------------------------------------------------------ basics
    def shell(self, command: str, *, check: bool = False, timeout: float | None = None) -> ShellResult:
        """Run a device shell command; with ``check`` a non-zero exit raises DeviceError."""
        result = self.wire.shell(command, timeout)
        if check and not result.ok:
            raise DeviceError(f"{self.serial}: `{command}` exited {result.exit_code}: "
                              f"{result.stderr.decode(errors='replace').strip() or result.text.strip()}")
        return result

    def adbutils(self):
        """The ``adbutils`` device (sync push/pull, forward...); its socket timeout is the wire's, cut to what
        is left of the current :meth:`deadline` (adbutils' own default is no timeout at all)."""
        import adbutils

        timeout = self.wire.budget(None, "an adb sync/forward request")
        return adbutils.AdbClient(port=self.adb_port, socket_timeout=timeout).device(self.serial)

    def ensure_ui(self) -> None:
        """Start the uiautomator2 server on the device once (pushes its jar if needed)."""
        if self._u2 is not None:
            return
        import os

        os.environ.setdefault("ANDROID_ADB_SERVER_PORT", str(self.adb_port))
        import uiautomator2

        try:
            # as uiautomator2's own connect does, wait (up to 10 s) for the device to be listed again after a
            # transport drop; then connect through an adbutils device with a socket timeout: uiautomator2's
            # own client has none, so a device that stops answering would hang the start forever
            self._wait_listed(10.0)
            self._u2 = uiautomator2.connect(self.adbutils())
            self.wire.jsonrpc("deviceInfo")
        except DeadlinePassed:
            self._u2 = None
            raise
        except Exception as exc:  # uiautomator2 raises many kinds
            self._u2 = None
            if self.wire.deadline is not None and time.monotonic() >= self.wire.deadline:
                raise DeadlinePassed(f"{self.serial}: {self.wire.deadline_what} ran out of time while starting "
                                     f"uiautomator2: {exc}") from exc
            raise DeviceError(f"{self.serial}: uiautomator2 server did not start: {exc}") from exc

    def _wait_listed(self, timeout: float) -> None:
        """Poll the adb server's device list until this serial is there as ``device`` (at most ``timeout`` s,
        cut to the current deadline); returns either way: the connect that follows reports the failure."""
        from emukit.device.adbserver import AdbServer

        server = AdbServer(self.adb_port)
        end = time.monotonic() + self.wire.budget(timeout, "waiting for the device to be listed")
        while server.state(self.serial) != "device" and time.monotonic() < end:
            time.sleep(0.1)

    def rpc(self, method: str, *params: Any, timeout: float | None = None) -> Any:
        """One JSON-RPC call to the uiautomator2 server."""
        self.ensure_ui()
        try:
            return self.wire.jsonrpc(method, list(params), timeout=timeout)
        except JsonRpcError:
            raise
        except DeviceError:
            # the uiautomator2 server went away (its app_process stream ends with the transport): restart
            # it once, as uiautomator2's own client does
            self._u2 = None
            self.ensure_ui()
            return self.wire.jsonrpc(method, list(params), timeout=timeout)

    def emulator_controller(self) -> EmulatorControllerClient:
        """The device's emulator gRPC controller (found by its serial's discovery file), connected on first
        use and kept as long as the driver: one channel for every clipboard read on this device."""
        if self._grpc is None:
            from emukit.device.emulator_grpc import EmulatorControllerClient

            self._grpc = EmulatorControllerClient.for_serial(self.serial)
        return self._grpc

    def close(self) -> None:
        self.wire.close()
        grpc_client, self._grpc = self._grpc, None
        if grpc_client is not None:
            with contextlib.suppress(Exception):  # best effort at shutdown
                grpc_client.close()
        if self._u2 is not None:
            with contextlib.suppress(Exception):  # best effort at shutdown
                self._u2.stop_uiautomator(wait=False)
            self._u2 = None

    # ------------------------------------------------------------------ observation
    def screenshot(self) -> bytes:
        """The screen as PNG bytes (``screencap -p``, lossless)."""
        png = self.wire.exec_out("screencap -p")
        if not png.startswith(b"\x89PNG"):
            raise DeviceError(f"{self.serial}: screencap returned {len(png)} bytes that are not a PNG")
        return png

    def hierarchy(self) -> str:
        """The UI hierarchy XML (uiautomator dump format)."""
        return str(self.rpc("dumpWindowHierarchy", False, 50))

    def elapsed_realtime_ms(self) -> int:
        """The device's elapsed-realtime (``SystemClock.elapsedRealtime``, from ``/proc/uptime``) in ms."""
        text = self.shell("cat /proc/uptime", check=True).text.split()
        try:
            return round(float(text[0]) * 1000)
        except (IndexError, ValueError):
            raise DeviceError(f"{self.serial}: /proc/uptime reads {' '.join(text)!r}") from None

    def observe(self) -> tuple[bytes, str]:
        return self.screenshot(), self.hierarchy()

    def wait_stable(self, timeout: float | None = None, interval: float = 0.05) -> tuple[bytes, str]:
        """Capture until two consecutive (screenshot, hierarchy) captures are equal, or are the two blink
        phases of one screen whose only change is the focused field's caret (:mod:`emukit.device.settle`);
        on a device whose caret blinks, a screen with a focused text field is returned in the phase with the
        caret hidden, so the same screen always gives the same bytes. Returns the capture."""
        from emukit.device.settle import caret_phases, focused_editables

        deadline = time.monotonic() + (timeout or self.default_timeout)
        last = self.observe()
        while True:
            current = self.observe()
            if current[1] == last[1]:
                if current == last:
                    if self._blinks is False or not focused_editables(current[1]) or not self._caret_blinks(current):
                        return current
                    return self._caret_hidden(current)
                settled = caret_phases(last, current, self.screen()[2])
                if settled is not None:
                    self._blinks = True
                    return settled
            if time.monotonic() > deadline:
                raise DeviceError(f"{self.serial}: screen did not settle within {timeout or self.default_timeout} s")
            last = current
            time.sleep(interval)

    def _caret_blinks(self, capture: tuple[bytes, str]) -> bool:
        """Whether this device's caret blinks, learnt once from the first settled screen with a focused text
        field: not on a device whose elapsed-realtime stands still between two reads (a logical clock);
        otherwise the screen is watched for two blink periods (Editor.BLINK is 500 ms)."""
        if self._blinks is None:
            from emukit.device.settle import caret_phases

            first = self.elapsed_realtime_ms()
            time.sleep(0.03)
            if self.elapsed_realtime_ms() == first:  # the device's clock stands still: nothing on it blinks
                self._blinks = False
                return False
            until = time.monotonic() + CARET_WATCH_S
            while time.monotonic() < until:
                time.sleep(0.05)
                current = self.observe()
                if current[1] != capture[1]:
                    return False  # the screen moved on: learn it another time
                if current != capture:
                    self._blinks = caret_phases(capture, current, self.screen()[2]) is not None
                    return self._blinks
            self._blinks = False
        return self._blinks

    def _caret_hidden(self, capture: tuple[bytes, str]) -> tuple[bytes, str]:
        """``capture`` or the next capture of the same screen, whichever shows the caret hidden."""
        from emukit.device.settle import caret_phases

        until = time.monotonic() + CARET_WATCH_S
        while time.monotonic() < until:
            time.sleep(0.05)
            current = self.observe()
            if current != capture:
                return caret_phases(capture, current, self.screen()[2]) or current
        return capture

    def recapture(self, settled: tuple[bytes, str], timeout: float = 2.0) -> tuple[bytes, str]:
        """A second capture of a settled screen, to check that it stays settled: the next capture, or, when
        that shows the caret in the other blink phase, the next one in the same phase as ``settled`` (the
        caret's phases alternate every 500 ms). Whatever else changed is returned as it is."""
        from emukit.device.settle import caret_phases

        deadline = time.monotonic() + timeout
        current = self.observe()
        while current != settled and caret_phases(settled, current, self.screen()[2]) is settled:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
            current = self.observe()
        return current

    def wait_idle(self, timeout: float | None = None) -> None:
        """UiDevice.waitForIdle: returns once the UI has no pending accessibility events."""
        ms = int((timeout or self.default_timeout) * 1000)
        self.rpc("waitForIdle", ms, timeout=ms / 1000 + 10)

    def capture(self) -> tuple[bytes, str]:
        """One observation once the UI is idle (cheaper than :meth:`wait_stable`, which captures twice)."""
        self.wait_idle()
        return self.observe()

    def focused_app(self) -> tuple[str, str] | None:
        """(package, activity) of the focused app window; None while a system window without an activity
        (the notification shade, the keyguard) has the focus. DeviceError when nothing has it."""
        out = self.shell("dumpsys window windows").text
        m = _FOCUS_RE.search(out)
        if m:
            return m.group("package"), m.group("activity")
        if "mCurrentFocus=Window{" in out:
            return None
        raise DeviceError(f"{self.serial}: no focused window in dumpsys window")

    def current_app(self) -> tuple[str, str]:
        """(package, activity) of the focused app window; DeviceError when no app window has the focus."""
        focused = self.focused_app()
        if focused is None:
            raise DeviceError(f"{self.serial}: no focused window in dumpsys window")
        return focused

    def wait_until(self, predicate: Callable[[], T], what: str, timeout: float | None = None,
                   interval: float = 0.05) -> T:
        """Poll ``predicate`` until it returns something truthy; returns it."""
        deadline = time.monotonic() + (timeout or self.default_timeout)
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise DeviceError(f"{self.serial}: timed out after {timeout or self.default_timeout} s "
                                  f"waiting for {what}")
            time.sleep(interval)

    # ------------------------------------------------------------------ elements
    @staticmethod
    def selector(**query: Any) -> dict[str, Any]:
        """A uiautomator2 UiSelector dict from keyword arguments (text=..., resourceId=...). ``within`` (a
        selector dict of the same form, as a table's structural entries give) names a container: the result
        is the container's selector with this one as its child selector (matched among its descendants)."""
        chain = [dict(query)]
        while "within" in chain[0]:
            outer = chain[0].pop("within")
            if not isinstance(outer, dict):
                raise TypeError(f"selector field within must be a selector mapping, not {outer!r}")
            chain.insert(0, dict(outer))
        for part in chain:
            unknown = set(part) - SELECTOR_KEYS
            if unknown:
                raise ValueError(f"unknown selector field(s): {', '.join(sorted(unknown))}")
        from uiautomator2._selector import Selector

        sel = Selector(**chain[0])
        for part in chain[1:]:
            sel = sel.child(**part)
        return dict(sel)

    def find(self, timeout: float = 0.0, **query: Any) -> Element | None:
        """The element matching the selector (waiting up to ``timeout`` s), or None."""
        sel = self.selector(**query)
        found = self._obj_info(sel)
        if found is None and timeout:
            # not on screen yet: let the device wait for it (one call), then read it
            if not self.rpc("waitForExists", sel, int(timeout * 1000), timeout=timeout + 10):
                return None
            found = self._obj_info(sel)
        return found

    def _obj_info(self, sel: dict[str, Any]) -> Element | None:
        try:
            return element_from_info(self.rpc("objInfo", sel))
        except JsonRpcError as exc:
            if exc.not_found:
                return None
            raise

    def element(self, timeout: float | None = None, **query: Any) -> Element:
        """Like :meth:`find` but raises DeviceError when nothing matches."""
        found = self.find(timeout=self.default_timeout if timeout is None else timeout, **query)
        if found is None:
            raise DeviceError(f"{self.serial}: no element matches {query}")
        return found

    def exists(self, **query: Any) -> bool:
        return bool(self.rpc("exist", self.selector(**query)))

    def elements(self, xml: str | None = None) -> list[Element]:
        """Every node of the hierarchy (``xml``, else a fresh dump) as an Element (document order)."""
        return elements_of(xml or self.hierarchy())

    # ------------------------------------------------------------------ actions (each returns its record)
    def _timed(self, action: Action, run: Callable[[], object]) -> Action:
        recorder = self.recorder
        if recorder is not None:
            recorder.before(self, action)
        t0 = time.perf_counter()
        run()
        action.elapsed_ms = (time.perf_counter() - t0) * 1000
        if recorder is not None:
            recorder.after(self, action)
        return action

    def _target(self, x: int | None, y: int | None, query: dict[str, Any],
                at_dp: tuple[float, float] | None = None) -> tuple[int, int, Element | None]:
        if query:
            el = self.element(**query)
            if at_dp is None:
                cx, cy = el.center
                return cx, cy, el
            # a point inside the element, ``at_dp`` density-independent pixels from its top-left corner (the first
            # word of a paragraph), kept inside its bounds
            left, top, right, bottom = el.bounds
            px = min(left + self.dp(at_dp[0]), max(left, right - 1))
            py = min(top + self.dp(at_dp[1]), top + max(0, (bottom - top) // 2))
            return px, py, el
        if x is None or y is None:
            raise ValueError("give coordinates or a selector")
        return x, y, None

    def tap(self, x: int | None = None, y: int | None = None, *, at_dp: tuple[float, float] | None = None,
            **query: Any) -> Action:
        """Tap at (x, y), or on the element ``query`` selects: its centre, or ``at_dp`` (dp from its top-left)."""
        x, y, el = self._target(x, y, query, at_dp)
        return self._timed(Action(type="tap", x=x, y=y, element=el), lambda: self.rpc("click", x, y))

    def long_press(self, x: int | None = None, y: int | None = None, duration_ms: int = 800, *,
                   at_dp: tuple[float, float] | None = None, **query: Any) -> Action:
        """Long-press like :meth:`tap` for ``duration_ms``."""
        x, y, el = self._target(x, y, query, at_dp)
        return self._timed(Action(type="long_press", x=x, y=y, duration_ms=duration_ms, element=el),
                           lambda: self.rpc("click", x, y, duration_ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> Action:
        """A finger swipe (``input swipe`` semantics: drag handles move, lists scroll, the shade opens)."""
        return self._timed(Action(type="swipe", x=x1, y=y1, x2=x2, y2=y2, duration_ms=duration_ms),
                           lambda: self.shell(f"input swipe {x1} {y1} {x2} {y2} {duration_ms}", check=True))

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 1000,
             element: Element | None = None) -> Action:
        """Long-press then move (uiautomator2 drag: 5 ms per step)."""
        steps = max(1, duration_ms // 5)
        return self._timed(Action(type="drag", x=x1, y=y1, x2=x2, y2=y2, duration_ms=duration_ms, element=element),
                           lambda: self.rpc("drag", x1, y1, x2, y2, steps))

    def type_text(self, text: str) -> Action:
        """Type into the focused field like a keyboard does (``input text``)."""
        escaped = text.replace("%", "\\%").replace(" ", "%s")
        return self._timed(Action(type="type", text=text),
                           lambda: self.shell(f"input text {shlex.quote(escaped)}", check=True))

    def key(self, keycode: int) -> Action:
        return self._timed(Action(type="key", key=keycode), lambda: self.rpc("pressKeyCode", keycode))

    def back(self) -> Action:
        return self.key(4)

    def home(self) -> Action:
        return self.key(3)

    def open_app(self, package: str, label: str) -> Action:
        """GUI-CC's semantic ``open_app`` (seed 000, section 3.3) as one recorded action: the app whose launcher
        icon is labelled ``label`` is started through its launcher intent (MAIN / LAUNCHER), as a tap on the icon
        starts it: a running app comes back where it was left, a stopped one opens on its launcher activity.
        Performed as android_world performs its ``open_app`` (``monkey -p PACKAGE``; google-research/android_world
        d9c569f764b3 android_world/env/actuation.py:193-198, android_world/env/adb_utils.py:681-706); the caller
        resolves the label to the package (:func:`emukit.apps.registry.package_for_label`)."""

        def start() -> None:
            self.shell(f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1", check=True)
            self.wait_until(lambda: self.current_app()[0] == package, f"{label} ({package}) in the foreground")

        return self._timed(Action(type="open_app", text=label), start)

    # ------------------------------------------------------------------ apps
    def start_app(self, package: str, activity: str | None = None, *, stop_first: bool = False) -> None:
        component = f"{package}/{activity}" if activity else None
        if component:
            cmd = f"am start {'-S ' if stop_first else ''}-W -n {shlex.quote(component)}"
        else:
            if stop_first:
                self.shell(f"am force-stop {shlex.quote(package)}")
            cmd = f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1"
        self.shell(cmd, check=True)
        self.wait_until(lambda: self.current_app()[0] == package, f"{package} in the foreground")

    def stop_app(self, package: str) -> None:
        self.shell(f"am force-stop {shlex.quote(package)}", check=True)
