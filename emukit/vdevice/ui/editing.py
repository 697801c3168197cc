"""Text editing for the window manager: focus, caret, typing, the soft keyboard's actions and the
floating text-selection toolbar (Cut / Copy / Paste / Select all) shown by a long press on a field.

The focused field is found by its focus key in ``state.ui.focused_id`` and edited only through its
``on_text(new_text)`` callback, so the app keeps owning its text. The caret lives in ``state.ui.cursor``.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.ui import theme, widgets
from emukit.vdevice.ui.view import View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

KEY_ENTER, KEY_DEL, KEY_FORWARD_DEL, KEY_TAB, KEY_SPACE = 66, 67, 112, 61, 62
KEY_DPAD_LEFT, KEY_DPAD_RIGHT, KEY_MOVE_HOME, KEY_MOVE_END = 21, 22, 122, 123
KEY_CHARS: dict[int, str] = {
    **{29 + i: chr(ord("a") + i) for i in range(26)}, **{7 + i: str(i) for i in range(10)},
    KEY_SPACE: " ", KEY_TAB: "\t", 17: "*", 18: "#", 55: ",", 56: ".", 68: "`", 69: "-", 70: "=", 71: "[",
    72: "]", 73: "\\", 74: ";", 75: "'", 76: "/", 77: "@", 81: "+",
}


# The caret's blink phase: android.widget.Editor draws the cursor while
# ``(uptimeMillis() - mShowCursor) % (2 * BLINK) < BLINK`` with ``static final int BLINK = 500`` and restarts
# the phase (``makeBlink``: ``mShowCursor = now``) on focus, on every text change and on every cursor move
# (aosp-mirror/platform_frameworks_base ``core/java/android/widget/Editor.java``: ``BLINK``,
# ``shouldRenderCursor``, ``makeBlink``).
CARET_BLINK_MS = 500


def field_key(view: View) -> str:
    """The focus key of an editable view: its ``id_key``, or its bounds when it has none."""
    return view.id_key or f"@{view.bounds}"


class EditingMixin(abc.ABC):
    """Editing state and actions; the WindowManager provides windows and app invocation."""

    device: VirtualDevice

    # Editing state lives in the device state (so snapshots capture it), exposed as attributes here.
    @property
    def symbols(self) -> bool:
        """The keyboard shows its symbols layer."""
        return self.device.state.ui.keyboard_symbols

    @symbols.setter
    def symbols(self, value: bool) -> None:
        self.device.state.ui.keyboard_symbols = value

    @property
    def text_menu(self) -> tuple[str, bool] | None:
        """(field key, whole text selected) of the floating text toolbar, or None."""
        menu = self.device.state.ui.text_menu
        return (menu[0], menu[1]) if menu else None

    @text_menu.setter
    def text_menu(self, value: tuple[str, bool] | None) -> None:
        self.device.state.ui.text_menu = value

    # --------------------------------------------------------------- provided by the other mixins / WM
    @abc.abstractmethod
    def windows(self) -> list[View]:
        """The composed screen (WindowManager)."""

    @abc.abstractmethod
    def _invoke(self, view: View, fn: Callable[..., object], *args: object) -> None:
        """Run an app callback of ``view`` (InputMixin)."""

    @abc.abstractmethod
    def _invoke_app_key(self, keycode: int) -> None:
        """Hand a key to the foreground app (InputMixin)."""

    @abc.abstractmethod
    def _begin(self) -> None:
        """Start handling an input event (InputMixin)."""

    def _edit_key(self, keycode: int) -> bool:
        """Editing keys on the focused field; returns False for keys it does not handle."""
        if keycode == KEY_ENTER:
            self.editor_enter()
        elif keycode == KEY_DEL:
            self.delete_backward()
        elif keycode == KEY_FORWARD_DEL:
            self.delete_forward()
        elif keycode in (KEY_DPAD_LEFT, KEY_DPAD_RIGHT, KEY_MOVE_HOME, KEY_MOVE_END):
            self._move_cursor(keycode)
        elif keycode in KEY_CHARS:
            self.insert_text(KEY_CHARS[keycode])
        else:
            return False
        return True

    def _focused_field(self) -> View | None:
        """The focused editable view of the (freshly built) app window, if any."""
        if self.device.state.ui.focused_id is None:
            return None
        return self.windows()[0].find(lambda v: v.editable and v.focused)

    def _take_selection(self, field: View) -> bool:
        """True (and the toolbar closes) when the whole text of ``field`` was selected."""
        selected = self.text_menu is not None and self.text_menu[1] and self.text_menu[0] == field_key(field)
        self.text_menu = None
        return bool(selected)

    def mark_caret(self, field: View) -> None:
        """Give the focused field its caret phase for this frame (hardware mode only; the deterministic mode
        always draws the caret). The phase restarts "visible" whenever the focused field, its text or the
        caret position differ from the previous frame: every edit and every cursor move."""
        device = self.device
        if not getattr(device, "hardware", False):
            return
        now = device.elapsed_ms()
        ui = device.state.ui
        seen = (ui.focused_id, ui.cursor, field.text)
        last = getattr(self, "_caret_seen", None)
        if last is None or last[0] != seen:
            self._caret_seen = (seen, now)
            anchor = now
        else:
            anchor = last[1]
        field.style.caret_visible = caret_visible_at(now - anchor)  # read by the renderer, part of its key

    def _focus(self, view: View) -> None:
        ui = self.device.state.ui
        key = field_key(view)
        if ui.focused_id != key:
            ui.focused_id = key
            ui.keyboard_shift = False
            self.symbols = False
        ui.cursor = len(view.text)

    def _clear_focus(self) -> None:
        self.text_menu = None
        ui = self.device.state.ui
        ui.focused_id = None
        ui.cursor = None
        ui.keyboard_shift = False
        self.symbols = False

    def _caret(self, field: View) -> int:
        cursor = self.device.state.ui.cursor
        return len(field.text) if cursor is None else max(0, min(cursor, len(field.text)))

    def _replace(self, field: View, text: str, cursor: int) -> None:
        if field.on_text is not None:
            self._invoke(field, field.on_text, text)
        self.device.state.ui.cursor = cursor

    def insert_text(self, text: str, from_keyboard: bool = False) -> bool:
        """Type ``text`` at the caret of the focused field (``input text``); False when nothing is focused."""
        with self.device.lock:
            field = self._focused_field()
            if field is None or not text:
                return False
            ui = self.device.state.ui
            if from_keyboard and ui.keyboard_shift and text.isalpha():
                ui.keyboard_shift = False  # one-shot shift
            if self._take_selection(field):  # typing replaces the selection
                self._replace(field, text, len(text))
                return True
            pos = self._caret(field)
            self._replace(field, field.text[:pos] + text + field.text[pos:], pos + len(text))
            return True

    def input_text(self, text: str) -> None:
        """``input text``: insert at the caret of the focused editable; dropped when none is focused."""
        with self.device.lock:
            self._begin()
            self.insert_text(text)

    def set_text(self, view_key: str, text: str) -> bool:
        """uiautomator ``setText``: replace the whole text of the editable view whose ``id_key`` matches."""
        with self.device.lock:
            for win in self.windows():
                view = win.find(lambda v: v.editable and view_key in (v.id_key, field_key(v), v.resource_id))
                if view is None:
                    continue
                if view.on_text is None:
                    return False
                self._invoke(view, view.on_text, text)
                if view.focused:
                    self.device.state.ui.cursor = len(text)
                return True
            return False

    def delete_backward(self) -> None:
        """DEL / the keyboard's delete key: remove the character before the caret."""
        with self.device.lock:
            field = self._focused_field()
            if field is None:
                return
            if self._take_selection(field):
                self._replace(field, "", 0)
                return
            pos = self._caret(field)
            if pos > 0:
                self._replace(field, field.text[:pos - 1] + field.text[pos:], pos - 1)

    def delete_forward(self) -> None:
        with self.device.lock:
            field = self._focused_field()
            if field is None:
                return
            pos = self._caret(field)
            if pos < len(field.text):
                self._replace(field, field.text[:pos] + field.text[pos + 1:], pos)

    def _move_cursor(self, keycode: int) -> None:
        field = self._focused_field()
        if field is None:
            return
        pos = self._caret(field)
        pos = {KEY_DPAD_LEFT: max(0, pos - 1), KEY_DPAD_RIGHT: min(len(field.text), pos + 1),
               KEY_MOVE_HOME: 0, KEY_MOVE_END: len(field.text)}[keycode]
        self.device.state.ui.cursor = pos

    def editor_enter(self) -> None:
        """ENTER: a new line in multi-line fields, else the field's ``on_submit`` (IME action) or app key."""
        with self.device.lock:
            field = self._focused_field()
            if field is None:
                return
            if field.style.max_lines > 1:
                self.insert_text("\n")
            elif field.on_submit is not None:
                self._invoke(field, field.on_submit)
            else:
                self._invoke_app_key(KEY_ENTER)

    def hide_keyboard(self) -> None:
        with self.device.lock:
            self._clear_focus()

    def toggle_shift(self) -> None:
        with self.device.lock:
            self.device.state.ui.keyboard_shift = not self.device.state.ui.keyboard_shift

    def toggle_symbols(self) -> None:
        with self.device.lock:
            self.symbols = not self.symbols

    # --------------------------------------------------------------- floating text toolbar
    def show_text_menu(self, field: View) -> None:
        """Long press on a field: focus it and offer Paste / Select all (Cut / Copy once all is selected)."""
        self._focus(field)
        self.text_menu = (field_key(field), False)

    def attach_text_menu(self, app_window: View, field: View) -> None:
        """Add the toolbar (and the selection highlight, inside the field) while the menu is open for it."""
        if self.text_menu is None or self.text_menu[0] != field_key(field):
            return
        selected = self.text_menu[1] and bool(field.text)
        items: list[tuple[str, Callable[[], object]]] = []
        if selected:
            items += [("Cut", lambda: self._menu_copy(cut=True)), ("Copy", self._menu_copy)]
        clip = self.device.get_clip()
        if clip is not None and clip.text:
            items.append(("Paste", lambda: self._menu_paste(selected)))
        if field.text and not selected:
            items.append(("Select all", self._menu_select_all))
        if not items:
            return
        if selected:  # the selection highlight: tint the field (keeps the hierarchy unchanged)
            field.style.bg = theme.PRIMARY_CONTAINER
        toolbar = widgets.floating_toolbar((field.bounds[0] + field.bounds[2]) // 2, field.bounds[1], items)
        toolbar.fill_package(field.package)
        app_window.add(toolbar)

    def _menu_select_all(self) -> None:
        field = self._focused_field()
        if field is not None:
            self.text_menu = (field_key(field), True)
            self.device.state.ui.cursor = len(field.text)

    def _menu_copy(self, cut: bool = False) -> None:
        field = self._focused_field()
        self.text_menu = None
        if field is None:
            return
        self.device.set_clip(field.text, label="text")
        if cut:
            self._replace(field, "", 0)

    def _menu_paste(self, selected: bool) -> None:
        clip = self.device.get_clip()
        field = self._focused_field()
        self.text_menu = None
        if field is None or clip is None or not clip.text:
            return
        if selected:
            self._replace(field, clip.text, len(clip.text))
        else:
            self.insert_text(clip.text)


def caret_visible_at(since_restart_ms: int) -> bool:
    """``Editor.shouldRenderCursor``: visible in the first half of every ``2 * BLINK`` period."""
    return since_restart_ms % (2 * CARET_BLINK_MS) < CARET_BLINK_MS
