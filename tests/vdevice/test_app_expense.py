"""The virtual Pro Expense (com.arduia.expense, versionCode 11), driven in-process through the window manager like
a user would; ids and strings come from its pinned selector table, the database is checked against the schema
Room exported for version 6, and the screens against the structure fixtures."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from pathlib import Path

import pytest

from emukit.apps.expense import COLUMNS, ExpenseSeed, ExpenseSpec
from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.provision.standin import write_standin
from emukit.vdevice.apps.expense import ExpenseApp
from emukit.vdevice.apps.expense import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from tests.hierarchy_match import FIXTURES
from tests.vdevice.views import exists, find, install_standin, rendered_scenes, tap

T = table("com.arduia.expense")
PKG = T.package
MAIN = f"{PKG}.ui.MainActivity"
BACK = 4
NOW_MS = int(dt.datetime(2026, 1, 15, 9, 0, tzinfo=dt.UTC).timestamp() * 1000)  # the deterministic clock


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def rows(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM expense ORDER BY expense_id")


def text_of(dev: VirtualDevice, entry: str) -> str:
    return find(dev, resource_id=T.rid(entry)).text


def type_into(dev: VirtualDevice, entry: str, text: str) -> None:
    tap(dev, resource_id=T.rid(entry))
    dev.wm.input_text(text)


def tap_toolbar_nav(dev: VirtualDevice, entry: str) -> None:
    bar = find(dev, resource_id=T.rid(entry))
    left, top, _, bottom = bar.bounds
    dev.wm.tap(left + (bottom - top) // 2, (top + bottom) // 2)


def add(dev: VirtualDevice, name: str, cents: int, category: int = D.FOOD, note: str = "",
        when: int = NOW_MS) -> int:
    D.open_database(dev)
    return D.insert(dev, name, cents, category, note, when, when)


def open_logs(dev: VirtualDevice) -> None:
    tap_toolbar_nav(dev, "home_toolbar")
    tap(dev, resource_id=T.rid("drawer_item"), text="Expense Logs")
    assert exists(dev, resource_id=T.rid("logs_root"))


# ---------------------------------------------------------------------------------------------- table, schema
def test_table_pins_the_build_android_world_installs(tmp_path: Path) -> None:
    assert (T.build.version_code, T.build.version_name) == (11, "1.0.0-beta05")
    assert T.apk is not None and T.apk.file == "com.arduia.expense_11.apk" and T.apk.permissions == []
    standin = write_standin(tmp_path, PKG, 11, "1.0.0-beta05")
    assert hashlib.sha256(standin.read_bytes()).hexdigest() == T.apk.standin_sha256
    assert T.entry("text_copy").clipboard == "copy" and T.entry("text_paste").clipboard == "paste"
    assert not [n for n, e in T.selectors.items() if e.clipboard not in (None, "copy", "paste")]


def test_first_start_opens_home_and_creates_the_room_database(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, ExpenseApp)
    assert (app.version_code, app.version_name) == (11, "1.0.0-beta05-emukit-virtual")
    assert not D.STORE.exists(device)
    assert D.first_time(device) is False  # the deterministic device is past the onboarding
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)
    assert D.SCHEMA.path == f"/data/data/{PKG}/databases/accounting.db"
    db = sqlite3.connect(device.fs.host(D.SCHEMA.path))
    try:
        assert [r[1] for r in db.execute("PRAGMA table_info(expense)")] == COLUMNS
        assert [r[1] for r in db.execute("PRAGMA table_info(backup)")] == [
            "backup_id", "name", "path", "created_date", "item_total", "worker_id", "is_completed"]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 6
        assert db.execute("SELECT identity_hash FROM room_master_table").fetchone()[0] == \
            "27085a6798a70569f4984067458b86b2"
    finally:
        db.close()
    assert rows(device) == []
    assert text_of(device, "totals_title") == "Totals"
    assert text_of(device, "income_label") == "INCOME" and text_of(device, "income_value") == "0"
    assert text_of(device, "totals_date_range") == "JAN 11 - 18"  # Sunday to the next Sunday
    assert not exists(device, resource_id=T.rid("recent_title"))  # GONE while there is no expense
    fab = find(device, resource_id=T.rid("fab_add"))
    assert fab.cls == "android.widget.ImageButton" and fab.content_desc == ""


# ---------------------------------------------------------------------------------------------- entry editor
def test_fab_opens_a_new_entry_with_food_and_the_name_focused(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    assert exists(device, text="Expense Entry")
    assert find(device, resource_id=T.rid("entry_toolbar")).find(lambda v: v.text == "15 Jan 2026 9:00 AM")
    assert device.state.ui.focused_id == T.rid("name_field")
    chip = find(device, resource_id=T.rid("category_chip"), checked=True)
    assert chip.children[0].text == "Food"
    assert text_of(device, "save_button") == "SAVE"
    assert text_of(device, "amount_suffix") == "USD"
    assert not exists(device, resource_id=T.rid("fab_add"))


def test_save_writes_the_amount_in_cents_and_goes_back(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    type_into(device, "name_field", "Groceries")
    type_into(device, "amount_field", "42.5")
    type_into(device, "note_field", "Weekly shop")
    tap(device, resource_id=T.rid("category_name"), text="Housing")
    assert find(device, resource_id=T.rid("category_chip"), checked=True).children[0].text == "Housing"
    tap(device, resource_id=T.rid("save_button"))
    assert [(r["name"], r["amount"], r["category"], r["note"]) for r in rows(device)] == [
        ("Groceries", 4250, 4, "Weekly shop")]
    assert rows(device)[0]["created_date"] == rows(device)[0]["modified_date"] == NOW_MS
    assert exists(device, resource_id=T.rid("home_root"))
    assert text_of(device, "row_name") == "Groceries" and text_of(device, "row_amount") == "42.5"
    assert text_of(device, "row_symbol") == "USD" and text_of(device, "row_date") == "Today 9:00 AM"
    assert text_of(device, "outcome_value") == "42.5"


def test_empty_amount_shows_the_error_and_writes_nothing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    type_into(device, "name_field", "No cost")
    tap(device, resource_id=T.rid("save_button"))
    assert exists(device, text="Cost is Empty")
    assert rows(device) == [] and exists(device, text="Expense Entry")


def test_amount_takes_two_decimals_at_most(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    type_into(device, "amount_field", "12.345")
    assert text_of(device, "amount_field") == "12.34"


def test_lock_keeps_the_editor_open_for_the_next_expense(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    tap(device, resource_id=T.rid("lock_button"))
    assert text_of(device, "save_button") == "NEXT"
    type_into(device, "name_field", "Coffee")
    type_into(device, "amount_field", "3")
    tap(device, resource_id=T.rid("save_button"))
    assert [r["name"] for r in rows(device)] == ["Coffee"]
    assert exists(device, text="Expense Entry") and text_of(device, "name_field") == ""


def test_calendar_action_changes_the_entry_date(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_add"))
    type_into(device, "amount_field", "5")
    tap(device, resource_id=T.rid("menu_calendar"))
    tap(device, content_desc="03 January 2026")
    tap(device, resource_id="android:id/button1", text="OK")
    tap(device, resource_id=T.rid("save_button"))
    modified = dt.datetime.fromtimestamp(rows(device)[0]["modified_date"] / 1000, dt.UTC)
    assert (modified.date(), modified.hour) == (dt.date(2026, 1, 3), 9)
    assert rows(device)[0]["created_date"] == NOW_MS


# ---------------------------------------------------------------------------------------------- logs, detail
def test_logs_list_newest_first_and_the_detail_sheet(device: VirtualDevice) -> None:
    add(device, "Old", 1000, when=NOW_MS - 40 * 86_400_000)
    add(device, "Salary", 250000, D.INCOME, "January")
    device.start_activity(PKG)
    open_logs(device)
    names = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("row_name")]
    assert names == ["Salary", "Old"]
    toolbar = find(device, resource_id=T.rid("logs_toolbar"))
    assert toolbar.find(lambda v: v.text == "2025 Dec 6 - 2026 Jan 15 . DESC")
    tap(device, resource_id=T.rid("row_name"), text="Salary")
    assert text_of(device, "detail_title") == "Expense Detail"
    assert text_of(device, "detail_amount") == "2,500" and text_of(device, "detail_symbol") == "$"
    assert text_of(device, "detail_note") == "January"
    tap(device, resource_id=T.rid("detail_close"))
    assert not exists(device, resource_id=T.rid("detail_title"))


def test_edit_updates_the_row_and_keeps_created_date(device: VirtualDevice) -> None:
    eid = add(device, "Taxi", 1500, 7, when=NOW_MS - 3_600_000)
    device.start_activity(PKG)
    open_logs(device)
    tap(device, resource_id=T.rid("row_name"), text="Taxi")
    tap(device, resource_id=T.rid("detail_edit"))
    assert exists(device, text="Update Data") and text_of(device, "save_update") == "UPDATE"
    assert text_of(device, "amount_field") == "15"
    assert not exists(device, resource_id=T.rid("lock_button"))
    tap(device, resource_id=T.rid("amount_field"))
    device.wm.key(67)
    device.wm.key(67)
    device.wm.input_text("18.25")
    tap(device, resource_id=T.rid("save_update"))
    row = D.expense(device, eid)
    assert row is not None and (row["amount"], row["category"]) == (1825, 7)
    assert row["created_date"] == row["modified_date"] == NOW_MS - 3_600_000
    assert exists(device, resource_id=T.rid("logs_root"))


def test_delete_from_the_detail_sheet_asks_then_deletes(device: VirtualDevice) -> None:
    add(device, "Keep", 100)
    add(device, "Gone", 200)
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("row_name"), text="Gone")  # Home's recent row
    assert text_of(device, "detail_symbol") == "USD"
    tap(device, resource_id=T.rid("detail_delete"))
    assert text_of(device, "delete_title") == "Delete Items" and text_of(device, "delete_items") == " item "
    tap(device, resource_id=T.rid("delete_close"))  # closing the sheet keeps it
    assert len(rows(device)) == 2
    tap(device, resource_id=T.rid("row_name"), text="Gone")
    tap(device, resource_id=T.rid("detail_delete"))
    tap(device, resource_id=T.rid("delete_confirm"))
    assert [r["name"] for r in rows(device)] == ["Keep"]


def test_long_press_slides_the_row_open_and_its_delete_button_deletes(device: VirtualDevice) -> None:
    add(device, "Swiped", 700)
    device.start_activity(PKG)
    open_logs(device)
    device.wm.long_press(*find(device, resource_id=T.rid("log_row_bg")).center)
    tap(device, resource_id=T.rid("log_delete_icon"))
    tap(device, resource_id=T.rid("delete_confirm"))
    assert rows(device) == [] and exists(device, text="NO EXPENSE LOGS")


def test_swipes_select_rows_and_delete_removes_them_all(device: VirtualDevice) -> None:
    for name in ("A", "B", "C"):
        add(device, name, 100)
    device.start_activity(PKG)
    open_logs(device)
    for name in ("A", "C"):
        left, top, _, bottom = find(device, resource_id=T.rid("row_name"), text=name).bounds
        device.wm.swipe(left, (top + bottom) // 2, left + 400, (top + bottom) // 2)
    assert exists(device, text="2  items")
    tap(device, resource_id=T.rid("menu_delete"))
    assert text_of(device, "delete_items") == "2  items "
    tap(device, resource_id=T.rid("delete_confirm"))
    assert [r["name"] for r in rows(device)] == ["B"]
    assert exists(device, text="Expense Logs")


def test_drawer_lists_the_destinations_and_back_returns_home(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap_toolbar_nav(device, "home_toolbar")
    items = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("drawer_item")]
    assert items == ["Home", "Expense Logs", "Statistics", "Backup", "Feedback", "About", "Settings"]
    tap(device, resource_id=T.rid("drawer_item"), text="Expense Logs")
    assert exists(device, resource_id=T.rid("logs_empty"))
    device.wm.key(BACK)
    assert exists(device, resource_id=T.rid("home_root"))


# ---------------------------------------------------------------------------------------------- structure
@pytest.mark.parametrize("screen", ["home", "editor_new", "logs", "detail", "delete_confirm"])
def test_screens_match_their_structure_fixtures(device: VirtualDevice, screen: str) -> None:
    add(device, "Capture check", 1250, note="From the capture walk")
    device.start_activity(PKG)
    if screen == "editor_new":
        tap(device, resource_id=T.rid("fab_add"))
    elif screen != "home":
        open_logs(device)
        if screen in ("detail", "delete_confirm"):
            tap(device, resource_id=T.rid("row_name"), text="Capture check")
        if screen == "delete_confirm":
            tap(device, resource_id=T.rid("detail_delete"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "expense" / f"{screen}.yaml") == []


# ---------------------------------------------------------------------------------------------- seed, clear
def test_seed_rows_are_what_the_app_shows(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    items = [ExpenseSpec(name="Pet Supplies", amount="64.99", category="Others", note="Dog food",
                         date=dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC))]
    db = sqlite3.connect(device.fs.host(D.SCHEMA.path))
    db.executescript(ExpenseSeed.insert_sql(items))
    db.close()
    ms = int(dt.datetime(2026, 1, 15, 8, 0, tzinfo=dt.UTC).timestamp() * 1000)
    assert [{k: r[k] for k in COLUMNS[1:]} for r in rows(device)] == [
        {"name": "Pet Supplies", "amount": 6499, "category": 1, "note": "Dog food", "created_date": ms,
         "modified_date": ms}]
    device.force_stop(PKG)
    device.start_activity(PKG)
    assert text_of(device, "row_amount") == "64.99" and text_of(device, "row_date") == "Today 8:00 AM"
    with pytest.raises(ValueError):
        ExpenseSpec(name="x", amount="1.234", date=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))


def test_pm_clear_removes_the_database_and_keeps_the_deterministic_device_past_onboarding(
        device: VirtualDevice) -> None:
    add(device, "Gone soon", 100)
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device) and rows(device) == []
    assert D.first_time(device) is False
    device.start_activity(PKG)
    assert exists(device, resource_id=T.rid("home_root")) and D.STORE.exists(device)


# ---------------------------------------------------------------------------------------------- hardware
def test_hardware_fresh_install_shows_the_onboarding_then_home(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps and not dev.installed(PKG)
    install_standin(dev, PKG)
    assert D.first_time(dev) is True
    dev.start_activity(PKG)
    assert text_of(dev, "onboard_welcome") == "Hello! Welcome to Pro Expense"
    assert exists(dev, text="Choose Language") and exists(dev, text="United States(English)")
    assert not D.STORE.exists(dev)  # no query before Home
    tap(dev, resource_id=T.rid("onboard_next"), text="NEXT")
    assert exists(dev, text="Choose Currency") and exists(dev, text="United State Dollar")
    tap(dev, resource_id=T.rid("onboard_continue"), text="CONTINUE")
    assert D.first_time(dev) is False and D.prefs(dev).get_str("selected_currency_number") == "840"
    assert exists(dev, resource_id=T.rid("home_root")) and D.STORE.exists(dev)
    dev.force_stop(PKG)
    dev.start_activity(PKG)
    assert exists(dev, resource_id=T.rid("home_root"))
    out: list[bytes] = []
    assert run_shell(dev, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    dev.start_activity(PKG)  # the cleared preferences bring the onboarding back
    assert exists(dev, resource_id=T.rid("onboard_next"))


# ---------------------------------------------------------------------------------------------- formats, gallery
def test_amount_and_date_formats() -> None:
    assert [D.amount_text(v) for v in (0, 5, 1250, 4250, 100000, 123456789)] == [
        "0", "0.05", "12.5", "42.5", "1,000", "1,234,567.89"]
    assert D.amount_store("12.34") == 1234 and D.amount_edit_text(100000) == "1000"
    assert D.entry_time(NOW_MS + 5 * 3_600_000) == "15 Jan 2026 2:00 PM"


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["home (empty)", "home", "navigation drawer", "expense logs", "expense logs row open",
                     "expense logs selection", "detail sheet", "delete confirmation", "new expense",
                     "update expense", "date picker"]
