"""The soft keyboard window (package ``com.android.inputmethod.latin``), shown while an editable is focused.

Layout (top to bottom): a toolbar with the hide key, a digit row, three letter rows (shift and delete on
the third) and a bottom row with the symbols toggle, comma, space, period and enter. Every key is a clickable
view whose content-desc is what it types (``q``, ``Q``, ``@``) or its function (``Shift``, ``Delete``,
``Space``, ``Enter``, ``Symbols``, ``Hide keyboard``); the renderer draws the content-desc as the label.
Keys are a tenth of the screen wide; heights, gaps and label sizes scale with the density (``theme.px``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.ui import theme
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Style, View

if TYPE_CHECKING:
    from emukit.vdevice.ui.wm import WindowManager

IME = "com.android.inputmethod.latin"
TOOLBAR_H = px(110)
ROW_H = (theme.KEYBOARD_H - TOOLBAR_H) // 5
KEY_W = theme.SCREEN_W // 10
GAP = px(10)
BG = (232, 234, 237)
KEY_BG = (255, 255, 255)
SPECIAL_BG = (203, 210, 217)

LETTERS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SYMBOLS = ("@#$%&-+()/", "*\"':;!?=_", "<>[]{}\\")


def _key(x0: int, y0: int, x1: int, y1: int, desc: str, action: object, *, icon: str | None = None,
         special: bool = False, font_size: int | None = None) -> View:
    bg = SPECIAL_BG if special else KEY_BG
    return View(cls="android.widget.Button", bounds=(x0, y0, x1, y1), content_desc=desc, package=IME,
                clickable=True, on_click=action,  # type: ignore[arg-type]
                style=Style(bg=bg, radius=px(18), fg=theme.TEXT, font_size=font_size or px(50), align="center",
                            icon=icon, icon_size=px(54) if icon else None, icon_color=theme.TEXT,
                            show_desc=icon is None))


def _inset(x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int]:
    return x0 + GAP // 2, y0 + GAP // 2 + px(4), x1 - GAP // 2, y1 - GAP // 2 - px(4)


def keyboard(wm: WindowManager, symbols: bool, shift: bool, enter_label: str) -> View:
    """The keyboard window for the current shift / symbols mode; keys call back into ``wm``."""
    top = theme.KEYBOARD_TOP
    root = View(bounds=(0, top, theme.SCREEN_W, top + theme.KEYBOARD_H), package=IME,
                resource_id=f"{IME}:id/keyboard_view", clickable=True, on_click=lambda: None, style=Style(bg=BG))
    root.add(View(cls="android.widget.ImageView", bounds=(theme.SCREEN_W - px(150), top, theme.SCREEN_W - px(20),
                                                          top + TOOLBAR_H), content_desc="Hide keyboard",
                  package=IME, resource_id=f"{IME}:id/key_hide", clickable=True, on_click=wm.hide_keyboard,
                  style=Style(icon="expand_more", icon_size=px(56), icon_color=theme.TEXT_SECONDARY)))
    y = top + TOOLBAR_H

    def row_of(chars: str, y: int, x: int) -> None:
        for i, ch in enumerate(chars):
            label = ch.upper() if shift and not symbols else ch
            root.add(_key(*_inset(x + i * KEY_W, y, x + (i + 1) * KEY_W, y + ROW_H), label,
                          lambda s=label: wm.insert_text(s, from_keyboard=True)))

    row_of("1234567890", y, 0)
    y += ROW_H
    rows = SYMBOLS if symbols else LETTERS
    row_of(rows[0], y, 0)
    y += ROW_H
    row_of(rows[1], y, (theme.SCREEN_W - len(rows[1]) * KEY_W) // 2)
    y += ROW_H
    wide = (theme.SCREEN_W - 7 * KEY_W) // 2
    if symbols:
        root.add(_key(*_inset(0, y, wide, y + ROW_H), "~", lambda: wm.insert_text("~", from_keyboard=True),
                      special=True))
    else:
        root.add(_key(*_inset(0, y, wide, y + ROW_H), "Shift", wm.toggle_shift, special=True,
                      icon="shift_on" if shift else "shift"))
    row_of(rows[2], y, wide)
    root.add(_key(*_inset(theme.SCREEN_W - wide, y, theme.SCREEN_W, y + ROW_H), "Delete", wm.delete_backward,
                  special=True, icon="backspace"))
    y += ROW_H
    xs = [0, wide, wide + KEY_W, theme.SCREEN_W - wide - KEY_W, theme.SCREEN_W - wide, theme.SCREEN_W]
    root.add(_key(*_inset(xs[0], y, xs[1], y + ROW_H), "ABC" if symbols else "?123", wm.toggle_symbols,
                  special=True, font_size=px(36)))
    root.add(_key(*_inset(xs[1], y, xs[2], y + ROW_H), ",", lambda: wm.insert_text(",", from_keyboard=True)))
    space = _key(*_inset(xs[2], y, xs[3], y + ROW_H), "Space", lambda: wm.insert_text(" ", from_keyboard=True))
    space.style.show_desc = False
    root.add(space)
    root.add(_key(*_inset(xs[3], y, xs[4], y + ROW_H), ".", lambda: wm.insert_text(".", from_keyboard=True)))
    enter = _key(*_inset(xs[4], y, xs[5], y + ROW_H), enter_label, wm.editor_enter, icon="enter")
    enter.style.bg, enter.style.icon_color = theme.PRIMARY, theme.ON_PRIMARY
    root.add(enter)
    return root
