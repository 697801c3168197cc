"""The Timer tab: the keypad that sets a new timer and the list of timer cards.

Screen state (``act.state``): ``digits`` (keypad input, at most six digits entered right to left),
``setup`` (the keypad is shown over existing timers after "Add timer"), ``scroll`` (list offset) and
``dialog`` (``{"kind": "label", "timer": id, "text": ...}`` while the label dialog shows). Timers
themselves are read from and written to the preferences file on every build and every tap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.clock import timers as T
from emukit.vdevice.apps.clock.common import rid, round_button, text
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

CARD_H, CARD_GAP = 700, 36
KEY_SIZE = 220
MAX_DIGITS = 6
STATUS = {T.State.PAUSED: "Paused", T.State.EXPIRED: "Time's up", T.State.MISSED: "Missed"}


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


# ---------------------------------------------------------------------- screen
def build(device: VirtualDevice, act: Activity, root: View, body: Bounds) -> None:
    """Add the Timer tab's content in ``body`` (between the app bar and the bottom navigation)."""
    timers = T.sync(device)
    if not timers or act.state.get("setup"):
        _keypad(act, root, body, bool(timers), device)
    else:
        _cards(device, act, root, body, timers)
    dialog = act.state.get("dialog")
    if dialog and dialog.get("kind") == "label":
        root.add(_label_dialog(device, act, root.bounds, dialog))


def _keypad(act: Activity, root: View, body: Bounds, has_timers: bool, device: VirtualDevice) -> None:
    left, top, right, _ = body
    digits = act.state.get("digits", "")
    entered = bool(digits)
    root.add(View(cls="android.widget.TextView", bounds=(left + 60, top + 60, right - 180, top + 260),
                  text=T.format_setup(digits), resource_id=rid("timer_setup_time"),
                  style=Style(fg=theme.PRIMARY if entered else theme.TEXT_HINT, font_size=100, align="center")))
    root.add(View(cls="android.widget.ImageButton", bounds=(right - 170, top + 97, right - 44, top + 223),
                  content_desc="Delete", resource_id=rid("timer_setup_delete"), clickable=True,
                  long_clickable=True, enabled=entered, on_click=lambda: delete_digit(act),
                  on_long_click=lambda: clear_digits(act),
                  style=Style(icon="backspace", icon_color=theme.TEXT_SECONDARY, icon_size=64)))
    root.add(w.divider(left + 60, top + 290, right - 60))
    cx0 = (left + right) // 2
    for i, digit in enumerate((1, 2, 3, 4, 5, 6, 7, 8, 9, 0)):
        row, col = divmod(i, 3)
        if digit == 0:
            col = 1
        cx, cy = cx0 + (col - 1) * 300, top + 450 + row * 245
        root.add(View(cls="android.widget.Button", bounds=(cx - KEY_SIZE // 2, cy - KEY_SIZE // 2,
                                                           cx + KEY_SIZE // 2, cy + KEY_SIZE // 2),
                      text=str(digit), content_desc=str(digit), resource_id=rid(f"timer_setup_digit_{digit}"),
                      clickable=True, on_click=lambda d=digit: press_digit(act, d),
                      style=Style(bg=theme.SURFACE_VARIANT, fg=theme.TEXT, radius=KEY_SIZE // 2, font_size=80,
                                  align="center")))
    y = top + 1390
    if entered:
        root.add(round_button((cx0 - 110, y, cx0 + 110, y + 220), "play", "Start", "fab",
                              lambda: start_from_keypad(device, act), icon_size=88))
    if has_timers:
        width = w.text_button_width("Cancel")
        root.add(w.button((left + 84, y + 50, left + 84 + width, y + 170), "Cancel", lambda: close_keypad(act),
                          kind="text", rid=rid("timer_setup_cancel")))


def _cards(device: VirtualDevice, act: Activity, root: View, body: Bounds, timers: list[T.Timer]) -> None:
    now = device.elapsed_ms()
    rows = [(CARD_H + CARD_GAP, lambda top, t=t: _card(device, act, body, top + CARD_GAP, t, now)) for t in timers]
    root.add(w.scroll_list(body, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                           rid=rid("timer_list"), padding_bottom=300))
    root.add(w.fab(body, "plus", "Add timer", lambda: open_keypad(act), rid=rid("timer_add")))


def _card(device: VirtualDevice, act: Activity, body: Bounds, y: int, t: T.Timer, now: int) -> View:
    left, _, right, _ = body
    x0, x1 = left + 36, right - 36
    cx = (left + right) // 2
    state = t.state
    fired = state in (T.State.EXPIRED, T.State.MISSED)

    def act_on(action: str) -> Callable[[], object]:
        return lambda: T.update(device, t.id, action)

    def edit_label() -> None:
        act.state["dialog"] = {"kind": "label", "timer": t.id, "text": t.label}
        device.state.ui.focused_id = rid("label_input_field")
        device.state.ui.cursor = len(t.label)

    card = View(cls="android.view.ViewGroup", bounds=(x0, y, x1, y + CARD_H), resource_id=rid("timer_card"),
                style=Style(bg=(252, 226, 222) if fired else theme.SURFACE, radius=48))
    label = text((x0 + 48, y + 30, x1 - 150, y + 130), t.label or "Label", "timer_label", size=theme.TEXT_BODY_L,
                 color=theme.TEXT if t.label else theme.TEXT_HINT, align="left", on_click=edit_label)
    label.hint = "Label"  # an empty label shows its hint, which accessibility reports as the text
    card.add(label)
    card.add(w.icon_button((x1 - 138, y + 17, x1 - 12, y + 143), w.Action("close", "Delete", act_on("delete"),
                                                                           rid("delete"))))
    ring = theme.ERROR if fired else (theme.PRIMARY if state == T.State.RUNNING else theme.OUTLINE)
    card.add(View(bounds=(cx - 210, y + 120, cx + 210, y + 540),
                  style=Style(radius=210, border=ring, border_width=14)))
    if state in STATUS:
        card.add(text((cx - 190, y + 185, cx + 190, y + 240), STATUS[state], "timer_status", size=theme.TEXT_LABEL,
                      color=theme.ERROR if fired else theme.TEXT_SECONDARY, bold=fired))
    shown = T.format_remaining(t.remaining_at(now))
    card.add(text((cx - 195, y + 245, cx + 195, y + 415), shown, "timer_time_text", size=112 if len(shown) <= 5
                  else 84, color=theme.ERROR if fired else theme.TEXT))
    if state != T.State.RESET:
        card.add(w.button((cx - 100, y + 430, cx + 100, y + 500), "+1:00", act_on("add_minute"), kind="tonal",
                          rid=rid("timer_add_minute")))
    if state in (T.State.RUNNING, T.State.PAUSED):
        card.add(View(cls="android.widget.ImageButton", bounds=(x0 + 48, y + 560, x0 + 168, y + 680),
                      content_desc="Reset", resource_id=rid("timer_reset"), clickable=True,
                      on_click=act_on("reset"), style=Style(bg=theme.SURFACE_VARIANT, radius=60, icon="refresh",
                                                            icon_color=theme.TEXT, icon_size=60)))
    icon, desc, action = {T.State.RUNNING: ("pause", "Pause", "pause"), T.State.PAUSED: ("play", "Resume", "start"),
                          T.State.RESET: ("play", "Start", "start")}.get(state, ("stop", "Stop", "stop"))
    card.add(round_button((x1 - 348, y + 555, x1 - 48, y + 685), icon, desc, "play_pause", act_on(action),
                          bg=theme.ERROR if fired else theme.PRIMARY))
    return card


def _label_dialog(device: VirtualDevice, act: Activity, frame: Bounds, dialog: dict) -> View:
    key = rid("label_input_field")

    def set_text(value: str) -> None:
        dialog["text"] = value
        act.state["dialog"] = dialog

    def cancel() -> None:
        act.state.pop("dialog", None)

    def ok() -> None:
        act.state.pop("dialog", None)
        T.set_label(device, int(dialog["timer"]), dialog.get("text", "").strip())

    def content(box: Bounds) -> list[View]:
        return [w.text_field((box[0] + 24, box[1] + 10, box[2] - 24, box[1] + 150), dialog.get("text", ""),
                             set_text, key=key, rid=key, hint="Label", on_submit=ok)]

    return w.dialog(frame, "Add label", buttons=[("Cancel", cancel), ("OK", ok)], content=content,
                    content_height=170, on_dismiss=cancel)

