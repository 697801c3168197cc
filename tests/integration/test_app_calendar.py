"""Simple Calendar Pro over adb (the virtual app, driven as an emulator would be): open it from All Apps, create
an event with a date and a time, find and edit it, copy a field's text and paste it into another, delete it;
the events probe reads what the app wrote, and reports an app that has no database yet."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.calendar import read_events
from emukit.apps.registry import profile_for
from emukit.device.driver import Driver

PACKAGE = "com.simplemobiletools.calendar.pro"


@pytest.fixture
def cal(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "calendar")
    d.close()


def test_events_round_trip_through_the_real_ui(cal):
    d = cal.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_events(d)
    assert empty.rows == [] and empty.reason is not None  # never opened since the clear: no database
    cal.open_from_all_apps()
    assert read_events(d).rows == [] and read_events(d).reason is None  # the first launch created it
    day = dt.date(2026, 3, 4)
    cal.create_event("Dentist", description="Bring forms", day=day, hour=10, minute=30)
    rows = read_events(d).rows
    assert [(r["title"], r["description"]) for r in rows] == [("Dentist", "Bring forms")]
    start = dt.datetime.fromtimestamp(rows[0]["start_ts"], dt.UTC)
    assert (start.date(), start.hour, start.minute) == (day, 10, 30)
    assert rows[0]["end_ts"] == rows[0]["start_ts"] and rows[0]["source"] == "simple-calendar"

    cal.open_event("Dentist")
    cal.copy_field("description_field")
    cal.paste_into("location_field")
    cal.save()
    assert read_events(d).rows[0]["location"] == "Bring forms"

    cal.edit_event("Dentist", new_title="Dentist (moved)")
    assert [r["title"] for r in read_events(d).rows] == ["Dentist (moved)"]
    cal.delete_event("Dentist (moved)")
    assert read_events(d).rows == []
