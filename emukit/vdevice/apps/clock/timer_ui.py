"""The Timer tab: the keypad that sets a new timer and the list of timers.

Structure (ids, strings, classes from the Google Clock table, :data:`~emukit.vdevice.apps.clock.common.S`):

* keypad (no timers yet, or "Add timer" pressed): the display ``timer_setup_time`` ("00h 05m 00s", content-desc
  "0 hours, 5 minutes, 0 seconds"), the backspace key ``timer_setup_delete``, digit Buttons
  ``timer_setup_digit_N``, the start Button ``fab`` (content-desc Start, shown once a digit is entered) and,
  over existing timers, Cancel;
* timers: a RecyclerView with one card per timer: the label ``timer_label``, the remaining time ``timer_text``
  (content-desc "4 minutes, 59 seconds"), "+ 1:00", Reset, ``play_pause`` (content-desc Pause while running,
  Start when paused or reset, Stop when expired) and ``tertiary_button`` (Delete); "Add timer" opens the
  keypad over them.

Screen state (``act.state``): ``digits`` (keypad input, at most six digits entered right to left), ``setup``
(the keypad is shown over existing timers), ``scroll`` (list offset) and ``dialog``
(``{"kind": "label", "timer": id, "text": ...}`` while the label dialog shows). Timers themselves are read
from and written to the preferences file on every build and every tap. Sizes come from the body's size and
:func:`~emukit.vdevice.ui.theme.px`, so the layout fits any configured display.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import (
    S,
    duration_words,
    plural,
    round_button,
    text,
)
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

CARD_GAP = px(36)
MAX_DIGITS = 6
KEY_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)  # three columns, 0 under 8 (``timer_setup_digits.xml``)


# ---------------------------------------------------------------------- keypad input
def press_digit(act: Activity, digit: int) -> None:
    """``TimerSetupView``: digits shift in from the right; a leading 0 and a seventh digit are ignored."""
    digits = act.state.get("digits", "")
    if len(digits) >= MAX_DIGITS or (not digits and digit == 0):
        return
    act.state["digits"] = digits + str(digit)


def delete_digit(act: Activity) -> None:
    act.state["digits"] = act.state.get("digits", "")[:-1]


def clear_digits(act: Activity) -> None:
    act.state["digits"] = ""


def start_from_keypad(device: VirtualDevice, act: Activity) -> None:
    """Start: a new running timer of the entered length; the list shows it."""
    digits = act.state.get("digits", "")
    if T.setup_ms(digits) <= 0:
        return
    T.create(device, T.setup_ms(digits))
    act.state.update(digits="", setup=False, scroll=10**6)


def open_keypad(act: Activity) -> None:
    act.state.update(setup=True, digits="")


def close_keypad(act: Activity) -> None:
    act.state.update(setup=False, digits="")


def setup_texts(digits: str) -> tuple[str, str]:
    """(text, content-desc) of the keypad display for the typed ``digits``."""
    d = digits.rjust(MAX_DIGITS, "0")[-MAX_DIGITS:]
    h, m, s = int(d[0:2]), int(d[2:4]), int(d[4:6])
    return (S.text("timer_setup_text", h=h, m=m, s=s),
            S.desc("timer_setup_description", hours=plural("hour", h), minutes=plural("minute", m),
                   seconds=plural("second", s)))


# ---------------------------------------------------------------------- screen
def build(device: VirtualDevice, act: Activity, root: View, body: Bounds) -> None:
    """Add the Timer tab's content in ``body`` (between the toolbar and the bottom navigation)."""
    timers = T.sync(device)
    if not timers or act.state.get("setup"):
        _keypad(act, root, body, bool(timers), device)
    else:
        _timers(device, act, root, body, timers)
    dialog = act.state.get("dialog")
    if dialog and dialog.get("kind") == "label":
        root.add(_label_dialog(device, act, root.bounds, dialog))


def _keypad(act: Activity, root: View, body: Bounds, has_timers: bool, device: VirtualDevice) -> None:
    left, top, right, bottom = body
    width, height = right - left, bottom - top
    digits = act.state.get("digits", "")
    entered = bool(digits)
    shown, spoken = setup_texts(digits)
    display_bottom = top + px(40) + min(px(200), height // 8)
    root.add(View(cls=S.cls("timer_setup_time"), bounds=(left + px(60), top + px(40), right - px(180), display_bottom),
                  text=shown, content_desc=spoken, resource_id=S.rid("timer_setup_time"),
                  style=Style(fg=theme.PRIMARY if entered else theme.TEXT_HINT, font_size=min(px(100), height // 10),
                              align="center")))
    mid = (top + px(40) + display_bottom) // 2
    root.add(View(cls="android.widget.ImageButton",
                  bounds=(right - px(170), mid - px(63), right - px(44), mid + px(63)),
                  content_desc=S.desc("timer_backspace"), resource_id=S.rid("timer_backspace"), clickable=True,
                  long_clickable=True, enabled=entered, on_click=lambda: delete_digit(act),
                  on_long_click=lambda: clear_digits(act),
                  style=Style(icon="backspace", icon_color=theme.TEXT_SECONDARY, icon_size=px(64))))
    root.add(w.divider(left + px(60), display_bottom + px(20), right - px(60)))
    start_h = min(px(220), height // 7)
    start_top = bottom - start_h - px(40)
    grid_top, grid_bottom = display_bottom + px(60), start_top - px(30)
    row_h = (grid_bottom - grid_top) // 4
    col_w = min(px(300), width // 3)
    key = max(px(40), min(px(220), row_h - px(20), col_w - px(40)))
    cx0 = (left + right) // 2
    for i, digit in enumerate(KEY_ORDER):
        row, col = divmod(i, 3)
        if digit == 0:
            col = 1
        cx, cy = cx0 + (col - 1) * col_w, grid_top + row * row_h + row_h // 2
        root.add(View(cls=S.cls("timer_digit"), bounds=(cx - key // 2, cy - key // 2, cx + key // 2, cy + key // 2),
                      text=str(digit), resource_id=S.query("timer_digit", digit=digit)["resourceId"],
                      clickable=True, on_click=lambda d=digit: press_digit(act, d),
                      style=Style(bg=theme.SURFACE_VARIANT, fg=theme.TEXT, radius=key // 2,
                                  font_size=min(px(80), key * 2 // 5), align="center")))
    if entered:
        root.add(round_button((cx0 - start_h // 2, start_top, cx0 + start_h // 2, start_top + start_h), "play",
                              S.desc("timer_start"), S.rid("timer_start"), lambda: start_from_keypad(device, act),
                              icon_size=start_h * 2 // 5, cls=S.cls("timer_start")))
    if has_timers:
        label = S.text("keypad_cancel")
        button_w = w.text_button_width(label)
        button_h = min(px(120), start_h)
        y = start_top + (start_h - button_h) // 2
        root.add(w.button((left + px(84), y, left + px(84) + button_w, y + button_h), label, lambda: close_keypad(act),
                          kind="text"))


def _timers(device: VirtualDevice, act: Activity, root: View, body: Bounds, timers: list[T.Timer]) -> None:
    now = device.elapsed_ms()
    card_h = min(px(700), body[3] - body[1] - 2 * CARD_GAP)
    rows = [(card_h + CARD_GAP, lambda top, t=t: _card(device, act, body, top + CARD_GAP, card_h, t, now))
            for t in timers]
    root.add(w.scroll_list(body, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                           padding_bottom=px(300), cls=S.cls("timer_list")))
    root.add(w.fab(body, "plus", S.desc("timer_add"), lambda: open_keypad(act)))


def _card(device: VirtualDevice, act: Activity, body: Bounds, y: int, card_h: int, t: T.Timer, now: int) -> View:
    left, _, right, _ = body
    x0, x1 = left + px(36), right - px(36)
    cx = (left + right) // 2
    u = card_h / 700  # the card was drawn 700 px tall: offsets below scale with it

    def at(v: float) -> int:
        return y + round(v * u)

    state = t.state
    fired = state in (T.State.EXPIRED, T.State.MISSED)

    def act_on(action: str) -> Callable[[], object]:
        return lambda: T.update(device, t.id, action)

    def edit_label() -> None:
        act.state["dialog"] = {"kind": "label", "timer": t.id, "text": t.label}
        device.state.ui.focused_id = S.rid("label_input")
        device.state.ui.cursor = len(t.label)

    card = View(cls="android.view.ViewGroup", bounds=(x0, y, x1, y + card_h),
                style=Style(bg=(252, 226, 222) if fired else theme.SURFACE, radius=px(48)))
    label = text((x0 + px(48), at(30), x1 - px(150), at(130)), t.label or S.text("label_hint"),
                 resource_id=S.rid("card_label"), size=theme.TEXT_BODY_L,
                 color=theme.TEXT if t.label else theme.TEXT_HINT, align="left", on_click=edit_label)
    label.hint = S.text("label_hint")  # an empty label shows its hint, which accessibility reports as the text
    card.add(label)
    card.add(w.icon_button((x1 - px(138), at(17), x1 - px(12), at(143)),
                           w.Action("close", S.desc("card_delete"), act_on("delete"), S.rid("card_delete"))))
    ring = theme.ERROR if fired else (theme.PRIMARY if state == T.State.RUNNING else theme.OUTLINE)
    radius = round(210 * u)
    card.add(View(bounds=(cx - radius, at(120), cx + radius, at(540)),
                  style=Style(radius=radius, border=ring, border_width=max(2, round(14 * u)))))
    remaining = t.remaining_at(now)
    shown = T.format_remaining(remaining)
    card.add(View(cls=S.cls("timer_text"), bounds=(cx - round(195 * u), at(245), cx + round(195 * u), at(415)),
                  text=shown, content_desc=duration_words(T.shown_seconds(remaining)),
                  resource_id=S.rid("timer_text"),
                  style=Style(fg=theme.ERROR if fired else theme.TEXT,
                              font_size=round((112 if len(shown) <= 5 else 84) * u), align="center")))
    if state != T.State.RESET:
        card.add(w.button((cx - round(110 * u), at(430), cx + round(110 * u), at(500)), S.text("card_add_minute"),
                          act_on("add_minute"), kind="tonal"))
    if state in (T.State.RUNNING, T.State.PAUSED):
        card.add(View(cls="android.widget.ImageButton",
                      bounds=(x0 + px(48), at(560), x0 + px(48) + round(120 * u), at(680)),
                      content_desc=S.desc("card_reset"), clickable=True, on_click=act_on("reset"),
                      style=Style(bg=theme.SURFACE_VARIANT, radius=round(60 * u), icon="refresh",
                                  icon_color=theme.TEXT, icon_size=round(60 * u))))
    icon, entry, action = {T.State.RUNNING: ("pause", "card_pause", "pause"),
                           T.State.PAUSED: ("play", "card_start", "start"),
                           T.State.RESET: ("play", "card_start", "start")}.get(state, ("stop", "card_stop", "stop"))
    card.add(round_button((x1 - px(348), at(555), x1 - px(48), at(685)), icon, S.desc(entry), S.rid(entry),
                          act_on(action), bg=theme.ERROR if fired else theme.PRIMARY, icon_size=round(64 * u)))
    return card


def _label_dialog(device: VirtualDevice, act: Activity, frame: Bounds, dialog: dict) -> View:
    key = S.rid("label_input")

    def set_text(value: str) -> None:
        dialog["text"] = value
        act.state["dialog"] = dialog

    def cancel() -> None:
        act.state.pop("dialog", None)

    def ok() -> None:
        act.state.pop("dialog", None)
        T.set_label(device, int(dialog["timer"]), dialog.get("text", "").strip())

    def content(box: Bounds) -> list[View]:
        return [w.text_field((box[0] + px(24), box[1] + px(10), box[2] - px(24), box[1] + px(150)),
                             dialog.get("text", ""), set_text, key=key, rid=key, hint=S.text("label_hint"),
                             on_submit=ok)]

    return w.dialog(frame, "Add label", buttons=[("Cancel", cancel), ("OK", ok)], content=content,
                    content_height=px(170), on_dismiss=cancel)
