"""Pro Expense's gallery: Home empty and with expenses, the drawer, Expense Logs (a row slid open, selection mode),
the detail and delete sheets, the entry editor new and existing, its date picker."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.apps.expense.main import navigate, pop

if TYPE_CHECKING:
    from emukit.vdevice.apps.expense import ExpenseApp
    from emukit.vdevice.device import VirtualDevice


def scenes(app: ExpenseApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package)
    yield "home (empty)"
    now = device.wall_ms()
    first = D.insert(device, "Groceries", 4250, D.FOOD, "Weekly shop", now - 3_600_000, now - 3_600_000)
    D.insert(device, "Salary", 250000, D.INCOME, "", now - 7_200_000, now - 7_200_000)
    D.insert(device, "Bus pass", 3000, 7, "Monthly", now - 86_400_000 * 40, now - 86_400_000 * 40)
    yield "home"
    main = device.top
    ctx = app.ctx(device, main)
    main.state["drawer"] = True
    yield "navigation drawer"
    navigate(ctx, "logs")
    yield "expense logs"
    main.state["logs"]["open"] = first
    yield "expense logs row open"
    main.state["logs"]["open"] = None
    main.state["logs"]["selected"] = [first]
    yield "expense logs selection"
    main.state["logs"]["selected"] = []
    ctx.open_dialog("detail", id=first)
    yield "detail sheet"
    ctx.open_dialog("delete", ids=[first])
    yield "delete confirmation"
    ctx.close_dialog()
    navigate(ctx, "entry")
    yield "new expense"
    pop(ctx)
    navigate(ctx, "entry", expense_id=first)
    yield "update expense"
    from emukit.vdevice.kit import pickers

    pickers.open_date(ctx, "date", D.local(now).date())
    yield "date picker"
