"""TaskListFragment in MainActivity's ``master``: the top toolbar with the filter's title ("My Tasks") and Search,
the task rows (or "There are no tasks here."), the bottom app bar with Sort and the overflow menu, and the
"Create new task" FAB (fragment_task_list.xml, task_adapter_row.xml; the table cites each line)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.apps.tasks.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
ROW_H, ROW_H_NOTES = dp(56), dp(84)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def due_text(device: Any, due_ms: int) -> str:
    """The row's due date: "Today" / "Tomorrow" / "Yesterday" or "Mon d", with " h:mm AM" when the due date has a
    time (a due date without one is stored at 12:00 with seconds 0, Task.hasDueTime). The exact format of the
    real row is a capture item of the table (task_row_due_date)."""
    when = dt.datetime.fromtimestamp(due_ms / 1000, dt.UTC)
    today = dt.datetime.fromtimestamp(device.wall_ms() / 1000, dt.UTC).date()
    delta = (when.date() - today).days
    day = {0: "Today", 1: "Tomorrow", -1: "Yesterday"}.get(delta, f"{MONTHS[when.month - 1]} {when.day}")
    if (due_ms // 1000) % 60 > 0:
        hour = when.hour % 12 or 12
        day += f" {hour}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"
    return day


def task_row(ctx: Ctx, area: Bounds, top: int, task: dict[str, Any], open_task: Callable[[int], None]) -> View:
    """task_adapter_row.xml: ``row`` > ``rowBody`` (clickable) > completeBox, due_date, title, description."""
    notes = str(task.get("notes") or "")
    height = ROW_H_NOTES if notes else ROW_H
    left, _, right, _ = area
    outer = View(cls="android.widget.FrameLayout", bounds=(left, top, right, top + height),
                 resource_id="org.tasks:id/row")
    body = View(cls="android.widget.RelativeLayout", bounds=(left, top, right, top + height),
                resource_id=T.rid("task_row"), clickable=True, focusable=True,
                on_click=lambda: open_task(int(task["_id"])))

    def complete() -> None:
        D.complete_task(ctx.device, int(task["_id"]))

    body.add(View(cls="android.widget.ImageView", bounds=(left, top, left + dp(56), top + dp(56)),
                  resource_id=T.rid("task_row_checkbox"), clickable=True, on_click=complete,
                  style=Style(icon="tasks.checkbox", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
    end = right - dp(8)
    if task.get("dueDate"):
        text = due_text(ctx.device, int(task["dueDate"]))
        width = dp(12) + len(text) * dp(8)
        body.add(w.label((end - width, top, end, top + dp(56)), text, rid=T.rid("task_row_due_date"),
                         size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY, align="right"))
        end -= width
    body.add(w.label((left + dp(56), top, end, top + dp(56)), str(task.get("title") or ""),
                     rid=T.rid("task_row_title"), size=theme.TEXT_BODY_L))
    if notes:
        body.add(w.label((left + dp(56), top + dp(44), right - dp(16), top + height - dp(4)), notes,
                         rid=T.rid("task_row_description"), color=theme.TEXT_SECONDARY, max_lines=2,
                         valign="top"))
    outer.add(body)
    outer.add(w.divider(left, top + height - 1, right))
    return outer


def bottom_menu() -> list[parts.MenuItem]:
    """menu_task_list_fragment_bottom.xml as setupMenu leaves it for "My Tasks" (Search removed from the bottom
    bar; voice input depends on the device and is left out)."""
    def nothing() -> None:
        return None

    return [parts.MenuItem("menu_sort", "sort", nothing),
            *(parts.MenuItem(e, "more_vert", nothing, always=False)
              for e in ("overflow_clear_completed", "overflow_show_completed", "overflow_show_unstarted",
                        "overflow_share"))]


def build(ctx: Ctx, open_task: Callable[[int | None], None]) -> View:
    """The list fragment inside ``master``."""
    left, top, right, bottom = ctx.frame
    coord = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                 resource_id=T.rid("list_root"), style=Style(bg=theme.BACKGROUND))
    appbar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + parts.TOOLBAR_H),
                  resource_id=T.rid("list_appbar"))
    appbar.add(parts.toolbar(ctx, "list_toolbar", T.text("list_title"),
                             [parts.MenuItem("menu_search", "search", lambda: None)]))
    coord.add(appbar)
    body = (left, top + parts.TOOLBAR_H, right, bottom - parts.TOOLBAR_H)
    tasks = D.my_tasks(ctx.device)
    holder = View(cls="android.widget.FrameLayout", bounds=body)
    if tasks:
        swipe = View(cls="android.view.ViewGroup", bounds=body, resource_id=T.rid("swipe_layout"))
        rows = [(ROW_H_NOTES if t.get("notes") else ROW_H,
                 lambda y, t=t: task_row(ctx, body, y, t, open_task)) for t in tasks]
        swipe.add(parts.recycler(ctx, "task_list", body, rows, key="list_scroll"))
        holder.add(swipe)
    else:
        empty = View(cls="android.view.ViewGroup", bounds=body, resource_id=T.rid("empty_list"))
        mid = (body[1] + body[3]) // 2
        box = View(cls="android.widget.ScrollView", bounds=(left, mid - dp(120), right, mid + dp(40)))
        box.add(View(cls="android.widget.ImageView", bounds=(left + (right - left) // 2 - dp(84), mid - dp(120),
                                                             left + (right - left) // 2 + dp(84), mid)))
        box.add(w.label((left, mid, right, mid + dp(40)), T.text("empty_list_text"), align="center",
                        color=theme.TEXT_HINT, size=theme.TEXT_TITLE))
        empty.add(box)
        holder.add(empty)
    coord.add(holder)
    sub = ctx.app.ctx(ctx.device, ctx.act, (left, bottom - parts.TOOLBAR_H, right, bottom))
    items = bottom_menu()
    bar = parts.toolbar(sub, "bottom_app_bar", "", items)
    bar.cls = "android.view.ViewGroup"
    bar.style = Style(bg=theme.SURFACE_VARIANT)
    bar.add(View(cls="android.widget.ImageButton", bounds=(left + dp(4), bottom - parts.TOOLBAR_H + dp(8),
                                                           left + dp(52), bottom - dp(8)),
                 clickable=True, on_click=lambda: None,
                 style=Style(icon="menu", icon_color=theme.TEXT, icon_size=dp(24))))
    coord.add(bar)
    fab = parts.fab(ctx, "fab_add", "plus", lambda: open_task(None),
                    area=(left, top, right, bottom - parts.TOOLBAR_H + dp(28)))
    coord.add(fab)
    menu = parts.overflow_menu(ctx, "bottom_app_bar", items, T.rid("overflow_row_title"))
    if menu is not None:
        coord.add(menu)
    return coord
