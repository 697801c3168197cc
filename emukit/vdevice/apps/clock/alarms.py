"""The Alarm tab: alarms in DeskClock's database ``databases/alarms.db``, table ``alarm_templates``.

The database lives in device-protected storage, where ``ClockProvider.onCreate`` moves it
(``createDeviceProtectedStorageContext().moveDatabaseFrom``, LineageOS/android_packages_apps_DeskClock
lineage-17.1 eac5d7688f48 ``src/com/android/deskclock/provider/ClockProvider.java`` 137-138).

The database is created when the app's process first starts, with AOSP's two default (disabled) alarms:
8:30 on weekdays and 9:00 at weekends. ``daysofweek`` is DeskClock's bit set (Monday = 1 ... Sunday = 64).
Alarms are listed, switched on and off, added and re-timed through a time picker, and deleted; they do not
ring (the virtual device has no alarm manager).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from typing import TYPE_CHECKING

from emukit.vdevice.apps.clock.common import PACKAGE, S, rid, text
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.clockfmt import local_now, uses_24h
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

DB_PATH = f"/data/user_de/0/{PACKAGE}/databases/alarms.db"
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
CARD_H = px(280)
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, "
    "minutes INTEGER NOT NULL, daysofweek INTEGER NOT NULL, enabled INTEGER NOT NULL, vibrate INTEGER NOT NULL, "
    "label TEXT NOT NULL, ringtone TEXT, delete_after_use INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS alarm_instances (_id INTEGER PRIMARY KEY, year INTEGER NOT NULL, "
    "month INTEGER NOT NULL, day INTEGER NOT NULL, hour INTEGER NOT NULL, minutes INTEGER NOT NULL, "
    "vibrate INTEGER NOT NULL, label TEXT NOT NULL, ringtone TEXT, alarm_state INTEGER NOT NULL, "
    "alarm_id INTEGER REFERENCES alarm_templates(_id) ON UPDATE CASCADE ON DELETE CASCADE);"
)
DEFAULTS = ((8, 30, 31), (9, 0, 96))


def _connect(device: VirtualDevice) -> sqlite3.Connection:
    device.fs.makedirs(DB_PATH.rsplit("/", 1)[0])
    return sqlite3.connect(device.fs.host(DB_PATH), isolation_level=None)


def ensure_db(device: VirtualDevice) -> None:
    """Create the database with the default alarms if it does not exist yet."""
    if device.fs.host(DB_PATH).exists():
        return
    with closing(_connect(device)) as db:
        db.executescript(SCHEMA)
        db.execute("PRAGMA user_version = 19")
        for hour, minute, days in DEFAULTS:
            db.execute("INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label, ringtone, "
                       "delete_after_use) VALUES (?, ?, ?, 0, 1, '', NULL, 0)", (hour, minute, days))


def alarms(device: VirtualDevice) -> list[tuple[int, int, int, int, bool, str]]:
    """(id, hour, minutes, daysofweek, enabled, label) ordered like DeskClock (by time, then id)."""
    if not device.fs.host(DB_PATH).exists():
        return []
    try:
        with closing(_connect(device)) as db:
            rows = db.execute("SELECT _id, hour, minutes, daysofweek, enabled, label FROM alarm_templates "
                              "ORDER BY hour, minutes, _id").fetchall()
    except sqlite3.Error:
        return []
    return [(r[0], r[1], r[2], r[3], bool(r[4]), r[5] or "") for r in rows]


def execute(device: VirtualDevice, sql: str, args: tuple = ()) -> None:
    ensure_db(device)
    with closing(_connect(device)) as db:
        db.execute(sql, args)


def days_text(device: VirtualDevice, days: int, hour: int, minute: int, enabled: bool) -> str:
    """``Mon, Tue, ...`` for repeating alarms; a one-time alarm says when it rings next."""
    if days == 0:
        if not enabled:
            return "Not scheduled"
        now = local_now(device)
        return "Today" if (hour, minute) > (now.hour, now.minute) else "Tomorrow"
    if days == 127:
        return "Every day"
    return ", ".join(name for i, name in enumerate(DAY_NAMES) if days & (1 << i))


def format_alarm(device: VirtualDevice, hour: int, minute: int) -> str:
    if uses_24h(device):
        return f"{hour:02d}:{minute:02d}"
    return f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def build(device: VirtualDevice, act: Activity, root: View, body: Bounds) -> None:
    items = alarms(device)

    def edit(alarm_id: int | None, hour: int, minute: int) -> Callable[[], None]:
        return lambda: act.state.update(dialog={"kind": "alarm", "id": alarm_id, "h": hour, "m": minute})

    if not items:
        root.add(w.empty_state(body, "alarm", "No alarms"))
    rows = [(CARD_H + px(30), lambda top, a=a: _card(device, body, top + px(30), a, edit(a[0], a[1], a[2])))
            for a in items]
    root.add(w.scroll_list(body, rows, act.state.get("alarm_scroll", 0),
                           lambda v: act.state.update(alarm_scroll=v), rid=rid("alarm_recycler_view"),
                           padding_bottom=px(300)))
    root.add(w.fab(body, "plus", S.desc("alarm_add"), edit(None, 8, 0), rid=S.rid("alarm_add")))
    dialog = act.state.get("dialog")
    if dialog and dialog.get("kind") == "alarm":
        root.add(_time_dialog(device, act, root.bounds, dialog))


def _card(device: VirtualDevice, body: Bounds, y: int, alarm: tuple, on_edit: Callable[[], None]) -> View:
    alarm_id, hour, minute, days, enabled, label = alarm
    x0, x1 = body[0] + px(36), body[2] - px(36)
    card = View(cls="android.view.ViewGroup", bounds=(x0, y, x1, y + CARD_H), resource_id=rid("alarm_card"),
                content_desc=f"{format_alarm(device, hour, minute)} Alarm",
                style=Style(bg=theme.SURFACE, radius=px(48)))
    card.add(text((x0 + px(48), y + px(20), x1 - px(48), y + px(90)), label or "Alarm", "edit_label",
                  size=theme.TEXT_LABEL, align="left", color=theme.TEXT_SECONDARY))
    card.add(text((x0 + px(48), y + px(90), x1 - px(390), y + px(200)), format_alarm(device, hour, minute),
                  "digital_clock", size=px(96), align="left", color=theme.TEXT if enabled else theme.TEXT_SECONDARY,
                  on_click=on_edit))
    card.add(text((x0 + px(48), y + px(200), x1 - px(48), y + px(260)), days_text(device, days, hour, minute, enabled),
                  "days_of_week", size=theme.TEXT_SMALL, align="left", color=theme.TEXT_SECONDARY))
    card.add(View(cls="android.widget.Switch", bounds=(x1 - px(220), y + px(100), x1 - px(48), y + px(190)),
                  checkable=True, checked=enabled, clickable=True, resource_id=rid("onoff"),
                  content_desc=f"{format_alarm(device, hour, minute)} Alarm", style=Style(padding=6),
                  on_click=lambda: execute(device, "UPDATE alarm_templates SET enabled = ? WHERE _id = ?",
                                           (0 if enabled else 1, alarm_id))))
    card.add(w.icon_button((x1 - px(370), y + px(82), x1 - px(244), y + px(208)), w.Action(
        "delete", "Delete alarm", lambda: execute(device, "DELETE FROM alarm_templates WHERE _id = ?", (alarm_id,)),
        rid("delete"))))
    return card


def _time_dialog(device: VirtualDevice, act: Activity, frame: Bounds, dlg: dict) -> View:
    def step(field: str, delta: int, modulo: int) -> Callable[[], None]:
        def apply() -> None:
            dlg[field] = (dlg[field] + delta) % modulo
            act.state["dialog"] = dlg
        return apply

    def cancel() -> None:
        act.state.pop("dialog", None)

    def ok() -> None:
        act.state.pop("dialog", None)
        if dlg.get("id") is None:
            execute(device, "INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label, "
                            "ringtone, delete_after_use) VALUES (?, ?, 0, 1, 1, '', NULL, 0)", (dlg["h"], dlg["m"]))
        else:
            execute(device, "UPDATE alarm_templates SET hour = ?, minutes = ?, enabled = 1 WHERE _id = ?",
                    (dlg["h"], dlg["m"], dlg["id"]))

    fields = [("Hour", f"{dlg['h']:02d}", step("h", -1, 24), step("h", 1, 24)),
              ("Minute", f"{dlg['m']:02d}", step("m", -1, 60), step("m", 1, 60))]
    return w.stepper_dialog(frame, "Set alarm time" if dlg.get("id") is None else "Change alarm time", fields,
                            on_cancel=cancel, on_ok=ok)
