"""Pro Expense 1.0.0-beta05 (``com.arduia.expense``, versionCode 11, the build android_world installs): add, open,
edit and delete expenses, copy and paste text between the editor's fields; its expenses read as android_world
reads them; the ``expenses:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/com.arduia.expense/11.yaml``; repo ``pe`` arduia/ProExpense
5a5fcae9 at tag v1.0.0-beta05).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "Pro Expense"; a fresh install shows the onboarding: NEXT (languages), CONTINUE
  (currencies), then Home, as android_world's setup clicks it (apps.py:486-497);
* Home's FAB (``fb_main_add``, no content-desc) opens the entry editor; its fields are ``edt_name``,
  ``edt_amount`` (in currency units: 12.5 is stored as 1250), the category chips and ``edt_note``; SAVE writes the
  row and goes back;
* the drawer opens from the toolbar's navigation button (no id, no content-desc: the profile taps the start of
  the toolbar); "Expense Logs" lists every expense (``view_bg`` rows); a tap opens the "Expense Detail" sheet with
  EDIT and the delete icon; the delete confirmation is a bottom sheet with CONFIRM;
* selecting several rows: a swipe towards the end on each row, then the toolbar's Delete;
* text is copied from a field with the framework's floating toolbar (long press, "Select all", "Copy") and
  pasted with a long press on the target field, "Paste". The app has no copy, duplicate or share command.

The expenses probe (:func:`read_expenses`) pulls the ``databases`` folder and runs ``SELECT * FROM expense`` on
the copy, as android_world's sqlite_utils does (android_world d9c569f7 task_evals/single/expense.py:32-35,
task_evals/utils/sqlite_schema_utils.py:217-251: ``amount`` in cents, dates in milliseconds).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from emukit.apps.base import AppProfile, DoctorCheck, operation, register_app
from emukit.apps.dataspec import AppDatabase, DbReading, RowsSeed
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.arduia.expense"
EXPENSE_DB = AppDatabase(PACKAGE, "accounting.db")
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent
#: ExpenseCategory ids (pe ExpenseCategoryProviderImpl.kt:83-95; android_world Expense.category_id_to_name)
CATEGORIES = {"Others": 1, "Income": 2, "Food": 3, "Housing": 4, "Social": 5, "Entertainment": 6,
              "Transportation": 7, "Clothes": 8, "Health Care": 9, "Education": 10, "Donation": 11}
#: the expense table's columns as Room creates them (pe 6.json:9)
COLUMNS = ["expense_id", "name", "amount", "category", "note", "created_date", "modified_date"]


class ExpenseSpec(BaseModel):
    """An expense of a base snapshot, written as android_world writes its expenses (sqlite_schema_utils.Expense:
    amount in cents, category id, created_date = modified_date in milliseconds)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    amount: Decimal = Field(gt=0, description="in currency units, as typed in the app (12.5 -> 1250 stored)")
    category: str = "Others"
    note: str = ""
    date: dt.datetime

    @field_validator("category")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"category {value!r} is not one of {', '.join(CATEGORIES)}")
        return value

    @field_validator("amount")
    @classmethod
    def _cents(cls, value: Decimal) -> Decimal:
        if (value * 100) != (value * 100).to_integral_value():
            raise ValueError("an amount has at most two decimals (the editor's FloatingInputFilter)")
        return value


class ExpenseSeed(RowsSeed):
    """``expenses:`` in a base snapshot spec: rows of ``expense`` in ``accounting.db`` (the app's first launch
    after its onboarding creates the database)."""

    key = "expenses"
    item = ExpenseSpec
    database = EXPENSE_DB
    table = "expense"
    profile = "expense"

    @classmethod
    def row(cls, item: Any) -> dict[str, Any]:
        when = item.date if item.date.tzinfo else item.date.replace(tzinfo=dt.UTC)
        ms = int(when.timestamp() * 1000)
        return {"name": item.name, "amount": int(item.amount * 100), "category": CATEGORIES[item.category],
                "note": item.note, "created_date": ms, "modified_date": ms}


def read_expenses(driver: Driver) -> DbReading:
    """Every row of ``expense`` (an explicit empty reading with its ``reason`` when the app has not created its
    database: installed or cleared and not opened past its first run since)."""
    return EXPENSE_DB.read(driver, "SELECT * FROM expense ORDER BY expense_id")


@register_app
class ExpenseProfile(AppProfile):
    package = PACKAGE
    name = "expense"
    database = EXPENSE_DB
    activity = f"{PACKAGE}.ui.MainActivity"
    seed = ExpenseSeed
    main_screens = ("home",)
    fixture_screens = ("home", "editor_new", "logs", "detail", "delete_confirm")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``onboarding_next`` / ``onboarding_continue`` (the two onboarding pages), ``home``, ``logs``, ``entry``,
        or None while none is in front."""
        if self.driver.exists(**self.sel("onboard_next")):
            return "onboarding_next"
        if self.driver.exists(**self.sel("onboard_continue")):
            return "onboarding_continue"
        if self.driver.exists(**self.sel("fab_add")):
            return "home"
        if self.driver.exists(**self.sel("logs_root")):
            return "logs"
        if self.driver.exists(**self.sel("entry_scroll")):
            return "entry"
        return None

    @operation
    def complete_first_run(self) -> None:
        """Launch; on the onboarding tap NEXT, then CONTINUE (as android_world's setup does), until Home shows."""
        self.launch(fresh=True)
        screen = self.driver.wait_until(self.first_run_screen, "Pro Expense's first screen")
        if screen == "onboarding_next":
            self.driver.tap(**self.sel("onboard_next"))
            screen = self.driver.wait_until(lambda: self.first_run_screen() == "onboarding_continue" and
                                            "onboarding_continue", "the currency page")
        if screen == "onboarding_continue":
            self.driver.tap(**self.sel("onboard_continue"))
        self.driver.wait_until(lambda: self.first_run_screen() == "home", "Pro Expense's Home")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Pro Expense")

    # ------------------------------------------------------------------ navigation
    def _tap_toolbar_navigation(self, on_home: bool) -> None:
        """The toolbar's navigation button has no id and no content-desc: tap the start of the toolbar."""
        if on_home:
            bar = self.driver.element(**self.sel("home_toolbar"))
        else:
            bar = self.driver.element(**self.sel("logs_toolbar"))
        left, top, _right, bottom = bar.bounds
        self.driver.tap(left + (bottom - top) // 2, (top + bottom) // 2)

    @operation
    def go_to(self, item: str) -> None:
        """Open the drawer from Home or Expense Logs and pick ``item`` (drawer entry name, e.g. drawer_expense_logs)."""
        screen = self.first_run_screen()
        if screen not in ("home", "logs"):
            raise DeviceError(f"{self.driver.serial}: the drawer opens from Home or Expense Logs, not {screen}")
        self._tap_toolbar_navigation(screen == "home")
        self.driver.tap(**self.sel("drawer_item", label=self.table.text(item)))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("nav_view")), "the drawer to close")

    @operation
    def open_logs(self) -> None:
        if self.first_run_screen() != "logs":
            self.go_to("drawer_expense_logs")
        self.driver.wait_until(lambda: self.first_run_screen() == "logs", "Expense Logs")

    @operation
    def go_home(self) -> None:
        if self.first_run_screen() != "home":
            self.go_to("drawer_home")

    # ------------------------------------------------------------------ entry editor
    def _editor_open(self) -> bool:
        return self.driver.exists(**self.sel("entry_scroll"))

    @operation
    def new_expense(self) -> None:
        """Home's FAB: the entry editor for a new expense."""
        self.go_home()
        self.driver.tap(**self.sel("fab_add"))
        self.driver.wait_until(self._editor_open, "the entry editor")

    @operation
    def fill(self, *, name: str | None = None, amount: str | None = None, note: str | None = None,
             category: str | None = None) -> None:
        """Type into the editor's fields (each cleared first); pick ``category`` among the chips."""
        for entry, value in (("name_field", name), ("amount_field", amount), ("note_field", note)):
            if value is None:
                continue
            field = self._tap_field(entry)
            if field.text and field.text not in ("Name", "Amount", "Note"):  # an empty field reports its hint
                self.driver.key(KEYCODE_MOVE_END)
                for _ in range(len(field.text)):
                    self.driver.key(KEYCODE_DEL)
            if value:
                self.driver.type_text(value)
        if category is not None:
            self.pick_category(category)

    @operation
    def pick_category(self, category: str) -> None:
        """Tap the chip named ``category``, swiping the horizontal list until it shows."""
        for _ in range(8):
            if self.driver.exists(**self.sel("category_name", category=category)):
                break
            box = self.driver.element(**self.sel("category_list")).bounds
            y = (box[1] + box[3]) // 2
            self.driver.swipe(box[2] - self.driver.dp(40), y, box[0] + self.driver.dp(80), y, 300)
        self.driver.tap(**self.sel("category_name", category=category))

    @operation
    def set_date(self, day: dt.date) -> None:
        """The toolbar's Calendar action: pick ``day`` in the framework date picker."""
        self.driver.tap(**self.sel("menu_calendar"))
        self.driver.element(**self.sel("date_picker_ok"))
        label = day.strftime("%d %B %Y")
        for _ in range(36):
            if self.driver.exists(**self.sel("date_picker_day", day=label)):
                break
            shown = self.driver.element(**self.sel("date_picker_header_date"))
            year = self.driver.element(**self.sel("date_picker_header_year")).text
            current = dt.datetime.strptime(f"{shown.text} {year}", "%a, %b %d %Y").date()
            if (day.year, day.month) > (current.year, current.month):
                self.driver.tap(**self.sel("date_picker_next"))
            else:
                self.driver.tap(**self.sel("date_picker_prev"))
            self.driver.wait_stable()
        self.driver.tap(**self.sel("date_picker_day", day=label))
        self.driver.tap(**self.sel("date_picker_ok"))

    @operation
    def save(self) -> None:
        """SAVE (a new expense) or UPDATE (an existing one); the editor closes."""
        if self.driver.exists(**self.sel("save_update")):
            self.driver.tap(**self.sel("save_update"))
        else:
            self.driver.tap(**self.sel("save_button"))
        self.driver.wait_until(lambda: not self._editor_open(), "the editor to close after saving")

    @operation
    def create_expense(self, name: str, amount: str, *, category: str | None = None, note: str = "",
                       day: dt.date | None = None) -> None:
        """A new expense with its name, amount (currency units, as typed), category and note; SAVE."""
        self.new_expense()
        self.fill(name=name, amount=amount, note=note or None, category=category)
        if day is not None:
            self.set_date(day)
        self.save()

    @operation
    def open_expense(self, name: str) -> None:
        """Expense Logs, then the row named ``name``: its detail sheet."""
        self.open_logs()
        self.scroll_into_view("logs_list", lambda: self.driver.find(**self.sel("row_name"), text=name), 12)
        self.driver.tap(**self.sel("row_name"), text=name)
        self.driver.wait_until(lambda: self.driver.exists(**self.sel("detail_title")), f"the detail of {name!r}")

    @operation
    def edit_expense(self, name: str, *, new_name: str | None = None, amount: str | None = None,
                     note: str | None = None, category: str | None = None) -> None:
        """Open ``name``, EDIT, change its fields, UPDATE."""
        self.edit_open(name)
        self.fill(name=new_name, amount=amount, note=note, category=category)
        self.save()

    @operation
    def ask_delete(self, name: str) -> None:
        """Open ``name`` and tap the sheet's delete icon: the delete confirmation."""
        self.open_expense(name)
        self.driver.tap(**self.sel("detail_delete"))
        self.driver.element(**self.sel("delete_confirm"))

    @operation
    def edit_open(self, name: str) -> None:
        """Open ``name`` and tap EDIT: the entry editor in update mode."""
        self.open_expense(name)
        self.driver.tap(**self.sel("detail_edit"))
        self.driver.wait_until(self._editor_open, "the entry editor")

    @operation
    def delete_expense(self, name: str) -> None:
        """Open ``name``, the sheet's delete icon, CONFIRM."""
        self.ask_delete(name)
        self.driver.tap(**self.sel("delete_confirm"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("delete_title")), "the sheet to close")

    @operation
    def delete_expenses(self, names: list[str]) -> None:
        """Expense Logs: swipe each row towards the end (selection), the toolbar's Delete, CONFIRM."""
        self.open_logs()
        for name in names:
            self.scroll_into_view("logs_list", lambda n=name: self.driver.find(**self.sel("row_name"), text=n), 12)
            row = self.driver.element(**self.sel("row_name"), text=name)
            left, top, _right, bottom = row.bounds
            y = (top + bottom) // 2
            self.driver.swipe(left, y, left + self.driver.dp(160), y, 300)
        self.driver.tap(**self.sel("menu_delete"))
        self.driver.tap(**self.sel("delete_confirm"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("delete_title")), "the sheet to close")

    # ------------------------------------------------------------------ clipboard
    @operation
    def copy_field(self, entry: str) -> None:
        """Select all of an editor field's text and copy it (framework floating toolbar)."""
        field = self._tap_field(entry)
        self.select_all_and_copy(field)

    @operation
    def paste_into(self, entry: str) -> None:
        """Long-press an editor field and Paste the clipboard at the caret."""
        field = self._tap_field(entry)
        self.paste_at(field)

    def _tap_field(self, entry: str) -> Any:
        """Tap one of the editor's text fields (name_field, amount_field, note_field); its element."""
        if entry == "name_field":
            field = self.driver.element(**self.sel("name_field"))
        elif entry == "amount_field":
            field = self.driver.element(**self.sel("amount_field"))
        elif entry == "note_field":
            field = self.driver.element(**self.sel("note_field"))
        else:
            raise DeviceError(f"{self.driver.serial}: {entry!r} is not an editor text field")
        self.driver.tap(*field.center)
        return field

    # ------------------------------------------------------------------ state
    def expenses(self) -> DbReading:
        return read_expenses(self.driver)

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``expense database``: accounting.db's expense table has the columns android_world reads, or the app has
        not created it yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read Pro Expense's database", "fix the root row first"
            reading = EXPENSE_DB.read(self.driver, "PRAGMA table_info(expense)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return columns == COLUMNS, f"expense has {len(columns)} columns", fix

        return [("expense database", row)]

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        return capture_screens(self)


def capture_screens(profile: ExpenseProfile) -> dict[str, Callable[[], None]]:
    """The structure fixtures' screens (``tests/fixtures/real/hierarchy/expense/<name>.yaml``) and how to bring
    each up from anywhere on a device past its first run; for the capture tool's walk (each ends with BACK)."""
    driver = profile.driver

    def home() -> None:
        driver.shell(f"pm clear {PACKAGE}", check=True)
        profile.complete_first_run()
        profile.create_expense("Capture check", "12.5", note="From the capture walk")

    def editor_new() -> None:
        home()
        profile.new_expense()

    def logs() -> None:
        home()
        profile.open_logs()

    def detail() -> None:
        home()
        profile.open_expense("Capture check")

    def delete_confirm() -> None:
        home()
        profile.ask_delete("Capture check")

    return {"home": home, "editor_new": editor_new, "logs": logs, "detail": detail, "delete_confirm": delete_confirm}
