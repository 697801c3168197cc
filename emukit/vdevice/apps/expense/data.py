"""Pro Expense's data, where and how the real app keeps it (facts: the pinned table's repo ``pe`` arduia/ProExpense
5a5fcae9, tag v1.0.0-beta05).

* ``databases/accounting.db``: Room ``ProExpenseDatabase`` version 6 (pe:.../data/local/ProExpenseDatabase.kt:12-15,
  di/DatabaseModule.kt:22-23), entities ExpenseEnt (table ``expense``) and BackupEnt (table ``backup``). The CREATE
  statements and the identity hash are those of the schema Room exported for version 6
  (pe:app/schemas/com.arduia.expense.data.local.ProExpenseDatabase/6.json:4-5, 9, 65). No callback inserts rows.
  Room opens the file on the first query, which Home's view model makes as soon as Home shows.
* ``amount`` is the amount x 100 (``Amount.createFromActual``: actual x ``DataStoreExchangeRate`` 100,
  domain/Amount.kt:16-22, DataStoreExchangeRate.kt:6); ``created_date`` / ``modified_date`` are milliseconds
  (``Date().time``, ui/entry/ExpenseEntryViewModel.kt:178-190); the entry's time, which the toolbar's date and
  time pickers change, is ``modified_date``. ``category`` is an ExpenseCategory id 1-11
  (ui/common/category/ExpenseCategoryProviderImpl.kt:83-95).
* ``shared_prefs/com.arduia.expense_preferences.xml`` (``PreferenceManager.getDefaultSharedPreferences``,
  data/local/PreferenceFlowStorageDaoImpl.kt:15): ``isFirstTime`` (default true: the onboarding shows),
  ``selected_language`` (default "en"), ``selected_currency_number`` (default "840", USD), ``theme_mode``
  (PreferenceFlowStorageDaoImpl.kt:93-118).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.arduia.expense"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
FIRST_TIME = "isFirstTime"
RATE = 100  # DataStoreExchangeRate.getRate()
#: ExpenseCategory ids and names in the order the entry editor lists them (ExpenseCategoryProviderImpl.kt:41-65)
CATEGORIES: dict[int, str] = {2: "Income", 3: "Food", 4: "Housing", 5: "Social", 6: "Entertainment",
                              7: "Transportation", 8: "Clothes", 9: "Health Care", 10: "Education", 11: "Donation",
                              1: "Others"}
INCOME, FOOD = 2, 3
#: the currencies.json row of the default selected_currency_number 840 (pe:app/src/main/assets/currencies.json:1-8)
CURRENCY_CODE, CURRENCY_SYMBOL = "USD", "$"
LANGUAGES = ("Myanmar(Burma)", "United States(English)", "China (Chinese)")  # LanguageProviderImpl.kt:23-27

SCHEMA = RoomSchema(
    package=PACKAGE, name="accounting.db", version=6, identity_hash="27085a6798a70569f4984067458b86b2",
    create=(
        ("CREATE TABLE IF NOT EXISTS `expense` (`expense_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `name` TEXT, "
         "`amount` INTEGER NOT NULL, `category` INTEGER NOT NULL, `note` TEXT, `created_date` INTEGER NOT NULL, "
         "`modified_date` INTEGER NOT NULL)"),
        ("CREATE TABLE IF NOT EXISTS `backup` (`backup_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "
         "`name` TEXT NOT NULL, `path` TEXT NOT NULL, `created_date` INTEGER NOT NULL, `item_total` INTEGER NOT NULL, "
         "`worker_id` TEXT NOT NULL, `is_completed` INTEGER NOT NULL)"),
    ),
)
STORE = RoomStore(SCHEMA)
COLUMNS = ("expense_id", "name", "amount", "category", "note", "created_date", "modified_date")


# ------------------------------------------------------------------------------------------------ prefs
def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def first_time(device: VirtualDevice) -> bool:
    return prefs(device).get_bool(FIRST_TIME, True)


def finish_onboarding(device: VirtualDevice) -> None:
    """``setFirstUser(false)`` (and the defaults the two onboarding pages show as chosen)."""
    p = prefs(device)
    p.put_bool(FIRST_TIME, False)
    if "selected_language" not in p.entries:
        p.put_str("selected_language", "en")
    if "selected_currency_number" not in p.entries:
        p.put_str("selected_currency_number", "840")
    shared_prefs.save(device, PREFS, p)


# ------------------------------------------------------------------------------------------------ rows
def open_database(device: VirtualDevice) -> None:
    """Room's first access (Home's view model queries the expense table as soon as Home shows)."""
    STORE.create(device)


def expenses(device: VirtualDevice, limit: int | None = None) -> list[dict[str, Any]]:
    """``SELECT * FROM expense ORDER BY modified_date DESC`` (ExpenseDao.kt:20-24, 50-51 with LIMIT 4)."""
    sql = "SELECT * FROM expense ORDER BY modified_date DESC, expense_id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return STORE.rows(device, sql)


def expense(device: VirtualDevice, expense_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM expense WHERE expense_id = ?", (expense_id,))
    return rows[0] if rows else None


def insert(device: VirtualDevice, name: str, amount: int, category: int, note: str, created: int,
           modified: int) -> int:
    """``insertExpense`` (REPLACE with expense_id 0: a new row, ExpenseDao.kt:11-12)."""
    return STORE.execute(device, "INSERT INTO expense (name, amount, category, note, created_date, modified_date) "
                                 "VALUES (?, ?, ?, ?, ?, ?)", (name, amount, category, note, created, modified))


def update(device: VirtualDevice, expense_id: int, name: str, amount: int, category: int, note: str,
           created: int, modified: int) -> None:
    """``updateExpense`` (@Update: every column of the row)."""
    STORE.execute(device, "UPDATE expense SET name = ?, amount = ?, category = ?, note = ?, created_date = ?, "
                          "modified_date = ? WHERE expense_id = ?",
                  (name, amount, category, note, created, modified, expense_id))


def delete(device: VirtualDevice, ids: list[int]) -> None:
    """``deleteExpenseRowById`` / ``deleteExpenseByIDs`` (ExpenseDao.kt:68-72)."""
    if ids:
        marks = ",".join("?" * len(ids))
        STORE.execute(device, f"DELETE FROM expense WHERE expense_id IN ({marks})", tuple(ids))


# ------------------------------------------------------------------------------------------------ formats
def amount_store(text: str) -> int:
    """The stored value of an amount typed in the editor (``BigDecimal(text) x 100``)."""
    return int(Decimal(text) * RATE)


def amount_text(store: int) -> str:
    """``DecimalFormat.getInstance(Locale.ENGLISH)`` with at most two fraction digits (FormatModule.kt:29-33)."""
    value = Decimal(store) / RATE
    whole, _, frac = f"{value:.2f}".partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = whole.lstrip("-")
    grouped = f"{int(whole):,}"
    frac = frac.rstrip("0")
    return f"{sign}{grouped}.{frac}" if frac else f"{sign}{grouped}"


def amount_edit_text(store: int) -> str:
    """The amount put back into the editor (no grouping, ExpenseUpdateDataUiModelMapper)."""
    return amount_text(store).replace(",", "")


def local(ms: int) -> dt.datetime:
    """A time in the device's zone (UTC on the virtual device)."""
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


def _h_mm_a(when: dt.datetime) -> str:
    return f"{when.hour % 12 or 12}:{when.minute:02d} {'AM' if when.hour < 12 else 'PM'}"


def row_date(device: VirtualDevice, ms: int) -> str:
    """ExpenseRecentDateFormatter over ExpenseDateFormatter.format (its branches as the source has them: a day
    of the same month that is neither today nor yesterday falls through to the complete date)."""
    when, today = local(ms), local(device.wall_ms())
    same_year, same_month = when.year == today.year, when.month == today.month
    if same_year and same_month and when.day == today.day:
        return f"Today {_h_mm_a(when)}"
    if same_year and same_month and when.day == today.day - 1:
        return f"Yesterday {_h_mm_a(when)}"
    if same_year and not same_month:
        return f"{when:%b} {when.day}"
    return f"{when.year} {when:%b} {when.day}"


def entry_time(ms: int) -> str:
    """The editor's subtitle, ``d MMM yyyy h:mm a`` (ExpenseEntryFragment.kt:70)."""
    when = local(ms)
    return f"{when.day} {when:%b} {when.year} {_h_mm_a(when)}"


def _range(start: dt.datetime, end: dt.datetime, base: str) -> str:
    """ExpenseDateRangeFormatter.format with ``base`` the start's pattern ("MMM d" or "yyyy MMM d")."""
    first = f"{start:%b} {start.day}" if base == "MMM d" else f"{start.year} {start:%b} {start.day}"
    if start.year != end.year:
        return f"{first} - {end:%b} {end.day}" if base == "MMM d" else f"{first} - {end.year} {end:%b} {end.day}"
    if start.month != end.month:
        return f"{first} - {end:%b} {end.day}"
    if start.day != end.day:
        return f"{first} - {end.day}"
    return first


def week_bounds(device: VirtualDevice) -> tuple[dt.datetime, dt.datetime]:
    """This week's Sunday 00:00:00 and the next Sunday 23:59:59 (HomeViewModel.kt:190-220)."""
    now = local(device.wall_ms())
    sunday = (now - dt.timedelta(days=(now.weekday() + 1) % 7)).replace(hour=0, minute=0, second=0, microsecond=0)
    return sunday, (sunday + dt.timedelta(days=7)).replace(hour=23, minute=59, second=59)


def week_range(device: VirtualDevice) -> str:
    """MonthDateRangeFormatter over the week ("MMM d - d", across months "MMM d - MMM d"), shown all caps."""
    start, end = week_bounds(device)
    return _range(start, end, "MMM d").upper()


def logs_subtitle(device: VirtualDevice, rows: list[dict[str, Any]]) -> str:
    """``<range> . DESC``: StatisticDateRangeFormatter over the oldest and newest modified_date
    (ExpenseViewModel.kt:108-159)."""
    if not rows:
        return ""
    dates = [int(r["modified_date"]) for r in rows]
    return f"{_range(local(min(dates)), local(max(dates)), 'yyyy MMM d')} . DESC"


def week_totals(device: VirtualDevice) -> tuple[int, int]:
    """(income, outcome) stores of the rows modified after this week's start (ExpenseDao.kt:74-75)."""
    start, _ = week_bounds(device)
    rows = STORE.rows(device, "SELECT category, amount FROM expense WHERE modified_date > ?",
                      (int(start.timestamp() * 1000),))
    income = sum(int(r["amount"]) for r in rows if r["category"] == INCOME)
    return income, sum(int(r["amount"]) for r in rows if r["category"] != INCOME)
