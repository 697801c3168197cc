"""Pro Expense over adb (the virtual app, driven as an emulator would be): open it from All Apps, add an expense,
open, edit and delete it, copy a field's text and paste it into another, select several rows and delete them; the
expenses probe reads what the app wrote (as android_world reads it: amounts in cents), reports an app with no
database yet, and the ``expenses:`` seed writes rows the app shows. The structure fixtures' screens, reached by
the capture walk, match their fixtures."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.expense import ExpenseSeed, ExpenseSpec, capture_screens, read_expenses
from emukit.apps.registry import profile_for
from emukit.apps.structure import match_fixture
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES

PACKAGE = "com.arduia.expense"


@pytest.fixture
def expense(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "expense")
    d.close()


def _rows(d: Driver) -> list[tuple]:
    return [(r["name"], r["amount"], r["category"], r["note"]) for r in read_expenses(d).rows]


def test_expenses_round_trip_through_the_real_ui(expense):
    d = expense.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_expenses(d)
    assert empty.rows == [] and empty.reason is not None  # never opened since the clear: no database
    expense.open_from_all_apps()
    reading = read_expenses(d)
    assert reading.rows == [] and reading.reason is None  # Home's first query created it
    expense.create_expense("Groceries", "42.5", category="Housing", note="Weekly shop")
    assert _rows(d) == [("Groceries", 4250, 4, "Weekly shop")]

    expense.edit_open("Groceries")
    expense.copy_field("note_field")
    expense.paste_into("name_field")
    expense.save()
    assert _rows(d)[0][0] == "GroceriesWeekly shop"

    expense.edit_expense("GroceriesWeekly shop", new_name="Market", amount="18.25", category="Food")
    assert _rows(d) == [("Market", 1825, 3, "Weekly shop")]
    expense.delete_expense("Market")
    assert read_expenses(d).rows == []


def test_multi_select_delete_and_the_seed(expense):
    d = expense.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    when = dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC)
    ExpenseSeed.apply(d, [ExpenseSpec(name=n, amount=a, category=c, date=when)
                          for n, a, c in (("Rent", "900", "Housing"), ("Bonus", "150", "Income"),
                                          ("Snacks", "4.5", "Food"))])
    assert _rows(d) == [("Rent", 90000, 4, ""), ("Bonus", 15000, 2, ""), ("Snacks", 450, 3, "")]
    ms = int(when.timestamp() * 1000)
    assert {(r["created_date"], r["modified_date"]) for r in read_expenses(d).rows} == {(ms, ms)}
    expense.launch(fresh=True)
    expense.delete_expenses(["Rent", "Snacks"])
    assert _rows(d) == [("Bonus", 15000, 2, "")]


@pytest.mark.parametrize("screen", ["home", "editor_new", "logs", "detail", "delete_confirm"])
def test_capture_walk_screens_match_their_fixtures(expense, screen):
    capture_screens(expense)[screen]()
    assert match_fixture(expense.driver.hierarchy(), FIXTURES / "expense" / f"{screen}.yaml") == []
    expense.driver.back()
