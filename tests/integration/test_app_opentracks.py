"""OpenTracks over adb (the virtual app, driven as an emulator would be): open it from All Apps through its
introduction, record a track and name it, open, edit and delete it, copy a field's text and paste it into another;
the tracks probe reads what the app wrote (as android_world reads it), reports an app with no database yet, and the
``tracks:`` seed writes generated recorded tracks the list and the statistics show. The structure fixtures'
screens, reached by the capture walk, match their fixtures; the base snapshot spec names only known sections."""

from __future__ import annotations

import datetime as dt

import pytest

from emukit.apps.opentracks import (
    COLUMNS,
    TrackSeed,
    TrackSpec,
    capture_screens,
    read_tracks,
)
from emukit.apps.registry import profile_for
from emukit.apps.structure import match_fixture
from emukit.device.driver import Driver
from emukit.snapshots import load_spec
from tests.hierarchy_match import FIXTURES

PACKAGE = "de.dennisguse.opentracks"


@pytest.fixture
def ot(pooled_device, adb_server):
    d = Driver(pooled_device.serial, adb_server.port, default_timeout=8)
    yield profile_for(d, "opentracks")
    d.close()


def _names(d: Driver) -> list[str]:
    return [r["name"] for r in read_tracks(d).rows]


def test_tracks_round_trip_through_the_real_ui(ot):
    d = ot.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    empty = read_tracks(d)
    assert empty.rows == [] and empty.reason is not None  # never started since the clear: no database
    ot.open_from_all_apps()  # the introduction's two pages, then the list
    assert ot.first_run_screen() == "list"
    first = read_tracks(d)
    assert first.rows == [] and first.reason is None and "database.db" in first.files

    ot.record_track("Lunch walk", activity_type="walking", description="Around the block")
    rows = read_tracks(d).rows
    assert len(rows) == 1
    row = rows[0]
    assert {k: row[k] for k in ("name", "category", "activity_type", "description")} == {
        "name": "Lunch walk", "category": "walking", "activity_type": "walking", "description": "Around the block"}
    assert list(row) == COLUMNS and row["stoptime"] >= row["starttime"]

    ot.open_editor("Lunch walk")  # copy the description into the name
    ot.copy_field("description_field")
    ot.paste_into("name_field")
    ot.save()
    assert "Around the block" in read_tracks(d).rows[0]["name"]

    current = read_tracks(d).rows[0]["name"]
    ot.edit_track(current, new_name="Evening walk", activity_type="hiking")
    assert _names(d) == ["Evening walk"] and read_tracks(d).rows[0]["activity_type"] == "hiking"
    ot.delete_track("Evening walk")
    assert read_tracks(d).rows == []
    assert d.exists(text="Start recording your next adventure here")


def test_seed_writes_recorded_tracks_the_list_and_statistics_show(ot):
    d = ot.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    now = dt.datetime.fromtimestamp(int(d.shell("date +%s").text.strip()), dt.UTC)
    items = [TrackSpec(name="Trail Run", start=now - dt.timedelta(hours=2), minutes=40, distance_m=8046.72,
                       category="running", description="Hills", elevation_gain=120, elevation_loss=95,
                       markers=["Summit"]),
             TrackSpec(name="Old Ride", start=now - dt.timedelta(days=3), minutes=60, distance_m=20000,
                       category="biking")]
    TrackSeed.apply(d, items)  # starts TrackListActivity once to make the database, then writes with it stopped
    rows = read_tracks(d).rows
    assert [(r["_id"], r["name"], r["category"], r["totaldistance"], r["totaltime"]) for r in rows] == [
        (1, "Trail Run", "running", 8046.72, 2_400_000), (2, "Old Ride", "biking", 20000.0, 3_600_000)]
    points = ot.driver.shell(f"sqlite3 /data/data/{PACKAGE}/databases/database.db "
                             "'SELECT COUNT(*) FROM trackpoints WHERE trackid = 1 AND type = 0'").text.strip()
    assert int(points) == 41  # one point a minute, both ends included
    ot.launch(fresh=True)
    shown = [e.text for e in d.elements() if e.resource_id == ot.rid("row_name")]
    assert shown == ["Trail Run", "Old Ride"]  # newest first
    assert d.exists(**ot.sel("row_time_distance"), text="40:00 (5.00 mi)  \u2027")  # a marker: the dot
    ot.open_track("Trail Run")
    assert d.exists(**ot.sel("stats_distance"), text="5.00")
    assert d.exists(**ot.sel("stats_gain"), text="394")


def test_doctor_row_and_the_capture_walk_match_the_fixtures(ot):
    d = ot.driver
    d.shell(f"pm clear {PACKAGE}", check=True)
    [(name, check)] = ot.doctor_checks(rooted=True)
    ok, detail, _ = check()
    assert name == "opentracks database" and ok and detail.startswith("no database yet")
    screens = capture_screens(ot)
    assert sorted(screens) == sorted(p.stem for p in (FIXTURES / "opentracks").glob("*.yaml"))
    for screen, reach in screens.items():
        reach()
        problems = match_fixture(d.hierarchy(), FIXTURES / "opentracks" / f"{screen}.yaml")
        assert problems == [], (screen, problems)
        d.back()
    ok, detail, _ = check()
    assert ok and detail == "tracks has 21 columns"


def test_base_snapshot_spec_seeds_tracks():
    spec = load_spec("opentracks_base")
    assert spec.start == "opentracks" and spec.clear_apps == [PACKAGE]
    items = spec.items("tracks")
    assert [i.name for i in items] == ["Morning Run", "Bike Tour", "Nature Walk", "Pool Swim"]
    assert "INSERT INTO markers" in TrackSeed.insert_sql(items)
