"""MainActivity (``com.arduia.expense.ui.MainActivity``): one activity whose NavHostFragment shows the fragments of
main_nav.xml. The activity's state keeps the navigation back stack (``stack``, destination names, the top last)
and the open drawer, sheet or picker; each destination's own state lives under its name.

* first run (``onboarding``, :mod:`.firstrun`): shown while ``isFirstTime`` is true (SplashViewModel.kt:36-45);
* ``home`` (HomeFragment): totals of this week, the week's graph card, the four latest expenses, the FAB;
* ``logs`` (ExpenseFragment): every expense, newest first; tap: the detail sheet; long press: the row's delete
  button; a swipe towards the end selects the row (selection mode: the count as title, Delete);
* ``entry`` (ExpenseEntryFragment, :mod:`.entry`): a new expense (expense_id -100) or an existing one;
* statistics, backup, feedback, about, settings: their toolbars only (not modelled further).

The splash (1 s, nothing to tap) is not drawn: the activity opens on its first real destination.
"""

from __future__ import annotations

from typing import Any

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense import entry as E
from emukit.vdevice.apps.expense import firstrun, views
from emukit.vdevice.apps.expense.data import T
from emukit.vdevice.kit.app import Ctx, Screen
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Bounds, Style, View

dp = theme.dp
RID = views.RID
TOP_DESTINATIONS = ("home", "logs", "statistics", "backup", "feedback", "about", "settings")
PLACEHOLDER_TITLES = {"statistics": "Statistics", "backup": "Backup", "feedback": "Feedback", "about": "About",
                      "settings": "Settings"}  # the fragments' app:title (frag_statistic.xml:23 ...), strings.xml


def top(ctx: Ctx) -> str:
    return ctx.state["stack"][-1]


def navigate(ctx: Ctx, dest: str, **args: Any) -> None:
    """``navController.navigate``: push ``dest`` (singleTop for the drawer's destinations)."""
    stack = ctx.state["stack"]
    ctx.state.pop("drawer", None)
    if dest == "home":  # selectPage: popBackStack(dest_home) first (MainActivity.kt:163-171)
        while len(stack) > 1 and stack[-1] != "home":
            stack.pop()
        if stack[-1] == "home":
            return
    if stack[-1] == dest and dest in TOP_DESTINATIONS:
        return
    stack.append(dest)
    if dest == "entry":
        E.open_entry(ctx, args.get("expense_id"))
    if dest == "logs":
        ctx.state["logs"] = {"open": None, "selected": [], "scroll": 0}


def pop(ctx: Ctx) -> bool:
    stack = ctx.state["stack"]
    if len(stack) <= 1:
        return False
    stack.pop()
    return True


class MainScreen(Screen):
    activity = "com.arduia.expense.ui.MainActivity"

    def on_create(self, ctx: Ctx, extras: dict[str, str]) -> None:
        if "stack" in ctx.state:
            return
        ctx.state["stack"] = ["onboarding" if D.first_time(ctx.device) else "home"]
        if ctx.state["stack"] == ["onboarding"]:
            firstrun.start(ctx)

    def on_resume(self, ctx: Ctx) -> None:
        if top(ctx) != "onboarding":
            D.open_database(ctx.device)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.state.pop("drawer", None):
            return True
        return pop(ctx)

    # -------------------------------------------------------------------------------------------- build
    def build(self, ctx: Ctx) -> View:
        frame = ctx.frame
        dest = top(ctx)
        if dest == "onboarding":
            return firstrun.build(ctx)
        D.open_database(ctx.device)
        root = View(cls="androidx.drawerlayout.widget.DrawerLayout", bounds=frame, resource_id=T.rid("main_drawer"))
        coord = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                     resource_id=T.rid("main_coordinator"), style=Style(bg=(238, 238, 238)))
        host = View(cls="android.widget.FrameLayout", bounds=frame, resource_id=RID + "fc_main")
        if dest == "home":
            host.add(self._home(ctx))
        elif dest == "logs":
            host.add(self._logs(ctx))
        elif dest == "entry":
            host.add(E.build(ctx))
        else:
            host.add(self._placeholder(ctx, dest))
        coord.add(host)
        if dest == "home":
            e = T.entry("fab_add")
            fab = w.fab(frame, "add", "", lambda: navigate(ctx, "entry"), rid=e.resource_id or "")
            fab.cls = T.cls("fab_add")
            coord.add(fab)
        root.add(coord)
        if ctx.state.get("drawer"):
            root.add(views.drawer(ctx, dest, lambda d: navigate(ctx, d), lambda: ctx.state.pop("drawer", None)))
        return root

    def _open_drawer(self, ctx: Ctx) -> None:
        if top(ctx) in TOP_DESTINATIONS:
            ctx.state["drawer"] = True

    def _placeholder(self, ctx: Ctx, dest: str) -> View:
        box = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=ctx.frame,
                   style=Style(bg=theme.SURFACE))
        box.add(views.toolbar(ctx.frame, RID + "toolbar", PLACEHOLDER_TITLES[dest],
                              on_nav=lambda: self._open_drawer(ctx)))
        return box

    # -------------------------------------------------------------------------------------------- home
    def _home(self, ctx: Ctx) -> View:
        frame = ctx.frame
        left, ftop, right, bottom = frame
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("home_root"))
        appbar = View(cls="android.widget.LinearLayout", bounds=(left, ftop, right, ftop + views.TOOLBAR_H),
                      resource_id=RID + "abl_home")
        appbar.add(views.toolbar(frame, T.rid("home_toolbar"), T.text("home_title"),
                                 on_nav=lambda: self._open_drawer(ctx)))
        root.add(appbar)
        area = (left, ftop + views.TOOLBAR_H, right, bottom)
        recent = D.expenses(ctx.device, limit=4)
        for row in recent:
            row["_date"] = D.row_date(ctx.device, int(row["modified_date"]))
        cards: list[tuple[int, Any]] = [(dp(240), lambda y: self._totals(ctx, area, y)),
                                        (dp(120), lambda y: self._graph(ctx, area, y))]
        if recent:
            cards.append((dp(60) + dp(76) * len(recent) + dp(56), lambda y: self._recent(ctx, area, y, recent)))
        root.add(w.scroll_list(area, cards, int(ctx.state.get("home_scroll", 0)),
                               lambda v: ctx.state.__setitem__("home_scroll", v), rid=T.rid("home_list")))
        return root

    def _card(self, area: Bounds, y: int, height: int) -> tuple[View, int, int]:
        x0, x1 = area[0] + dp(16), area[2] - dp(16)
        card = View(cls="androidx.cardview.widget.CardView", bounds=(x0, y + dp(8), x1, y + height - dp(8)),
                    style=Style(bg=theme.SURFACE, radius=dp(8)))
        return card, x0, x1

    def _totals(self, ctx: Ctx, area: Bounds, y: int) -> View:
        """layout_expense_in_out.xml."""
        card, x0, x1 = self._card(area, y, dp(240))
        income, outcome = D.week_totals(ctx.device)
        box = View(cls="android.widget.RelativeLayout", bounds=card.bounds)
        top = y + dp(8)
        box.add(w.label((x0 + dp(24), top + dp(24), x1, top + dp(56)), T.text("totals_title"),
                        rid=T.rid("totals_title"), size=theme.TEXT_TITLE))
        box.add(w.label((x0 + dp(24), top + dp(60), x1, top + dp(84)), D.week_range(ctx.device),
                        rid=T.rid("totals_date_range"), size=theme.TEXT_BODY))
        for i, (label, value, symbol, amount) in enumerate((("income_label", "income_value", "income_symbol", income),
                                                            ("outcome_label", "outcome_value", "outcome_symbol",
                                                             outcome))):
            ly = top + dp(96) + i * dp(64)
            box.add(w.label((x0 + dp(32), ly, x1, ly + dp(18)), T.text(label), rid=T.rid(label),
                            size=theme.TEXT_SMALL, color=theme.TEXT_SECONDARY))
            box.add(w.label((x0 + dp(32), ly + dp(18), x0 + dp(200), ly + dp(50)), D.amount_text(amount),
                            rid=T.rid(value), size=theme.TEXT_TITLE, bold=True))
            box.add(w.label((x0 + dp(204), ly + dp(26), x0 + dp(260), ly + dp(50)), D.CURRENCY_CODE,
                            rid=T.rid(symbol), size=theme.TEXT_SMALL))
        card.add(box)
        return card

    def _graph(self, ctx: Ctx, area: Bounds, y: int) -> View:
        """layout_expense_graph.xml (the graph itself is a canvas: not in the hierarchy)."""
        card, x0, x1 = self._card(area, y, dp(120))
        top = y + dp(8)
        card.add(w.label((x0 + dp(24), top + dp(24), x1, top + dp(56)), T.text("graph_title"),
                         rid=T.rid("graph_title"), size=theme.TEXT_TITLE))
        card.add(w.label((x0 + dp(24), top + dp(60), x1, top + dp(84)), D.week_range(ctx.device),
                         rid=T.rid("totals_date_range"), size=theme.TEXT_BODY))
        card.add(View(cls="android.view.View", bounds=(x0 + dp(8), top + dp(86), x1 - dp(8), top + dp(100)),
                      resource_id=RID + "expense_graph"))
        return card

    def _recent(self, ctx: Ctx, area: Bounds, y: int, rows: list[dict[str, Any]]) -> View:
        """layout_recent_lists.xml: "Recent", the rows (item_expense_recent.xml), MORE."""
        height = dp(60) + dp(76) * len(rows) + dp(56)
        card, x0, x1 = self._card(area, y, height)
        top = y + dp(8)
        box = View(cls="android.widget.LinearLayout", bounds=card.bounds)
        box.add(w.label((x0 + dp(24), top + dp(20), x1, top + dp(52)), T.text("recent_title"),
                        rid=T.rid("recent_title"), size=theme.TEXT_TITLE))
        lt = top + dp(60)
        lst = View(cls="androidx.recyclerview.widget.RecyclerView", bounds=(x0 + dp(8), lt, x1 - dp(8),
                                                                         lt + dp(76) * len(rows)),
                   resource_id=T.rid("recent_list"))
        for i, row in enumerate(rows):
            lst.add(views.expense_row(ctx, (x0 + dp(8), 0, x1 - dp(8), 0), lt + i * dp(76), row, D.CURRENCY_CODE,
                                      height=dp(76),
                                      on_click=lambda r=row: ctx.open_dialog("detail", id=int(r["expense_id"]))))
        box.add(lst)
        mt = lt + dp(76) * len(rows)
        box.add(w.button((x0 + dp(24), mt, x1 - dp(24), mt + dp(48)), T.text("more_button"),
                         lambda: navigate(ctx, "logs"), kind="text", rid=T.rid("more_button")))
        card.add(box)
        return card

    # -------------------------------------------------------------------------------------------- logs
    def _logs(self, ctx: Ctx) -> View:
        frame = ctx.frame
        left, ftop, right, bottom = frame
        st = ctx.state["logs"]
        rows = D.expenses(ctx.device)
        ids = {int(r["expense_id"]) for r in rows}
        st["selected"] = [i for i in st.get("selected", []) if i in ids]
        selected = st["selected"]
        root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                    resource_id=T.rid("logs_root"), style=Style(bg=theme.SURFACE))
        appbar = View(cls="android.widget.LinearLayout", bounds=(left, ftop, right, ftop + views.TOOLBAR_H),
                      resource_id=RID + "app_bar")
        if selected:
            n = len(selected)
            title = T.text("logs_selected_title", count=n, suffix=" item" if n <= 1 else " items")
            appbar.add(views.toolbar(frame, T.rid("logs_toolbar"), title, nav_icon="arrow_back",
                                     on_nav=lambda: st.__setitem__("selected", []),
                                     items=[views.Item("menu_delete", "delete",
                                                       lambda: ctx.open_dialog("delete", ids=list(selected)))]))
        else:
            appbar.add(views.toolbar(frame, T.rid("logs_toolbar"), T.text("logs_title"),
                                     subtitle=D.logs_subtitle(ctx.device, rows),
                                     on_nav=lambda: self._open_drawer(ctx),
                                     items=[views.Item("menu_filter", "sort", lambda: None, enabled=bool(rows))]))
        root.add(appbar)
        area = (left, ftop + views.TOOLBAR_H, right, bottom)
        holder = View(cls="android.widget.FrameLayout", bounds=area)
        scroll = {"set": lambda v: st.__setitem__("scroll", v)}

        def row_view(row: dict[str, Any]) -> Any:
            rid = int(row["expense_id"])
            row["_date"] = D.row_date(ctx.device, int(row["modified_date"]))
            state = "selected" if rid in selected else "open" if st.get("open") == rid else ""

            def click() -> None:
                ctx.open_dialog("detail", id=rid)

            def long_press() -> None:  # invertEndLockState: a selected row does not open
                if rid not in selected:
                    st["open"] = None if st.get("open") == rid else rid

            def drag(x1: int, y1: int, x2: int, y2: int) -> None:
                dx, dy = x2 - x1, y2 - y1
                if abs(dy) > abs(dx):  # a vertical move scrolls the list
                    total = max(0, len(rows) * (dp(70) + 1) + dp(80) - (area[3] - area[1]))
                    scroll["set"](max(0, min(int(st.get("scroll", 0)) - dy, total)))
                elif dx > 0:  # towards the end: select (STATE_LOCK_START); a selected row goes back
                    if rid in selected:
                        selected.remove(rid)
                    else:
                        selected.append(rid)
                        if st.get("open") == rid:
                            st["open"] = None
                elif rid not in selected:  # towards the start: the delete button (STATE_LOCK_END)
                    st["open"] = rid

            return lambda y: views.log_row(ctx, area, y, row, state=state, on_click=click, on_long=long_press,
                                           on_drag=drag, on_delete=lambda: ctx.open_dialog("delete", ids=[rid]))

        if rows:
            holder.add(w.scroll_list(area, [(dp(70) + 1, row_view(r)) for r in rows], int(st.get("scroll", 0)),
                                     scroll["set"], rid=T.rid("logs_list"), padding_bottom=dp(80)))
        else:
            holder.add(View(cls="androidx.recyclerview.widget.RecyclerView", bounds=area,
                            resource_id=T.rid("logs_list")))
            empty = View(cls="android.widget.RelativeLayout", bounds=(left, area[1] + dp(32), right, area[1] + dp(160)),
                         resource_id=RID + "layout_no_data")
            empty.add(View(cls="android.widget.ImageView", bounds=((left + right) // 2 - dp(25), area[1] + dp(56),
                                                                    (left + right) // 2 + dp(25), area[1] + dp(106)),
                           resource_id=RID + "imv_no_expense",
                           style=Style(icon="info", icon_color=theme.PRIMARY, icon_size=dp(40))))
            empty.add(w.label((left, area[1] + dp(118), right, area[1] + dp(146)), T.text("logs_empty"),
                              rid=T.rid("logs_empty"), align="center"))
            holder.add(empty)
        root.add(holder)
        return root

    # -------------------------------------------------------------------------------------------- sheets
    def dialog(self, ctx: Ctx, dialog: dict[str, Any]) -> View | None:
        kind = dialog["kind"]
        if kind == "detail":
            return self._detail(ctx, int(dialog["id"]))
        if kind == "delete":
            return self._delete(ctx, [int(i) for i in dialog["ids"]])
        if kind in ("date", "time"):
            return E.picker(ctx, dialog)
        return None

    def _detail(self, ctx: Ctx, expense_id: int) -> View | None:
        """expense_detail_dialog.xml for one row (ExpenseDetailUiModelMapper: the date is modified_date)."""
        row = D.expense(ctx.device, expense_id)
        if row is None:
            ctx.close_dialog()
            return None
        symbol = D.CURRENCY_CODE if top(ctx) == "home" else D.CURRENCY_SYMBOL
        note = str(row["note"] or "")

        def edit() -> None:
            ctx.close_dialog()
            navigate(ctx, "entry", expense_id=expense_id)

        def delete() -> None:
            ctx.close_dialog()
            ctx.open_dialog("delete", ids=[expense_id])

        def content(box: Bounds) -> list[View]:
            x0, y0, x1, _ = box
            out = [w.label((x0 + dp(24), y0 + dp(24), x1 - dp(80), y0 + dp(56)), T.text("detail_title"),
                           rid=T.rid("detail_title"), size=theme.TEXT_TITLE),
                   View(cls=T.cls("detail_close"), bounds=(x1 - dp(56), y0 + dp(24), x1 - dp(24), y0 + dp(56)),
                        resource_id=T.rid("detail_close"), clickable=True, on_click=ctx.close_dialog,
                        style=Style(icon="expand_more", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24)))]
            info = View(cls="androidx.cardview.widget.CardView", bounds=(x0 + dp(24), y0 + dp(72), x1 - dp(24),
                                                                        y0 + dp(296)),
                        resource_id=RID + "cd_info", style=Style(bg=theme.BACKGROUND, radius=dp(8)))
            iy = y0 + dp(72)
            info.add(w.label((x0 + dp(112), iy + dp(24), x1 - dp(88), iy + dp(64)), str(row["name"] or ""),
                             rid=T.rid("detail_name"), size=theme.TEXT_TITLE))
            info.add(View(cls="android.widget.ImageView", bounds=(x1 - dp(80), iy + dp(32), x1 - dp(48), iy + dp(64)),
                          resource_id=T.rid("detail_delete"), clickable=True, on_click=delete,
                          style=Style(icon="delete", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))))
            for i, (label, value, entry) in enumerate((("Amount", D.amount_text(int(row["amount"])), "detail_amount"),
                                                       ("Date", D.row_date(ctx.device, int(row["modified_date"])),
                                                        "detail_date"),
                                                       ("Note", note, "detail_note"))):
                ly = iy + dp(88) + i * dp(44)
                if entry == "detail_note" and not note:
                    continue  # INVISIBLE with its label
                info.add(w.label((x0 + dp(48), ly, x0 + dp(112), ly + dp(32)), label, size=theme.TEXT_BODY,
                                 color=theme.TEXT_SECONDARY))
                info.add(w.label((x0 + dp(112), ly, x1 - dp(96), ly + dp(32)), value, rid=T.rid(entry)))
                if entry == "detail_amount":
                    info.add(w.label((x1 - dp(92), ly, x1 - dp(40), ly + dp(32)), symbol, rid=T.rid("detail_symbol"),
                                     size=theme.TEXT_SMALL))
            out.append(info)
            out.append(w.button((x0 + dp(24), y0 + dp(312), x1 - dp(24), y0 + dp(360)), T.text("detail_edit"), edit,
                                rid=T.rid("detail_edit")))
            return out

        return views.bottom_sheet(ctx, dp(384), content, ctx.close_dialog)

    def _delete(self, ctx: Ctx, ids: list[int]) -> View:
        """frag_delete_confirm_dialog.xml: CONFIRM deletes and dismisses."""
        def confirm() -> None:
            ctx.close_dialog()
            D.delete(ctx.device, ids)
            if top(ctx) == "logs":
                st = ctx.state["logs"]
                st["selected"] = []
                st["open"] = None
            else:
                ctx.toast(T.text("snackbar_item_deleted"))

        items = " item " if len(ids) == 1 else f"{len(ids)}  items "

        def content(box: Bounds) -> list[View]:
            x0, y0, x1, _ = box
            desc = View(cls="androidx.cardview.widget.CardView", bounds=(x0 + dp(24), y0 + dp(72), x1 - dp(24),
                                                                        y0 + dp(168)),
                        resource_id=RID + "cv_description_bg", style=Style(bg=theme.BACKGROUND, radius=dp(8)))
            mid = (x0 + x1) // 2
            desc.add(w.label((x0 + dp(40), y0 + dp(104), mid, y0 + dp(136)), items, rid=T.rid("delete_items"),
                             bold=True, align="right"))
            desc.add(w.label((mid, y0 + dp(104), x1 - dp(40), y0 + dp(136)), T.text("delete_message"),
                             rid=T.rid("delete_message")))
            return [w.label((x0 + dp(24), y0 + dp(24), x1 - dp(80), y0 + dp(56)), T.text("delete_title"),
                            rid=T.rid("delete_title"), size=theme.TEXT_TITLE),
                    View(cls="android.widget.ImageView", bounds=(x1 - dp(56), y0 + dp(24), x1 - dp(24), y0 + dp(56)),
                         resource_id=T.rid("delete_close"), clickable=True, on_click=ctx.close_dialog,
                         style=Style(icon="expand_more", icon_color=theme.TEXT_SECONDARY, icon_size=dp(24))),
                    desc,
                    w.button((x0 + dp(24), y0 + dp(184), x1 - dp(24), y0 + dp(232)), T.text("delete_confirm"),
                             confirm, rid=T.rid("delete_confirm"))]

        return views.bottom_sheet(ctx, dp(256), content, ctx.close_dialog)


__all__ = ["MainScreen", "navigate", "pop"]
