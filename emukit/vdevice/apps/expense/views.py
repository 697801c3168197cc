"""The pieces Pro Expense's fragments share: the AppCompat/Material toolbar, an expense row, the bottom sheets
(ExpenseDetailDialog and DeleteConfirmFragment are BottomSheetDialogFragments: a ``touch_outside`` scrim and a
``design_bottom_sheet`` holding the layout, material:lib/java/com/google/android/material/bottomsheet/res/layout/
design_bottom_sheet_dialog.xml) and the NavigationView drawer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense.data import T
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
TOOLBAR_H = dp(56)
RID = f"{D.PACKAGE}:id/"


@dataclass(frozen=True)
class Item:
    """A toolbar menu item shown as an action (ActionMenuItemView: content-desc = title, id = the item's)."""

    entry: str
    icon: str
    on_click: Callable[[], Any]
    enabled: bool = True


def toolbar(area: Bounds, rid: str, title: str, *, subtitle: str = "", nav_icon: str = "menu",
            on_nav: Callable[[], Any] | None = None, items: Sequence[Item] = ()) -> View:
    """A Toolbar (``rid``) with its navigation ImageButton (no content-desc, as the layouts set none), its title
    and subtitle TextViews (no ids) and its action items."""
    left, top, right, _ = area
    bar = View(cls="android.view.ViewGroup", bounds=(left, top, right, top + TOOLBAR_H), resource_id=rid,
               style=Style(bg=theme.SURFACE))
    touch = dp(48)
    inset = (TOOLBAR_H - touch) // 2
    bar.add(View(cls=T.cls("toolbar_nav_button"), bounds=(left + dp(4), top + inset, left + dp(4) + touch,
                                                          top + inset + touch),
                 clickable=on_nav is not None, focusable=True, on_click=on_nav,
                 style=Style(icon=nav_icon, icon_color=theme.TEXT, icon_size=dp(24))))
    end = right - dp(4)
    for item in reversed(list(items)):
        e = T.entry(item.entry)
        bar.add(View(cls="android.widget.TextView", bounds=(end - touch, top + inset, end, top + inset + touch),
                     resource_id=e.resource_id or "", content_desc=e.description or "", clickable=item.enabled,
                     enabled=item.enabled, focusable=True, on_click=item.on_click if item.enabled else None,
                     style=Style(icon=item.icon, icon_color=theme.TEXT if item.enabled else theme.TEXT_HINT,
                                 icon_size=dp(24))))
        end -= touch
    x = left + dp(72)
    if subtitle:
        bar.add(w.label((x, top + dp(6), end - dp(8), top + dp(32)), title, size=theme.TEXT_TITLE))
        bar.add(w.label((x, top + dp(32), end - dp(8), top + dp(52)), subtitle, size=theme.TEXT_SMALL,
                        color=theme.TEXT_SECONDARY))
    elif title:
        bar.add(w.label((x, top, end - dp(8), top + TOOLBAR_H), title, size=theme.TEXT_TITLE))
    return bar


def expense_row(ctx: Ctx, area: Bounds, top: int, row: dict[str, Any], symbol: str, *, height: int,
                on_click: Callable[[], Any] | None) -> View:
    """item_expense_recent.xml: ``cd_expense`` (clickable) with the category disc, name, date and amount."""
    left, _, right, _ = area
    box = View(cls="android.widget.RelativeLayout", bounds=(left, top, right, top + height),
               resource_id=T.rid("expense_row"), clickable=on_click is not None, on_click=on_click,
               style=Style(bg=theme.SURFACE))
    _row_content(box, left, top, right, height, row, symbol)
    return box


def _row_content(box: View, left: int, top: int, right: int, height: int, row: dict[str, Any], symbol: str) -> None:
    disc = dp(50)
    y = top + (height - disc) // 2
    card = View(cls="androidx.cardview.widget.CardView", bounds=(left + dp(20), y, left + dp(20) + disc, y + disc),
                resource_id=RID + "cv_category", style=Style(bg=(179, 229, 252), radius=disc // 2))
    card.add(View(cls="android.widget.ImageView", bounds=(left + dp(30), y + dp(10), left + dp(60), y + dp(40)),
                  resource_id=RID + "imv_category", style=Style(icon="note", icon_color=theme.TEXT,
                                                                icon_size=dp(24))))
    box.add(card)
    amount_w = dp(120)
    x = left + dp(94)
    box.add(w.label((x, y, right - amount_w - dp(16), y + dp(26)), str(row["name"] or "")[:20],
                    rid=T.rid("row_name"), size=theme.TEXT_BODY_L))
    box.add(w.label((x, y + dp(26), right - amount_w - dp(16), y + dp(46)), row["_date"], rid=T.rid("row_date"),
                    size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
    amount = View(cls="android.widget.LinearLayout", bounds=(right - amount_w - dp(24), y, right - dp(24), y + disc),
                  resource_id=RID + "linear_amount")
    amount.add(w.label((right - amount_w - dp(24), y, right - dp(56), y + disc), D.amount_text(int(row["amount"])),
                       rid=T.rid("row_amount"), align="right", bold=True))
    amount.add(w.label((right - dp(52), y, right - dp(24), y + dp(28)), symbol, rid=T.rid("row_symbol"),
                       size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
    box.add(amount)


def log_row(ctx: Ctx, area: Bounds, top: int, row: dict[str, Any], *, state: str, on_click: Callable[[], Any],
            on_long: Callable[[], Any], on_drag: Callable[[int, int, int, int], Any],
            on_delete: Callable[[], Any]) -> View:
    """item_expense_log.xml: SwipeFrameLayout (no id) over ``fl_back`` (the delete button at the end, the check at
    the start) and ``cd_expense``, moved 80dp towards the start while open (``state`` "open") or 46dp towards the
    end while selected ("selected"); ``view_bg`` is the touch target over the row."""
    left, _, right, _ = area
    height = dp(70)
    root = View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + height))
    back = View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + height),
                resource_id=RID + "fl_back", style=Style(bg=(239, 83, 80)))
    actions = View(cls="android.widget.LinearLayout", bounds=(right - dp(80), top, right, top + height))
    actions.add(View(cls="android.widget.ImageView", bounds=(right - dp(64), top + dp(8), right - dp(16), top + dp(44)),
                     resource_id=T.rid("log_delete_icon"), clickable=True, on_click=on_delete,
                     style=Style(icon="delete", icon_color=(245, 245, 245), icon_size=dp(24))))
    actions.add(w.label((right - dp(72), top + dp(44), right - dp(8), top + dp(64)), T.text("log_delete_text"),
                        rid=T.rid("log_delete_text"), size=theme.TEXT_SMALL, color=(255, 255, 255), align="center"))
    back.add(actions)
    back.add(View(cls="android.widget.ImageView", bounds=(left + dp(16), top + dp(23), left + dp(40), top + dp(47)),
                  resource_id=T.rid("log_check"), style=Style(icon="check", icon_color=(245, 245, 245),
                                                             icon_size=dp(24))))
    root.add(back)
    shift = -dp(80) if state == "open" else dp(46) if state == "selected" else 0
    cl, cr = left + shift, right + shift
    card = View(cls="android.widget.RelativeLayout", bounds=(cl, top, cr, top + height),
                resource_id=T.rid("expense_row"), style=Style(bg=theme.SURFACE))
    _row_content(card, cl, top, cr, height, row, D.CURRENCY_SYMBOL)
    card.add(View(cls=T.cls("log_row_bg"), bounds=(cl, top, cr, top + height), resource_id=T.rid("log_row_bg"),
                  clickable=True, long_clickable=True, on_click=on_click, on_long_click=on_long, on_drag=on_drag))
    root.add(card)
    return root


def bottom_sheet(ctx: Ctx, content_h: int, build: Callable[[Bounds], list[View]],
                 on_dismiss: Callable[[], Any]) -> View:
    """A BottomSheetDialog: the ``touch_outside`` scrim (a tap dismisses) and the sheet at the bottom."""
    left, _top, right, bottom = ctx.frame
    layer = View(bounds=ctx.frame, resource_id=RID + "container")
    layer.add(View(bounds=ctx.frame, resource_id=RID + "touch_outside", clickable=True, on_click=on_dismiss,
                   style=Style(bg=(0, 0, 0), bg_alpha=theme.SCRIM_ALPHA)))
    box = (left, bottom - content_h, right, bottom)
    sheet = View(cls="android.widget.FrameLayout", bounds=box, resource_id=RID + "design_bottom_sheet",
                 style=Style(bg=theme.SURFACE, radius=dp(12), elevation=dp(8)))
    sheet.add(*build(box))
    layer.add(sheet)
    return layer


def drawer(ctx: Ctx, current: str, on_pick: Callable[[str], Any], on_close: Callable[[], Any]) -> View:
    """The NavigationView (``nv_main``) over a scrim: layout_header.xml, then menu_home.xml's rows (each a
    NavigationMenuItemView holding the CheckedTextView ``design_menu_item_text``)."""
    left, top, right, bottom = ctx.frame
    layer = View(bounds=ctx.frame)
    layer.add(View(bounds=ctx.frame, clickable=True, on_click=on_close,
                   style=Style(bg=(0, 0, 0), bg_alpha=theme.SCRIM_ALPHA)))
    width = min(right - left - dp(56), dp(320))
    nav = View(cls="android.widget.FrameLayout", bounds=(left, top, left + width, bottom),
               resource_id=T.rid("nav_view"), style=Style(bg=theme.SURFACE, elevation=dp(16)))
    header = View(cls="android.widget.RelativeLayout", bounds=(left, top, left + width, top + dp(160)))
    header.add(View(cls=T.cls("drawer_close"), bounds=(left + width - dp(56), top + dp(16), left + width - dp(24),
                                                       top + dp(48)),
                    resource_id=T.rid("drawer_close"), clickable=True, on_click=on_close,
                    style=Style(icon="arrow_back", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
    header.add(View(cls="android.widget.ImageView", bounds=(left + dp(32), top + dp(80), left + dp(92), top + dp(140)),
                    resource_id=RID + "imv_app_logo", style=Style(icon="note", icon_color=theme.PRIMARY,
                                                                  icon_size=dp(40))))
    names = View(cls="android.widget.LinearLayout", bounds=(left + dp(108), top + dp(80), left + width - dp(8),
                                                            top + dp(140)), resource_id=RID + "ln_app_name")
    names.add(w.label((left + dp(108), top + dp(82), left + width - dp(8), top + dp(112)), T.text("drawer_app_name"),
                      rid=T.rid("drawer_app_name"), size=theme.TEXT_TITLE))
    names.add(w.label((left + dp(108), top + dp(114), left + dp(160), top + dp(136)), "BETA", size=theme.TEXT_SMALL,
                      color=theme.TEXT_SECONDARY))
    header.add(names)
    nav.add(header)
    menu = View(cls="androidx.recyclerview.widget.RecyclerView", bounds=(left, top + dp(168), left + width, bottom),
                resource_id=RID + "design_navigation_view")
    y = top + dp(168)
    for dest, entry in DRAWER_ITEMS:
        on = dest == current
        item = View(cls="android.widget.LinearLayout", bounds=(left + dp(8), y, left + width - dp(8), y + dp(48)),
                    clickable=True, focusable=True, checkable=True, checked=on,
                    on_click=lambda dest=dest: on_pick(dest),
                    style=Style(bg=theme.PRIMARY_CONTAINER if on else None, radius=dp(4)))
        item.add(View(cls=T.cls("drawer_item"), bounds=(left + dp(72), y, left + width - dp(16), y + dp(48)),
                      text=T.text(entry), resource_id=T.rid("drawer_item"), checkable=True, checked=on,
                      style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY)))
        menu.add(item)
        y += dp(48)
    nav.add(menu)
    layer.add(nav)
    return layer


#: the drawer's destinations in menu_home.xml order, with their table entries
DRAWER_ITEMS = (("home", "drawer_home"), ("logs", "drawer_expense_logs"), ("statistics", "drawer_statistics"),
                ("backup", "drawer_backup"), ("feedback", "drawer_feedback"), ("about", "drawer_about"),
                ("settings", "drawer_settings"))
