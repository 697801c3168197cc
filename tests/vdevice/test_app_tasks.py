"""The virtual Tasks.org (org.tasks, versionCode 130605), driven in-process through the window manager like a user
would; ids and strings come from its pinned selector table, the database schema from the schema Room exported for
version 88."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.apps.tasks import TASK_COLUMNS, TaskSeed, TaskSpec
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.tasks import TasksApp
from emukit.vdevice.apps.tasks import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from tests.hierarchy_match import FIXTURES
from tests.vdevice.views import exists, find, install_standin, rendered_scenes, tap

T = table("org.tasks")
PKG = T.package
MAIN = "com.todoroo.astrid.activity.MainActivity"
BACK = 4
NOW = dt.datetime(2026, 1, 15, 9, 0, tzinfo=dt.UTC)  # the deterministic device's clock
NOW_MS = int(NOW.timestamp()) * 1000
NOTIFY = "android.permission.POST_NOTIFICATIONS"
EDIT_TEXT = "android.widget.EditText"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False  # an exception in the app fails the test instead of "crashing" the app
    return dev


def rows(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM tasks ORDER BY _id")


def nodes(dev: VirtualDevice, **attrs: object) -> list:
    return [v for v in dev.wm.windows()[0].walk() if all(getattr(v, k) == val for k, val in attrs.items())]


def list_titles(dev: VirtualDevice) -> list[str]:
    return [v.text for v in nodes(dev, resource_id=T.rid("task_row_title"))]


def editor_open(dev: VirtualDevice) -> bool:
    return exists(dev, content_desc=T.desc("editor_save"))


def new_task(dev: VirtualDevice, title: str | None = None) -> None:
    tap(dev, resource_id=T.rid("fab_add"))
    assert editor_open(dev)
    if title is not None:
        tap(dev, resource_id=T.rid("title_field"))
        dev.wm.input_text(title)
        assert find(dev, resource_id=T.rid("title_field")).text == title


def description(dev: VirtualDevice):
    """The description EditText (no id): scrolled into view, the second EditText of the editor."""
    for _ in range(8):
        fields = nodes(dev, cls=EDIT_TEXT)
        if len(fields) == 2:
            return fields[1]
        scroll = find(dev, cls=T.cls("editor_scroll"))
        x = (scroll.bounds[0] + scroll.bounds[2]) // 2
        dev.wm.swipe(x, scroll.bounds[3] - 20, x, scroll.bounds[1] + 20)
    raise AssertionError("no description field")


def android_world_row(title: str, **extra: object) -> dict:
    """A task as android_world writes it (no list)."""
    spec = TaskSpec(title=title, **extra)
    return TaskSeed.row(spec)


def insert(dev: VirtualDevice, row: dict) -> int:
    D.app_start(dev)
    columns = list(row)
    return D.STORE.execute(dev, f"INSERT INTO tasks ({', '.join(f'`{c}`' for c in columns)}) "
                                f"VALUES ({', '.join('?' * len(columns))})", tuple(row.values()))


# ---------------------------------------------------------------------------------------------- identity, database
def test_first_start_shows_my_tasks_empty_and_creates_the_database(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, TasksApp)
    assert (app.version_code, app.version_name) == (130605, "13.6.3-emukit-virtual")
    assert app.label == T.text("launcher_icon") == "Tasks"
    assert app.launcher_activity == MAIN
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)
    assert D.SCHEMA.path == "/data/data/org.tasks/databases/database"
    assert D.STORE.exists(device)
    assert rows(device) == []
    assert exists(device, text="My Tasks")
    assert exists(device, text="There are no tasks here.")
    assert not nodes(device, resource_id=T.rid("task_list"))
    fab = find(device, resource_id=T.rid("fab_add"))
    assert (fab.content_desc, fab.cls) == ("Create new task", "android.widget.ImageButton")
    p = D.prefs(device)
    assert (p.get_int("cv"), p.get_int("install_version")) == (130605, 130605)
    assert p.get_int("install_date") == NOW_MS


def test_database_has_the_exported_room_schema_and_android_worlds_columns(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    db = sqlite3.connect(device.fs.host(D.SCHEMA.path))
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        ident = db.execute("SELECT identity_hash FROM room_master_table WHERE id = 42").fetchone()[0]
        columns = tuple(r[1] for r in db.execute("PRAGMA table_info(tasks)"))
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                              "AND name NOT LIKE 'sqlite_%'")}
        notnull = {r[1]: r[3] for r in db.execute("PRAGMA table_info(tasks)")}
    finally:
        db.close()
    assert (version, ident) == (88, "a2597380bdfaeeb040d40bab2fc653c1")
    assert columns == TASK_COLUMNS == D.TASK_COLUMNS
    assert len(columns) == 23
    assert notnull["title"] == 0 and notnull["notes"] == 0 and notnull["importance"] == 1
    assert {"tasks", "caldav_lists", "caldav_tasks", "caldav_accounts", "alarms", "tags", "tagdata", "filters",
            "notification", "places", "geofences", "attachment", "attachment_file", "principals",
            "principal_access", "userActivity", "task_list_metadata", "room_master_table",
            "android_metadata"} <= tables
    assert {"t_rid", "active_and_visible", "index_caldav_tasks_cd_task"} <= indexes


def test_list_structure_matches_the_fixture(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "tasks" / "task_list.yaml") == []


# ---------------------------------------------------------------------------------------------- editor: new tasks
def test_fab_opens_a_new_task_with_the_title_focused_and_the_compose_rows(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device)
    assert device.current_focus() == (PKG, MAIN)  # a fragment of the same activity
    assert device.state.ui.focused_id == T.rid("title_field")
    assert not exists(device, resource_id=T.rid("delete"))
    assert not exists(device, resource_id=T.rid("editor_fab"))  # invisible for a new task
    assert not exists(device, resource_id=T.rid("master"))
    assert exists(device, text=T.text("beast_hint_title"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "tasks" / "editor_new.yaml") == []
    shown = [v.text for v in nodes(device, resource_id=T.rid("editor_rows"))[0].children]
    assert shown[:3] == ["No start date", "No due date", "Does not repeat"]
    assert all(v.resource_id == "" for v in nodes(device, resource_id=T.rid("editor_rows"))[0].walk()
               if v.resource_id != T.rid("editor_rows"))
    device.wm.input_text("Typed at once")
    assert find(device, resource_id=T.rid("title_field")).text == "Typed at once"


def test_the_rows_follow_the_default_order_down_to_the_description(device: VirtualDevice) -> None:
    """TEA_control_sets_prefs order (keys.xml:283-299), read by scrolling the rows from the top."""
    device.start_activity(PKG)
    new_task(device)
    device.wm.key(BACK)  # hides the keyboard
    seen: list[str] = []
    for _ in range(10):
        for v in nodes(device, resource_id=T.rid("editor_rows"))[0].walk():
            if v.text and v.text not in seen:
                seen.append(v.text)
        scroll = find(device, cls=T.cls("editor_scroll"))
        x = (scroll.bounds[0] + scroll.bounds[2]) // 2
        device.wm.swipe(x, scroll.bounds[3] - 20, x, scroll.bounds[1] + 20)
    assert seen[:10] == ["No start date", "No due date", "Does not repeat", "Priority", "Add location", "Add tags",
                         "Default list", "Add subtask", "Add reminder", "Add attachment"]  # reminders: granted
    assert seen[10:13] == ["Don't add to calendar", "Timer", "Created Thu, Jan 15, 2026"]
    field = description(device)
    assert field.resource_id == "" and field.hint == "Description" and field.cls == EDIT_TEXT


def test_title_and_save_write_one_task_in_the_default_list(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device, "Buy milk")
    tap(device, content_desc="Save")
    assert not editor_open(device) and exists(device, resource_id=T.rid("master"))
    [row] = rows(device)
    assert (row["title"], row["notes"], row["importance"]) == ("Buy milk", None, 2)
    assert row["created"] == row["modified"] == NOW_MS  # milliseconds
    assert (row["completed"], row["deleted"], row["dueDate"], row["hideUntil"], row["parent"]) == (0, 0, 0, 0, 0)
    assert row["remoteId"].isdigit() and int(row["remoteId"]) >= 100000000
    lists = D.STORE.rows(device, "SELECT cdl_account, cdl_name, cdl_uuid FROM caldav_lists")
    assert [(r["cdl_account"], r["cdl_name"]) for r in lists] == [("local", "Default list")]
    links = D.STORE.rows(device, "SELECT cd_task, cd_calendar FROM caldav_tasks")
    assert links == [{"cd_task": row["_id"], "cd_calendar": lists[0]["cdl_uuid"]}]
    accounts = D.STORE.rows(device, "SELECT cda_uuid, cda_account_type FROM caldav_accounts")
    assert accounts == [{"cda_uuid": "local", "cda_account_type": 2}]
    assert list_titles(device) == ["Buy milk"]


def test_description_is_the_second_edit_text_and_is_saved_as_notes(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device, "Water plants")
    field = description(device)
    device.wm.tap(*field.center)
    device.wm.input_text("Fertilize succulents")
    tap(device, content_desc="Save")
    [row] = rows(device)
    assert (row["title"], row["notes"]) == ("Water plants", "Fertilize succulents")
    assert find(device, resource_id=T.rid("task_row_description")).text == "Fertilize succulents"


def test_save_without_changes_writes_nothing_and_a_blank_title_becomes_no_title(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device)
    tap(device, content_desc="Save")
    assert not editor_open(device) and rows(device) == []
    new_task(device)
    field = description(device)
    device.wm.tap(*field.center)
    device.wm.input_text("only notes")
    tap(device, content_desc="Save")
    assert [(r["title"], r["notes"]) for r in rows(device)] == [("(No title)", "only notes")]


def test_back_without_changes_closes_and_with_changes_asks(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device)
    device.wm.key(BACK)  # the keyboard
    if editor_open(device):
        device.wm.key(BACK)
    assert not editor_open(device) and rows(device) == []
    new_task(device, "Draft")
    device.wm.key(BACK)
    if not exists(device, text=T.text("discard_title")):
        device.wm.key(BACK)
    assert exists(device, resource_id=T.rid("discard_title"), text="Are you sure you want to discard your changes?")
    assert find(device, resource_id="android:id/button1").text == "Keep editing"
    tap(device, resource_id="android:id/button1")
    assert editor_open(device) and find(device, resource_id=T.rid("title_field")).text == "Draft"
    device.wm.key(BACK)
    tap(device, resource_id="android:id/button2", text="Discard")
    assert not editor_open(device) and rows(device) == []  # BACK never saves


# ---------------------------------------------------------------------------------------------- existing tasks
def test_an_android_world_task_opens_with_delete_and_delete_keeps_its_row_marked(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    due = NOW + dt.timedelta(days=2)
    task_id = insert(device, android_world_row("Call Grandma", notes="Ask for the recipe", due=due))
    device.wm.key(BACK)
    device.start_activity(PKG)
    assert list_titles(device) == ["Call Grandma"]
    tap(device, resource_id=T.rid("task_row_title"), text="Call Grandma")
    assert editor_open(device) and device.state.ui.focused_id is None
    assert find(device, resource_id=T.rid("title_field")).text == "Call Grandma"
    assert find(device, resource_id=T.rid("delete")).content_desc == "Delete task"
    assert exists(device, resource_id=T.rid("editor_fab"))
    tap(device, resource_id=T.rid("delete"))
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "tasks" / "delete_confirm.yaml") == []
    tap(device, resource_id="android:id/button2", text="Cancel")
    assert editor_open(device) and rows(device)[0]["deleted"] == 0
    tap(device, resource_id=T.rid("delete"))
    tap(device, resource_id="android:id/button1", text="OK")
    assert not editor_open(device)
    [row] = rows(device)  # no list: the cleanup keeps it, marked
    assert row["_id"] == task_id and row["deleted"] == row["modified"] == NOW_MS
    assert list_titles(device) == [] and exists(device, text="There are no tasks here.")


def test_deleting_a_task_made_in_the_app_purges_its_row(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device, "Gone soon")
    tap(device, content_desc="Save")
    new_task(device, "Stays")
    tap(device, content_desc="Save")
    tap(device, resource_id=T.rid("task_row_title"), text="Gone soon")
    tap(device, resource_id=T.rid("delete"))
    tap(device, resource_id="android:id/button1")
    assert [r["title"] for r in rows(device)] == ["Stays"]
    assert len(D.STORE.rows(device, "SELECT * FROM caldav_tasks")) == 1


def test_editing_an_existing_task_updates_it_in_place(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    task_id = insert(device, android_world_row("Flight", due=NOW + dt.timedelta(days=1)))
    device.wm.key(BACK)
    device.start_activity(PKG)
    remote = rows(device)[0]["remoteId"]
    tap(device, resource_id=T.rid("task_row_title"), text="Flight")
    tap(device, resource_id=T.rid("title_field"))
    device.wm.input_text(" to Oslo")
    tap(device, content_desc="Save")
    [row] = rows(device)
    assert (row["_id"], row["title"], row["remoteId"]) == (task_id, "Flight to Oslo", remote)
    assert row["modified"] == NOW_MS and row["created"] != NOW_MS


def test_the_editor_check_button_completes_and_hides_the_task(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    insert(device, android_world_row("Done soon"))
    device.wm.key(BACK)
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("task_row_title"), text="Done soon")
    tap(device, resource_id=T.rid("editor_fab"))
    assert not editor_open(device)
    assert rows(device)[0]["completed"] == NOW_MS and list_titles(device) == []


def test_my_tasks_hides_completed_deleted_unstarted_and_subtasks_and_sorts(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    later = NOW + dt.timedelta(days=3)
    insert(device, android_world_row("No date B"))
    insert(device, android_world_row("no date a"))
    insert(device, android_world_row("Due later", due=later))
    insert(device, android_world_row("Due later, high", due=later, importance=0))
    insert(device, android_world_row("Completed", completed=NOW - dt.timedelta(days=1)))
    insert(device, android_world_row("Not started", hide_until=NOW + dt.timedelta(days=1)))
    deleted = android_world_row("Deleted")
    deleted["deleted"] = NOW_MS
    insert(device, deleted)
    child = android_world_row("Child")
    child["parent"] = 1
    insert(device, child)
    device.wm.key(BACK)
    device.start_activity(PKG)
    assert list_titles(device) == ["Due later, high", "Due later", "no date a", "No date B"]


def test_copy_the_title_and_paste_it_into_the_description(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device, "Gate closes 16:55")
    title = find(device, resource_id=T.rid("title_field"))
    device.wm.long_press(*title.center)
    tap(device, text=T.text("text_select_all"))
    tap(device, text=T.text("text_copy"))
    assert device.get_clip().text == "Gate closes 16:55"
    field = description(device)
    device.wm.tap(*field.center)
    field = nodes(device, cls=EDIT_TEXT)[1]
    device.wm.long_press(*field.center)
    tap(device, text=T.text("text_paste"))
    assert nodes(device, cls=EDIT_TEXT)[1].text == "Gate closes 16:55"
    tap(device, content_desc="Save")
    assert [(r["title"], r["notes"]) for r in rows(device)] == [("Gate closes 16:55", "Gate closes 16:55")]


def test_dismissing_the_customize_hint_is_remembered(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device)
    tap(device, text=T.text("beast_hint_dismiss"))
    assert not exists(device, text=T.text("beast_hint_title"))
    assert D.prefs(device).get_bool("shown_beast_mode_hint")
    tap(device, content_desc="Save")
    new_task(device)
    assert not exists(device, text=T.text("beast_hint_title"))


def test_overflow_lists_the_bottom_menu(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, content_desc="More options")
    titles = [v.text for v in nodes(device, resource_id=T.rid("overflow_row_title"))]
    assert titles == ["Clear Completed", "Show completed", "Show unstarted", "Share"]
    device.wm.key(BACK)
    assert not nodes(device, resource_id=T.rid("overflow_row_title"))
    assert device.current_focus() == (PKG, MAIN)


# ---------------------------------------------------------------------------------------------- hardware, pm clear
def test_hardware_tasks_is_absent_until_installed_then_opens_on_the_list(hardware: VirtualDevice) -> None:
    assert PKG not in hardware.apps and not hardware.installed(PKG)
    install_standin(hardware, PKG)
    assert hardware.version_code(PKG) == 130605
    assert not hardware.permission_granted(PKG, NOTIFY)
    hardware.start_activity(PKG)
    assert hardware.current_focus() == (PKG, MAIN)
    assert exists(hardware, text="There are no tasks here.")  # nothing to dismiss first


def test_hardware_reminders_row_asks_for_notifications(hardware: VirtualDevice) -> None:
    install_standin(hardware, PKG)
    hardware.start_activity(PKG)
    new_task(hardware)
    hardware.wm.key(BACK)
    for _ in range(8):
        if exists(hardware, text=T.text("row_enable_reminders") + "\n" + T.text("row_enable_reminders_detail")):
            break
        scroll = find(hardware, cls=T.cls("editor_scroll"))
        x = (scroll.bounds[0] + scroll.bounds[2]) // 2
        hardware.wm.swipe(x, scroll.bounds[3] - 20, x, scroll.bounds[1] + 20)
    row = find(hardware, text=T.text("row_enable_reminders") + "\n" + T.text("row_enable_reminders_detail"))
    hardware.wm.tap(*row.center)
    assert hardware.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    tap(hardware, resource_id="com.android.permissioncontroller:id/permission_allow_button")
    assert hardware.permission_granted(PKG, NOTIFY)
    assert hardware.current_focus() == (PKG, MAIN)
    assert exists(hardware, text=T.text("row_add_reminder"))


def test_pm_clear_removes_the_database_and_the_hint_comes_back(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    new_task(device, "Gone")
    tap(device, text=T.text("beast_hint_dismiss"))
    tap(device, content_desc="Save")
    assert len(rows(device)) == 1
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device) and not device.fs.host(D.PREFS).exists()
    assert device.current_focus()[0] != PKG
    device.start_activity(PKG)
    assert D.STORE.exists(device) and rows(device) == []
    new_task(device)
    assert exists(device, text=T.text("beast_hint_title"))


# ---------------------------------------------------------------------------------------------- seed, gallery
def test_seed_rows_are_android_worlds_task_rows() -> None:
    due = dt.datetime(2026, 1, 20, 10, 30, tzinfo=dt.UTC)
    row = TaskSeed.row(TaskSpec(title="Grocery Shopping", notes="milk", due=due, importance=1))
    assert set(row) == set(TASK_COLUMNS) - {"_id"}
    due_ms = int(due.timestamp()) * 1000
    assert (row["dueDate"], row["created"], row["modified"]) == (due_ms, due_ms - 25200, due_ms - 25200)
    assert (row["importance"], row["notes"], row["recurrence"], row["deleted"]) == (1, "milk", None, 0)
    assert int(row["remoteId"]) > 2 ** 64  # a 128-bit uuid's int, as android_world writes it
    assert TaskSeed.row(TaskSpec(title="x"))["notes"] is None
    sql = TaskSeed.insert_sql([TaskSpec(title="It's")])
    assert sql.startswith("BEGIN; INSERT INTO `tasks` (") and "'It''s'" in sql


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = rendered_scenes(device, PKG)
    assert names == ["my tasks (empty)", "my tasks", "overflow menu", "new task", "existing task",
                     "delete confirmation"]
    assert exists(device, text="Delete this task?")
