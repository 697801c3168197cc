"""Identity, the selector table and the activity frame shared by the Clock app's tabs.

Every id, string and widget class a profile can touch comes from the pinned Google Clock table
(``emukit/apps/tables/com.google.android.deskclock/api34.yaml``, :data:`S`), so the virtual app cannot show a
selector the real one does not have. The frame follows AOSP DeskClock's ``res/layout/desk_clock.xml``: a
Toolbar (``toolbar``, whose title TextView Google Clock names ``action_bar_title``), the tab's content, and a
Material bottom navigation whose items are FrameLayouts with content-desc = tab name and id ``tab_menu_<tab>``.
Sizes are pixels of the 420 dpi reference layout scaled with :func:`~emukit.vdevice.ui.theme.px`.
"""

from __future__ import annotations

from collections.abc import Callable

from emukit.apps.selectors import table
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, Color, Style, View

PACKAGE = "com.google.android.deskclock"
ACTIVITY = "com.android.deskclock.DeskClock"
S = table(PACKAGE)  # the pinned selector table
TAB_KEYS = ("alarm", "clock", "timer", "stopwatch")  # ``UiDataModel.Tab`` ordinals 0..3
TABS = tuple(S.desc(f"tab_{key}") for key in TAB_KEYS)  # Alarm, Clock, Timer, Stopwatch
TAB_ALARM, TAB_CLOCK, TAB_TIMER, TAB_STOPWATCH = range(4)
TAB_ICONS = ("alarm", "clock", "timer", "stopwatch")
SELECT_TAB_EXTRA = "deskclock.select.tab"
SELECTED_TAB_KEY = "selected_tab"
NAV_H = px(210)  # bottom navigation bar
TOOLBAR_H = px(168)
WHITE: Color = (255, 255, 255)


def rid(name: str) -> str:
    """``com.google.android.deskclock:id/NAME``, for the ids of screens no profile touches (alarms, stopwatch)."""
    return f"{PACKAGE}:id/{name}"


def text(bounds: Bounds, value: str, name: str = "", *, size: int = theme.TEXT_BODY, color: Color = theme.TEXT,
         bold: bool = False, align: str = "center", on_click: Callable[[], object] | None = None,
         desc: str = "", resource_id: str = "", cls: str = "android.widget.TextView") -> View:
    """A TextView (clickable when ``on_click`` is given) with resource id ``resource_id`` (or ``name``)."""
    return View(cls=cls, bounds=bounds, text=value, resource_id=resource_id or (rid(name) if name else ""),
                content_desc=desc, clickable=on_click is not None, on_click=on_click,
                style=Style(fg=color, font_size=size, bold=bold, align=align))


def round_button(bounds: Bounds, icon: str, desc: str, resource_id: str, on_click: Callable[[], object], *,
                 bg: Color = theme.PRIMARY, fg: Color = WHITE, label: str = "", icon_size: int | None = None,
                 cls: str = "") -> View:
    """A filled pill/circle button with an icon (and optional text); content-desc ``desc``."""
    height = bounds[3] - bounds[1]
    return View(cls=cls or ("android.widget.Button" if label else "android.widget.ImageButton"), bounds=bounds,
                text=label, content_desc=desc, resource_id=resource_id, clickable=True, on_click=on_click,
                style=Style(bg=bg, fg=fg, radius=height // 2, icon=icon or None, icon_color=fg,
                            icon_size=icon_size or px(64), font_size=theme.TEXT_BODY, bold=True, align="center",
                            padding=px(30) if label else 0))


def toolbar(frame: Bounds, tab: int) -> View:
    """The Toolbar at the top of every tab, its title the tab's name."""
    left, top, right, _ = frame
    bar = View(cls=S.cls("toolbar"), bounds=(left, top, right, top + TOOLBAR_H), resource_id=S.rid("toolbar"))
    bar.add(View(cls=S.cls("toolbar_title"), bounds=(left + px(60), top, right - px(60), top + TOOLBAR_H),
                 text=TABS[tab], resource_id=S.rid("toolbar_title"),
                 style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE, align="left")))
    return bar


def bottom_nav(frame: Bounds, selected: int, on_select: Callable[[int], object]) -> View:
    """Material bottom navigation: Alarm / Clock / Timer / Stopwatch items (content-desc = tab name)."""
    left, _, right, bottom = frame
    top = bottom - NAV_H
    bar = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom), style=Style(bg=theme.SURFACE))
    width = (right - left) // len(TABS)
    for i, (key, name, icon) in enumerate(zip(TAB_KEYS, TABS, TAB_ICONS, strict=True)):
        x0 = left + i * width
        x1 = right if i == len(TABS) - 1 else x0 + width
        cx = (x0 + x1) // 2
        on = i == selected
        item = View(cls=S.cls(f"tab_{key}"), bounds=(x0, top, x1, bottom), content_desc=name,
                    resource_id=S.query("tab_item", tab=key)["resourceId"], clickable=True, selected=on,
                    on_click=lambda i=i: on_select(i))
        item.add(View(cls="android.widget.ImageView", bounds=(cx - px(84), top + px(30), cx + px(84), top + px(114)),
                      style=Style(bg=theme.PRIMARY_CONTAINER if on else None, radius=px(42), icon=icon,
                                  icon_color=theme.ON_PRIMARY_CONTAINER if on else theme.TEXT_SECONDARY,
                                  icon_size=px(56))))
        item.add(text((x0, top + px(122), x1, top + px(176)), name, size=theme.TEXT_SMALL, bold=on,
                      color=theme.TEXT if on else theme.TEXT_SECONDARY))
        bar.add(item)
    return bar


def plural(unit: str, n: int) -> str:
    """``1 hour`` / ``7 hours`` (DeskClock's ``hours``/``minutes``/``seconds`` plurals) for ``unit`` hour, minute
    or second."""
    return S.text(f"{unit}_one") if n == 1 else S.text(f"{unit}s", n=n)


def duration_words(seconds: int) -> str:
    """``4 minutes, 1 second``: a duration read aloud as ``Chronometer.formatDuration`` does (hours and minutes
    only when non-zero, seconds always, joined by commas)."""
    seconds = abs(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    parts = ([plural("hour", h)] if h else []) + ([plural("minute", m)] if m else []) + [plural("second", s)]
    return ", ".join(parts)
