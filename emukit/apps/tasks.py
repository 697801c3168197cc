"""Tasks.org 13.6.3 (``org.tasks``, versionCode 130605, the build android_world installs): create, open, edit and
delete tasks, copy and paste text between the title and the description; its tasks read as android_world reads them;
the ``tasks:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/org.tasks/130605.yaml``; repo ``tasks`` tasks/tasks ee21cc66 at
tag 13.6.3).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "Tasks"; a fresh install opens on "My Tasks" with nothing to dismiss;
* the list and the editor are fragments of one activity (MainActivity); the FAB "Create new task" opens the editor
  on a new task with the title focused; a row (``rowBody``) opens its task;
* the editor's rows are Jetpack Compose without resource ids: the description is the second EditText on the screen
  (``instance`` 1), reached by scrolling the rows (a ScrollView without id);
* the toolbar's navigation button "Save" saves and closes the editor; BACK does NOT save: with changes it asks
  "Are you sure you want to discard your changes?" (Keep editing / Discard);
* "Delete task" asks "Delete this task?" OK / Cancel; OK sets ``deleted`` (a task made in the app is then purged
  from ``tasks`` by the cleanup work, a task android_world wrote keeps its row with ``deleted`` > 0);
* text is copied from a field with the framework's floating toolbar (long press, "Select all", "Copy") and pasted
  with a long press on the target field, "Paste". The multi-select "Copy" duplicates tasks; it is not a clipboard
  action.

The tasks probe (:func:`read_tasks`) pulls the whole ``databases`` folder and runs ``SELECT * FROM tasks`` on the
copy, as android_world's ``task_app_utils.list_rows`` does (android_world d9c569f7
task_evals/information_retrieval/task_app_utils.py:35-38, 119-127; sqlite_utils.py:53-103).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from emukit.apps.base import AppProfile, DoctorCheck, operation, register_app
from emukit.apps.dataspec import AppDatabase, DbReading, RowsSeed
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "org.tasks"
TASKS_DB = AppDatabase(PACKAGE, "database")
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent
#: the 23 columns of ``tasks`` (Room schema 88; android_world's Task, sqlite_schema_utils.py:266-295)
TASK_COLUMNS = ("_id", "title", "importance", "dueDate", "hideUntil", "created", "modified", "completed", "deleted",
                "notes", "estimatedSeconds", "elapsedSeconds", "timerStart", "notificationFlags", "lastNotified",
                "recurrence", "repeat_from", "calendarUri", "remoteId", "collapsed", "parent", "order", "read_only")


def _ms(when: dt.datetime | None) -> int:
    if when is None:
        return 0
    when = when if when.tzinfo else when.replace(tzinfo=dt.UTC)
    return int(when.timestamp()) * 1000


class TaskSpec(BaseModel):
    """A task of a base snapshot, written as android_world writes its tasks (task_app_utils.py:55-96): times in
    milliseconds, ``created`` = ``modified`` = the due date minus 7*3600 (sic, milliseconds), importance 2 unless
    given (0 high .. 3 none), ``remoteId`` a 128-bit integer as text, no list (no ``caldav_tasks`` row)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    notes: str | None = None
    due: dt.datetime | None = None
    hide_until: dt.datetime | None = None
    completed: dt.datetime | None = None
    importance: int = Field(2, ge=0, le=3)


class TaskSeed(RowsSeed):
    """``tasks:`` in a base snapshot spec: rows of ``tasks`` in ``databases/database`` (the app's first start
    creates the database)."""

    key = "tasks"
    item = TaskSpec
    database = TASKS_DB
    table = "tasks"
    profile = "tasks"

    @classmethod
    def row(cls, item: Any) -> dict[str, Any]:
        due = _ms(item.due)
        created = due - 7 * 3600
        remote = uuid.uuid5(uuid.NAMESPACE_URL, f"org.tasks:{item.title}:{due}").int  # deterministic, as uuid4().int
        return {"title": item.title, "importance": item.importance, "dueDate": due, "hideUntil": _ms(item.hide_until),
                "created": created, "modified": created, "completed": _ms(item.completed), "deleted": 0,
                "notes": item.notes, "estimatedSeconds": 0, "elapsedSeconds": 0, "timerStart": 0,
                "notificationFlags": 0, "lastNotified": 0, "recurrence": None, "repeat_from": 0, "calendarUri": None,
                "remoteId": str(remote), "collapsed": 0, "parent": 0, "order": None, "read_only": 0}


def read_tasks(driver: Driver) -> DbReading:
    """Every row of ``tasks`` (an explicit empty reading with its ``reason`` when the app has not created its
    database: installed or cleared and not opened since)."""
    return TASKS_DB.read(driver, "SELECT * FROM tasks ORDER BY _id")


@register_app
class TasksProfile(AppProfile):
    package = PACKAGE
    name = "tasks"
    database = TASKS_DB
    activity = "com.todoroo.astrid.activity.MainActivity"
    seed = TaskSeed
    main_screens = ("list",)
    fixture_screens = ("task_list", "editor_new", "delete_confirm")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``list`` (the "Create new task" FAB shows), ``editor`` or None while neither is in front."""
        if self.driver.exists(**self.sel("fab_add")):
            return "list"
        if self.driver.exists(**self.sel("editor_save")):
            return "editor"
        return None

    @operation
    def complete_first_run(self) -> None:
        """A fresh install opens on "My Tasks" with nothing to dismiss (MainActivity.kt:82-98, 316-331;
        Upgrader.kt:68-122); its start creates the database."""
        self.launch(fresh=True)
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Tasks.org's first screen")
        if self.first_run_screen() == "editor":  # left open by an earlier run: close it without writing
            self._leave_editor()
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "Tasks.org's task list")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "Tasks.org")

    def _editor_open(self) -> bool:
        return self.driver.exists(**self.sel("editor_save"))

    def _leave_editor(self) -> None:
        """BACK out of the editor, discarding (the keyboard first, then the question when there are changes)."""
        for _ in range(4):
            if not self._editor_open():
                return
            if self.driver.exists(**self.sel("discard_confirm")):
                self.driver.tap(**self.sel("discard_confirm"))
            else:
                self.driver.back()
            self.driver.wait_stable()
        if self._editor_open():
            raise DeviceError(f"{self.driver.serial}: the task editor did not close")

    # ------------------------------------------------------------------ tasks
    @operation
    def new_task(self) -> None:
        """The FAB: the editor of a new task."""
        if self._editor_open():
            self._leave_editor()
        self.driver.tap(**self.sel("fab_add"))
        self.driver.wait_until(self._editor_open, "the task editor")

    @operation
    def fill(self, *, title: str | None = None, description: str | None = None) -> None:
        """Type into the editor's title and description (each is cleared first)."""
        for entry, value in (("title_field", title), ("description_field", description)):
            if value is None:
                continue
            field = self._tap_field(entry)
            if field.text:
                self.driver.key(KEYCODE_MOVE_END)
                for _ in range(len(field.text)):
                    self.driver.key(KEYCODE_DEL)
            if value:
                self.driver.type_text(value)

    @operation
    def save(self) -> None:
        """The toolbar's "Save" (navigation button): the task is written and the list shows again."""
        self.driver.tap(**self.sel("editor_save"))
        self.driver.wait_until(lambda: not self._editor_open(), "the editor to close after Save")

    @operation
    def create_task(self, title: str, *, description: str = "") -> None:
        """New task with a title and a description; Save."""
        self.new_task()
        self.fill(title=title, description=description or None)
        self.save()

    @operation
    def open_task(self, title: str) -> None:
        """Tap the row of ``title`` in "My Tasks" (scrolling the list to it)."""
        if self._editor_open():
            self._leave_editor()

        def row() -> Any:
            return self.driver.find(**self.sel("task_row_title"), text=title)

        self.scroll_into_view("task_list", row, max_swipes=8)
        self.driver.tap(**self.sel("task_row_title"), text=title)
        self.driver.wait_until(self._editor_open, f"the task {title!r}")

    @operation
    def edit_task(self, title: str, *, new_title: str | None = None, description: str | None = None) -> None:
        """Open ``title``, change its fields, Save."""
        self.open_task(title)
        self.fill(title=new_title, description=description)
        self.save()

    @operation
    def delete_task(self, title: str) -> None:
        """Open ``title``, "Delete task", OK."""
        self.open_task(title)
        self.driver.tap(**self.sel("delete"))
        self.driver.tap(**self.sel("delete_ok"))
        self.driver.wait_until(lambda: not self._editor_open(), "the editor to close after Delete")

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

    @operation
    def paste_menu(self) -> None:
        """A new task's editor with the title field long-pressed: the text toolbar's "Paste" shows (the query
        context of a paste; an editor left open is left first)."""
        self.new_task()
        self.show_paste_menu(self._tap_field("title_field"))

    def _field(self, entry: str) -> Any:
        """The element of one of the editor's text fields (title_field, description_field; the description is the
        Compose row's EditText, without id: the second EditText, scrolled into view)."""
        if entry == "title_field":
            return self.driver.element(**self.sel("title_field"))
        if entry == "description_field":
            self.scroll_into_view("editor_scroll",
                                  lambda: self.driver.find(**self.sel("description_field"), instance=1), max_swipes=6)
            return self.driver.element(**self.sel("description_field"), instance=1)
        raise DeviceError(f"{self.driver.serial}: {entry!r} is not an editor text field")

    def _tap_field(self, entry: str) -> Any:
        """Tap one of the editor's text fields; its element (read again after the tap)."""
        field = self._field(entry)
        self.driver.tap(*field.center)
        return self._field(entry)

    def tasks(self) -> DbReading:
        return read_tasks(self.driver)

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The list of a cleared Tasks opened once, a new task's editor, a saved task opened and "Delete task"
        pressed (the confirmation)."""
        def task_list() -> None:
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            self.complete_first_run()

        def editor_new() -> None:
            task_list()
            self.new_task()

        def delete_confirm() -> None:
            task_list()
            self.create_task("Capture check")
            self.open_task("Capture check")
            self.driver.tap(**self.sel("delete"))
            self.driver.element(**self.sel("delete_ok"))

        return {"task_list": task_list, "editor_new": editor_new, "delete_confirm": delete_confirm}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``tasks database``: ``database`` has the ``tasks`` table the probe reads (the 23 columns android_world's
        Task has), or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read Tasks.org's database", "fix the root row first"
            reading = TASKS_DB.read(self.driver, "PRAGMA table_info(tasks)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = tuple(r["name"] for r in reading.rows)
            ok = columns == TASK_COLUMNS
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return ok, f"tasks has {len(columns)} columns", fix

        return [("tasks database", row)]
