"""MainActivity: the month view (the default ``view``), the day view a tapped day opens, the "Simple event list"
and the search results, under Simple-Commons' search bar and toolbar, with the FAB that expands into "Event"
and "Task" on its first tap (MainActivity.kt:101-117, 943-972; allowCreatingTasks defaults to true)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from emukit.vdevice.apps.calendar import data as D
from emukit.vdevice.apps.calendar.data import T
from emukit.vdevice.kit import parts
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
EDITOR = ".activities.EventActivity"
SEARCH_H = dp(56)


def open_editor(ctx: Ctx, event_id: int | None = None, day: dt.date | None = None) -> None:
    extras = {"event_id": str(event_id)} if event_id is not None else {}
    if day is not None:
        extras["day"] = day.isoformat()
    ctx.start(EDITOR, extras)


def event_row(ctx: Ctx, area: tuple[int, int, int, int], top: int, event: dict[str, Any]) -> View:
    """``event_list_item.xml``: the holder with title, time and description (DayFragment / EventListAdapter)."""
    height = dp(72) if event["description"] else dp(56)
    start, end = D.local(ctx.device, event["start_ts"]), D.local(ctx.device, event["end_ts"])
    row = View(cls="android.widget.RelativeLayout", bounds=(area[0], top, area[2], top + height),
               resource_id=T.rid("event_row"), clickable=True, on_click=lambda: open_editor(ctx, event["id"]),
               style=Style(bg=theme.SURFACE_VARIANT, radius=dp(8)))
    x = area[0] + dp(16)
    row.add(w.label((x, top + dp(6), area[2] - dp(16), top + dp(30)), event["title"], rid=T.rid("event_row_title"),
                    bold=True))
    when = D.time_text(start.hour, start.minute) + ("" if end == start else " - " + D.time_text(end.hour, end.minute))
    row.add(w.label((x, top + dp(30), area[2] - dp(16), top + dp(50)), when, rid=T.rid("event_row_time"),
                    size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY))
    if event["description"]:
        row.add(w.label((x, top + dp(50), area[2] - dp(16), top + dp(70)), event["description"],
                        rid=T.rid("event_row_description"), size=theme.TEXT_LABEL, color=theme.TEXT_SECONDARY))
    return row


class MainScreen(Screen):
    activity = ".activities.MainActivity"

    def on_resume(self, ctx: Ctx) -> None:
        D.open_database(ctx.device)  # onResume -> eventsHelper.getEventTypes: the first access creates events.db

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.get("day"):  # the day view pushed over the month (MainActivity.kt:285-297)
            ctx.state.pop("day")
            return True
        if ctx.state.get("fab_open"):
            ctx.state.pop("fab_open")
            return True
        if ctx.state.get("query"):
            ctx.state.pop("query")
            ctx.device.state.ui.focused_id = None
            return True
        return False

    # -------------------------------------------------------------------------------------- build
    def build(self, ctx: Ctx) -> View:
        D.open_database(ctx.device)
        frame = ctx.frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("main_root"), style=Style(bg=theme.BACKGROUND))
        items = self._menu(ctx)
        root.add(self._search_bar(ctx, items))
        body = (frame[0], frame[1] + SEARCH_H + dp(8), frame[2], frame[3])
        holder = View(cls="android.widget.FrameLayout", bounds=body, resource_id=T.rid("fragments_holder"))
        if ctx.state.get("query"):
            holder.add(self._results(ctx, body))
        elif ctx.state.get("day"):
            holder.add(self._day(ctx, body, dt.date.fromisoformat(ctx.state["day"])))
        elif D.view(ctx.device) == D.EVENTS_LIST_VIEW:
            holder.add(self._list(ctx, body))
        else:
            holder.add(self._month(ctx, body))
        root.add(holder)
        root.add(*self._fab(ctx))
        menu = parts.overflow_menu(ctx, "toolbar", items, "com.simplemobiletools.calendar.pro:id/title")
        if menu is not None:
            root.add(menu)
        return root

    def _menu(self, ctx: Ctx) -> list[parts.MenuItem]:
        def choose_view() -> None:
            ctx.open_dialog("view")

        def nothing() -> None:
            return None

        return [parts.MenuItem("menu_change_view", "apps", choose_view),
                *(parts.MenuItem(e, "more_vert", nothing, always=False)
                  for e in ("menu_settings", "menu_about", "overflow_go_to_date", "overflow_print",
                            "overflow_add_holidays", "overflow_add_birthdays", "overflow_add_anniversaries",
                            "overflow_import_events", "overflow_export_events"))]

    def _search_bar(self, ctx: Ctx, items: list[parts.MenuItem]) -> View:
        left, top, right, _ = ctx.frame
        bar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + SEARCH_H + dp(8)),
                   resource_id=T.rid("top_app_bar_layout"))
        inner = View(cls="android.widget.RelativeLayout",
                     bounds=(left + dp(8), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)),
                     resource_id=T.rid("top_app_bar"), style=Style(bg=theme.SURFACE_VARIANT, radius=dp(28)))
        inner.add(View(cls="android.widget.ImageView", bounds=(left + dp(16), top + dp(16), left + dp(48),
                                                               top + dp(48)),
                       resource_id=T.rid("search_icon"), style=Style(icon="search", icon_color=theme.TEXT_SECONDARY,
                                                                     icon_size=dp(24))))

        def set_query(text: str) -> None:
            ctx.state["query"] = text

        field = w.text_field((left + dp(56), top + dp(4), right - dp(120), top + SEARCH_H + dp(4)),
                             ctx.state.get("query", ""), set_query, key=T.rid("search_field"), hint="Search",
                             rid=T.rid("search_field"), outlined=False)
        inner.add(field)
        sub = ctx.app.ctx(ctx.device, ctx.act, (right - dp(112), top + dp(4), right - dp(8), top + SEARCH_H + dp(4)))
        toolbar = parts.toolbar(sub, "toolbar", "", items)
        toolbar.style = Style()
        inner.add(toolbar)
        bar.add(inner)
        return bar

    def _fab(self, ctx: Ctx) -> list[View]:
        def tap() -> None:
            if ctx.state.get("fab_open"):
                ctx.state.pop("fab_open")
                open_editor(ctx, day=dt.date.fromisoformat(ctx.state["day"]) if ctx.state.get("day") else None)
            else:
                ctx.state["fab_open"] = True

        views = [parts.fab(ctx, "fab_new_event", "plus", tap)]
        if ctx.state.get("fab_open"):
            x1, y1 = ctx.frame[2] - dp(88), ctx.frame[3] - dp(96)

            def event() -> None:
                ctx.state.pop("fab_open")
                open_editor(ctx)

            views.insert(0, View(bounds=ctx.frame, resource_id=T.rid("fab_overlay"), clickable=True,
                                 on_click=lambda: ctx.state.pop("fab_open", None),
                                 style=Style(bg=(0, 0, 0), bg_alpha=60)))
            views.append(View(cls="android.widget.TextView", bounds=(x1 - dp(120), y1 - dp(48), x1, y1),
                              text="Event", resource_id=T.rid("fab_event_label"), clickable=True, on_click=event,
                              style=Style(bg=theme.SURFACE, radius=dp(8), align="center")))
            views.append(View(cls="android.widget.TextView", bounds=(x1 - dp(120), y1 - dp(104), x1, y1 - dp(56)),
                              text="Task", resource_id=T.rid("fab_task_label"),
                              style=Style(bg=theme.SURFACE, radius=dp(8), align="center")))
        return views

    # -------------------------------------------------------------------------------------- views
    def _period_header(self, ctx: Ctx, body: tuple[int, int, int, int], title: str,
                       shift: Callable[[int], None]) -> list[View]:
        left, top, right, _ = body
        return [
            View(cls="android.widget.ImageView", bounds=(left, top, left + dp(48), top + dp(48)),
                 resource_id=T.rid("period_prev"), clickable=True, on_click=lambda: shift(-1),
                 style=Style(icon="arrow_back", icon_color=theme.TEXT, icon_size=dp(24))),
            w.label((left + dp(48), top, right - dp(48), top + dp(48)), title, rid=T.rid("period_label"),
                    align="center", bold=True),
            View(cls="android.widget.ImageView", bounds=(right - dp(48), top, right, top + dp(48)),
                 resource_id=T.rid("period_next"), clickable=True, on_click=lambda: shift(1),
                 style=Style(icon="arrow_forward", icon_color=theme.TEXT, icon_size=dp(24))),
        ]

    def _month(self, ctx: Ctx, body: tuple[int, int, int, int]) -> View:
        """The month grid: 42 clickable ``month_view_background`` cells with no text over a canvas that draws
        the day numbers and the events' titles (MonthViewWrapper.kt:109-147)."""
        today = D.today(ctx.device)
        year, month = ctx.state.get("month", [today.year, today.month])

        def shift(delta: int) -> None:
            m = year * 12 + month - 1 + delta
            ctx.state["month"] = [m // 12, m % 12 + 1]

        box = View(cls="android.widget.RelativeLayout", bounds=body)
        box.add(*self._period_header(ctx, body, D.month_title(ctx.device, year, month), shift))
        left, top, right, bottom = body[0], body[1] + dp(72), body[2], body[3]
        grid = View(cls="android.widget.FrameLayout", bounds=(left, top, right, bottom),
                    resource_id=T.rid("month_grid"))
        first = dt.date(year, month, 1)
        start = first - dt.timedelta(days=(first.weekday() + 1) % 7)  # weeks start on Sunday
        cw, ch = (right - left) // 7, (bottom - top) // 6
        lo = int(dt.datetime.combine(start, dt.time(), dt.UTC).timestamp())
        by_day: dict[dt.date, list[str]] = {}
        for e in D.events(ctx.device, "start_ts >= ? AND start_ts < ?", (lo, lo + 42 * 86400)):
            by_day.setdefault(D.local(ctx.device, e["start_ts"]).date(), []).append(e["title"])
        for i in range(42):
            day = start + dt.timedelta(days=i)
            x0, y0 = left + (i % 7) * cw, top + (i // 7) * ch
            cell = View(cls="android.view.View", bounds=(x0, y0, x0 + cw, y0 + ch),
                        resource_id=T.rid("month_day_cell"), clickable=True,
                        on_click=lambda day=day: ctx.state.__setitem__("day", day.isoformat()))
            color = theme.TEXT if day.month == month else theme.TEXT_HINT
            paint = View(cls="android.view.View", bounds=(x0, y0, x0 + cw, y0 + dp(24)), text=str(day.day),
                         in_hierarchy=False, style=Style(fg=theme.PRIMARY if day == today else color, align="center",
                                                         font_size=theme.TEXT_LABEL, bold=day == today))
            cell.add(paint)
            for j, title in enumerate(by_day.get(day, [])[:3]):
                cell.add(View(bounds=(x0 + dp(2), y0 + dp(26) + j * dp(16), x0 + cw - dp(2), y0 + dp(40) + j * dp(16)),
                              text=title, in_hierarchy=False,
                              style=Style(bg=theme.PRIMARY, fg=theme.ON_PRIMARY, font_size=theme.TEXT_SMALL * 3 // 4,
                                          radius=dp(3))))
            grid.add(cell)
        box.add(grid)
        return box

    def _day(self, ctx: Ctx, body: tuple[int, int, int, int], day: dt.date) -> View:
        def shift(delta: int) -> None:
            ctx.state["day"] = (day + dt.timedelta(days=delta)).isoformat()

        box = View(cls="android.widget.RelativeLayout", bounds=body)
        box.add(*self._period_header(ctx, body, D.day_title(ctx.device, day), shift))
        lo = int(dt.datetime.combine(day, dt.time(), dt.UTC).timestamp())
        events = D.events(ctx.device, "start_ts >= ? AND start_ts < ?", (lo, lo + 86400))
        area = (body[0] + dp(8), body[1] + dp(56), body[2] - dp(8), body[3])
        rows = [(dp(80) if e["description"] else dp(64), lambda top, e=e: event_row(ctx, area, top, e))
                for e in events]
        box.add(parts.recycler(ctx, "day_events_list", area, rows, key="day_scroll"))
        return box

    def _list(self, ctx: Ctx, body: tuple[int, int, int, int]) -> View:
        """"Simple event list": from a day ago to six months on (EventListFragment.kt:75-77)."""
        now = ctx.device.wall_ms() // 1000
        events = D.events(ctx.device, "end_ts >= ? AND start_ts <= ?", (now - 86400, now + 183 * 86400))
        if not events:
            box = View(bounds=body)
            box.add(w.label((body[0], body[1] + dp(120), body[2], body[1] + dp(160)), T.text("event_list_empty"),
                            rid=T.rid("event_list_empty"), align="center", color=theme.TEXT_SECONDARY))
            box.add(w.label((body[0], body[1] + dp(168), body[2], body[1] + dp(208)), T.text("event_list_create"),
                            rid=T.rid("event_list_create"), align="center", color=theme.PRIMARY))
            return box
        area = (body[0] + dp(8), body[1], body[2] - dp(8), body[3])
        rows = [(dp(80) if e["description"] else dp(64), lambda top, e=e: event_row(ctx, area, top, e))
                for e in events]
        return parts.recycler(ctx, "event_list", area, rows, key="list_scroll")

    def _results(self, ctx: Ctx, body: tuple[int, int, int, int]) -> View:
        query = str(ctx.state.get("query", "")).lower()
        events = [e for e in D.events(ctx.device) if query in e["title"].lower() or query in e["location"].lower()
                  or query in e["description"].lower()]
        area = (body[0] + dp(8), body[1], body[2] - dp(8), body[3])
        rows = [(dp(80) if e["description"] else dp(64), lambda top, e=e: event_row(ctx, area, top, e))
                for e in events]
        return parts.recycler(ctx, "search_results_list", area, rows, key="search_scroll")

    # -------------------------------------------------------------------------------------- dialogs
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        if dialog["kind"] != "view":
            return None
        options = [("view_daily", None), ("view_weekly", None), ("view_monthly", D.MONTHLY_VIEW),
                   ("view_monthly_daily", None), ("view_yearly", None), ("view_event_list", D.EVENTS_LIST_VIEW)]
        current = D.view(ctx.device)

        def pick(value: int | None) -> Callable[[], None]:
            def run() -> None:
                ctx.close_dialog()
                if value is not None:  # only the monthly view and the event list are implemented
                    D.set_view(ctx.device, value)
                    ctx.state.pop("day", None)
            return run

        def content(box: tuple[int, int, int, int]) -> list[View]:
            group = View(cls="android.widget.RadioGroup", bounds=box, resource_id=T.rid("view_dialog_group"))
            for i, (entry, value) in enumerate(options):
                y = box[1] + i * dp(48)
                group.add(View(cls=T.cls(entry), bounds=(box[0], y, box[2], y + dp(48)), text=T.text(entry),
                               checkable=True, checked=value == current, clickable=value is not None,
                               enabled=value is not None, on_click=pick(value),
                               style=Style(padding=dp(16), font_size=theme.TEXT_BODY_L)))
            return [group]

        return w.dialog(ctx.frame, "", content=content, content_height=len(options) * dp(48),
                        on_dismiss=ctx.close_dialog)
