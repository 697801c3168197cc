"""Simple Calendar Pro 6.22.2 (``com.simplemobiletools.calendar.pro``, versionCode 238, the build android_world
installs): create, open, edit and delete events, copy and paste text between its fields; its events read as
android_world reads them; the ``events:`` section of a base snapshot spec.

Selects only through the pinned table (``tables/com.simplemobiletools.calendar.pro/238.yaml``; repos ``cal``
SimpleMobileTools/Simple-Calendar f8959bcf at tag 6.22.2 and ``commons`` Simple-Commons 71d66584).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "Calendar"; a fresh install opens on the month view with nothing to dismiss;
* the FAB ``calendar_fab`` ("New Event") expands into "Event" / "Task" on its first tap, a second tap opens a
  new event (MainActivity.kt:101-117, 943-972);
* Save writes the row and finishes the editor; the first save of an event with a reminder shows the "Disclaimer"
  (OK continues), and without POST_NOTIFICATIONS the permission dialog;
* an existing event is reached through the search field (``top_toolbar_search``) whose results list the event
  rows (``event_item_holder`` / ``event_item_title``); Delete asks "Are you sure you want to proceed with the
  deletion?" Yes / No;
* text is copied from a field with the framework's floating toolbar (long press, "Select all", "Copy") and
  pasted with a long press on the target field, "Paste".

The events probe (:func:`read_events`) pulls the whole ``databases`` folder (``-wal`` included) and runs
``SELECT * FROM events`` on the copy, as android_world's ``sqlite_utils.get_rows_from_remote_device`` does
(android_world d9c569f7 task_evals/utils/sqlite_utils.py:27-103; calendar_utils.py:25-27).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from emukit.apps.base import AppProfile, DoctorCheck, operation, register_app
from emukit.apps.dataspec import AppDatabase, DbReading, RowsSeed
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "com.simplemobiletools.calendar.pro"
EVENTS_DB = AppDatabase(PACKAGE, "events.db")
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent


class EventSpec(BaseModel):
    """An event of a base snapshot, written as android_world writes its events (CalendarEvent defaults,
    android_world sqlite_schema_utils.py:139-194: source "imported-ics", reminders off, time zone UTC)."""

    model_config = ConfigDict(extra="forbid")
    title: str
    start: dt.datetime
    minutes: int = Field(60, ge=0)
    description: str = ""
    location: str = ""
    all_day: bool = False


class EventSeed(RowsSeed):
    """``events:`` in a base snapshot spec: rows of ``events`` in ``events.db`` (the app's first launch creates
    the database, its Regular event type and the prefs that show that type)."""

    key = "events"
    item = EventSpec
    database = EVENTS_DB
    table = "events"
    profile = "calendar"

    @classmethod
    def row(cls, item: Any) -> dict[str, Any]:
        start = item.start if item.start.tzinfo else item.start.replace(tzinfo=dt.UTC)
        start_ts = int(start.timestamp())
        return {"start_ts": start_ts, "end_ts": start_ts + 60 * item.minutes, "title": item.title,
                "location": item.location, "description": item.description, "reminder_1_minutes": -1,
                "reminder_2_minutes": -1, "reminder_3_minutes": -1, "reminder_1_type": 0, "reminder_2_type": 0,
                "reminder_3_type": 0, "repeat_interval": 0, "repeat_rule": 0, "repeat_limit": 0,
                "repetition_exceptions": "[]", "attendees": "", "import_id": "", "time_zone": "UTC",
                "flags": 1 if item.all_day else 0, "event_type": 1, "parent_id": 0, "last_updated": 0,
                "source": "imported-ics", "availability": 0, "color": 0, "type": 0}


def read_events(driver: Driver) -> DbReading:
    """Every row of ``events`` (an explicit empty reading with its ``reason`` when the app has not created its
    database: installed or cleared and not opened since)."""
    return EVENTS_DB.read(driver, "SELECT * FROM events ORDER BY start_ts, id")


@register_app
class CalendarProfile(AppProfile):
    package = PACKAGE
    name = "calendar"
    database = EVENTS_DB
    activity = f"{PACKAGE}.activities.MainActivity"
    seed = EventSeed
    main_screens = ("main",)
    fixture_screens = ("month", "editor_new", "delete_confirm")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``main`` (the FAB shows), ``editor`` or None while neither is in front."""
        if self.driver.exists(**self.sel("fab_new_event")):
            return "main"
        if self.driver.exists(**self.sel("editor_toolbar")):
            return "editor"
        return None

    @operation
    def complete_first_run(self) -> None:
        """A fresh install opens on its month view with nothing to dismiss (MainActivity.kt:91-166); launching
        it once creates its database (the first access in onResume)."""
        self.launch(fresh=True)
        self.driver.wait_until(lambda: self.first_run_screen() == "main", "the Calendar's month view")

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "the Calendar")

    # ------------------------------------------------------------------ events
    def _editor_open(self) -> bool:
        return self.driver.exists(**self.sel("editor_toolbar"))

    @operation
    def new_event(self) -> None:
        """The FAB twice: the first tap expands it, the second opens a new event."""
        self.driver.tap(**self.sel("fab_new_event"))
        self.driver.element(**self.sel("fab_event_label"))
        self.driver.tap(**self.sel("fab_new_event"))
        self.driver.wait_until(self._editor_open, "the event editor")

    @operation
    def fill(self, *, title: str | None = None, description: str | None = None, location: str | None = None) -> None:
        """Type into the editor's fields (each is cleared first)."""
        for entry, value in (("title_field", title), ("location_field", location),
                             ("description_field", description)):
            if value is None:
                continue
            field = self._tap_field(entry)
            if field.text:  # the caret to the end, then DEL over the old text
                self.driver.key(KEYCODE_MOVE_END)
                for _ in range(len(field.text)):
                    self.driver.key(KEYCODE_DEL)
            if value:
                self.driver.type_text(value)

    @operation
    def set_date(self, which: str, day: dt.date) -> None:
        """Pick ``day`` as the ``start`` or ``end`` date in the framework date picker."""
        if which == "start":
            self.driver.tap(**self.sel("start_date"))
        else:
            self.driver.tap(**self.sel("end_date"))
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
    def set_time(self, which: str, hour: int, minute: int) -> None:
        """Pick ``hour``:``minute`` (minute a multiple of 5) on the time picker's clock face."""
        if minute % 5:
            raise DeviceError(f"{self.driver.serial}: the clock face picks minutes in steps of 5, not {minute}")
        if which == "start":
            self.driver.tap(**self.sel("start_time"))
        else:
            self.driver.tap(**self.sel("end_time"))
        self.driver.element(**self.sel("time_picker_ok"))
        self.driver.tap(**self.sel("time_picker_hour", value="00" if hour == 0 else hour))
        self.driver.wait_stable()  # picking an hour turns the face to the minutes
        self.driver.tap(**self.sel("time_picker_minute", value=f"{minute:02d}"))
        self.driver.tap(**self.sel("time_picker_ok"))

    @operation
    def save(self) -> None:
        """Save; accept the first-save Disclaimer and allow notifications if they are asked for."""
        self.driver.tap(**self.sel("save"))
        for _ in range(3):
            self.driver.wait_stable()
            if self.driver.exists(**self.sel("reminder_warning_title")):
                self.driver.tap(**self.sel("reminder_warning_ok"))
            elif self.driver.exists(**self.sel("permissions:allow_button")):
                self.driver.tap(**self.sel("permissions:allow_button"))
            elif not self._editor_open():
                return
        self.driver.wait_until(lambda: not self._editor_open(), "the editor to close after Save")

    @operation
    def create_event(self, title: str, *, description: str = "", day: dt.date | None = None,
                     hour: int | None = None, minute: int = 0) -> None:
        """New event with a title, description, date and start time; Save."""
        self.new_event()
        self.fill(title=title, description=description or None)
        if day is not None:
            self.set_date("start", day)
        if hour is not None:
            self.set_time("start", hour, minute)
        self.save()

    @operation
    def open_event(self, title: str) -> None:
        """Search for ``title`` and open its row (BACK first closes a search left open, which clears it)."""
        if self.driver.element(**self.sel("search_field")).text:
            self.driver.back()
            self.driver.wait_until(lambda: not self.driver.element(**self.sel("search_field")).text,
                                   "the search to close")
        self.driver.tap(**self.sel("search_field"))
        self.driver.type_text(title)
        self.driver.tap(**self.sel("event_row_title"), text=title)
        self.driver.wait_until(self._editor_open, f"the event {title!r}")

    @operation
    def edit_event(self, title: str, *, new_title: str | None = None, description: str | None = None) -> None:
        """Open ``title``, change its fields, Save."""
        self.open_event(title)
        self.fill(title=new_title, description=description)
        self.save()

    @operation
    def delete_event(self, title: str) -> None:
        """Open ``title``, Delete, Yes."""
        self.open_event(title)
        self.driver.tap(**self.sel("delete"))
        self.driver.tap(**self.sel("delete_yes"))
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
        """A new event's editor with the title field long-pressed: the text toolbar's "Paste" shows (the query
        context of a paste; an editor left open is left first, with BACK)."""
        for _ in range(3):
            if not self._editor_open():
                break
            self.driver.back()
            self.driver.wait_stable()
        self.new_event()
        self.show_paste_menu(self._tap_field("title_field"))

    def _tap_field(self, entry: str) -> Any:
        """Tap one of the editor's text fields (title_field, location_field, description_field); its element."""
        if entry == "title_field":
            field = self.driver.element(**self.sel("title_field"))
        elif entry == "location_field":
            field = self.driver.element(**self.sel("location_field"))
        elif entry == "description_field":
            field = self.driver.element(**self.sel("description_field"))
        else:
            raise DeviceError(f"{self.driver.serial}: {entry!r} is not an editor text field")
        self.driver.tap(*field.center)
        return field

    def events(self) -> DbReading:
        return read_events(self.driver)

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The month view of a cleared Calendar opened once, a new event, an event saved then opened and Delete
        pressed (the confirmation)."""
        def month() -> None:
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            self.complete_first_run()

        def editor_new() -> None:
            month()
            self.new_event()

        def delete_confirm() -> None:
            month()
            self.create_event("Capture check")
            self.open_event("Capture check")
            self.driver.tap(**self.sel("delete"))
            self.driver.element(**self.sel("delete_yes"))

        return {"month": month, "editor_new": editor_new, "delete_confirm": delete_confirm}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``calendar database``: events.db has the schema the probe reads (the 27 columns android_world's
        CalendarEvent has), or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read the Calendar's database", "fix the root row first"
            reading = EVENTS_DB.read(self.driver, "PRAGMA table_info(events)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            ok = len(columns) == 27 and columns[:4] == ["id", "start_ts", "end_ts", "title"]
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return ok, f"events has {len(columns)} columns", fix

        return [("calendar database", row)]
