"""The virtual-app kit (emukit.vdevice.kit): the Room store, the layout inflater, the toolbar with its overflow
menu and the framework date / time pickers, exercised on a real virtual device with a real selector table."""

from __future__ import annotations

import datetime as dt
import sqlite3
from contextlib import closing

import pytest

from emukit.apps.selectors import table
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.kit import parts, pickers
from emukit.vdevice.kit.app import Ctx
from emukit.vdevice.kit.layout import N, inflate
from emukit.vdevice.kit.store import RoomSchema, RoomStore
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import View

CAL = "com.simplemobiletools.calendar.pro"
T = table(CAL)
FRAME = (0, 100, 1080, 2200)
PKG = "com.example.kitdemo"
SCHEMA = RoomSchema(
    package=PKG, name="demo.db", version=3, identity_hash="0123456789abcdef0123456789abcdef",
    create=("CREATE TABLE IF NOT EXISTS `items` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `name` TEXT NOT NULL)",),
    on_create=(("INSERT INTO items (id, name) VALUES (?, ?)", (1, "first")),
               ("INSERT INTO items (id, name) VALUES (?, ?)", (2, "second"))),
)


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


@pytest.fixture
def ctx(device: VirtualDevice) -> Ctx:
    """A context on an activity of the Calendar (a KitApp), laid out in FRAME."""
    act = Activity(package=CAL, activity=f"{CAL}.activities.EventActivity")
    return device.apps[CAL].ctx(device, act, FRAME)


def walk(view: View) -> list[View]:
    return list(view.walk())


def one(view: View, **attrs: object) -> View:
    found = [v for v in view.walk() if all(getattr(v, k) == val for k, val in attrs.items())]
    assert len(found) == 1, (attrs, len(found))
    return found[0]


def click(view: View) -> None:
    assert view.clickable and view.on_click is not None, view
    view.on_click()


# ---------------------------------------------------------------------------------------------- store
def test_room_store_creates_the_database_where_the_app_keeps_it(device: VirtualDevice) -> None:
    store = RoomStore(SCHEMA)
    assert SCHEMA.path == f"/data/data/{PKG}/databases/demo.db"
    assert not store.exists(device)
    assert store.rows(device, "SELECT * FROM items") == []  # never opened: nothing, and no file made
    assert not store.exists(device)
    store.create(device)
    assert store.exists(device) and device.fs.host(SCHEMA.path).is_file()
    with closing(sqlite3.connect(device.fs.host(SCHEMA.path))) as db:
        assert db.execute("SELECT locale FROM android_metadata").fetchall() == [("en_US",)]
        assert db.execute("SELECT id, identity_hash FROM room_master_table").fetchall() == [
            (42, "0123456789abcdef0123456789abcdef")]
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"android_metadata", "room_master_table", "items"} <= tables
    assert store.rows(device, "SELECT id, name FROM items ORDER BY id") == [
        {"id": 1, "name": "first"}, {"id": 2, "name": "second"}]


def test_room_store_writes_are_visible_and_create_runs_once(device: VirtualDevice) -> None:
    store = RoomStore(SCHEMA)
    new_id = store.execute(device, "INSERT INTO items (name) VALUES (?)", ("third",))  # creates first
    assert new_id == 3
    store.create(device)  # already there: the on_create rows are not inserted again
    assert [r["name"] for r in store.rows(device, "SELECT name FROM items ORDER BY id")] == [
        "first", "second", "third"]
    # a write is checkpointed: the main file alone holds it (as a probe pulling databases/ would see)
    wal = device.fs.host(SCHEMA.path + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    with closing(sqlite3.connect(device.fs.host(SCHEMA.path))) as db:
        assert db.execute("SELECT count(*) FROM items").fetchone()[0] == 3


def test_plain_sqlite_schema_has_no_room_master_table(device: VirtualDevice) -> None:
    plain = RoomSchema(package=PKG, name="plain.db", version=5, create=("CREATE TABLE t (x INTEGER)",))
    RoomStore(plain).create(device)
    with closing(sqlite3.connect(device.fs.host(plain.path))) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert db.execute("PRAGMA user_version").fetchone()[0] == 5
    assert tables == {"android_metadata", "t"}


# ---------------------------------------------------------------------------------------------- layout
FORM = N(entry="editor_scroll", cls="androidx.core.widget.NestedScrollView", children=(
    N(entry="title_field", h=56),
    N(row=True, h=52, children=(N(entry="start_date"), N(entry="start_time", w=96))),
    N(entry="reminder_2", h=48),
    N(entry="all_day_toggle", h=48),
))


def test_inflate_takes_ids_classes_and_texts_from_the_table() -> None:
    root = inflate(FORM, FRAME, T)
    assert root.resource_id == T.rid("editor_scroll") and root.cls == "androidx.core.widget.NestedScrollView"
    title = one(root, resource_id=T.rid("title_field"))
    assert title.cls == "android.widget.EditText"
    assert title.editable and title.focusable and title.clickable and title.long_clickable
    assert title.key == T.rid("title_field")
    start = one(root, resource_id=T.rid("start_date"))
    assert start.cls == "android.widget.TextView" and not start.editable
    assert one(root, resource_id=T.rid("reminder_2")).text == "Add another reminder"
    toggle = one(root, resource_id=T.rid("all_day_toggle"))
    assert (toggle.cls, toggle.text) == ("android.widget.CheckBox", "All-day")


def test_inflate_lays_out_top_to_bottom_and_rows_side_by_side() -> None:
    root = inflate(FORM, FRAME, T)
    title = one(root, resource_id=T.rid("title_field"))
    start = one(root, resource_id=T.rid("start_date"))
    time = one(root, resource_id=T.rid("start_time"))
    reminder = one(root, resource_id=T.rid("reminder_2"))
    assert title.bounds == (0, 100, 1080, 100 + theme.dp(56))
    # the row: the date takes what the fixed-width time leaves, both on the same line
    assert start.bounds[1] == time.bounds[1] == title.bounds[3]
    assert start.bounds[0] == 0 and start.bounds[2] == time.bounds[0] and time.bounds[2] == 1080
    assert time.bounds[2] - time.bounds[0] == theme.dp(96)
    assert start.bounds[3] - start.bounds[1] == theme.dp(52)
    assert reminder.bounds[1] == start.bounds[3]


def test_inflate_binds_fields_and_a_gone_entry_takes_no_room() -> None:
    clicks: list[str] = []
    bind = {"title_field": {"text": "Hello", "hint": "Title"},
            "start_time": {"text": "10:00", "visible": False},
            "reminder_2": {"visible": False},
            "start_date": {"text": "January 15 (Thu)", "on_click": lambda: clicks.append("date")}}
    root = inflate(FORM, FRAME, T, bind)
    title = one(root, resource_id=T.rid("title_field"))
    assert (title.text, title.hint) == ("Hello", "Title")
    assert not [v for v in root.walk() if v.resource_id in (T.rid("start_time"), T.rid("reminder_2"))]
    start = one(root, resource_id=T.rid("start_date"))
    assert start.bounds[0] == 0 and start.bounds[2] == 1080  # the row's only shown child has the full width
    click(start)
    assert clicks == ["date"] and start.text == "January 15 (Thu)"
    toggle = one(root, resource_id=T.rid("all_day_toggle"))
    assert toggle.bounds[1] == start.bounds[3]  # the gone reminder row leaves no gap


def test_inflate_rejects_an_unknown_bound_field() -> None:
    with pytest.raises(AttributeError):
        inflate(FORM, FRAME, T, {"title_field": {"no_such_field": 1}})


# ---------------------------------------------------------------------------------------------- toolbar
def test_toolbar_shows_actions_and_hides_the_rest_behind_more_options(ctx: Ctx) -> None:
    ran: list[str] = []
    items = [parts.MenuItem("save", "check", lambda: ran.append("save")),
             parts.MenuItem("delete", "delete", lambda: ran.append("delete")),
             parts.MenuItem("duplicate", "copy", lambda: ran.append("duplicate"), always=False),
             parts.MenuItem("share", "share", lambda: ran.append("share"), always=False)]
    bar = parts.toolbar(ctx, "editor_toolbar", "Edit Event", items, on_up=lambda: ran.append("up"))
    assert bar.resource_id == T.rid("editor_toolbar")
    assert bar.bounds == (0, 100, 1080, 100 + parts.TOOLBAR_H)
    save = one(bar, resource_id=T.rid("save"))
    delete = one(bar, resource_id=T.rid("delete"))
    assert (save.content_desc, delete.content_desc) == ("Save", "Delete")
    assert save.bounds[2] <= delete.bounds[0]  # in menu order, left to right, ending at the overflow button
    assert not [v for v in bar.walk() if v.resource_id in (T.rid("duplicate"), T.rid("share"))]
    assert any(v.text == "Edit Event" for v in bar.walk())
    more = one(bar, content_desc=parts.OVERFLOW_DESC)
    assert more.bounds[0] >= delete.bounds[2] and more.bounds[2] <= 1080
    assert parts.overflow_menu(ctx, "editor_toolbar", items, f"{CAL}:id/title") is None  # closed
    click(save)
    assert ran == ["save"]
    click(more)
    menu = parts.overflow_menu(ctx, "editor_toolbar", items, f"{CAL}:id/title")
    assert menu is not None
    titles = [v.text for v in menu.walk() if v.resource_id == f"{CAL}:id/title"]
    assert titles == ["Duplicate event", "Share"]
    row = next(v for v in menu.walk() if v.clickable and any(c.text == "Share" for c in v.walk()))
    click(row)
    assert ran == ["save", "share"]
    assert parts.overflow_menu(ctx, "editor_toolbar", items, f"{CAL}:id/title") is None  # choosing closes it


def test_toolbar_without_hidden_items_has_no_overflow_button(ctx: Ctx) -> None:
    bar = parts.toolbar(ctx, "editor_toolbar", "New Event", [parts.MenuItem("save", "check", lambda: None)])
    assert not [v for v in bar.walk() if v.content_desc == parts.OVERFLOW_DESC]
    assert one(bar, resource_id=T.rid("save")).content_desc == "Save"


def test_confirm_cancel_and_accept_close_the_dialog(ctx: Ctx) -> None:
    ran: list[str] = []
    ctx.open_dialog("delete")
    view = parts.confirm(ctx, "Sure?", lambda: ran.append("yes"), yes="Yes", no="No", on_no=lambda: ran.append("no"))
    click(one(view, resource_id="android:id/button2", text="No"))
    assert ran == ["no"] and ctx.dialog_open is None
    ctx.open_dialog("delete")
    click(one(view, resource_id="android:id/button1", text="Yes"))
    assert ran == ["no", "yes"] and ctx.dialog_open is None


# ---------------------------------------------------------------------------------------------- pickers
def _date_view(ctx: Ctx, got: list[dt.date]) -> View:
    dlg = ctx.dialog_open
    assert dlg is not None and dlg["kind"] == "date"
    return pickers.date_dialog(ctx, dlg, got.append)


def test_date_dialog_picks_a_day_and_changes_month(ctx: Ctx) -> None:
    got: list[dt.date] = []
    pickers.open_date(ctx, "start", dt.date(2026, 1, 15))
    view = _date_view(ctx, got)
    assert one(view, resource_id="android:id/date_picker_header_year").text == "2026"
    assert one(view, resource_id="android:id/date_picker_header_date").text == "Thu, Jan 15"
    days = [v for v in one(view, resource_id="android:id/month_view").children]
    assert [v.text for v in days] == [str(d) for d in range(1, 32)]
    chosen = one(view, content_desc="15 January 2026")
    assert chosen.checked and chosen.selected
    assert not one(view, content_desc="20 January 2026").checked
    click(one(view, content_desc="20 January 2026"))
    view = _date_view(ctx, got)  # the window manager rebuilds after a tap
    assert one(view, content_desc="20 January 2026").checked
    assert one(view, resource_id="android:id/date_picker_header_date").text == "Tue, Jan 20"
    click(one(view, resource_id="android:id/next", content_desc="Next month"))
    view = _date_view(ctx, got)
    assert any(v.text == "February 2026" for v in view.walk())
    assert len(one(view, resource_id="android:id/month_view").children) == 28
    click(one(view, resource_id="android:id/prev", content_desc="Previous month"))
    click_prev_view = _date_view(ctx, got)
    assert any(v.text == "January 2026" for v in click_prev_view.walk())
    click(one(click_prev_view, resource_id="android:id/prev"))
    view = _date_view(ctx, got)
    assert any(v.text == "December 2025" for v in view.walk())  # across the year
    click(one(view, content_desc="03 December 2025"))
    view = _date_view(ctx, got)
    assert got == []
    click(one(view, resource_id="android:id/button1", text="OK"))
    assert got == [dt.date(2025, 12, 3)] and ctx.dialog_open is None


def test_date_dialog_cancel_passes_nothing(ctx: Ctx) -> None:
    got: list[dt.date] = []
    pickers.open_date(ctx, "end", dt.date(2024, 2, 29))
    view = _date_view(ctx, got)
    assert one(view, content_desc="29 February 2024").checked
    click(one(view, resource_id="android:id/button2", text="Cancel"))
    assert got == [] and ctx.dialog_open is None


def test_time_dialog_hour_moves_to_minutes_and_ok_gives_the_time(ctx: Ctx) -> None:
    got: list[tuple[int, int]] = []
    pickers.open_time(ctx, "start", 10, 0)

    def build() -> View:
        dlg = ctx.dialog_open
        assert dlg is not None and dlg["kind"] == "time"
        return pickers.time_dialog(ctx, dlg, lambda h, m: got.append((h, m)))

    view = build()
    assert one(view, resource_id="android:id/hours").text == "10"
    assert one(view, resource_id="android:id/minutes").text == "00"
    assert one(view, resource_id="android:id/hours").checked
    dial = one(view, resource_id="android:id/radial_picker")
    assert sorted(int(v.content_desc) for v in dial.children) == list(range(24))
    click(one(dial, content_desc="14"))
    view = build()
    assert one(view, resource_id="android:id/hours").text == "14"
    assert one(view, resource_id="android:id/minutes").checked  # the minute dial is shown now
    dial = one(view, resource_id="android:id/radial_picker")
    assert [int(v.content_desc) for v in dial.children] == list(range(0, 60, 5))
    click(one(dial, content_desc="35"))
    view = build()
    assert one(view, resource_id="android:id/minutes").text == "35"
    assert got == []
    click(one(view, resource_id="android:id/button1"))
    assert got == [(14, 35)] and ctx.dialog_open is None


def test_time_dialog_with_material_ids(ctx: Ctx) -> None:
    """MaterialTimePicker's ids, and its clock face's TextViews: hours "00", "1" ... described "<n> hours"."""
    pickers.open_time(ctx, "end", 7, 5)
    view = pickers.time_dialog(ctx, ctx.dialog_open, lambda h, m: None, pickers.material_time(CAL))
    assert one(view, resource_id=f"{CAL}:id/material_hour_tv").text == "07"
    assert one(view, resource_id=f"{CAL}:id/material_minute_tv").text == "05"
    assert one(view, resource_id=f"{CAL}:id/header_title").text == "Select time"
    one(view, resource_id=f"{CAL}:id/material_timepicker_ok_button")
    one(view, resource_id=f"{CAL}:id/material_clock_face")
    assert not [v for v in view.walk() if v.resource_id.startswith("android:id/hours")]
    face = one(view, resource_id=f"{CAL}:id/material_clock_face")
    assert [(v.cls, v.text, v.content_desc) for v in face.children][:2] == [
        ("android.widget.TextView", "00", "00 hours"), ("android.widget.TextView", "1", "1 hours")]
    click(one(face, content_desc="7 hours"))
    face = one(pickers.time_dialog(ctx, ctx.dialog_open, lambda h, m: None, pickers.material_time(CAL)),
               resource_id=f"{CAL}:id/material_clock_face")
    assert [v.content_desc for v in face.children][:3] == ["00 minutes", "05 minutes", "10 minutes"]


def test_kit_app_back_closes_an_open_dialog_first(device: VirtualDevice) -> None:
    device.start_activity(CAL)
    app = device.apps[CAL]
    act = device.top
    app.ctx(device, act).open_dialog("view")
    assert app.on_back(device, act) is True
    assert "dialog" not in act.state
    assert app.on_back(device, act) is False  # nothing left to consume on the month view
