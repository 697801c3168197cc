"""ExpenseEntryFragment (frag_expense_entry.xml): a new expense ("Expense Entry", SAVE) or an existing one
("Update Data", UPDATE), its name, amount, category and note, the entry time in the toolbar's subtitle with the
Time and Calendar actions (the framework pickers), SAVE / UPDATE and the lock ("keep adding").

* Save with an empty amount shows "Cost is Empty" on the amount field and writes nothing
  (ExpenseEntryFragment.kt:355-380); otherwise a new row is inserted (amount x 100, created_date now,
  modified_date the entry time, ExpenseEntryViewModel.kt:168-190) and the editor pops back, or with the lock on
  it clears the fields, keeps the name focused and toasts "Saved!" (ExpenseEntryFragment.kt:204-214, 249-259).
* Update writes every column, keeping created_date (ExpenseEntryViewModel.kt:149-162), shows "Data Updated!" and
  pops back.
* The amount takes what FloatingInputFilter allows: up to eight digits and two decimals.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense import views
from emukit.vdevice.apps.expense.data import T
from emukit.vdevice.kit import pickers
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.view import Style, View

dp = theme.dp
AMOUNT_RE = re.compile(r"[+-]?([0-9]{0,8}([.][0-9]{0,2})?|[.][0-9]{0,2})")  # FloatingInputFilter.kt:11
CHIP = Style(fg=theme.TEXT, font_size=theme.TEXT_BODY, padding=dp(16), align="center")

# frag_expense_entry.xml's nesting: the NestedScrollView's RelativeLayout
FORM = N(entry="entry_scroll", cls="androidx.core.widget.NestedScrollView", children=(
    N(cls="android.widget.RelativeLayout", pad=16, children=(
        N(entry="name_layout", h=72, pad=8, children=(N(entry="name_field", h=56),)),
        N(entry="amount_layout", h=72, pad=8, children=(
            N(row=True, h=56, children=(N(entry="amount_field"), N(entry="amount_suffix", w=72))),)),
        N(entry="category_list", h=64),
        N(entry="note_layout", h=116, pad=8, children=(N(entry="note_field", h=100),)),
        N(row=True, h=72, pad=8, children=(N(entry="save_button"), N(entry="lock_button", w=66))),
    )),
))


def open_entry(ctx: Ctx, expense_id: int | None) -> None:
    """Enter the destination: a new expense (Food, now) or the fields of ``expense_id``."""
    row = D.expense(ctx.device, expense_id) if expense_id is not None and expense_id >= 0 else None
    now = ctx.device.wall_ms()
    if row is not None:
        ctx.state["entry"] = {"id": int(row["expense_id"]), "name": str(row["name"] or ""),
                              "amount": D.amount_edit_text(int(row["amount"])), "note": str(row["note"] or ""),
                              "category": int(row["category"]), "time": int(row["modified_date"]),
                              "created": int(row["created_date"]), "lock": False, "error": ""}
    else:
        ctx.state["entry"] = {"id": None, "name": "", "amount": "", "note": "", "category": D.FOOD, "time": now,
                              "created": None, "lock": False, "error": ""}
        ctx.device.state.ui.focused_id = T.rid("name_field")  # edtName.requestFocus() (ExpenseEntryFragment.kt:344)


def save(ctx: Ctx) -> None:
    st = ctx.state["entry"]
    amount = str(st["amount"])
    if not amount or not re.search(r"[0-9]", amount):
        st["error"] = T.text("amount_error")
        return
    store = D.amount_store(amount)
    now = ctx.device.wall_ms()
    if st["id"] is None:
        D.insert(ctx.device, st["name"], store, int(st["category"]), st["note"], now, int(st["time"]))
        if st["lock"]:
            st.update(name="", amount="", note="", error="", time=ctx.device.wall_ms())
            ctx.device.state.ui.focused_id = T.rid("name_field")
            ctx.toast("Saved!")
            return
    else:
        D.update(ctx.device, int(st["id"]), st["name"], store, int(st["category"]), st["note"],
                 int(st["created"] if st["created"] is not None else now), int(st["time"]))
        ctx.toast(T.text("snackbar_data_updated"))
    close(ctx)


def close(ctx: Ctx) -> None:
    from emukit.vdevice.apps.expense.main import pop

    ctx.device.state.ui.focused_id = None
    pop(ctx)


def picker(ctx: Ctx, dlg: dict[str, Any]) -> View:
    st = ctx.state["entry"]
    when = D.local(int(st["time"]))

    def set_day(day: dt.date) -> None:
        st["time"] = int(dt.datetime.combine(day, when.time(), dt.UTC).timestamp() * 1000)

    def set_time(hour: int, minute: int) -> None:  # selectTime: seconds kept, milliseconds 0
        st["time"] = int(when.replace(hour=hour, minute=minute, microsecond=0).timestamp() * 1000)

    if dlg["kind"] == "date":
        return pickers.date_dialog(ctx, dlg, set_day)
    return pickers.time_dialog(ctx, dlg, set_time)


def build(ctx: Ctx) -> View:
    st = ctx.state["entry"]
    frame = ctx.frame
    left, top, right, bottom = frame
    existing = st["id"] is not None
    root = View(cls="androidx.coordinatorlayout.widget.CoordinatorLayout", bounds=frame,
                style=Style(bg=(238, 238, 238)))
    when = D.local(int(st["time"]))
    appbar = View(cls="android.widget.LinearLayout", bounds=(left, top, right, top + views.TOOLBAR_H),
                  resource_id=views.RID + "abl_entry")
    appbar.add(views.toolbar(frame, T.rid("entry_toolbar"), T.text("entry_title_update" if existing else
                                                                    "entry_title_new"),
                             subtitle=D.entry_time(int(st["time"])), nav_icon="arrow_back",
                             on_nav=lambda: close(ctx),
                             items=[views.Item("menu_time", "clock",
                                               lambda: pickers.open_time(ctx, "time", when.hour, when.minute)),
                                    views.Item("menu_calendar", "apps",
                                               lambda: pickers.open_date(ctx, "date", when.date()))]))
    root.add(appbar)

    def put(key: str) -> Any:
        def run(text: str) -> None:
            st[key] = text
        return run

    def put_amount(text: str) -> None:
        """FloatingInputFilter and maxLength 10 judge each typed character (``input text`` types them one by one):
        of an insertion at the end, the characters up to the first one refused are kept."""
        old = str(st["amount"])
        ok = lambda t: len(t) <= 10 and AMOUNT_RE.fullmatch(t) is not None
        if not ok(text) and text.startswith(old):
            typed = old
            for ch in text[len(old):]:
                if not ok(typed + ch):
                    break
                typed += ch
            text = typed
        if ok(text):
            st["amount"] = text
            st["error"] = ""

    def toggle_lock() -> None:
        st["lock"] = not st["lock"]

    save_text = T.text("save_update" if existing else "save_next" if st["lock"] else "save_button")
    bind: dict[str, dict[str, Any]] = {
        "name_field": {"text": st["name"], "hint": "Name", "on_text": lambda t: st.__setitem__("name", t[:20])},
        "amount_field": {"text": st["amount"], "hint": "Amount", "on_text": put_amount},
        "amount_suffix": {"text": D.CURRENCY_CODE},
        "note_field": {"text": st["note"], "hint": "Note", "on_text": lambda t: st.__setitem__("note", t[:100]),
                       "style": {"max_lines": 3, "valign": "top"}},
        "save_button": {"text": save_text, "on_click": lambda: save(ctx),
                        "style": {"bg": theme.PRIMARY, "fg": theme.ON_PRIMARY, "align": "center", "radius": dp(4)}},
        "lock_button": {"visible": not existing, "on_click": toggle_lock, "clickable": True,
                        "style": {"bg": theme.PRIMARY if st["lock"] else theme.SURFACE, "icon": "lock",
                                  "icon_color": theme.ON_PRIMARY if st["lock"] else theme.TEXT_SECONDARY,
                                  "icon_size": dp(24), "radius": dp(8)}},
    }
    body = (left, top + views.TOOLBAR_H, right, bottom)
    form = inflate(FORM, body, T, bind)
    chips = form.find(lambda v: v.resource_id == T.rid("category_list"))
    if chips is not None:
        layout_chips(ctx, chips)
    if st["error"]:  # setError: a popup under the field with the message
        field = form.find(lambda v: v.resource_id == T.rid("amount_field"))
        if field is not None:
            x0, _, x1, y1 = field.bounds
            form.add(w.label((x0 + dp(16), y1, x1, y1 + dp(28)), st["error"], rid="", size=theme.TEXT_SMALL,
                             color=theme.ERROR))
    root.add(form)
    return root


def layout_chips(ctx: Ctx, lst: View) -> None:
    """Lay the chips out left to right inside the list's bounds (scrolled by ``chip_scroll``, a horizontal swipe);
    those wholly outside it are not bound, as a RecyclerView recycles them."""
    st = ctx.state["entry"]
    chosen = int(st["category"])
    order = [chosen, *(c for c in D.CATEGORIES if c != chosen)]

    def pick(cid: int) -> Any:
        def run() -> None:
            st["category"] = cid
        return run

    chips = [(cid, D.CATEGORIES[cid], cid == chosen, pick(cid)) for cid in order]
    x0, y0, x1, y1 = lst.bounds
    total = 0
    widths = []
    for _cid, name, _on, _run in chips:
        width = int(w.text_button_width(name, theme.TEXT_BODY) * 0.8)
        widths.append(width)
        total += width + dp(8)
    max_scroll = max(0, total + dp(48) - (x1 - x0))
    scroll = max(0, min(int(st.get("chip_scroll", 0)), max_scroll))
    x = x0 + dp(24) - scroll
    for (cid, name, on, run), width in zip(chips, widths, strict=True):
        if x + width > x0 and x < x1:
            card = View(cls=T.cls("category_chip"), bounds=(x, y0 + dp(8), x + width, y1 - dp(8)),
                        resource_id=T.rid("category_chip"), clickable=True, checkable=True, checked=on, on_click=run,
                        style=Style(bg=theme.PRIMARY if on else theme.SURFACE, radius=dp(8)))
            card.add(View(cls="android.widget.TextView", bounds=card.bounds, text=name,
                          resource_id=T.rid("category_name"),
                          style=Style(fg=theme.ON_PRIMARY if on else theme.TEXT, font_size=theme.TEXT_BODY,
                                      align="center")))
            lst.add(card)
        x += width + dp(8)

    def drag(ax: int, ay: int, bx: int, by: int) -> None:
        if abs(bx - ax) >= abs(by - ay):
            st["chip_scroll"] = max(0, min(scroll - (bx - ax), max_scroll))

    lst.on_drag = drag
    lst.scrollable = max_scroll > 0
