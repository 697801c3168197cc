"""The virtual OpenTracks (de.dennisguse.opentracks, versionCode 5705, v4.11.3), driven in-process through the
window manager like a user would; ids and strings come from its pinned selector table."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from emukit.apps.opentracks_media import generate
from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.vdevice.apps import permissions
from emukit.vdevice.apps.opentracks import OpenTracksApp
from emukit.vdevice.apps.opentracks import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.shell import run_shell
from tests.hierarchy_match import FIXTURES
from tests.vdevice.views import exists, find, install_standin, tap

T = table("de.dennisguse.opentracks")
PKG = T.package
INTRO = f"{PKG}.introduction.IntroductionActivity"
LIST = f"{PKG}.TrackListActivity"
DETAIL = f"{PKG}.TrackRecordedActivity"
EDIT = f"{PKG}.TrackEditActivity"
RECORDING = f"{PKG}.TrackRecordingActivity"
STOPPED = f"{PKG}.TrackStoppedActivity"
BACK = 4
NOW_MS = int(dt.datetime(2026, 1, 15, 9, 0, tzinfo=dt.UTC).timestamp() * 1000)  # the deterministic clock
FINE, COARSE = "android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"
SCAN, CONNECT = "android.permission.BLUETOOTH_SCAN", "android.permission.BLUETOOTH_CONNECT"
NOTIFY = "android.permission.POST_NOTIFICATIONS"


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def text_of(dev: VirtualDevice, entry: str) -> str:
    return find(dev, resource_id=T.rid(entry)).text


def rows(dev: VirtualDevice) -> list[dict]:
    return D.STORE.rows(dev, "SELECT * FROM tracks ORDER BY _id")


def add_track(dev: VirtualDevice, name: str, start_ms: int, minutes: float, meters: float, *,
              activity: str = "running", description: str = "", gain: float = 0.0, loss: float = 0.0) -> int:
    """A generated recorded track, written as the app writes tracks and trackpoints."""
    D.process_start(dev)
    track, points = generate(name, activity, description, start_ms, minutes, meters, elevation_gain=gain,
                             elevation_loss=loss)
    with D.STORE.connect(dev) as db:
        cur = db.execute(f"INSERT INTO tracks ({', '.join(track)}) VALUES ({', '.join('?' * len(track))})",
                         tuple(track.values()))
        for p in points:
            p = {**p, "trackid": cur.lastrowid}
            db.execute(f"INSERT INTO trackpoints ({', '.join(p)}) VALUES ({', '.join('?' * len(p))})",
                       tuple(p.values()))
        return int(cur.lastrowid)


def to_list(dev: VirtualDevice) -> None:
    """``am start`` of TrackListActivity, as android_world launches the app."""
    dev.start_activity(PKG, ".TrackListActivity")
    assert dev.current_focus() == (PKG, LIST)


def row_names(dev: VirtualDevice) -> list[str]:
    return [v.text for v in dev.wm.windows()[0].walk() if v.resource_id == T.rid("row_name")]


def overflow(dev: VirtualDevice, entry: str) -> None:
    tap(dev, content_desc="More options")
    tap(dev, text=T.text(entry))


# ---------------------------------------------------------------------------------------------- first start
def test_launcher_opens_the_introduction_then_the_list_and_creates_the_database(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, OpenTracksApp)
    assert (app.version_code, app.version_name) == (5705, "v4.11.3-emukit-virtual")
    assert app.launcher_activity == ".introduction.IntroductionActivity"
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, INTRO)
    assert D.STORE.exists(device)  # the content provider made it when the process started
    assert D.SCHEMA.path == f"/data/data/{PKG}/databases/database.db"
    assert exists(device, text=T.text("intro_welcome_text"))
    next_button = find(device, resource_id=T.rid("intro_next"))
    assert next_button.content_desc == "" and next_button.clickable
    tap(device, resource_id=T.rid("intro_next"))
    assert exists(device, text=T.text("intro_osm_text")) and device.current_focus() == (PKG, INTRO)
    tap(device, resource_id=T.rid("intro_next"))
    assert device.current_focus() == (PKG, LIST)
    assert [a.activity for a in device.state.back_stack if a.package == PKG] == [".TrackListActivity"]
    assert D.prefs(device).get_bool("showIntroduction", True) is False
    assert D.prefs(device).get_str("statsUnits") == "IMPERIAL"
    assert exists(device, text="Start recording your next adventure here")
    assert not exists(device, resource_id=T.rid("track_list"))
    device.wm.key(BACK)
    device.start_activity(PKG)  # the introduction is done: straight to the list
    assert device.current_focus() == (PKG, LIST)


def test_am_start_of_the_list_skips_the_introduction_as_android_world_does(device: VirtualDevice) -> None:
    to_list(device)
    assert D.prefs(device).get_bool("showIntroduction", True) is True  # still pending for the launcher
    assert find(device, resource_id=T.rid("record_fab")).content_desc == "Record"
    assert exists(device, resource_id=T.rid("menu_search"), content_desc="Search")
    assert exists(device, resource_id=T.rid("menu_markers"), content_desc="Markers")
    tap(device, content_desc="More options")
    assert [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("overflow_title")] == [
        "Settings", "Help"]


def test_database_schema_is_the_apps(device: VirtualDevice) -> None:
    to_list(device)
    with sqlite3.connect(device.fs.host(D.SCHEMA.path)) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (37,)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
        cols = [r[1] for r in db.execute("PRAGMA table_info(tracks)")]
        points = [r[1] for r in db.execute("PRAGMA table_info(trackpoints)")]
        markers = [r[1] for r in db.execute("PRAGMA table_info(markers)")]
    assert {"tracks", "trackpoints", "markers", "android_metadata", "tracks_uuid_index",
            "trackpoints_trackid_index", "markers_trackid_index"} <= names
    assert "room_master_table" not in names
    assert cols == ["_id", "name", "description", "category", "starttime", "stoptime", "numpoints", "totaldistance",
                    "totaltime", "movingtime", "avgspeed", "avgmovingspeed", "maxspeed", "minelevation",
                    "maxelevation", "elevationgain", "icon", "uuid", "elevationloss", "starttime_offset",
                    "activity_type"]
    assert points[:3] == ["_id", "trackid", "longitude"] and points[-2:] == ["sensor_distance", "accuracy_vertical"]
    assert markers[-1] == "photoUrl"


# ---------------------------------------------------------------------------------------------- list rows
def test_rows_are_newest_first_with_date_distance_and_time(device: VirtualDevice) -> None:
    add_track(device, "Old walk", NOW_MS - 40 * 86_400_000, 45, 3000.0, activity="walking")
    add_track(device, "Morning Run", NOW_MS - 2 * 3_600_000, 30, 4828.0, description="River loop")
    add_track(device, "Short hop", NOW_MS - 86_400_000 - 3_600_000, 2.5, 150.0)
    to_list(device)
    assert row_names(device) == ["Morning Run", "Short hop", "Old walk"]
    texts = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("row_time_distance")]
    assert texts == ["30:00 (3.00 mi)", "02:30 (492.13 ft)", "45:00 (1.86 mi)"]
    dates = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("row_date")]
    assert dates == ["Today", "Yesterday", "6 Dec 2025"]
    times = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("row_time")]
    assert times == ["07:00", "08:00", "09:00"]
    descs = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("row_description")]
    assert descs == ["River loop"]  # only a row with a description has one
    assert not exists(device, resource_id=T.rid("track_list_empty"))


def test_row_opens_the_statistics(device: VirtualDevice) -> None:
    add_track(device, "Hill Run", NOW_MS - 3_600_000, 40, 8046.72, description="Up and down", gain=120, loss=95)
    to_list(device)
    tap(device, resource_id=T.rid("row_name"), text="Hill Run")
    assert device.current_focus() == (PKG, DETAIL)
    assert text_of(device, "stats_name") == "Hill Run"
    assert text_of(device, "stats_description") == "Up and down"
    assert (text_of(device, "stats_distance"), text_of(device, "stats_distance_unit")) == ("5.00", "mi")
    assert text_of(device, "stats_moving_time") == "40:00" and text_of(device, "stats_total_time") == "40:00"
    assert text_of(device, "stats_max_speed_label") == "Fastest pace"  # running prefers pace
    assert (text_of(device, "stats_average_speed"), text_of(device, "stats_speed_unit")) == ("8:00", "min/mi")
    assert text_of(device, "stats_gain") == "394" and text_of(device, "stats_loss") == "312"
    assert text_of(device, "stats_start") == "Jan 15, 2026, 8:00:00\u202fAM"
    assert [v.content_desc for v in device.wm.windows()[0].walk()
            if v.content_desc in ("Stats", "Intervals", "By time", "By distance")] == [
        "Stats", "Intervals", "By time", "By distance"]
    tap(device, content_desc="More options")
    assert [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("overflow_title")] == [
        "Edit", "Delete", "Resume track", "Settings"]
    tap(device, resource_id=T.rid("overflow_title"), text="Settings")  # not modelled: the popup closes
    assert device.current_focus() == (PKG, DETAIL)
    device.wm.key(BACK)
    assert device.current_focus() == (PKG, LIST)


def test_biking_reports_speed(device: VirtualDevice) -> None:
    track_id = add_track(device, "Bike Tour", NOW_MS - 3_600_000, 60, 32186.88, activity="biking")
    device.start_activity(PKG, ".TrackRecordedActivity", {"track_id": str(track_id)})
    assert text_of(device, "stats_max_speed_label") == "Max speed"
    assert (text_of(device, "stats_average_speed"), text_of(device, "stats_speed_unit")) == ("20.0", "mph")


# ---------------------------------------------------------------------------------------------- edit
def test_edit_saves_name_activity_type_and_description(device: VirtualDevice) -> None:
    track_id = add_track(device, "Morning Run", NOW_MS - 3_600_000, 30, 5000.0)
    to_list(device)
    tap(device, resource_id=T.rid("row_name"), text="Morning Run")
    overflow(device, "detail_edit")
    assert device.current_focus() == (PKG, EDIT)
    assert text_of(device, "name_field") == "Morning Run"
    assert text_of(device, "activity_type_field") == "running"
    assert find(device, resource_id=T.rid("edit_save")).text == "Save"
    for entry, value in (("name_field", "Evening Run"), ("activity_type_field", "trail running"),
                         ("description_field", "Windy")):
        field = find(device, resource_id=T.rid(entry))
        device.wm.tap(*field.center)
        device.wm.key(123)  # KEYCODE_MOVE_END
        for _ in range(len(field.text)):
            device.wm.key(67)
        device.wm.input_text(value)
    tap(device, resource_id=T.rid("edit_save"))
    assert device.current_focus() == (PKG, DETAIL)
    row = D.track(device, track_id)
    assert (row["name"], row["category"], row["activity_type"], row["description"]) == (
        "Evening Run", "trail running", "trail running", "Windy")
    assert text_of(device, "stats_name") == "Evening Run"


def test_edit_free_activity_type_is_kept_with_the_unknown_id(device: VirtualDevice) -> None:
    track_id = add_track(device, "Thing", NOW_MS - 3_600_000, 10, 100.0)
    device.start_activity(PKG, ".TrackEditActivity", {"track_id": str(track_id)})
    field = find(device, resource_id=T.rid("activity_type_field"))
    device.wm.tap(*field.center)
    for _ in range(len(field.text)):
        device.wm.key(67)
    device.wm.input_text("parkour")
    tap(device, resource_id=T.rid("edit_save"))
    row = D.track(device, track_id)
    assert (row["category"], row["activity_type"]) == ("parkour", "unknown")


def test_edit_cancel_writes_nothing(device: VirtualDevice) -> None:
    track_id = add_track(device, "Keep me", NOW_MS - 3_600_000, 10, 100.0)
    device.start_activity(PKG, ".TrackEditActivity", {"track_id": str(track_id)})
    field = find(device, resource_id=T.rid("name_field"))
    device.wm.tap(*field.center)
    device.wm.input_text("x")
    tap(device, resource_id=T.rid("edit_cancel"))
    assert D.track(device, track_id)["name"] == "Keep me"


def test_copy_the_description_and_paste_it_into_the_name(device: VirtualDevice) -> None:
    track_id = add_track(device, "Run", NOW_MS - 3_600_000, 10, 100.0, description="Copied text")
    device.start_activity(PKG, ".TrackEditActivity", {"track_id": str(track_id)})
    desc = find(device, resource_id=T.rid("description_field"))
    device.wm.tap(*desc.center)
    device.wm.long_press(*desc.center)
    tap(device, text="Select all")
    tap(device, text="Copy")
    assert device.get_clip().text == "Copied text"
    name = find(device, resource_id=T.rid("name_field"))
    device.wm.tap(*name.center)
    device.wm.long_press(*name.center)
    tap(device, text="Paste")
    assert "Copied text" in text_of(device, "name_field")
    tap(device, resource_id=T.rid("edit_save"))
    assert "Copied text" in D.track(device, track_id)["name"]


# ---------------------------------------------------------------------------------------------- delete
def test_delete_from_the_detail_asks_then_removes_track_points_and_markers(device: VirtualDevice) -> None:
    keep = add_track(device, "Keep", NOW_MS - 7_200_000, 10, 100.0)
    gone = add_track(device, "Gone", NOW_MS - 3_600_000, 10, 100.0)
    D.STORE.execute(device, "INSERT INTO markers (name, trackid, time) VALUES ('Peak', ?, ?)", (gone, NOW_MS))
    device.start_activity(PKG, ".TrackListActivity")
    tap(device, resource_id=T.rid("row_name"), text="Gone")
    overflow(device, "detail_delete")
    assert text_of(device, "delete_title") == "Delete track?"
    assert text_of(device, "delete_message") == T.text("delete_message")
    tap(device, resource_id="android:id/button2", text="Cancel")
    assert [r["name"] for r in rows(device)] == ["Keep", "Gone"]
    overflow(device, "detail_delete")
    tap(device, resource_id="android:id/button1", text="OK")
    assert device.current_focus() == (PKG, LIST)
    assert [r["_id"] for r in rows(device)] == [keep]
    assert D.STORE.rows(device, "SELECT DISTINCT trackid FROM trackpoints") == [{"trackid": keep}]
    assert D.STORE.rows(device, "SELECT * FROM markers") == []
    assert row_names(device) == ["Keep"]


def test_long_press_selects_and_the_action_mode_deletes(device: VirtualDevice) -> None:
    add_track(device, "A", NOW_MS - 7_200_000, 10, 100.0)
    add_track(device, "B", NOW_MS - 3_600_000, 10, 100.0)
    to_list(device)
    device.wm.long_press(*find(device, resource_id=T.rid("row_name"), text="A").center)
    assert exists(device, resource_id=T.rid("action_mode_edit"), content_desc="Edit")
    tap(device, resource_id=T.rid("row_name"), text="B")  # a tap adds to the selection
    assert not exists(device, resource_id=T.rid("action_mode_edit"))  # Edit is for one track only
    tap(device, resource_id=T.rid("action_mode_delete"))
    assert text_of(device, "delete_title") == "Delete selected?"
    tap(device, resource_id="android:id/button1")
    assert rows(device) == [] and exists(device, resource_id=T.rid("track_list_empty"))


# ---------------------------------------------------------------------------------------------- recording
def test_record_then_hold_to_stop_then_name_it(device: VirtualDevice) -> None:
    to_list(device)
    tap(device, resource_id=T.rid("record_fab"))
    assert device.current_focus() == (PKG, RECORDING)
    [row] = rows(device)
    assert (row["name"], row["category"], row["activity_type"]) == ("2026-01-15T09:00Z", "unknown", "unknown")
    tap(device, resource_id=T.rid("recording_fab"))
    assert device.state.ui.toast == "Hold to stop" and device.current_focus() == (PKG, RECORDING)
    device.wm.long_press(*find(device, resource_id=T.rid("recording_fab")).center)
    assert device.current_focus() == (PKG, STOPPED)
    assert text_of(device, "stopped_name_field") == "2026-01-15T09:00Z"
    field = find(device, resource_id=T.rid("stopped_name_field"))
    device.wm.tap(*field.center)
    for _ in range(len(field.text)):
        device.wm.key(67)
    device.wm.input_text("Lunch walk")
    tap(device, resource_id=T.rid("stopped_finish"))
    assert device.current_focus() == (PKG, LIST)
    [row] = rows(device)
    assert row["name"] == "Lunch walk" and row["stoptime"] >= row["starttime"]
    types = [r["type"] for r in D.STORE.rows(device, "SELECT type FROM trackpoints ORDER BY _id")]
    assert types == ["-2", "1"]  # manual segment start and end; no GPS fixes on this device
    assert row_names(device) == ["Lunch walk"]


def test_stopped_discard_deletes_the_recorded_track(device: VirtualDevice) -> None:
    to_list(device)
    tap(device, resource_id=T.rid("record_fab"))
    device.wm.long_press(*find(device, resource_id=T.rid("recording_fab")).center)
    tap(device, resource_id=T.rid("stopped_discard"))
    tap(device, resource_id="android:id/button1", text="OK")
    assert rows(device) == [] and device.current_focus() == (PKG, LIST)


# ---------------------------------------------------------------------------------------------- hardware
def test_hardware_fresh_install_asks_each_permission_group_after_the_introduction(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps
    install_standin(dev, PKG)
    assert not any(dev.permission_granted(PKG, p) for p in (FINE, COARSE, SCAN, CONNECT, NOTIFY))
    dev.start_activity(PKG)
    assert dev.current_focus() == (PKG, INTRO)
    tap(dev, resource_id=T.rid("intro_next"))
    tap(dev, resource_id=T.rid("intro_next"))
    allow = "com.android.permissioncontroller:id/permission_allow_button"
    for _ in range(3):  # location, nearby devices, notifications
        assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
        tap(dev, resource_id=allow)
    assert dev.current_focus() == (PKG, LIST)
    assert all(dev.permission_granted(PKG, p) for p in (FINE, COARSE, SCAN, CONNECT, NOTIFY))


def test_hardware_android_world_setup_leaves_only_nearby_devices_to_allow(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    for perm in (COARSE, FINE, NOTIFY):  # what android_world's setup grants over adb
        dev.grant_permission(PKG, perm)
    dev.start_activity(PKG, ".TrackListActivity")
    assert dev.current_focus() == (permissions.PACKAGE, permissions.GRANT)
    assert exists(dev, text="Allow OpenTracks to find, connect to, and determine the relative position of nearby "
                            "devices?")
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_button")
    assert dev.current_focus() == (PKG, LIST)
    assert dev.permission_granted(PKG, SCAN) and dev.permission_granted(PKG, CONNECT)


def test_hardware_denied_permission_toasts(hardware: VirtualDevice) -> None:
    dev = hardware
    install_standin(dev, PKG)
    for perm in (COARSE, FINE, NOTIFY):
        dev.grant_permission(PKG, perm)
    dev.start_activity(PKG, ".TrackListActivity")
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_deny_button")
    assert dev.current_focus() == (PKG, LIST)
    assert dev.state.ui.toast == T.text("toast_permission_failed")


# ---------------------------------------------------------------------------------------------- pm clear
def test_pm_clear_removes_the_database_and_brings_the_introduction_back(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    tap(device, resource_id=T.rid("intro_next"))
    tap(device, resource_id=T.rid("intro_next"))
    add_track(device, "Gone soon", NOW_MS - 3_600_000, 10, 100.0)
    assert D.STORE.exists(device) and len(rows(device)) == 1
    assert run_shell(device, f"pm clear {PKG}", lambda b: None, lambda b: None, b"", None) == 0
    assert not D.STORE.exists(device) and not device.fs.host(D.PREFS).exists()
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, INTRO)
    assert D.STORE.exists(device) and rows(device) == []


# ---------------------------------------------------------------------------------------------- fixtures
@pytest.mark.parametrize("screen", ["track_list", "detail", "edit", "delete_confirm", "introduction"])
def test_virtual_screens_match_their_structure_fixtures(device: VirtualDevice, screen: str) -> None:
    if screen == "introduction":
        device.start_activity(PKG)
    else:
        track_id = add_track(device, "Fixture Run", NOW_MS - 3_600_000, 30, 5000.0, description="Fixture")
        to_list(device)
        if screen != "track_list":
            tap(device, resource_id=T.rid("row_name"), text="Fixture Run")
        if screen == "edit":
            overflow(device, "detail_edit")
        if screen == "delete_confirm":
            overflow(device, "detail_delete")
        assert D.track(device, track_id) is not None
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "opentracks" / f"{screen}.yaml") == []


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    names = []
    for name in app.gallery_scenes(device):
        names.append(name)
        png = device.screenshot_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    assert names == ["introduction", "track list (empty)", "track list", "track statistics", "delete confirmation",
                     "edit track"]


def test_prefs_file_is_the_default_shared_preferences(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    assert D.PREFS == f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml"
    assert shared_prefs.load(device, D.PREFS).get_str("statsUnits") == "IMPERIAL"
