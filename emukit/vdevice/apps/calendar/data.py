"""Simple Calendar Pro's data, where and how the real app keeps it (facts: the pinned table's repos ``cal``
SimpleMobileTools/Simple-Calendar f8959bcf (tag 6.22.2) and ``commons`` Simple-Commons 71d66584).

* ``databases/events.db``: Room ``EventsDatabase`` version 8 (cal:.../databases/EventsDatabase.kt:25, 44), entities
  Event, EventType, Widget, Task (Event.kt:15-44, EventType.kt:9-18, Widget.kt:8-12, Task.kt:9-15). The CREATE
  statements are Room's for those entities (no schema is exported at the tag; checked column for column against
  FossifyOrg/Calendar 46794e05 app/schemas/.../9.json, which adds only ``status``); the identity hash is Room's
  algorithm over them. Room's onCreate callback inserts the "Regular event" type (id 1) and adds "1" to the
  prefs' ``display_event_types`` (EventsDatabase.kt:45-50, 70-77); events of types not listed there are not shown
  (EventsHelper.kt:366-384). The first access is MainActivity.onResume's ``getEventTypes`` (MainActivity.kt:177).
* ``shared_prefs/Prefs.xml`` (commons Constants.kt:71): ``view`` (1 monthly, 3 simple event list; default 1,
  Config.kt:62-64), ``display_event_types``, ``was_alarm_warning_shown`` (BaseConfig.kt:314-316).
* timestamps are seconds (``DateTime.seconds()``, extensions/DateTime.kt:5); ``last_updated`` milliseconds
  (EventActivity.kt:1301); a new event made in the app has ``source`` "simple-calendar", ``import_id`` a UUID
  without dashes followed by the time in ms, reminder 1 = 10 minutes (EventActivity.kt:1223-1246, 262-264).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "com.simplemobiletools.calendar.pro"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/Prefs.xml"
MONTHLY_VIEW, EVENTS_LIST_VIEW = 1, 3  # Constants.kt:42-48
FLAG_ALL_DAY = 1  # Constants.kt:152
REGULAR_EVENT_TYPE_ID = 1  # Constants.kt:38
SOURCE_SIMPLE_CALENDAR = "simple-calendar"  # Constants.kt:226
REGULAR_EVENT_COLOR = -10453621  # the type's colour is the theme's primary (device-dependent, see the table)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")  # commons strings.xml "months"

SCHEMA = RoomSchema(
    package=PACKAGE, name="events.db", version=8, identity_hash="1d5b2fddcb258e43f2935820863057a9",
    create=(
        ("CREATE TABLE IF NOT EXISTS `events` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `start_ts` INTEGER NOT NULL, "
         "`end_ts` INTEGER NOT NULL, `title` TEXT NOT NULL, `location` TEXT NOT NULL, `description` TEXT NOT NULL, "
         "`reminder_1_minutes` INTEGER NOT NULL, `reminder_2_minutes` INTEGER NOT NULL, "
         "`reminder_3_minutes` INTEGER NOT NULL, `reminder_1_type` INTEGER NOT NULL, "
         "`reminder_2_type` INTEGER NOT NULL, `reminder_3_type` INTEGER NOT NULL, `repeat_interval` INTEGER NOT NULL, "
         "`repeat_rule` INTEGER NOT NULL, `repeat_limit` INTEGER NOT NULL, `repetition_exceptions` TEXT NOT NULL, "
         "`attendees` TEXT NOT NULL, `import_id` TEXT NOT NULL, `time_zone` TEXT NOT NULL, `flags` INTEGER NOT NULL, "
         "`event_type` INTEGER NOT NULL, `parent_id` INTEGER NOT NULL, `last_updated` INTEGER NOT NULL, "
         "`source` TEXT NOT NULL, `availability` INTEGER NOT NULL, `color` INTEGER NOT NULL, `type` INTEGER NOT NULL)"),
        "CREATE UNIQUE INDEX IF NOT EXISTS `index_events_id` ON `events` (`id`)",
        ("CREATE TABLE IF NOT EXISTS `event_types` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `title` TEXT NOT NULL, "
         "`color` INTEGER NOT NULL, `caldav_calendar_id` INTEGER NOT NULL, `caldav_display_name` TEXT NOT NULL, "
         "`caldav_email` TEXT NOT NULL, `type` INTEGER NOT NULL)"),
        "CREATE UNIQUE INDEX IF NOT EXISTS `index_event_types_id` ON `event_types` (`id`)",
        ("CREATE TABLE IF NOT EXISTS `widgets` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `widget_id` INTEGER NOT NULL, "
         "`period` INTEGER NOT NULL)"),
        "CREATE UNIQUE INDEX IF NOT EXISTS `index_widgets_widget_id` ON `widgets` (`widget_id`)",
        ("CREATE TABLE IF NOT EXISTS `tasks` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `task_id` INTEGER NOT NULL, "
         "`start_ts` INTEGER NOT NULL, `flags` INTEGER NOT NULL)"),
        "CREATE UNIQUE INDEX IF NOT EXISTS `index_tasks_id_task_id` ON `tasks` (`id`, `task_id`)",
    ),
    on_create=((("INSERT INTO event_types (id, title, color, caldav_calendar_id, caldav_display_name, caldav_email, "
                 "type) VALUES (1, 'Regular event', ?, 0, '', '', 0)"), (REGULAR_EVENT_COLOR,)),),
)
STORE = RoomStore(SCHEMA)
EVENT_COLUMNS = ("start_ts", "end_ts", "title", "location", "description", "reminder_1_minutes",
                 "reminder_2_minutes", "reminder_3_minutes", "reminder_1_type", "reminder_2_type", "reminder_3_type",
                 "repeat_interval", "repeat_rule", "repeat_limit", "repetition_exceptions", "attendees", "import_id",
                 "time_zone", "flags", "event_type", "parent_id", "last_updated", "source", "availability", "color",
                 "type")


def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def open_database(device: VirtualDevice) -> None:
    """The app's first access: Room creates events.db with the Regular event type, whose callback lists it in
    ``display_event_types``."""
    if STORE.exists(device):
        return
    STORE.create(device)
    p = prefs(device)
    p.put_set("display_event_types", sorted({*p.get_set("display_event_types"), "1"}))
    shared_prefs.save(device, PREFS, p)


def view(device: VirtualDevice) -> int:
    return prefs(device).get_int("view", MONTHLY_VIEW)


def set_view(device: VirtualDevice, value: int) -> None:
    p = prefs(device)
    p.put_int("view", value)
    shared_prefs.save(device, PREFS, p)


def events(device: VirtualDevice, where: str = "", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """The events the app shows (types listed in ``display_event_types``), by start."""
    shown = [int(t) for t in prefs(device).get_set("display_event_types") if t.isdigit()]
    if not shown:
        return []
    marks = ",".join("?" * len(shown))
    sql = f"SELECT * FROM events WHERE event_type IN ({marks}) {('AND ' + where) if where else ''} ORDER BY start_ts, id"
    return STORE.rows(device, sql, (*shown, *args))


def event(device: VirtualDevice, event_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM events WHERE id = ?", (event_id,))
    return rows[0] if rows else None


def save_event(device: VirtualDevice, values: dict[str, Any], event_id: int | None) -> int:
    """``eventsDB.insertOrUpdate`` (REPLACE) of a new or existing event; returns its id."""
    now_ms = device.wall_ms()
    row = dict(values)
    if event_id is None:
        seed = hashlib.sha256(f"{now_ms}:{values.get('title', '')}".encode()).hexdigest()[:32]
        row.setdefault("import_id", f"{seed}{now_ms}")
    row["last_updated"] = now_ms
    full = {**new_event_defaults(), **row}
    columns = ("id", *EVENT_COLUMNS) if event_id is not None else EVENT_COLUMNS
    values_ = ((event_id,) if event_id is not None else ()) + tuple(full[c] for c in EVENT_COLUMNS)
    sql = (f"INSERT OR REPLACE INTO events ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})")
    new_id = STORE.execute(device, sql, values_)
    return event_id if event_id is not None else new_id


def delete_event(device: VirtualDevice, event_id: int) -> None:
    """``deleteEvent(id, true)``: the row and its children (EventsHelper.kt:260-292)."""
    STORE.execute(device, "DELETE FROM events WHERE id = ? OR parent_id = ?", (event_id, event_id))


def new_event_defaults() -> dict[str, Any]:
    return {"location": "", "description": "", "reminder_1_minutes": 10, "reminder_2_minutes": -1,
            "reminder_3_minutes": -1, "reminder_1_type": 0, "reminder_2_type": 0, "reminder_3_type": 0,
            "repeat_interval": 0, "repeat_rule": 0, "repeat_limit": 0, "repetition_exceptions": "[]",
            "attendees": "", "import_id": "", "time_zone": "UTC", "flags": 0, "event_type": REGULAR_EVENT_TYPE_ID,
            "parent_id": 0, "last_updated": 0, "source": SOURCE_SIMPLE_CALENDAR, "availability": 0, "color": 0,
            "type": 0}


def local(device: VirtualDevice, ts: int) -> dt.datetime:
    """A timestamp in the device's zone (UTC on the virtual device: ``persist.sys.timezone``)."""
    return dt.datetime.fromtimestamp(ts, dt.UTC)


def today(device: VirtualDevice) -> dt.date:
    return local(device, device.wall_ms() // 1000).date()


def day_title(device: VirtualDevice, day: dt.date) -> str:
    """``Formatter.getDayTitle``: "October 15 (Sun)", the year only when it is not the current one
    (Formatter.kt:26-52)."""
    year = "" if day.year == today(device).year else f" {day.year}"
    return f"{MONTHS[day.month - 1]} {day.day}{year} ({day.strftime('%a')})"


def time_text(hour: int, minute: int) -> str:
    """``HH:mm`` (the 24-hour format the device uses, Formatter.kt:20-21)."""
    return f"{hour:02d}:{minute:02d}"


def month_title(device: VirtualDevice, year: int, month: int) -> str:
    """The month view's ``top_value``: the month name, the year appended when not the current one
    (MonthlyCalendarImpl.kt:119-127)."""
    return MONTHS[month - 1] + ("" if year == today(device).year else f" {year}")
