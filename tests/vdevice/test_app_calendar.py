"""The virtual Simple Calendar Pro (com.simplemobiletools.calendar.pro, versionCode 238), driven in-process
through the window manager like a user would; ids and strings come from its pinned selector table."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.selectors import table
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.calendar import CalendarApp
from emukit.vdevice.apps.calendar import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from tests.vdevice.views import exists, find, install_standin, rendered_scenes, tap

T = table("com.simplemobiletools.calendar.pro")
PKG = T.package
MAIN = f"{PKG}.activities.MainActivity"
EDITOR = f"{PKG}.activities.EventActivity"
BACK = 4
NOW = dt.datetime(2026, 1, 15, 9, 0, tzinfo=dt.UTC)  # the deterministic device's clock
NOTIFY = "android.permission.POST_NOTIFICATIONS"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def text_of(dev: VirtualDevice, entry: str) -> str:
    return find(dev, resource_id=T.rid(entry)).text


def events(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM events ORDER BY id")


def open_new_event(dev: VirtualDevice, title: str | None = None) -> None:
    """FAB twice: the editor of a new event; with ``title``: typed into the title field (tapped first, so the
    typing does not depend on the focus the editor gives it when it opens)."""
    tap(dev, resource_id=T.rid("fab_new_event"))
    tap(dev, resource_id=T.rid("fab_new_event"))
    assert dev.current_focus() == (PKG, EDITOR)
    if title is not None:
        tap(dev, resource_id=T.rid("title_field"))
        dev.wm.input_text(title)
        assert text_of(dev, "title_field") == title


def open_existing(dev: VirtualDevice, event_id: int) -> None:
    """EventActivity for an event, as ``am start -n .../.activities.EventActivity --es event_id <id>`` over
    MainActivity."""
    dev.start_activity(PKG, EDITOR, {"event_id": str(event_id)}, new_task=False)
    assert dev.current_focus() == (PKG, EDITOR)


def add_event(dev: VirtualDevice, title: str, start: dt.datetime, end: dt.datetime, description: str = "") -> int:
    """An event as the app writes it, after the app's first access made events.db (and listed type 1)."""
    D.open_database(dev)
    return D.save_event(dev, {"title": title, "description": description, "start_ts": int(start.timestamp()),
                              "end_ts": int(end.timestamp())}, None)


# ---------------------------------------------------------------------------------------------- first start
def test_first_start_shows_the_month_view_and_creates_the_database(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, CalendarApp)
    assert (app.version_code, app.version_name) == (238, "6.22.2-emukit-virtual")
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)
    assert D.STORE.exists(device)
    assert D.SCHEMA.path == f"/data/data/{PKG}/databases/events.db"
    types = D.STORE.rows(device, "SELECT id, title FROM event_types")
    assert types == [{"id": 1, "title": "Regular event"}]
    assert D.STORE.rows(device, "SELECT identity_hash FROM room_master_table") == [
        {"identity_hash": D.SCHEMA.identity_hash}]
    assert "1" in D.prefs(device).get_set("display_event_types")
    assert D.prefs(device).get_bool("was_alarm_warning_shown")  # the deterministic device is past the Disclaimer
    assert events(device) == []
    assert text_of(device, "period_label") == "January"  # the current year is not shown
    cells = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("month_day_cell")]
    assert len(cells) == 42 and all(c.clickable for c in cells)
    fab = find(device, resource_id=T.rid("fab_new_event"))
    assert fab.content_desc == "New Event"
    xml = device.hierarchy_xml()
    assert T.rid("fragments_holder") in xml and T.rid("search_field") in xml


def test_month_view_pages_and_shows_the_year_of_another_year(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("period_next"))
    assert text_of(device, "period_label") == "February"
    tap(device, resource_id=T.rid("period_prev"))
    tap(device, resource_id=T.rid("period_prev"))
    assert text_of(device, "period_label") == "December 2025"


def test_fab_expands_then_opens_a_new_event_at_the_next_full_hour(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_new_event"))
    assert device.current_focus() == (PKG, MAIN)  # the first tap only expands it
    assert find(device, resource_id=T.rid("fab_event_label")).text == "Event"
    assert find(device, resource_id=T.rid("fab_task_label")).text == "Task"
    device.wm.key(BACK)  # BACK folds it
    assert not exists(device, resource_id=T.rid("fab_event_label"))
    assert device.current_focus() == (PKG, MAIN)
    open_new_event(device)
    assert exists(device, text="New Event")
    assert not exists(device, resource_id=T.rid("delete"))
    assert text_of(device, "start_date") == text_of(device, "end_date") == "January 15 (Thu)"
    assert text_of(device, "start_time") == text_of(device, "end_time") == "10:00"  # next full hour, end == start
    assert text_of(device, "reminder_1") == "10 minutes before"


def test_new_event_editor_opens_with_the_title_focused(device: VirtualDevice) -> None:
    """EventActivity.kt:513-514: a new event's title has the focus and the keyboard, so typing goes there."""
    device.start_activity(PKG)
    open_new_event(device)
    assert device.state.ui.focused_id == T.rid("title_field")
    device.wm.input_text("Typed at once")
    assert text_of(device, "title_field") == "Typed at once"


def test_fab_event_label_opens_the_editor_too(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_new_event"))
    tap(device, resource_id=T.rid("fab_event_label"))
    assert device.current_focus() == (PKG, EDITOR)
    device.wm.key(BACK)  # nothing changed: finishes without asking (or hides the keyboard first)
    if device.current_focus() == (PKG, EDITOR):
        device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    assert not exists(device, resource_id=T.rid("fab_event_label"))  # folded again


def test_fab_overlay_folds_the_fab(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("fab_new_event"))
    overlay = find(device, resource_id=T.rid("fab_overlay"))
    device.wm.tap(overlay.bounds[0] + 20, overlay.bounds[1] + 300)
    assert not exists(device, resource_id=T.rid("fab_event_label"))
    assert device.current_focus() == (PKG, MAIN)


def test_typing_a_title_and_save_writes_one_event(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Dentist")
    tap(device, resource_id=T.rid("save"))
    assert device.current_focus() == (PKG, MAIN)
    rows = events(device)
    assert len(rows) == 1
    row = rows[0]
    start = int((NOW + dt.timedelta(hours=1)).timestamp())
    assert (row["title"], row["start_ts"], row["end_ts"]) == ("Dentist", start, start)  # seconds
    assert (row["source"], row["reminder_1_minutes"], row["time_zone"]) == ("simple-calendar", 10, "UTC")
    assert (row["event_type"], row["flags"], row["reminder_2_minutes"]) == (1, 0, -1)
    assert (row["location"], row["description"], row["parent_id"]) == ("", "", 0)
    assert row["last_updated"] == device.wall_ms()  # milliseconds
    assert row["import_id"].endswith(str(row["last_updated"])) and "-" not in row["import_id"]
    # the month view shows it: its day's cell carries the title (drawn, not a node)
    cell = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("month_day_cell")][18]
    assert any(c.text == "Dentist" for c in cell.children)  # Thursday January 15 (the grid starts on Dec 28)


def test_location_and_description_are_saved(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Dinner")
    tap(device, resource_id=T.rid("location_field"))
    device.wm.input_text("Main St")
    tap(device, resource_id=T.rid("description_field"))
    device.wm.input_text("Bring wine")
    tap(device, resource_id=T.rid("save"))
    row = events(device)[0]
    assert (row["title"], row["location"], row["description"]) == ("Dinner", "Main St", "Bring wine")


def test_empty_title_toasts_and_writes_nothing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device)
    tap(device, resource_id=T.rid("save"))
    assert device.state.ui.toast == "Title cannot be empty"
    assert device.current_focus() == (PKG, EDITOR)
    assert events(device) == []
    tap(device, resource_id=T.rid("title_field"))
    device.wm.input_text("   ")  # blank is empty too
    tap(device, resource_id=T.rid("save"))
    assert device.state.ui.toast == "Title cannot be empty"
    assert device.current_focus() == (PKG, EDITOR) and events(device) == []


def _back_to_unsaved_dialog(device: VirtualDevice) -> None:
    if device.state.ui.focused_id is not None:
        device.wm.key(BACK)  # hides the keyboard
    assert device.current_focus() == (PKG, EDITOR)
    device.wm.key(BACK)
    assert exists(device, text="You have unsaved changes. Save before exit?")


def test_back_with_changes_asks_and_discard_writes_nothing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Draft")
    _back_to_unsaved_dialog(device)
    assert find(device, resource_id="android:id/button1").text == "Save"
    assert find(device, resource_id="android:id/button2").text == "Discard"
    tap(device, resource_id="android:id/button2")
    assert device.current_focus() == (PKG, MAIN)
    assert events(device) == []


def test_back_with_changes_and_save_writes_the_event(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Kept")
    _back_to_unsaved_dialog(device)
    tap(device, resource_id="android:id/button1")
    assert device.current_focus() == (PKG, MAIN)
    assert [r["title"] for r in events(device)] == ["Kept"]


def test_back_on_the_unsaved_dialog_cancels_it(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Draft")
    _back_to_unsaved_dialog(device)
    device.wm.key(BACK)  # cancels the dialog, the editor stays with its text
    assert device.current_focus() == (PKG, EDITOR)
    assert not exists(device, text="You have unsaved changes. Save before exit?")
    assert text_of(device, "title_field") == "Draft"


def test_toolbar_up_arrow_leaves_without_saving(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Not kept")
    tap(device, content_desc="Navigate up")
    assert device.current_focus() == (PKG, MAIN)
    assert events(device) == []


# ---------------------------------------------------------------------------------------------- existing events
def test_existing_event_opens_as_edit_event_and_delete_yes_removes_it(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 1, 20, 14, 30, tzinfo=dt.UTC)
    event_id = add_event(device, "Team sync", start, start + dt.timedelta(hours=1), "Room 4")
    other = add_event(device, "Other", start, start)
    open_existing(device, event_id)
    assert exists(device, text="Edit Event")
    assert text_of(device, "title_field") == "Team sync"
    assert text_of(device, "description_field") == "Room 4"
    assert text_of(device, "start_date") == "January 20 (Tue)"
    assert (text_of(device, "start_time"), text_of(device, "end_time")) == ("14:30", "15:30")
    assert device.state.ui.focused_id is None  # an existing event opens without the keyboard
    assert find(device, resource_id=T.rid("delete")).content_desc == "Delete"
    device.wm.key(BACK)  # nothing changed: no question
    assert device.current_focus() == (PKG, MAIN)
    open_existing(device, event_id)
    tap(device, resource_id=T.rid("delete"))
    assert exists(device, text="Are you sure you want to proceed with the deletion?")
    tap(device, resource_id="android:id/button1", text="Yes")
    assert device.current_focus() == (PKG, MAIN)
    assert D.event(device, event_id) is None
    assert [r["id"] for r in events(device)] == [other]


def test_delete_no_keeps_the_event(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 1, 15, 11, 0, tzinfo=dt.UTC)
    event_id = add_event(device, "Keep me", start, start)
    open_existing(device, event_id)
    tap(device, resource_id=T.rid("delete"))
    tap(device, resource_id="android:id/button2", text="No")
    assert device.current_focus() == (PKG, EDITOR)
    assert D.event(device, event_id) is not None


def test_existing_event_overflow_lists_duplicate_and_share(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    event_id = add_event(device, "Menu", NOW, NOW)
    open_existing(device, event_id)
    tap(device, content_desc="More options")
    titles = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == f"{PKG}:id/title"]
    assert titles == ["Duplicate event", "Share"]


def test_editing_an_existing_event_updates_its_row(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 2, 3, 8, 0, tzinfo=dt.UTC)
    event_id = add_event(device, "Flight to Oslo", start, start + dt.timedelta(hours=2))
    add_event(device, "Dentist", start, start)
    import_id = D.event(device, event_id)["import_id"]
    open_existing(device, event_id)
    tap(device, resource_id=T.rid("title_field"))
    device.wm.input_text(" trip")
    tap(device, resource_id=T.rid("save"))
    assert device.current_focus() == (PKG, MAIN)
    row = D.event(device, event_id)
    assert row is not None and row["title"] == "Flight to Oslo trip"
    assert (row["start_ts"], row["end_ts"]) == (int(start.timestamp()), int(start.timestamp()) + 7200)
    assert row["import_id"] == import_id  # the same event, kept
    assert len(events(device)) == 2  # updated in place, not added


def test_date_picker_changes_the_start_date_and_keeps_the_duration(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 1, 15, 14, 0, tzinfo=dt.UTC)
    event_id = add_event(device, "Lunch", start, start + dt.timedelta(hours=1, minutes=30))
    open_existing(device, event_id)
    tap(device, resource_id=T.rid("start_date"))
    assert find(device, content_desc="15 January 2026").checked
    tap(device, resource_id="android:id/next")
    tap(device, content_desc="10 February 2026")
    tap(device, resource_id="android:id/button1", text="OK")
    assert not exists(device, resource_id="android:id/month_view")
    assert text_of(device, "start_date") == text_of(device, "end_date") == "February 10 (Tue)"
    assert (text_of(device, "start_time"), text_of(device, "end_time")) == ("14:00", "15:30")
    tap(device, resource_id=T.rid("save"))
    row = D.event(device, event_id)
    new = dt.datetime(2026, 2, 10, 14, 0, tzinfo=dt.UTC)
    assert row is not None and (row["start_ts"], row["end_ts"]) == (int(new.timestamp()), int(new.timestamp()) + 5400)


def test_date_picker_on_a_new_event_and_cancel(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Later")
    tap(device, resource_id=T.rid("start_date"))
    tap(device, content_desc="22 January 2026")
    tap(device, resource_id="android:id/button2", text="Cancel")
    assert text_of(device, "start_date") == "January 15 (Thu)"
    tap(device, resource_id=T.rid("start_date"))
    tap(device, content_desc="22 January 2026")
    tap(device, resource_id="android:id/button1", text="OK")
    assert text_of(device, "start_date") == text_of(device, "end_date") == "January 22 (Thu)"
    tap(device, resource_id=T.rid("save"))
    when = int(dt.datetime(2026, 1, 22, 10, 0, tzinfo=dt.UTC).timestamp())
    assert [(r["start_ts"], r["end_ts"]) for r in events(device)] == [(when, when)]


def test_time_picker_sets_the_start_time_and_keeps_the_duration(device: VirtualDevice) -> None:
    """The Material clock face: numbers described "<n> hours" / "<n> minutes" (material 1.9.0 strings.xml:27-28)."""
    device.start_activity(PKG)
    open_new_event(device, "Call")
    tap(device, resource_id=T.rid("start_time"))
    assert find(device, resource_id=f"{PKG}:id/material_hour_tv").text == "10"
    tap(device, content_desc="16 hours")
    assert find(device, resource_id=f"{PKG}:id/material_minute_tv").checked
    tap(device, content_desc="45 minutes")
    tap(device, resource_id=f"{PKG}:id/material_timepicker_ok_button")
    assert text_of(device, "start_time") == text_of(device, "end_time") == "16:45"
    tap(device, resource_id=T.rid("save"))
    row = events(device)[0]
    when = int(dt.datetime(2026, 1, 15, 16, 45, tzinfo=dt.UTC).timestamp())
    assert (row["start_ts"], row["end_ts"]) == (when, when)


def test_end_before_start_toasts_and_writes_nothing(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Backwards")
    tap(device, resource_id=T.rid("end_time"))
    tap(device, content_desc="8 hours")
    tap(device, resource_id=f"{PKG}:id/material_timepicker_ok_button")
    assert (text_of(device, "start_time"), text_of(device, "end_time")) == ("10:00", "08:00")  # a new end as is
    tap(device, resource_id=T.rid("save"))
    assert device.state.ui.toast == "The event cannot end earlier than it starts"
    assert device.current_focus() == (PKG, EDITOR) and events(device) == []


def test_all_day_hides_the_times_and_saves_the_flag(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    open_new_event(device, "Holiday")
    tap(device, resource_id=T.rid("all_day_toggle"))
    assert find(device, resource_id=T.rid("all_day_toggle")).checked
    assert not exists(device, resource_id=T.rid("start_time"))
    assert not exists(device, resource_id=T.rid("end_time"))
    tap(device, resource_id=T.rid("save"))
    row = events(device)[0]
    day = dt.datetime(2026, 1, 15, tzinfo=dt.UTC)
    assert row["flags"] & D.FLAG_ALL_DAY
    assert (row["start_ts"], row["end_ts"]) == (int(day.timestamp()), int(day.timestamp()) + 12 * 3600)


# ---------------------------------------------------------------------------------------------- main views
def test_day_view_lists_the_day_and_its_row_opens_the_event(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 1, 20, 14, 30, tzinfo=dt.UTC)
    add_event(device, "Team sync", start, start + dt.timedelta(hours=1), "Room 4")
    add_event(device, "Other day", start + dt.timedelta(days=1), start + dt.timedelta(days=1, hours=1))
    cells = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("month_day_cell")]
    device.wm.tap(*cells[23].center)  # Tuesday January 20 (the grid starts on Sunday December 28)
    assert text_of(device, "period_label") == "January 20 (Tue)"
    rows = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("event_row")]
    assert len(rows) == 1
    assert text_of(device, "event_row_title") == "Team sync"
    assert text_of(device, "event_row_time") == "14:30 - 15:30"
    assert text_of(device, "event_row_description") == "Room 4"
    tap(device, resource_id=T.rid("period_next"))
    assert text_of(device, "period_label") == "January 21 (Wed)"
    assert text_of(device, "event_row_title") == "Other day"
    tap(device, resource_id=T.rid("period_prev"))
    device.wm.tap(*find(device, resource_id=T.rid("event_row")).center)
    assert device.current_focus() == (PKG, EDITOR)
    assert exists(device, text="Edit Event")
    assert text_of(device, "title_field") == "Team sync"


def test_day_view_back_returns_to_the_month(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    cells = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("month_day_cell")]
    device.wm.tap(*cells[23].center)
    assert text_of(device, "period_label") == "January 20 (Tue)"
    assert not exists(device, resource_id=T.rid("event_row"))
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, MAIN)
    assert text_of(device, "period_label") == "January"


def test_fab_on_the_day_view_makes_an_event_on_that_day(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    cells = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("month_day_cell")]
    device.wm.tap(*cells[23].center)  # January 20
    open_new_event(device)
    assert text_of(device, "start_date") == "January 20 (Tue)"
    assert text_of(device, "start_time") == "10:00"


def test_search_finds_an_event_and_opens_it(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 2, 3, 8, 0, tzinfo=dt.UTC)
    add_event(device, "Flight to Oslo", start, start + dt.timedelta(hours=2))
    add_event(device, "Dentist", start, start, "no match here")
    tap(device, resource_id=T.rid("search_field"))
    device.wm.input_text("oslo")
    rows = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("event_row")]
    assert len(rows) == 1
    assert text_of(device, "event_row_title") == "Flight to Oslo"
    device.wm.tap(*rows[0].center)
    assert device.current_focus() == (PKG, EDITOR) and exists(device, text="Edit Event")
    assert text_of(device, "title_field") == "Flight to Oslo"
    assert text_of(device, "start_date") == "February 3 (Tue)"
    assert (text_of(device, "start_time"), text_of(device, "end_time")) == ("08:00", "10:00")


def test_search_matches_descriptions_and_back_clears_it(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    add_event(device, "Dentist", NOW, NOW, "Bring the forms")
    tap(device, resource_id=T.rid("search_field"))
    device.wm.input_text("FORMS")
    assert text_of(device, "event_row_title") == "Dentist"
    device.wm.key(BACK)  # hides the keyboard
    if exists(device, resource_id=T.rid("event_row")):
        device.wm.key(BACK)  # clears the search
    assert not exists(device, resource_id=T.rid("event_row"))
    assert text_of(device, "period_label") == "January"
    assert device.current_focus() == (PKG, MAIN)


def test_change_view_to_the_simple_event_list(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    start = dt.datetime(2026, 1, 16, 9, 0, tzinfo=dt.UTC)
    tap(device, resource_id=T.rid("menu_change_view"))
    assert find(device, text="Monthly view").checked
    assert not find(device, text="Weekly view").enabled
    tap(device, text="Simple event list")
    assert D.view(device) == D.EVENTS_LIST_VIEW
    assert D.prefs(device).get_int("view") == D.EVENTS_LIST_VIEW
    assert not exists(device, resource_id=T.rid("month_day_cell"))
    assert text_of(device, "event_list_empty") == "No upcoming events."
    add_event(device, "Tomorrow", start, start)
    add_event(device, "Next year", start.replace(year=2027), start.replace(year=2027))  # past six months
    assert [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("event_row_title")] == [
        "Tomorrow"]


def test_events_of_a_hidden_type_are_not_shown(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    D.save_event(device, {"title": "Hidden", "start_ts": int(NOW.timestamp()), "end_ts": int(NOW.timestamp()),
                          "event_type": 7}, None)
    add_event(device, "Shown", NOW, NOW)
    assert [e["title"] for e in D.events(device)] == ["Shown"]


# ---------------------------------------------------------------------------------------------- hardware
def test_hardware_calendar_is_absent_until_installed(hardware: VirtualDevice) -> None:
    assert PKG not in hardware.apps and not hardware.installed(PKG)
    install_standin(hardware, PKG)
    assert PKG in hardware.apps and hardware.installed(PKG) and hardware.version_code(PKG) == 238
    assert not hardware.permission_granted(PKG, NOTIFY)
    assert not D.prefs(hardware).get_bool("was_alarm_warning_shown")


def test_hardware_first_save_shows_the_disclaimer_then_asks_for_notifications(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.start_activity(PKG)
    assert dev.current_focus() == (PKG, MAIN)  # no prompt before the month view
    open_new_event(dev, "Reminded")
    tap(dev, resource_id=T.rid("save"))
    assert exists(dev, text="Disclaimer")
    assert dev.current_focus() == (PKG, EDITOR) and events(dev) == []
    tap(dev, resource_id="android:id/button1", text="OK")
    assert D.prefs(dev).get_bool("was_alarm_warning_shown")
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    assert events(dev) == []
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_button")
    assert dev.permission_granted(PKG, NOTIFY)
    assert dev.current_focus() == (PKG, MAIN)
    assert [r["title"] for r in events(dev)] == ["Reminded"]
    open_new_event(dev, "Second")  # the second save asks nothing
    tap(dev, resource_id=T.rid("save"))
    assert dev.current_focus() == (PKG, MAIN)
    assert [r["title"] for r in events(dev)] == ["Reminded", "Second"]


def test_hardware_denied_notifications_write_nothing(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.start_activity(PKG)
    open_new_event(dev, "Denied")
    tap(dev, resource_id=T.rid("save"))
    tap(dev, resource_id="android:id/button1", text="OK")
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_deny_button")
    assert dev.current_focus() == (PKG, EDITOR)
    assert exists(dev, text="Permission Required")
    assert events(dev) == []


def test_hardware_disclaimer_settings_button_writes_nothing(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    dev.grant_permission(PKG, NOTIFY)
    dev.start_activity(PKG)
    open_new_event(dev, "Not yet")
    tap(dev, resource_id=T.rid("save"))
    # the neutral button opens the app's details in Settings and leaves the Disclaimer up
    # (cal ReminderWarningDialog.kt:20-29: setNeutralButton, redirectToSettings)
    tap(dev, resource_id="android:id/button3", text="Settings")
    assert dev.current_focus()[0] == "com.android.settings" and events(dev) == []
    assert not D.prefs(dev).get_bool("was_alarm_warning_shown")
    dev.wm.key(BACK)
    assert dev.current_focus() == (PKG, EDITOR) and exists(dev, text=T.text("reminder_warning_title"))
    tap(dev, resource_id="android:id/button1", text="OK")  # OK with the permission granted saves at once
    assert dev.current_focus() == (PKG, MAIN)
    assert [r["title"] for r in events(dev)] == ["Not yet"]


def test_pm_clear_removes_the_database(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    add_event(device, "Gone soon", NOW, NOW)
    assert D.STORE.exists(device) and len(events(device)) == 1
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device)
    assert not device.fs.host(D.SCHEMA.path).exists()
    assert events(device) == []
    assert not device.fs.host(D.PREFS).exists()
    assert device.current_focus()[0] != PKG  # stopped
    device.start_activity(PKG)  # a new first access makes it again, with only the Regular event type
    assert D.STORE.exists(device) and events(device) == []
    assert [r["title"] for r in D.STORE.rows(device, "SELECT title FROM event_types")] == ["Regular event"]
    assert "1" in D.prefs(device).get_set("display_event_types")


# ---------------------------------------------------------------------------------------------- gallery
def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["month view (empty)", "month view", "day view", "new event button expanded",
                     "simple event list", "change view dialog", "new event editor", "date picker", "time picker",
                     "delete confirmation"]
    assert exists(device, text="Are you sure you want to proceed with the deletion?")
