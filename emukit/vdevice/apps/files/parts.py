"""View pieces shared by the Files screens and the copy/move destination picker: file rows, the breadcrumb,
the section header, the roots drawer, search chips and the bottom button bar.

Resource ids follow the real DocumentsUI layouts (``item_root``, ``android:id/title``, ``date``, ``size``,
``horizontal_breadcrumb``, ``header_title``, ``roots_list``...), namespaced with the app's package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.view import Bounds, Color, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.google.android.documentsui"
ROW_H = 189
CRUMB_H = 112
HEADER_H = 112
CHIPS_H = 132
BOTTOM_BAR_H = 180
Callback = Callable[[], object]

KIND_STYLE: dict[str, tuple[str, Color]] = {
    "folder": ("folder", (95, 99, 104)),
    "image": ("image", (217, 48, 37)),
    "audio": ("music", (232, 113, 10)),
    "video": ("play", (197, 34, 31)),
    "document": ("file", (26, 115, 232)),
    "archive": ("storage", (121, 85, 72)),
    "other": ("file", (95, 99, 104)),
}
CHIPS = (("image", "Images"), ("audio", "Audio"), ("video", "Videos"), ("document", "Documents"),
         ("large", "Large files"), ("week", "This week"))


def rid(name: str) -> str:
    return f"{PACKAGE}:id/{name}"


def top_bar(frame: Bounds, title: str, leading: w.Action | None, actions: Sequence[w.Action] = (), *,
            bg: Color = theme.BACKGROUND, title_rid: str = "") -> View:
    """The toolbar: a leading button (roots drawer, Navigate up or Close), the title, icon actions."""
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H),
               resource_id=rid("toolbar"), style=Style(bg=bg))
    x = left + 48
    if leading is not None:
        bar.add(w.icon_button((left + 12, top + 21, left + 12 + w.TOUCH, top + 21 + w.TOUCH), leading,
                              color=theme.TEXT))
        x = left + 160
    end = right - 24
    for action in reversed(list(actions)):
        bar.add(w.icon_button((end - w.TOUCH, top + 21, end, top + 21 + w.TOUCH), action, color=theme.TEXT))
        end -= w.TOUCH
    bar.add(w.label((x, top, end - 12, top + w.APP_BAR_H), title, size=theme.TEXT_TITLE, rid=title_rid))
    return bar


def file_row(device: VirtualDevice, area: Bounds, top: int, entry: st.Entry, *, on_click: Callback | None,
             on_long_click: Callback | None = None, selecting: bool = False, selected: bool = False,
             enabled: bool = True) -> View:
    """One list item: type icon, name, then modified date and size; a check box while selecting."""
    left, _, right, _ = area
    row = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + ROW_H), resource_id=rid("item_root"),
               clickable=on_click is not None, long_clickable=on_long_click is not None, focusable=True,
               selected=selected, enabled=enabled, on_click=on_click, on_long_click=on_long_click,
               style=Style(bg=theme.PRIMARY_CONTAINER if selected else None))
    icon, color = KIND_STYLE[entry.kind]
    if not enabled:
        color = theme.mix(color, (255, 255, 255), 0.5)
    x, icon_top = left + 48, top + (ROW_H - 108) // 2
    row.add(View(cls="android.widget.ImageView", bounds=(x, icon_top, x + 108, icon_top + 108),
                 resource_id=rid("icon_mime"),
                 style=Style(icon=icon, icon_color=color, icon_size=60,
                             icon_bg=theme.mix(color, (255, 255, 255), 0.82))))
    x += 108 + 40
    end = right - 48
    if selecting:
        row.add(View(cls="android.widget.CheckBox", bounds=(end - 90, top + (ROW_H - 90) // 2, end,
                                                              top + (ROW_H + 90) // 2),
                     resource_id=rid("icon_check"), checkable=True, checked=selected, style=Style(padding=6)))
        end -= 90 + 24
    row.add(w.label((x, top + 28, end, top + ROW_H // 2 + 4), entry.name, size=theme.TEXT_BODY_L,
                    valign="bottom", rid="android:id/title", enabled=enabled))
    line2 = (top + ROW_H // 2 + 12, top + ROW_H - 24)
    date = st.format_date(device, entry.mtime_ms)
    date_w = int(font(theme.TEXT_LABEL).getlength(date)) + 4
    row.add(w.label((x, line2[0], min(end, x + date_w), line2[1]), date, size=theme.TEXT_LABEL,
                    color=theme.TEXT_SECONDARY, valign="top", rid=rid("date"), enabled=enabled))
    if not entry.is_dir:
        sx = x + date_w + 44
        row.add(View(cls="android.view.View", bounds=(sx - 28, line2[0] + 20, sx - 18, line2[0] + 30),
                     style=Style(bg=theme.TEXT_SECONDARY, radius=5)))
        row.add(w.label((sx, line2[0], end, line2[1]), st.format_size(entry.size), size=theme.TEXT_LABEL,
                        color=theme.TEXT_SECONDARY, valign="top", rid=rid("size"), enabled=enabled))
    return row


def breadcrumb(left: int, top: int, right: int, crumbs: Sequence[tuple[str, Callback]]) -> View:
    """``Downloads > Reports > 2025``: every crumb opens its folder; leading crumbs drop out when too long."""
    bar = View(cls="android.widget.HorizontalScrollView", bounds=(left, top, right, top + CRUMB_H),
               resource_id=rid("horizontal_breadcrumb"), style=Style(bg=theme.BACKGROUND))
    f = font(theme.TEXT_LABEL + 2, True)
    widths = [int(f.getlength(text)) + 40 for text, _ in crumbs]
    chevron = 56
    first = 0
    while first < len(crumbs) - 1 and sum(widths[first:]) + chevron * (len(crumbs) - first) + 48 > right - left:
        first += 1
    x = left + 24
    for i in range(first, len(crumbs)):
        text, callback = crumbs[i]
        if i > first or first > 0:
            bar.add(View(cls="android.widget.ImageView", bounds=(x, top + 26, x + chevron, top + CRUMB_H - 26),
                         style=Style(icon="chevron_right", icon_color=theme.TEXT_SECONDARY, icon_size=44)))
            x += chevron
        last = i == len(crumbs) - 1
        bar.add(View(cls="android.widget.TextView", bounds=(x, top + 14, min(right - 12, x + widths[i]),
                                                             top + CRUMB_H - 14),
                     text=text, resource_id=rid("breadcrumb_text"), clickable=True, on_click=callback,
                     style=Style(fg=theme.PRIMARY if last else theme.TEXT_SECONDARY, font_size=theme.TEXT_LABEL + 2,
                                 bold=True, align="center", radius=20)))
        x += widths[i]
    return bar


def header(left: int, top: int, right: int, title: str, sort: View | None = None) -> View:
    """The section line above the list (``Files in Downloads``) with the sort control on the right."""
    box = View(bounds=(left, top, right, top + HEADER_H), resource_id=rid("directory_header"))
    end = right - 36
    if sort is not None:
        box.add(sort)
        end = sort.bounds[0] - 12
    box.add(w.label((left + 48, top, end, top + HEADER_H), title, size=theme.TEXT_LABEL, bold=True,
                    color=theme.TEXT_SECONDARY, rid=rid("header_title")))
    return box


def sort_button(right: int, top: int, label: str, desc: str, on_click: Callback) -> View:
    """The dropdown that opens the sort menu (text of the current dimension, a sort icon)."""
    width = int(font(theme.TEXT_LABEL, True).getlength(label)) + 150
    return View(cls="android.widget.Button", bounds=(right - 24 - width, top + 12, right - 24, top + HEADER_H - 12),
                text=label, content_desc=desc, resource_id=rid("sort_dimen_dropdown"), clickable=True,
                on_click=on_click, style=Style(fg=theme.TEXT, font_size=theme.TEXT_LABEL, bold=True, radius=44,
                                               icon="sort", icon_color=theme.TEXT, icon_size=44, padding=28,
                                               border=theme.DIVIDER, border_width=3))


def roots_drawer(frame: Bounds, current: str, pick: Callable[[str], object], dismiss: Callback) -> View:
    """The navigation drawer listing the storage roots (Downloads, Internal storage)."""
    left, top, _, bottom = frame
    layer = w.scrim(frame, dismiss)
    panel = View(cls="android.widget.ListView", bounds=(left, top, left + 840, bottom),
                 resource_id=rid("roots_list"), on_click=lambda: None,
                 style=Style(bg=theme.SURFACE, elevation=16))
    panel.add(w.label((left + 60, top + 40, left + 800, top + 170), "Files", size=theme.TEXT_TITLE_L,
                      rid=rid("drawer_title")))
    y = top + 200
    for key, icon in (("downloads", "download"), ("storage", "storage")):
        on = key == current
        item = View(cls="android.widget.LinearLayout", bounds=(left + 24, y, left + 816, y + 147),
                    resource_id=rid("root_item"), clickable=True, selected=on,
                    on_click=lambda key=key: pick(key),
                    style=Style(bg=theme.PRIMARY_CONTAINER if on else None, radius=73))
        item.add(View(cls="android.widget.ImageView", bounds=(left + 64, y + 37, left + 138, y + 111),
                      style=Style(icon=icon, icon_color=theme.ON_PRIMARY_CONTAINER if on else theme.TEXT_SECONDARY,
                                  icon_size=60)))
        item.add(w.label((left + 180, y, left + 790, y + 147), st.ROOTS[key][0], size=theme.TEXT_BODY_L,
                         bold=on, rid="android:id/title"))
        panel.add(item)
        y += 159
    layer.add(panel)
    return layer


def chips_row(left: int, top: int, right: int, checked: Sequence[str], toggle: Callable[[str], object],
              offset: int, set_offset: Callable[[int], object]) -> View:
    """The search filter chips; a sideways swipe scrolls the row."""
    f = font(theme.TEXT_LABEL)
    widths = [int(f.getlength(text)) + (150 if key in checked else 96) for key, text in CHIPS]
    max_off = max(0, sum(widths) + 24 * len(widths) + 48 - (right - left))
    offset = max(0, min(offset, max_off))

    def drag(x1: int, y1: int, x2: int, y2: int) -> None:
        set_offset(max(0, min(offset + x1 - x2, max_off)))

    row = View(cls="android.widget.HorizontalScrollView", bounds=(left, top, right, top + CHIPS_H),
               resource_id=rid("search_chip_group"), scrollable=max_off > 0, on_drag=drag)
    x = left + 48 - offset
    for (key, text), width in zip(CHIPS, widths, strict=True):
        on = key in checked
        row.add(View(cls="com.google.android.material.chip.Chip", bounds=(x, top + 18, x + width, top + CHIPS_H - 18),
                     text=text, resource_id=rid("search_chip"), clickable=True, checkable=True, checked=on,
                     on_click=lambda key=key: toggle(key),
                     style=Style(bg=theme.PRIMARY_CONTAINER if on else theme.BACKGROUND, fg=theme.TEXT,
                                 border=None if on else theme.OUTLINE, border_width=0 if on else 3, radius=24,
                                 font_size=theme.TEXT_LABEL, align="center", padding=20,
                                 icon="check" if on else None, icon_color=theme.ON_PRIMARY_CONTAINER,
                                 icon_size=40)))
        x += width + 24
    return row


def bottom_bar(frame: Bounds, confirm: str, on_confirm: Callback | None, on_cancel: Callback) -> View:
    """The picker's bar: an outlined Cancel (``android:id/button2``) and the filled confirm button
    (``android:id/button1``), disabled when ``on_confirm`` is None."""
    left, _, right, bottom = frame
    top = bottom - BOTTOM_BAR_H
    bar = View(bounds=(left, top, right, bottom), resource_id=rid("container_save"),
               style=Style(bg=theme.SURFACE))
    bar.add(w.divider(left, top, right))
    ok_w, cancel_w = w.text_button_width(confirm) + 40, w.text_button_width("Cancel") + 40
    y0, y1 = top + 36, bottom - 36
    ok = w.button((right - 48 - ok_w, y0, right - 48, y1), confirm, on_confirm, rid="android:id/button1",
                  enabled=on_confirm is not None)
    if on_confirm is None:  # Material's disabled filled button: a faint container, greyed label
        ok.style.bg, ok.style.fg = theme.mix(theme.TEXT, theme.SURFACE, 0.88), theme.TEXT_HINT
    bar.add(ok)
    bar.add(w.button((right - 72 - ok_w - cancel_w, y0, right - 72 - ok_w, y1), "Cancel", on_cancel,
                     kind="outlined", rid="android:id/button2"))
    return bar


def empty(area: Bounds, message: str, icon: str = "folder") -> View:
    """An empty listing: an artwork and ``message`` (``id/message``)."""
    box = w.empty_state(area, icon, message)
    box.resource_id = rid("empty_view")
    box.children[-1].resource_id = rid("message")
    return box
