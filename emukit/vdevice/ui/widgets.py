"""Layout helpers for virtual apps: small functions returning Material-styled :class:`View` trees.

Every helper takes absolute screen bounds (or a frame plus a top offset) and returns views whose bounds are
absolute too, so what uiautomator reports is what the renderer draws and what input hits. Behaviour is
passed in as callbacks; the helpers keep no state. Sizes scale with the display's density (``theme.dp`` for
Material's dp sizes, ``theme.px`` for the pixel sizes of the 420 dpi reference layout), so a smaller display
shows the same layout in dp. Resource ids are optional ``rid`` arguments (full ids such
as ``"com.example:id/title"``). Typical screen::

    root = screen(frame)
    root.add(app_bar(frame, "Notes", on_back=go_back, actions=[Action("search", "Search", open_search)]))
    body = below_app_bar(frame)
    rows = [(row_height(True), lambda top, n=n: list_row(body, top, n.title, n.text, on_click=...)) for n in notes]
    root.add(scroll_list(body, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v)))
    root.add(fab(frame, "plus", "New note", new_note))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from emukit.vdevice.ui import theme
from emukit.vdevice.ui.render import font, wrap
from emukit.vdevice.ui.theme import dp, px
from emukit.vdevice.ui.view import Bounds, Color, Style, View

Callback = Callable[[], object]
APP_BAR_H = dp(64)
ROW_H = dp(56)  # one-line list item
ROW_H2 = dp(72)  # two-line list item
TOUCH = dp(48)  # minimum touch target
FAB_SIZE = dp(64)
TAB_H = dp(48)


@dataclass
class Action:
    """An icon button in an app bar, a row's trailing button or a toolbar."""

    icon: str
    desc: str
    on_click: Callback | None = None
    rid: str = ""


def screen(frame: Bounds, bg: Color = theme.BACKGROUND, rid: str = "") -> View:
    """The root of an activity's content: fills ``frame`` with the window background."""
    return View(bounds=frame, resource_id=rid, style=Style(bg=bg))


def label(bounds: Bounds, text: str, *, size: int = theme.TEXT_BODY, color: Color = theme.TEXT, bold: bool = False,
          align: str = "left", valign: str = "center", max_lines: int = 1, rid: str = "",
          enabled: bool = True) -> View:
    """A non-interactive TextView."""
    return View(cls="android.widget.TextView", bounds=bounds, text=text, resource_id=rid, enabled=enabled,
                style=Style(fg=color, font_size=size, bold=bold, align=align, valign=valign, max_lines=max_lines))


def icon_button(bounds: Bounds, action: Action, color: Color = theme.TEXT_SECONDARY, size: int | None = None
                ) -> View:
    """A borderless ImageButton (content-desc = ``action.desc``); ``size``: the icon's px (default 60 at 420 dpi)."""
    return View(cls="android.widget.ImageButton", bounds=bounds, content_desc=action.desc, resource_id=action.rid,
                clickable=action.on_click is not None, on_click=action.on_click,
                style=Style(icon=action.icon, icon_color=color, icon_size=size or px(60)))


def button(bounds: Bounds, text: str, on_click: Callback | None, *, kind: str = "filled", rid: str = "",
           enabled: bool = True) -> View:
    """A Material button: ``kind`` is filled, tonal, outlined or text."""
    bg, fg, border = {
        "filled": (theme.PRIMARY, theme.ON_PRIMARY, None),
        "tonal": (theme.PRIMARY_CONTAINER, theme.ON_PRIMARY_CONTAINER, None),
        "outlined": (None, theme.PRIMARY, theme.OUTLINE),
    }.get(kind, (None, theme.PRIMARY, None))
    height = bounds[3] - bounds[1]
    return View(cls="android.widget.Button", bounds=bounds, text=text, resource_id=rid, clickable=True,
                enabled=enabled, on_click=on_click if enabled else None,
                style=Style(bg=bg, fg=fg, border=border, border_width=px(3) if border else 0, radius=height // 2,
                            font_size=theme.TEXT_LABEL, bold=True, align="center", padding=px(24)))


def text_button_width(text: str, size: int = theme.TEXT_LABEL) -> int:
    """Width a ``button`` needs for ``text``."""
    return int(font(size, True).getlength(text)) + px(96)


def app_bar(frame: Bounds, title: str, *, on_back: Callback | None = None, actions: Sequence[Action] = (),
            bg: Color = theme.BACKGROUND, subtitle: str = "", rid: str = "") -> View:
    """A top app bar: optional "Navigate up" arrow, title (and subtitle), icon actions on the right."""
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + APP_BAR_H), resource_id=rid,
               style=Style(bg=bg))
    x = left + px(48)
    inset = (APP_BAR_H - TOUCH) // 2
    if on_back is not None:
        bar.add(icon_button((left + px(12), top + inset, left + px(12) + TOUCH, top + inset + TOUCH),
                            Action("arrow_back", "Navigate up", on_back), color=theme.TEXT))
        x = left + px(160)
    end = right - px(24)
    for action in reversed(list(actions)):
        bar.add(icon_button((end - TOUCH, top + inset, end, top + inset + TOUCH), action, color=theme.TEXT))
        end -= TOUCH
    if subtitle:
        bar.add(label((x, top + px(24), end - px(12), top + px(100)), title, size=theme.TEXT_TITLE, valign="bottom"))
        bar.add(label((x, top + px(102), end - px(12), top + px(150)), subtitle, size=theme.TEXT_SMALL,
                      color=theme.TEXT_SECONDARY, valign="top"))
    else:
        bar.add(label((x, top, end - px(12), top + APP_BAR_H), title, size=theme.TEXT_TITLE))
    return bar


def below_app_bar(frame: Bounds, height: int = APP_BAR_H) -> Bounds:
    """The part of ``frame`` under an app bar (or any header of ``height``)."""
    return frame[0], frame[1] + height, frame[2], frame[3]


def row_height(two_line: bool = False) -> int:
    return ROW_H2 if two_line else ROW_H


def list_row(area: Bounds, top: int, title: str, subtitle: str = "", *, icon: str | None = None,
             icon_color: Color = theme.TEXT_SECONDARY, icon_bg: Color | None = None,
             on_click: Callback | None = None,
             on_long_click: Callback | None = None, trailing: Action | None = None, checked: bool | None = None,
             checkbox: bool = False, selected: bool = False, enabled: bool = True, rid: str = "",
             title_rid: str = "android:id/title", subtitle_rid: str = "android:id/summary",
             height: int | None = None) -> View:
    """A list item across ``area``'s width starting at ``top``: optional leading icon (on a coloured disc
    with ``icon_bg``), title, subtitle and a trailing icon button, or a switch (``checked`` not None) /
    check box (``checkbox=True``).

    The row itself is the clickable view; with a switch and no ``on_click`` it toggles nothing by itself —
    pass ``on_click`` that flips your state.
    """
    left, _, right, _ = area
    height = height or row_height(bool(subtitle))
    row = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + height), resource_id=rid,
               clickable=on_click is not None, long_clickable=on_long_click is not None, selected=selected,
               enabled=enabled, on_click=on_click, on_long_click=on_long_click,
               style=Style(bg=theme.PRIMARY_CONTAINER if selected else None))
    x = left + px(48)
    if icon is not None:
        size = px(56) if icon_bg is not None else px(66)
        box = px(96)
        icon_top = top + (height - box) // 2
        row.add(View(cls="android.widget.ImageView", bounds=(x, icon_top, x + box, icon_top + box),
                     resource_id="android:id/icon",
                     style=Style(icon=icon, icon_color=(255, 255, 255) if icon_bg else icon_color, icon_size=size,
                                 icon_bg=icon_bg)))
        x += box + px(40)
    end = right - px(36)
    if trailing is not None:
        button_top = top + (height - TOUCH) // 2
        row.add(icon_button((end - TOUCH, button_top, end, button_top + TOUCH), trailing))
        end -= TOUCH + px(12)
    if checked is not None:
        cls = "android.widget.CheckBox" if checkbox else "android.widget.Switch"
        width = px(90) if checkbox else px(148)
        tall = px(90)
        row.add(View(cls=cls, bounds=(end - width, top + (height - tall) // 2, end, top + (height + tall) // 2),
                     resource_id="android:id/checkbox" if checkbox else "android:id/switch_widget",
                     checkable=True, checked=checked, enabled=enabled, style=Style(padding=px(6))))
        end -= width + px(24)
    if subtitle:
        row.add(label((x, top + px(26), end, top + height // 2 + px(6)), title, size=theme.TEXT_BODY_L,
                      valign="bottom", rid=title_rid, enabled=enabled))
        row.add(label((x, top + height // 2 + px(8), end, top + height - px(20)), subtitle, size=theme.TEXT_LABEL,
                      color=theme.TEXT_SECONDARY, valign="top", rid=subtitle_rid, enabled=enabled))
    else:
        row.add(label((x, top, end, top + height), title, size=theme.TEXT_BODY_L, rid=title_rid, enabled=enabled))
    return row


def divider(left: int, top: int, right: int) -> View:
    return View(cls="android.view.View", bounds=(left, top, right, top + max(1, px(3))), style=Style(bg=theme.DIVIDER))


def scroll_list(area: Bounds, rows: Sequence[tuple[int, Callable[[int], View]]], scroll: int,
                set_scroll: Callable[[int], object], *, rid: str = "", padding_bottom: int = 0,
                cls: str = "androidx.recyclerview.widget.RecyclerView") -> View:
    """A vertically scrollable list filling ``area``.

    ``rows`` are ``(height, build)`` pairs where ``build(top)`` returns the row at screen y ``top``. Only
    rows that intersect ``area`` are built. ``scroll`` is the offset in px (clamped here); a swipe calls
    ``set_scroll(new_offset)``, so keep the offset in ``act.state``.
    """
    _, top, _, bottom = area
    total = sum(h for h, _ in rows) + padding_bottom
    max_scroll = max(0, total - (bottom - top))
    scroll = max(0, min(scroll, max_scroll))

    def on_scroll(dy: int) -> None:
        set_scroll(max(0, min(scroll + dy, max_scroll)))

    container = View(cls=cls, bounds=area, resource_id=rid, scrollable=max_scroll > 0,
                     on_scroll=on_scroll if max_scroll > 0 else None)
    y = top - scroll
    for height, build in rows:
        if y + height > top and y < bottom:
            container.add(build(y))
        y += height
    return container


def fab(frame: Bounds, icon: str, desc: str, on_click: Callback, *, text: str = "", rid: str = "") -> View:
    """A floating action button at the bottom right of ``frame`` (extended when ``text`` is given)."""
    right, bottom = frame[2] - px(48), frame[3] - px(48)
    width = FAB_SIZE if not text else int(font(theme.TEXT_LABEL, True).getlength(text)) + px(216)
    return View(cls="android.widget.ImageButton" if not text else "android.widget.Button",
                bounds=(right - width, bottom - FAB_SIZE, right, bottom), text=text, content_desc=desc,
                resource_id=rid, clickable=True, on_click=on_click,
                style=Style(bg=theme.PRIMARY_CONTAINER, fg=theme.ON_PRIMARY_CONTAINER, radius=px(48),
                            elevation=px(10), icon=icon, icon_color=theme.ON_PRIMARY_CONTAINER, icon_size=px(64),
                            padding=px(52), font_size=theme.TEXT_LABEL, bold=True))


def text_field(bounds: Bounds, text: str, on_text: Callable[[str], object], *, key: str, hint: str = "",
               on_submit: Callback | None = None, max_lines: int = 1, password: bool = False, rid: str = "",
               outlined: bool = True, size: int = theme.TEXT_BODY_L) -> View:
    """An EditText. ``key`` identifies it for focus (use a stable name, e.g. the resource id)."""
    return View(cls="android.widget.EditText", bounds=bounds, text=text, hint=hint, resource_id=rid, key=key,
                editable=True, focusable=True, clickable=True, long_clickable=True, password=password,
                on_text=on_text, on_submit=on_submit,
                style=Style(bg=theme.BACKGROUND if outlined else None, border=theme.OUTLINE if outlined else None,
                            border_width=px(3) if outlined else 0, radius=px(16), padding=px(36), font_size=size,
                            max_lines=max_lines, valign="top" if max_lines > 1 else "center"))


def tabs(left: int, top: int, right: int, labels: Sequence[str], selected: int,
         on_select: Callable[[int], object], rid: str = "") -> View:
    """A fixed tab row; the selected tab is underlined. ``on_select(index)`` is called on a tap."""
    row = View(cls="android.widget.HorizontalScrollView", bounds=(left, top, right, top + TAB_H), resource_id=rid,
               style=Style(bg=theme.BACKGROUND))
    width = (right - left) // max(1, len(labels))
    for i, name in enumerate(labels):
        x0 = left + i * width
        x1 = right if i == len(labels) - 1 else x0 + width
        on = i == selected
        tab = View(cls="android.widget.LinearLayout", bounds=(x0, top, x1, top + TAB_H), content_desc=name,
                   clickable=True, selected=on, on_click=lambda i=i: on_select(i))
        tab.add(label((x0, top, x1, top + TAB_H - px(8)), name, size=theme.TEXT_LABEL, bold=True, align="center",
                      color=theme.PRIMARY if on else theme.TEXT_SECONDARY))
        if on:
            tab.add(View(bounds=(x0 + px(60), top + TAB_H - px(9), x1 - px(60), top + TAB_H),
                         style=Style(bg=theme.PRIMARY, radius=px(4))))
        row.add(tab)
    row.add(divider(left, top + TAB_H - max(1, px(3)), right))
    return row


def scrim(frame: Bounds, on_tap: Callback | None = None) -> View:
    """A dimming layer over ``frame`` that swallows taps (or calls ``on_tap``, e.g. to dismiss)."""
    return View(bounds=frame, on_click=on_tap or (lambda: None), style=Style(bg=(0, 0, 0),
                                                                             bg_alpha=theme.SCRIM_ALPHA))


def dialog(frame: Bounds, title: str, message: str = "", *, buttons: Sequence[tuple[str, Callback]] = (),
           content: Callable[[Bounds], list[View]] | None = None, content_height: int = 0,
           on_dismiss: Callback | None = None, title_rid: str = "android:id/alertTitle",
           message_rid: str = "android:id/message", button_ids: Sequence[str] | None = None) -> View:
    """An alert dialog centred in ``frame`` over a scrim. Buttons are laid out right-aligned in the given
    order; the last one gets ``android:id/button1`` (positive), the one before ``button2`` and so on, unless
    ``button_ids`` names each button's id in the given order (a neutral ``button3`` beside a positive one).
    ``content(box)`` may add views (fields, choices) in a box of ``content_height`` px under the message.
    ``title_rid`` / ``message_rid``: the ids of the title and message (an AppCompat dialog's are merged into the
    app's package; a custom message layout has its own).
    """
    left, top, right, bottom = frame
    margin, pad = px(84), px(72)
    width = right - left - 2 * margin
    msg_f = font(theme.TEXT_BODY)
    msg_h = px(58)  # one message line
    msg_lines = 0
    if message:
        msg_lines = len(wrap(message, msg_f, width - 2 * pad, 8))
    height = (px(72) + px(80) + (msg_lines * msg_h + px(24) if message else 0) + content_height
              + (px(150) if buttons else px(48)))
    x0, y0 = left + margin, (top + bottom - height) // 2
    layer = scrim(frame, on_dismiss)
    card = View(bounds=(x0, y0, x0 + width, y0 + height), resource_id="android:id/content",
                style=Style(bg=theme.SURFACE, radius=px(70), elevation=px(16)))
    card.add(label((x0 + pad, y0 + px(64), x0 + width - pad, y0 + px(140)), title, size=theme.TEXT_TITLE_L - px(4),
                   rid=title_rid))
    y = y0 + px(160)
    if message:
        card.add(label((x0 + pad, y, x0 + width - pad, y + msg_lines * msg_h), message, color=theme.TEXT_SECONDARY,
                       valign="top", max_lines=msg_lines, rid=message_rid))
        y += msg_lines * msg_h + px(24)
    if content is not None:
        card.add(*content((x0 + px(48), y, x0 + width - px(48), y + content_height)))
        y += content_height
    end = x0 + width - px(48)
    ids = list(reversed(button_ids)) if button_ids is not None else [
        "android:id/button1", "android:id/button2", "android:id/button3"]
    for i, (text, callback) in enumerate(reversed(list(buttons))):
        w = text_button_width(text)
        card.add(button((end - w, y0 + height - px(138), end, y0 + height - px(42)), text, callback, kind="text",
                        rid=ids[i] if i < len(ids) else ""))
        end -= w + px(12)
    layer.add(card)
    return layer


def floating_toolbar(x: int, y: int, items: Sequence[tuple[str, Callback]],
                     frame: Bounds = theme.APP_FRAME) -> View:
    """The framework's text-selection toolbar (Cut / Copy / Paste ...), centred above (x, y) and kept in
    ``frame``. As Android 14 builds it (frameworks/base ``core/res/res/layout/floating_popup_menu_button.xml``),
    each item is a clickable LinearLayout whose content-desc is its title, holding the title TextView
    ``android:id/floating_toolbar_menu_item_text``."""
    f = font(theme.TEXT_LABEL)
    widths = [int(f.getlength(text)) + px(72) for text, _ in items]
    width, height = sum(widths) + px(24), px(126)
    x0 = max(frame[0] + px(24), min(x - width // 2, frame[2] - px(24) - width))
    y0 = max(frame[1] + px(12), y - height - px(48))
    bar = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x0 + width, y0 + height),
               style=Style(bg=theme.BACKGROUND, radius=px(28), elevation=px(10)))
    x = x0 + px(12)
    for (text, callback), w in zip(items, widths, strict=True):
        item = View(cls="android.widget.LinearLayout", bounds=(x, y0 + px(8), x + w, y0 + height - px(8)),
                    content_desc=text, clickable=True, focusable=True, on_click=callback,
                    style=Style(radius=px(20)))
        item.add(View(cls="android.widget.TextView", bounds=(x, y0 + px(8), x + w, y0 + height - px(8)), text=text,
                      resource_id="android:id/floating_toolbar_menu_item_text",
                      style=Style(fg=theme.TEXT, font_size=theme.TEXT_LABEL, align="center")))
        bar.add(item)
        x += w
    return bar


def popup_menu(frame: Bounds, anchor: tuple[int, int], items: Sequence[tuple[str, Callback]],
               on_dismiss: Callback, title_rid: str = "android:id/title") -> View:
    """An overflow menu whose top-right corner is at ``anchor``; taps outside call ``on_dismiss``; each row's
    TextView has ``title_rid`` (AppCompat's popup rows are merged into the app's package)."""
    f = font(theme.TEXT_BODY_L)
    width = max(px(480), max((int(f.getlength(text)) for text, _ in items), default=0) + px(120))
    right = min(anchor[0], frame[2] - px(24))
    top = max(frame[1], anchor[1])
    layer = View(bounds=frame, on_click=on_dismiss)
    menu = View(cls="android.widget.ListView",
                bounds=(right - width, top, right, top + px(24) + ROW_H * len(items)),
                style=Style(bg=theme.SURFACE, radius=px(24), elevation=px(12)))
    for i, (text, callback) in enumerate(items):
        y = top + px(12) + i * ROW_H
        menu.add(View(cls="android.widget.TextView", bounds=(right - width, y, right, y + ROW_H), text=text,
                      resource_id=title_rid, clickable=True, on_click=callback,
                      style=Style(font_size=theme.TEXT_BODY_L, padding=px(48))))
    layer.add(menu)
    return layer


def empty_state(area: Bounds, icon: str, message: str) -> View:
    """A centred icon and message for an empty screen or list."""
    cx, cy = (area[0] + area[2]) // 2, (area[1] + area[3]) // 2
    box = View(bounds=area)
    box.add(View(cls="android.widget.ImageView", bounds=(cx - px(96), cy - px(220), cx + px(96), cy - px(28)),
                 style=Style(icon=icon, icon_color=theme.TEXT_HINT, icon_size=px(160))))
    box.add(label((area[0] + px(60), cy, area[2] - px(60), cy + px(130)), message, color=theme.TEXT_SECONDARY,
                  align="center", max_lines=2))
    return box


def stepper_dialog(frame: Bounds, title: str, fields: Sequence[tuple[str, str, Callback, Callback]], *,
                   on_cancel: Callback, on_ok: Callback) -> View:
    """A picker dialog: one row per field with its value between "Decrease"/"Increase" buttons.

    ``fields`` are ``(name, value text, decrease, increase)``; the value views have content-desc ``name``
    and the buttons ``"Decrease <name>"`` / ``"Increase <name>"``. Used for dates, times and durations.
    """
    row_h = px(150)
    height = len(fields) * row_h

    def content(box: Bounds) -> list[View]:
        x0, y0, x1, _ = box
        name_w, gap = px(300), px(12)
        out: list[View] = []
        for i, (name, value, dec, inc) in enumerate(fields):
            y = y0 + i * row_h
            out.append(label((x0 + px(24), y, x0 + name_w, y + row_h), name, color=theme.TEXT_SECONDARY))
            out.append(icon_button((x0 + name_w, y + gap, x0 + name_w + TOUCH, y + gap + TOUCH),
                                   Action("expand_more", f"Decrease {name}", dec), color=theme.PRIMARY))
            out.append(View(cls="android.widget.TextView", bounds=(x0 + px(440), y + px(20), x1 - px(160),
                                                                   y + px(130)),
                            text=value, content_desc=name, resource_id="android:id/numberpicker_input",
                            style=Style(bg=theme.PRIMARY_CONTAINER, fg=theme.ON_PRIMARY_CONTAINER, radius=px(24),
                                        align="center", font_size=theme.TEXT_BODY_L, bold=True)))
            out.append(icon_button((x1 - px(24) - TOUCH, y + gap, x1 - px(24), y + gap + TOUCH),
                                   Action("expand_less", f"Increase {name}", inc), color=theme.PRIMARY))
        return out

    return dialog(frame, title, buttons=[("Cancel", on_cancel), ("OK", on_ok)], content=content,
                  content_height=height, on_dismiss=on_cancel)
