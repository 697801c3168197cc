"""Identity, resource ids and small view helpers shared by the Clock app's tabs."""

from __future__ import annotations

from collections.abc import Callable

from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, Color, Style, View

PACKAGE = "com.google.android.deskclock"
ACTIVITY = "com.android.deskclock.DeskClock"
TABS = ("Alarm", "Clock", "Timer", "Stopwatch")  # ``UiDataModel.Tab`` ordinals 0..3
TAB_ALARM, TAB_CLOCK, TAB_TIMER, TAB_STOPWATCH = range(4)
TAB_ICONS = ("alarm", "clock", "timer", "stopwatch")
SELECT_TAB_EXTRA = "deskclock.select.tab"
SELECTED_TAB_KEY = "selected_tab"
NAV_H = 210  # bottom navigation bar
WHITE: Color = (255, 255, 255)


def rid(name: str) -> str:
    """``com.google.android.deskclock:id/NAME``."""
    return f"{PACKAGE}:id/{name}"


def text(bounds: Bounds, value: str, name: str = "", *, size: int = theme.TEXT_BODY, color: Color = theme.TEXT,
         bold: bool = False, align: str = "center", on_click: Callable[[], object] | None = None,
         desc: str = "") -> View:
    """A TextView (clickable when ``on_click`` is given) with resource id ``name``."""
    return View(cls="android.widget.TextView", bounds=bounds, text=value, resource_id=rid(name) if name else "",
                content_desc=desc, clickable=on_click is not None, on_click=on_click,
                style=Style(fg=color, font_size=size, bold=bold, align=align))


def round_button(bounds: Bounds, icon: str, desc: str, name: str, on_click: Callable[[], object], *,
                 bg: Color = theme.PRIMARY, fg: Color = WHITE, label: str = "", icon_size: int = 64) -> View:
    """A filled pill/circle button with an icon (and optional text); content-desc ``desc``."""
    height = bounds[3] - bounds[1]
    return View(cls="android.widget.Button" if label else "android.widget.ImageButton", bounds=bounds,
                text=label, content_desc=desc, resource_id=rid(name), clickable=True, on_click=on_click,
                style=Style(bg=bg, fg=fg, radius=height // 2, icon=icon or None, icon_color=fg, icon_size=icon_size,
                            font_size=theme.TEXT_BODY, bold=True, align="center", padding=30 if label else 0))


def bottom_nav(frame: Bounds, selected: int, on_select: Callable[[int], object]) -> View:
    """Material bottom navigation: Alarm / Clock / Timer / Stopwatch (content-desc = tab name)."""
    left, _, right, bottom = frame
    top = bottom - NAV_H
    bar = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom), resource_id=rid("tabs"),
               style=Style(bg=theme.SURFACE))
    width = (right - left) // len(TABS)
    for i, (name, icon) in enumerate(zip(TABS, TAB_ICONS, strict=True)):
        x0 = left + i * width
        x1 = right if i == len(TABS) - 1 else x0 + width
        cx = (x0 + x1) // 2
        on = i == selected
        item = View(cls="android.widget.FrameLayout", bounds=(x0, top, x1, bottom), content_desc=name,
                    resource_id=rid(f"tab_menu_{name.lower()}"), clickable=True, selected=on,
                    on_click=lambda i=i: on_select(i))
        item.add(View(cls="android.widget.ImageView", bounds=(cx - 84, top + 30, cx + 84, top + 114),
                      resource_id=rid("navigation_bar_item_icon_view"),
                      style=Style(bg=theme.PRIMARY_CONTAINER if on else None, radius=42, icon=icon,
                                  icon_color=theme.ON_PRIMARY_CONTAINER if on else theme.TEXT_SECONDARY,
                                  icon_size=56)))
        item.add(text((x0, top + 122, x1, top + 176), name, "navigation_bar_item_small_label_view",
                      size=theme.TEXT_SMALL, bold=on, color=theme.TEXT if on else theme.TEXT_SECONDARY))
        bar.add(item)
    return bar
