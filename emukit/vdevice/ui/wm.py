"""The window manager: composes the screen from the top activity and system UI, renders it and takes input.

Windows, bottom first: the app (top activity, its content view built into the frame between the system bars,
shrunk above the keyboard while one shows, like ``adjustResize``, inside the window decor that holds
``android:id/content``), status bar, navigation bar, soft keyboard (while an
editable view is focused), Overview, notification shade and toast. Screenshots are cached by the render
relevant content of the composed tree, so an unchanged screen costs one tree build.

Input dispatch (tap / long press / swipe / drag / keys / text, and raw touch events classified into those)
lives in :class:`emukit.vdevice.ui.input.InputMixin`. All methods expect ``device.lock`` to be held by the
caller; they take it again (it is an RLock) so direct calls are safe too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PIL import Image

from emukit.images import BandCache, encode_png
from emukit.lru import SizedLRU, image_bytes
from emukit.vdevice.ui import systemui, theme
from emukit.vdevice.ui.editing import field_key
from emukit.vdevice.ui.input import InputMixin
from emukit.vdevice.ui.keyboard import keyboard
from emukit.vdevice.ui.render import render
from emukit.vdevice.ui.view import Bounds, View, hierarchy_xml

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SCREEN_W, SCREEN_H = theme.SCREEN_W, theme.SCREEN_H
T = TypeVar("T")
STATUS_H, NAV_H = theme.STATUS_H, theme.NAV_H
# Screen caches, each bounded in entries and bytes (emukit.lru.SizedLRU), so a device's memory stays flat
# over a long build. A rendered frame (~10 MB at 1080x2400, RGBX) is kept for raw reads of the same screen
# (screenrecord's frames, framebuffer:, takeScreenshot) but not for a PNG screenshot: its encoded bytes are what
# recurs (wait_stable and both branches read the same screens), and a 300-pair build asked the frame cache for
# a screen whose PNG was not cached 4355 times and found it 0 times while it held two frames (19.8 MB).
FRAME_CACHE_FRAMES = 1
PNG_CACHE_SIZE = 512  # encoded screenshots (~50-150 kB each): the same screens recur across branches
PNG_CACHE_BYTES = 40 * 2**20
# Hardware mode: the status-bar clock follows the host's, so an encoded screenshot recurs only within the
# minute it was taken (a screen read again while a step waits for it to settle), not across branches or pairs;
# a small cache keeps those hits without holding ~40 MB of screenshots that will not be asked for again
# (measured over 300 pairs: end 343 -> 277 MB, peak 344 -> 280 MB; docs/building.md, "Memory of a long build").
HARDWARE_PNG_CACHE_SIZE = 32
HARDWARE_PNG_CACHE_BYTES = 4 * 2**20
# The band cache fills the same way: a band holding the clock or a countdown is new at every tick, so over a
# long build it creeps up to its budget with bands that will not recur (a heap trace of a hardware-mode build:
# the band cache with the last image's pixels held 14.1 MB after 30 pairs and 17.0 MB after 47, still
# growing); a budget of 6 MB is about what it holds after 30 pairs.
HARDWARE_BAND_CACHE_BYTES = 6 * 2**20
# In deterministic mode the band cache held 6.7 MB after 20 pairs, 10.6 MB after 40 and reached 16 MB after ~75:
# the largest growth after the 30th pair. At 8 MB it is full by the 30th; its hit rate over 300 pairs fell
# from 95.0% to 91.4% (~26 more bands compressed per pair, about 0.5 ms each).
BAND_CACHE_BYTES = 8 * 2**20
PNG_KEY_BYTES = 150  # bytes of Python objects per view in a cached screen's render key (its signature)
CONTENT_ID = "android:id/content"  # Window.ID_ANDROID_CONTENT (com.android.internal.R.id.content)
SYSTEM_SERVER_PID = 520  # emukit.vdevice.shell.commands.procs: system_server's pid in ``ps``


def _signature(view: View, out: list[tuple]) -> None:
    """Append what the renderer reads from ``view`` and its visible subtree (callbacks excluded).

    List values (colours or bounds read back from JSON state) are turned into tuples on the way.
    """
    children = [c for c in view.children if c.visible]
    s = view.style
    values = vars(s)
    for name, value in values.items():
        if isinstance(value, list):  # colours loaded from JSON state: make them hashable tuples for PIL too
            values[name] = tuple(value)
    if isinstance(view.bounds, list):
        view.bounds = tuple(view.bounds)  # type: ignore[assignment]
    out.append((view.cls, view.bounds, view.text, view.hint, view.content_desc if s.show_desc else "",
                tuple(values.values()), view.checkable, view.checked, view.enabled, view.focused,
                view.editable, view.password, len(children)))
    for child in children:
        _signature(child, out)


def _clipped(view: View, clip: Bounds) -> View | None:
    """A copy of the visible subtree with bounds cut to ``clip``; ``None`` when nothing of it shows."""
    if not view.visible:
        return None
    left, top = max(view.bounds[0], clip[0]), max(view.bounds[1], clip[1])
    right, bottom = min(view.bounds[2], clip[2]), min(view.bounds[3], clip[3])
    if left >= right or top >= bottom:
        return None
    box = (left, top, right, bottom)
    children = [c for c in (_clipped(child, box) for child in view.children) if c is not None]
    # dataclasses.replace(view, bounds=box, children=children) without its per-field work: View has no
    # __post_init__, so a copy of its attributes is the same view (a dump clips every node of the screen)
    clone = object.__new__(type(view))
    clone.__dict__.update(view.__dict__)
    clone.bounds, clone.children = box, children
    return clone


class WindowManager(InputMixin):
    """Composes, renders and drives the virtual screen of one :class:`VirtualDevice`."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        frame_bytes = device.screen[0] * device.screen[1] * 4
        self._frames: SizedLRU[tuple, Image.Image] = SizedLRU(FRAME_CACHE_FRAMES, FRAME_CACHE_FRAMES * frame_bytes,
                                                             image_bytes, "wm frames")
        entries, budget = (HARDWARE_PNG_CACHE_SIZE, HARDWARE_PNG_CACHE_BYTES) if device.hardware else \
            (PNG_CACHE_SIZE, PNG_CACHE_BYTES)
        self._pngs: SizedLRU[tuple, tuple[bytes, int]] = SizedLRU(entries, budget, lambda item: len(item[0]) + item[1],
                                                                  "wm screenshots")
        # compressed rows shared by this device's screenshots
        self._bands = BandCache(max_bytes=HARDWARE_BAND_CACHE_BYTES if device.hardware else BAND_CACHE_BYTES,
                                name="wm png bands")
        self._memo_key: tuple | None = None
        self._memo_values: dict[object, object] = {}
        self._displayed: tuple | None = None  # the activity whose first draw was logged last
        super().__init__()

    def memo(self, name: object, compute: Callable[[], T]) -> T:
        """``compute()``, reused while this thread serves a reading request and nothing changed the device
        since it was computed (see :meth:`VirtualDevice.ui_reading`); computed afresh everywhere else."""
        key = self.device.ui_memo_key()
        if key is None:
            return compute()
        with self.device.lock:
            if self._memo_key == key and name in self._memo_values:
                return self._memo_values[name]  # type: ignore[return-value]
            value = compute()
            if self._memo_key != key:
                self._memo_key, self._memo_values = key, {}
            self._memo_values[name] = value
            return value

    # ------------------------------------------------------------------ composition
    def windows(self) -> list[View]:
        """The composed screen, bottom window first (memoised within reading requests: callers there must
        not change the views)."""
        return self.memo("windows", self._compose)

    def _compose(self) -> list[View]:
        with self.device.lock:
            ui = self.device.state.ui
            app_win, field = None, None
            if ui.focused_id is not None:  # adjustResize: the app sits above the keyboard
                app_win = self._app_window((0, STATUS_H, SCREEN_W, theme.KEYBOARD_TOP))
                field = self._mark_focus(app_win)
                if field is None:
                    self._clear_focus()
            if field is None:
                app_win = self._app_window(theme.APP_FRAME)
            assert app_win is not None
            if app_win.style.bg is None:
                app_win.style.bg = theme.BACKGROUND
            top_bg = app_win.style.bg
            dark = ui.shade_open or self.overview_open
            bottom_bg = theme.DARK_SURFACE if dark else (app_win.style.bg2 or top_bg)
            wins = [self._decor(app_win), systemui.status_bar(self.device, top_bg),
                    systemui.navigation_bar(self, bottom_bg, field is not None)]
            if field is not None:
                self.attach_text_menu(app_win, field)
                multi = field.style.max_lines > 1
                wins.append(keyboard(self, self.symbols, ui.keyboard_shift, "Enter" if multi else "Done"))
            if self.overview_open:
                wins.append(systemui.overview(self))
            if ui.shade_open:
                wins.append(systemui.notification_shade(self))
            if ui.toast:
                wins.append(systemui.toast(ui.toast))
            for win in wins[1:]:
                win.fill_package(systemui.SYSTEMUI)
            return wins

    def _app_window(self, frame: Bounds) -> View:
        """The top activity's content view, built into ``frame``."""
        device = self.device
        for _ in range(4):
            act = device.top
            app = device.app(act.package)
            started = time.monotonic()
            try:
                root = app.build(device, act, frame)
            except Exception:
                if not self.crash_on_error or act.package == device.launcher_package:
                    raise
                self._crash(act.package)
                continue
            root.fill_package(act.package)
            self._note_displayed(int((time.monotonic() - started) * 1000))
            return root
        raise RuntimeError("no activity could be built")

    def _decor(self, content: View) -> View:
        """The activity window around its content view, as PhoneWindow builds it for a window without a
        title (frameworks/base core/java/com/android/internal/policy/PhoneWindow.java generateLayout with
        core/res/res/layout/screen_simple.xml): the DecorView (a FrameLayout over the whole window), a
        vertical LinearLayout (fitsSystemWindows) and the FrameLayout ``android:id/content``
        (Window.ID_ANDROID_CONTENT) that holds the content view, inside the system bars (or above the
        keyboard). uiautomator reports the DecorView and the LinearLayout with no resource id."""
        frame = content.bounds
        holder = View(resource_id=CONTENT_ID, bounds=frame, children=[content])
        column = View(cls="android.widget.LinearLayout", bounds=(0, 0, SCREEN_W, SCREEN_H), children=[holder])
        decor = View(bounds=(0, 0, SCREEN_W, SCREEN_H), children=[column])
        decor.fill_package(content.package)
        return decor

    def _note_displayed(self, draw_ms: int) -> None:
        """Log the first draw of a newly shown activity as ActivityMetricsLogger.logAppDisplayed does
        (services/core/java/com/android/server/wm/ActivityMetricsLogger.java: ``Log.i`` with tag
        ActivityTaskManager, "Displayed <short component> for user 0: +<ms>ms"), from system_server."""
        device = self.device
        act = device.top
        key = (act.package, act.activity, len(device.state.back_stack), device.state.pids.get(act.package))
        if key == self._displayed:
            return
        self._displayed = key
        package, component = device.current_focus()
        short = "." + component[len(package) + 1:] if component.startswith(package + ".") else component
        device.log("I", "ActivityTaskManager", f"Displayed {package}/{short} for user 0: +{max(1, draw_ms)}ms",
                   pid=SYSTEM_SERVER_PID, uid=1000)

    def _mark_focus(self, app_win: View) -> View | None:
        """Find the focused editable in the app window and mark it ``focused``."""
        key = self.device.state.ui.focused_id
        field = app_win.find(lambda v: v.editable and field_key(v) == key)
        if field is not None:
            field.focused = True
            self.mark_caret(field)
        return field

    def find_view(self, pred: Callable[[View], bool]) -> View | None:
        """The first visible view (any window, bottom window first, document order) matching ``pred``."""
        with self.device.lock:
            for win in self.windows():
                found = win.find(pred)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------------ Overview (recents)
    @property
    def _overview(self) -> list[tuple[str, str]] | None:
        """Back stack signature when Overview opened (kept in the device state)."""
        sig = self.device.state.ui.overview
        return [tuple(x) for x in sig] if sig is not None else None  # type: ignore[misc]

    @_overview.setter
    def _overview(self, value: list[tuple[str, str]] | None) -> None:
        self.device.state.ui.overview = value

    @property
    def overview_open(self) -> bool:
        """Overview shows until closed or until the back stack changes underneath it."""
        if self._overview is None:
            return False
        if self._overview != self._stack_signature():
            self._overview = None
        return self._overview is not None

    def _stack_signature(self) -> list[tuple[str, str]]:
        return [(a.package, a.activity) for a in self.device.state.back_stack]

    def open_overview(self) -> None:
        self._clear_focus()
        self.device.state.ui.shade_open = False
        self._overview = self._stack_signature()

    def close_overview(self) -> None:
        self._overview = None

    def clear_recents(self, packages: list[str]) -> None:
        """Overview's "Clear all": close every task and go home."""
        self._overview = None
        for pkg in packages:
            self.device.force_stop(pkg)
        self.device.go_home()

    # ------------------------------------------------------------------ output
    def hierarchy_xml(self, max_depth: int | None = None) -> str:
        """uiautomator's window dump of the composed screen.

        Like ``AccessibilityNodeInfo.getBoundsInScreen`` the bounds are the visible part of each node
        (clipped to its parent and the screen) and nodes scrolled out of sight are left out.
        """
        return self.memo(("hierarchy", max_depth), lambda: self._hierarchy(max_depth))

    def _hierarchy(self, max_depth: int | None) -> str:
        with self.device.lock:
            screen = (0, 0, SCREEN_W, SCREEN_H)
            clipped = [c for c in (_clipped(w, screen) for w in self.windows()) if c is not None]
            return hierarchy_xml(clipped, max_depth=max_depth)

    def _render_key(self, wins: list[View]) -> tuple:
        sig: list[tuple] = []
        for win in wins:
            _signature(win, sig)
        return tuple(sig), self.device.state.ui.cursor if self.device.state.ui.focused_id else None

    def _screen(self) -> tuple[list[View], tuple]:
        """The composed windows and their render key (call with the device lock held)."""
        wins = self.windows()
        return wins, self.memo("render_key", lambda: self._render_key(wins))

    def _frame(self, wins: list[View], key: tuple, keep: bool = True) -> Image.Image:
        """The rendered frame of ``wins`` (shared: copy it before drawing; call with the device lock held),
        kept for the next read of the same screen unless ``keep`` is False."""
        frame = self._frames.get(key)
        if frame is None:
            frame = render(wins, key[1])
            if keep:
                self._frames.put(key, frame)
        return frame

    def clear_caches(self) -> None:
        """Forget rendered frames, encoded screenshots and compressed bands: the next read renders afresh."""
        self._frames.clear()
        self._pngs.clear()
        self._bands.clear()

    def screenshot_image(self) -> Image.Image:
        """The screen as a fresh RGB image of the display's size (a copy: callers may draw on it)."""
        with self.device.lock:
            return self._frame(*self._screen()).copy()

    def screenshot_png(self) -> bytes:
        """The screen as PNG bytes; byte-identical for the same screen content."""
        with self.device.lock:
            wins, key = self._screen()
            cached = self._pngs.get(key)
            if cached is not None:
                return cached[0]
            frame = self._frame(wins, key, keep=False)  # the PNG cache keeps this screen
        png = encode_png(frame, self._bands)  # outside the lock: other requests go on meanwhile
        self._pngs.put(key, (png, PNG_KEY_BYTES * len(key[0])))
        return png
