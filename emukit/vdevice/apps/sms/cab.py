"""The contextual action bar both lists use: Simple-Commons' ``MyRecyclerViewListAdapter`` starts an action mode
on a long press (commons MyRecyclerViewListAdapter.kt:65-107, 361-368), AppCompat draws it over the top of the
window: its close button (``action_mode_close_button``, "Done"), the custom title ``actionbar_title`` with
"<selected> / <selectable>" (:168-177; a tap selects all, or ends the mode when all are selected, :81-87), the
menu's items shown as actions (content-desc = title) and the rest behind "More options"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from emukit.vdevice.apps.sms.data import PACKAGE, T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
KEY = "cab_title"  # the overflow popup's key in the activity state (``overflow:cab_title``)
OVERFLOW_TITLE = f"{PACKAGE}:id/title"


def bar(ctx: Ctx, selected: int, total: int, items: Sequence[parts.MenuItem], *, on_close: Callable[[], Any],
        on_title: Callable[[], Any]) -> View:
    """The action mode bar over the top ``parts.TOOLBAR_H`` of ``ctx.frame``."""
    left, top, right, _ = ctx.frame
    height = parts.TOOLBAR_H
    view = View(cls="androidx.appcompat.widget.ActionBarContextView", bounds=(left, top, right, top + height),
                resource_id=f"{PACKAGE}:id/action_context_bar", style=Style(bg=theme.SURFACE_VARIANT))
    touch = dp(48)
    inset = (height - touch) // 2
    view.add(View(cls="android.widget.ImageView", bounds=(left + dp(4), top + inset, left + dp(4) + touch,
                                                          top + inset + touch),
                  resource_id=T.rid("cab_done"), content_desc="Done", clickable=True, focusable=True,
                  on_click=on_close, style=Style(icon="close", icon_color=theme.TEXT, icon_size=dp(24))))
    end = right - dp(4)
    hidden = [i for i in items if not i.always]
    if hidden:
        def open_overflow() -> None:
            ctx.state["menu"] = f"overflow:{KEY}"

        view.add(View(cls="android.widget.ImageView", bounds=(end - touch, top + inset, end, top + inset + touch),
                      content_desc=parts.OVERFLOW_DESC, clickable=True, focusable=True, on_click=open_overflow,
                      style=Style(icon="more_vert", icon_color=theme.TEXT, icon_size=dp(24))))
        end -= touch
    for item in reversed([i for i in items if i.always]):
        e = T.entry(item.entry)
        view.add(View(cls="androidx.appcompat.view.menu.ActionMenuItemView",
                      bounds=(end - touch, top + inset, end, top + inset + touch), resource_id=e.resource_id or "",
                      content_desc=e.description or e.text or "", clickable=True, focusable=True,
                      on_click=item.on_click, style=Style(icon=item.icon, icon_color=theme.TEXT, icon_size=dp(24))))
        end -= touch
    view.add(View(cls="android.widget.TextView", bounds=(left + dp(64), top, end - dp(8), top + height),
                  text=f"{selected} / {total}", resource_id=T.rid("cab_title"), clickable=True, on_click=on_title,
                  style=Style(fg=theme.TEXT, font_size=theme.TEXT_TITLE, valign="center")))
    return view


def overflow(ctx: Ctx, items: Sequence[parts.MenuItem]) -> View | None:
    """The action mode's overflow popup while it is open."""
    return parts.overflow_menu(ctx, KEY, items, OVERFLOW_TITLE)


def row_background(selected: bool) -> Style:
    return Style(bg=theme.PRIMARY_CONTAINER if selected else None)


def label(bounds: tuple[int, int, int, int], text: str, entry: str, **kw: Any) -> View:
    return w.label(bounds, text, rid=T.rid(entry), **kw)
