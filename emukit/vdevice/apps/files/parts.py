"""View pieces shared by the Files screens and the copy/move destination picker: the toolbar and its action
items, file rows, the breadcrumb, the section header, the roots drawer, popup menus, search chips and the
picker's button bar.

Everything a profile touches is drawn from the selector table of the image's DocumentsUI
(``emukit/apps/tables/com.google.android.documentsui``): ids, texts, content-descs and widget classes, nested
as in the real layouts (``drawer_layout.xml``: DrawerLayout > drawer_roots > roots_list > RootItemView >
``android:id/title``; ``fragment_directory.xml``: ``dir_list`` > ``item_doc_list.xml``'s ``item_root`` >
``android:id/title``; ``fragment_pick.xml``: ``button2`` / ``button1``). Ids that no profile touches are
spelled with :func:`rid` from the same layouts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from emukit.apps.selectors import table
from emukit.vdevice.apps.files import storage as st
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.render import font
from emukit.vdevice.ui.theme import dp, px
from emukit.vdevice.ui.view import Bounds, Color, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.google.android.documentsui"
T = table(PACKAGE)
ROW_H = px(189)
CRUMB_H = px(112)
HEADER_H = px(112)
CHIPS_H = px(132)
BOTTOM_BAR_H = px(180)
DRAWER_W = dp(256)  # drawer_layout.xml: drawer_roots is 256dp wide
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


def icon_view(bounds: Bounds, icon: str, desc: str, on_click: Callback | None, *, cls: str,
              resource_id: str = "", color: Color = theme.TEXT) -> View:
    """A clickable icon: the toolbar's navigation button, an action item or the overflow button."""
    return View(cls=cls, bounds=bounds, content_desc=desc, resource_id=resource_id, clickable=on_click is not None,
                on_click=on_click, style=Style(icon=icon, icon_color=color, icon_size=px(60)))


def show_roots(bounds: Bounds, on_click: Callback) -> View:
    """The toolbar's navigation button: "Show roots" on every screen (NavigationViewManager.update)."""
    return icon_view(bounds, "menu", T.desc("show_roots"), on_click, cls=T.cls("show_roots"))


def more_options(bounds: Bounds, on_click: Callback) -> View:
    """AppCompat's overflow button: no id, content-desc "More options"."""
    return icon_view(bounds, "more_vert", T.desc("more_options"), on_click, cls=T.cls("more_options"))


def action_item(bounds: Bounds, icon: str, name: str, on_click: Callback) -> View:
    """An action item shown as an icon (showAsAction always): the menu item's id, its title as content-desc."""
    return icon_view(bounds, icon, T.desc(name), on_click, cls="android.widget.Button", resource_id=T.rid(name))


def top_bar(frame: Bounds, title: str, leading: View | None, actions: Sequence[View] = (), *,
            bg: Color = theme.BACKGROUND, bar_rid: str = "", title_rid: str = "") -> View:
    """A toolbar: the leading button, the title, the action items from the right. ``leading`` and ``actions``
    are views built at any bounds; they are placed here. The AppCompat Toolbar's title has no id; the action
    mode's title is ``action_bar_title`` (pass ``title_rid``)."""
    left, top, right, _ = frame
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + w.APP_BAR_H),
               resource_id=bar_rid or T.rid("toolbar"), style=Style(bg=bg))
    inset = (w.APP_BAR_H - w.TOUCH) // 2
    x = left + px(48)
    if leading is not None:
        leading.bounds = (left + px(12), top + inset, left + px(12) + w.TOUCH, top + inset + w.TOUCH)
        bar.add(leading)
        x = left + px(160)
    end = right - px(24)
    for view in reversed(list(actions)):
        view.bounds = (end - w.TOUCH, top + inset, end, top + inset + w.TOUCH)
        bar.add(view)
        end -= w.TOUCH
    bar.add(w.label((x, top, end - px(12), top + w.APP_BAR_H), title, size=theme.TEXT_TITLE, rid=title_rid))
    return bar


def file_row(device: VirtualDevice, area: Bounds, top: int, entry: st.Entry, *, on_click: Callback | None,
             on_long_click: Callback | None = None, selecting: bool = False, selected: bool = False,
             enabled: bool = True) -> View:
    """One list item (``item_root``): type icon, the name (``android:id/title``), then modified date and size;
    a check mark while selecting."""
    left, _, right, _ = area
    row = View(cls=T.cls("item_root"), bounds=(left, top, right, top + ROW_H), resource_id=T.rid("item_root"),
               clickable=on_click is not None, long_clickable=on_long_click is not None, focusable=True,
               selected=selected, enabled=enabled, on_click=on_click, on_long_click=on_long_click,
               style=Style(bg=theme.PRIMARY_CONTAINER if selected else None))
    icon, color = KIND_STYLE[entry.kind]
    if not enabled:
        color = theme.mix(color, (255, 255, 255), 0.5)
    box = px(108)
    x, icon_top = left + px(48), top + (ROW_H - box) // 2
    row.add(View(cls="android.widget.ImageView", bounds=(x, icon_top, x + box, icon_top + box),
                 resource_id=rid("icon_mime"),
                 style=Style(icon=icon, icon_color=color, icon_size=px(60),
                             icon_bg=theme.mix(color, (255, 255, 255), 0.82))))
    x += box + px(40)
    end = right - px(48)
    if selecting:
        mark = px(90)
        row.add(View(cls="android.widget.CheckBox", bounds=(end - mark, top + (ROW_H - mark) // 2, end,
                                                              top + (ROW_H + mark) // 2),
                     resource_id=rid("icon_check"), checkable=True, checked=selected, style=Style(padding=px(6))))
        end -= mark + px(24)
    row.add(w.label((x, top + px(28), end, top + ROW_H // 2 + px(4)), entry.name, size=theme.TEXT_BODY_L,
                    valign="bottom", rid=T.rid("row_title"), enabled=enabled))
    line2 = (top + ROW_H // 2 + px(12), top + ROW_H - px(24))
    date = st.format_date(device, entry.mtime_ms)
    date_w = int(font(theme.TEXT_LABEL).getlength(date)) + px(4)
    row.add(w.label((x, line2[0], min(end, x + date_w), line2[1]), date, size=theme.TEXT_LABEL,
                    color=theme.TEXT_SECONDARY, valign="top", rid=rid("date"), enabled=enabled))
    if not entry.is_dir:
        sx = x + date_w + px(44)
        row.add(View(cls="android.view.View", bounds=(sx - px(28), line2[0] + px(20), sx - px(18), line2[0] + px(30)),
                     style=Style(bg=theme.TEXT_SECONDARY, radius=px(5))))
        row.add(w.label((sx, line2[0], end, line2[1]), st.format_size(entry.size), size=theme.TEXT_LABEL,
                        color=theme.TEXT_SECONDARY, valign="top", rid=rid("size"), enabled=enabled))
    return row


def breadcrumb(left: int, top: int, right: int, crumbs: Sequence[tuple[str, Callback]]) -> View:
    """``Downloads > Reports > 2025`` (``horizontal_breadcrumb``): every crumb opens its folder; leading crumbs
    drop out when too long."""
    bar = View(cls=T.cls("breadcrumb"), bounds=(left, top, right, top + CRUMB_H),
               resource_id=T.rid("breadcrumb"), style=Style(bg=theme.BACKGROUND))
    f = font(theme.TEXT_LABEL + px(2), True)
    widths = [int(f.getlength(text)) + px(40) for text, _ in crumbs]
    chevron = px(56)
    first = 0
    while first < len(crumbs) - 1 and sum(widths[first:]) + chevron * (len(crumbs) - first) + px(48) > right - left:
        first += 1
    x = left + px(24)
    for i in range(first, len(crumbs)):
        text, callback = crumbs[i]
        if i > first or first > 0:
            bar.add(View(cls="android.widget.ImageView", bounds=(x, top + px(26), x + chevron, top + CRUMB_H - px(26)),
                         style=Style(icon="chevron_right", icon_color=theme.TEXT_SECONDARY, icon_size=px(44))))
            x += chevron
        last = i == len(crumbs) - 1
        bar.add(View(cls=T.cls("breadcrumb_text"), bounds=(x, top + px(14), min(right - px(12), x + widths[i]),
                                                           top + CRUMB_H - px(14)),
                     text=text, resource_id=T.rid("breadcrumb_text"), clickable=True, on_click=callback,
                     style=Style(fg=theme.PRIMARY if last else theme.TEXT_SECONDARY,
                                 font_size=theme.TEXT_LABEL + px(2), bold=True, align="center", radius=px(20))))
        x += widths[i]
    return bar


def header(left: int, top: int, right: int, title: str, sort: View | None = None) -> View:
    """The section line above the list (``header_title``: ``Files in Downloads``) with the sort control."""
    box = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + HEADER_H),
               resource_id=rid("directory_header"))
    end = right - px(36)
    if sort is not None:
        box.add(sort)
        end = sort.bounds[0] - px(12)
    box.add(w.label((left + px(48), top, end, top + HEADER_H), title, size=theme.TEXT_LABEL, bold=True,
                    color=theme.TEXT_SECONDARY, rid=T.rid("header_title")))
    return box


def sort_button(right: int, top: int, label: str, desc: str, on_click: Callback) -> View:
    """The dropdown that opens the sort menu (text of the current dimension, a sort icon)."""
    width = int(font(theme.TEXT_LABEL, True).getlength(label)) + px(150)
    return View(cls="android.widget.Button",
                bounds=(right - px(24) - width, top + px(12), right - px(24), top + HEADER_H - px(12)),
                text=label, content_desc=desc, resource_id=rid("sort_dimen_dropdown"), clickable=True,
                on_click=on_click, style=Style(fg=theme.TEXT, font_size=theme.TEXT_LABEL, bold=True, radius=px(44),
                                               icon="sort", icon_color=theme.TEXT, icon_size=px(44), padding=px(28),
                                               border=theme.DIVIDER, border_width=px(3)))


def root_title(device: VirtualDevice, key: str) -> str:
    """A root's title: Downloads, or the shared-storage volume titled with ``Settings.Global.DEVICE_NAME``
    (ExternalStorageProvider; SettingsProvider sets it to the model on first boot)."""
    if key == "downloads":
        return T.text("root_downloads")
    name = device.state.settings.get("global", {}).get("device_name", "")
    return T.text("root_storage", device=name or device.state.props.get("ro.product.model", ""))


def roots_drawer(device: VirtualDevice, frame: Bounds, current: str, pick: Callable[[str], object],
                 dismiss: Callback) -> View:
    """The navigation drawer (``drawer_roots``): its toolbar titled "Files", then the ``roots_list`` ListView
    of RootItemViews (icon, ``android:id/title``) for Downloads and the device's storage."""
    left, top, _, bottom = frame
    layer = w.scrim(frame, dismiss)
    panel = View(cls="android.widget.LinearLayout", bounds=(left, top, left + DRAWER_W, bottom),
                 resource_id=T.rid("drawer_roots"), on_click=lambda: None,
                 style=Style(bg=theme.SURFACE, elevation=px(16)))
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, left + DRAWER_W, top + w.APP_BAR_H),
               resource_id=rid("roots_toolbar"))
    bar.add(w.label((left + px(60), top, left + DRAWER_W - px(24), top + w.APP_BAR_H), T.text("drawer_title"),
                    size=theme.TEXT_TITLE, color=theme.PRIMARY))
    panel.add(bar)
    roots = View(cls=T.cls("roots_list"), bounds=(left, top + w.APP_BAR_H, left + DRAWER_W, bottom),
                 resource_id=T.rid("roots_list"))
    y = top + w.APP_BAR_H + px(24)
    item_h = px(147)
    for key, icon in (("downloads", "download"), ("storage", "storage")):
        on = key == current
        item = View(cls=T.cls("root_item"), bounds=(left + px(12), y, left + DRAWER_W - px(12), y + item_h),
                    clickable=True, selected=on, on_click=lambda key=key: pick(key),
                    style=Style(bg=theme.PRIMARY_CONTAINER if on else None, radius=item_h // 2))
        item.add(View(cls="android.widget.ImageView", bounds=(left + px(52), y + px(37), left + px(126), y + px(111)),
                      resource_id="android:id/icon",
                      style=Style(icon=icon, icon_color=theme.ON_PRIMARY_CONTAINER if on else theme.TEXT_SECONDARY,
                                  icon_size=px(60))))
        item.add(View(cls=T.cls("root_title"), bounds=(left + px(168), y, left + DRAWER_W - px(24), y + item_h),
                      text=root_title(device, key), resource_id=T.rid("root_title"),
                      style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, bold=on)))
        roots.add(item)
        y += item_h + px(12)
    panel.add(roots)
    layer.add(panel)
    return layer


def popup_menu(frame: Bounds, anchor: tuple[int, int], items: Sequence[tuple[str, Callback]],
               on_dismiss: Callback) -> View:
    """An AppCompat overflow popup: a ListView of menu items, each a row with its title TextView; taps outside
    call ``on_dismiss``."""
    f = font(theme.TEXT_BODY_L)
    width = max(px(480), max((int(f.getlength(text)) for text, _ in items), default=0) + px(120))
    right = min(anchor[0], frame[2] - px(24))
    top = max(frame[1], anchor[1])
    row_h = w.ROW_H
    layer = View(bounds=frame, on_click=on_dismiss)
    menu = View(cls="android.widget.ListView", bounds=(right - width, top, right, top + px(24) + row_h * len(items)),
                style=Style(bg=theme.SURFACE, radius=px(24), elevation=px(12)))
    for i, (text, callback) in enumerate(items):
        y = top + px(12) + i * row_h
        item = View(cls="android.widget.LinearLayout", bounds=(right - width, y, right, y + row_h), clickable=True,
                    on_click=callback)
        item.add(View(cls=T.cls("menu_item"), bounds=(right - width + px(48), y, right - px(24), y + row_h), text=text,
                      style=Style(font_size=theme.TEXT_BODY_L)))
        menu.add(item)
    layer.add(menu)
    return layer


def chips_row(left: int, top: int, right: int, checked: Sequence[str], toggle: Callable[[str], object],
              offset: int, set_offset: Callable[[int], object]) -> View:
    """The search filter chips; a sideways swipe scrolls the row."""
    f = font(theme.TEXT_LABEL)
    widths = [int(f.getlength(text)) + (px(150) if key in checked else px(96)) for key, text in CHIPS]
    max_off = max(0, sum(widths) + px(24) * len(widths) + px(48) - (right - left))
    offset = max(0, min(offset, max_off))

    def drag(x1: int, y1: int, x2: int, y2: int) -> None:
        set_offset(max(0, min(offset + x1 - x2, max_off)))

    row = View(cls="android.widget.HorizontalScrollView", bounds=(left, top, right, top + CHIPS_H),
               scrollable=max_off > 0, on_drag=drag)
    group = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + CHIPS_H),
                 resource_id=rid("search_chip_group"))
    x = left + px(48) - offset
    for (key, text), width in zip(CHIPS, widths, strict=True):
        on = key in checked
        group.add(View(cls="com.google.android.material.chip.Chip",
                       bounds=(x, top + px(18), x + width, top + CHIPS_H - px(18)),
                       text=text, resource_id=rid("search_chip"), clickable=True, checkable=True, checked=on,
                       on_click=lambda key=key: toggle(key),
                       style=Style(bg=theme.PRIMARY_CONTAINER if on else theme.BACKGROUND, fg=theme.TEXT,
                                   border=None if on else theme.OUTLINE, border_width=0 if on else px(3),
                                   radius=px(24), font_size=theme.TEXT_LABEL, align="center", padding=px(20),
                                   icon="check" if on else None, icon_color=theme.ON_PRIMARY_CONTAINER,
                                   icon_size=px(40))))
        x += width + px(24)
    row.add(group)
    return row


def bottom_bar(frame: Bounds, confirm: str, on_confirm: Callback | None, on_cancel: Callback) -> View:
    """The picker's bar in ``container_save`` (``fragment_pick.xml``): the outlined Cancel (``button2``) and the
    filled Copy/Move (``button1``), disabled when ``on_confirm`` is None."""
    left, _, right, bottom = frame
    top = bottom - BOTTOM_BAR_H
    bar = View(bounds=(left, top, right, bottom), resource_id=T.rid("container_save"),
               style=Style(bg=theme.SURFACE))
    bar.add(w.divider(left, top, right))
    cancel = T.text("cancel_text")
    ok_w, cancel_w = w.text_button_width(confirm) + px(40), w.text_button_width(cancel) + px(40)
    y0, y1 = top + px(36), bottom - px(36)
    ok = w.button((right - px(48) - ok_w, y0, right - px(48), y1), confirm, on_confirm, rid=T.rid("pick_confirm"),
                  enabled=on_confirm is not None)
    ok.cls = T.cls("pick_confirm")
    if on_confirm is None:  # Material's disabled filled button: a faint container, greyed label
        ok.style.bg, ok.style.fg = theme.mix(theme.TEXT, theme.SURFACE, 0.88), theme.TEXT_HINT
    back = w.button((right - px(72) - ok_w - cancel_w, y0, right - px(72) - ok_w, y1), cancel, on_cancel,
                    kind="outlined", rid=T.rid("pick_cancel"))
    back.cls = T.cls("pick_cancel")
    bar.add(back)
    bar.add(ok)
    return bar


def empty(area: Bounds, message: str, icon: str = "folder") -> View:
    """An empty listing: an artwork and ``message`` (``id/message``)."""
    box = w.empty_state(area, icon, message)
    box.resource_id = rid("empty_view")
    box.children[-1].resource_id = rid("message")
    return box
