"""OpenTracks' data, where and how the real app keeps it (facts: the pinned table's repo ``ot``
OpenTracksApp/OpenTracks 4c204b6b, tag v4.11.3).

* ``databases/database.db`` (Startup.java:79-81): a plain SQLiteOpenHelper database, version 37
  (CustomSQLiteOpenHelper.java:33), whose onCreate runs the trackpoints, tracks and markers CREATE statements and
  their indexes in that order (:53-63; TrackPointsColumns.java, TracksColumns.java, MarkerColumns.java). The
  content provider opens it when the app's process starts (CustomContentProvider.java:123-134), so any launch
  creates it, and turns foreign keys on, so deleting a track deletes its trackpoints and markers.
* times are epoch milliseconds, distances metres, speeds m/s; ``category`` holds the activity type as typed
  (the localized text), ``activity_type`` its id ("running", "unknown"; ActivityType.java:14-86);
  trackpoint latitude/longitude are integers in 1E-6 degrees (ContentProviderUtils.java:783-791).
* ``shared_prefs/de.dennisguse.opentracks_preferences.xml`` (PreferenceManager's default file,
  PreferencesUtils.java:78-83): ``showIntroduction`` (settings.xml:273-274), ``statsUnits`` (IMPERIAL on an en-US
  device, PreferencesUtils.java:227-235).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table
from emukit.vdevice.kit import prefs as shared_prefs
from emukit.vdevice.kit.store import RoomSchema, RoomStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PACKAGE = "de.dennisguse.opentracks"
T = table(PACKAGE)
PREFS = f"/data/data/{PACKAGE}/shared_prefs/{PACKAGE}_preferences.xml"
SHOW_INTRODUCTION = "showIntroduction"  # settings.xml:273
STATS_UNITS, IMPERIAL = "statsUnits", "IMPERIAL"  # settings.xml:167, 176
SEGMENT_START_MANUAL, TRACKPOINT, SEGMENT_END_MANUAL = -2, 0, 1  # TrackPoint.java:54-65
MILE_M, FOOT_M = 1609.344, 0.3048

SCHEMA = RoomSchema(
    package=PACKAGE, name="database.db", version=37,
    create=(
        ("CREATE TABLE trackpoints (_id INTEGER PRIMARY KEY AUTOINCREMENT, trackid INTEGER NOT NULL, "
         "longitude INTEGER, latitude INTEGER, time INTEGER, elevation FLOAT, accuracy FLOAT, speed FLOAT, "
         "bearing FLOAT, sensor_heartrate FLOAT, sensor_cadence FLOAT, sensor_power FLOAT, elevation_gain FLOAT, "
         "elevation_loss FLOAT, type TEXT CHECK(type IN (-2, -1, 0, 1, 3)), sensor_distance FLOAT, "
         "accuracy_vertical FLOAT, FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE)"),
        "CREATE INDEX trackpoints_trackid_index ON trackpoints(trackid)",
        ("CREATE TABLE tracks (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, "
         "starttime INTEGER, stoptime INTEGER, numpoints INTEGER, totaldistance FLOAT, totaltime INTEGER, "
         "movingtime INTEGER, avgspeed FLOAT, avgmovingspeed FLOAT, maxspeed FLOAT, minelevation FLOAT, "
         "maxelevation FLOAT, elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT, "
         "starttime_offset INTEGER, activity_type TEXT)"),
        "CREATE UNIQUE INDEX tracks_uuid_index ON tracks(uuid)",
        ("CREATE TABLE markers (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, "
         "icon TEXT, trackid INTEGER NOT NULL, length FLOAT, duration INTEGER, longitude INTEGER, latitude INTEGER, "
         "time INTEGER, elevation FLOAT, accuracy FLOAT, bearing FLOAT, photoUrl TEXT, FOREIGN KEY (trackid) "
         "REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE)"),
        "CREATE INDEX markers_trackid_index ON markers(trackid)",
    ),
)
STORE = RoomStore(SCHEMA)

#: ActivityType ids (ActivityType.java:14-86) whose localized string (strings.xml activity_type_*) is the id
#: itself in English, and whether the type prefers speed over pace (its showSpeedPreferred)
SPEED_PREFERRED = {"airplane": True, "biking": True, "boat": True, "climbing": False, "cycling": True,
                   "driving": True, "hiking": False, "kayaking": True, "mountain biking": True, "other": True,
                   "paddling": True, "road biking": True, "rowing": True, "running": False, "sailing": True,
                   "skateboarding": True, "skiing": True, "snowboarding": True, "surfing": True,
                   "swimming": False, "trail hiking": False, "trail running": False, "walking": False,
                   "workout": False, "unknown": True}


def prefs(device: VirtualDevice) -> shared_prefs.Prefs:
    return shared_prefs.load(device, PREFS)


def process_start(device: VirtualDevice) -> None:
    """What the app's process does before any activity: the content provider creates database.db
    (CustomContentProvider.java:123-134) and Startup.onCreate stores the default unit system for the locale
    (Startup.java:27-37, PreferencesUtils.java:227-235)."""
    STORE.create(device)
    p = prefs(device)
    if not p.get_str(STATS_UNITS):
        p.put_str(STATS_UNITS, IMPERIAL)
        shared_prefs.save(device, PREFS, p)


def show_introduction(device: VirtualDevice) -> bool:
    return prefs(device).get_bool(SHOW_INTRODUCTION, True)


def introduction_done(device: VirtualDevice) -> None:
    p = prefs(device)
    p.put_bool(SHOW_INTRODUCTION, False)
    shared_prefs.save(device, PREFS, p)


# ------------------------------------------------------------------------------------------------- tracks
def tracks(device: VirtualDevice, query: str | None = None) -> list[dict[str, Any]]:
    """``searchTracks``: every track with its marker count, newest first (ContentProviderUtils.java:232-260,
    CustomContentProvider.java:252-254)."""
    sql = ("SELECT tracks.*, IFNULL(markerCount, 0) AS markerCount FROM tracks LEFT OUTER JOIN (SELECT trackid AS "
           "markerTrackId, COUNT(*) AS markerCount FROM markers GROUP BY trackid) ON tracks._id = markerTrackId")
    args: tuple[Any, ...] = ()
    if query is not None:
        sql += " WHERE name LIKE ? OR description LIKE ? OR category LIKE ?"
        args = (f"%{query}%",) * 3
    return STORE.rows(device, sql + " ORDER BY starttime DESC", args)


def track(device: VirtualDevice, track_id: int) -> dict[str, Any] | None:
    rows = STORE.rows(device, "SELECT * FROM tracks WHERE _id = ?", (track_id,))
    return rows[0] if rows else None


def activity_type_id(localized: str) -> str:
    """``ActivityType.findByLocalizedString``: the id whose English string equals the text, else "unknown"."""
    return localized if localized in SPEED_PREFERRED else "unknown"


def update_track(device: VirtualDevice, track_id: int, name: str, category: str, description: str) -> None:
    """``TrackUtils.updateTrack`` then ``ContentProviderUtils.updateTrack`` (TrackUtils.java:37-64)."""
    STORE.execute(device, "UPDATE tracks SET name = ?, category = ?, activity_type = ?, description = ? WHERE _id = ?",
                  (name, category, activity_type_id(category), description, track_id))


def delete_tracks(device: VirtualDevice, track_ids: list[int]) -> None:
    """``ContentProviderUtils.deleteTracks`` with foreign keys on: the rows, their trackpoints and markers."""
    with STORE.connect(device) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.executemany("DELETE FROM tracks WHERE _id = ?", [(i,) for i in track_ids])


def track_uuid(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()[:16]


def start_track(device: VirtualDevice) -> int:
    """``TrackRecordingManager.startNewTrack`` (TrackRecordingManager.java:71-91): a tracks row named by the
    default track name (the ISO 8601 start, ``yyyy-MM-dd'T'HH:mmX``; settings.xml:187, TrackNameUtils.java:39-49),
    the default activity type "unknown" (settings.xml:68), and its manual segment start trackpoint. The device has
    no GPS fix, so no location trackpoints follow."""
    now = device.wall_ms()
    start = dt.datetime.fromtimestamp(now / 1000, dt.UTC)
    name = start.strftime("%Y-%m-%dT%H:%M") + "Z"
    with STORE.connect(device) as db:
        cur = db.execute(
            "INSERT INTO tracks (uuid, name, description, activity_type, category, starttime_offset, starttime, "
            "stoptime, totaldistance, totaltime, movingtime, avgspeed, avgmovingspeed, maxspeed, minelevation, "
            "maxelevation, elevationgain, elevationloss) VALUES (?, ?, '', 'unknown', 'unknown', 0, ?, ?, 0, 0, 0, "
            "0, 0, 0, ?, ?, NULL, NULL)",
            (track_uuid(f"{now}:{name}"), name, now, now, float("inf"), float("-inf")))
        track_id = int(cur.lastrowid or 0)
        db.execute("INSERT INTO trackpoints (trackid, time, type) VALUES (?, ?, ?)",
                   (track_id, now, SEGMENT_START_MANUAL))
    return track_id


def end_track(device: VirtualDevice, track_id: int) -> None:
    """``endCurrentTrack``: the segment end trackpoint, the stop time and total time (TrackRecordingManager.java:
    112-120)."""
    now = device.wall_ms()
    with STORE.connect(device) as db:
        db.execute("INSERT INTO trackpoints (trackid, time, type) VALUES (?, ?, ?)",
                   (track_id, now, SEGMENT_END_MANUAL))
        db.execute("UPDATE tracks SET stoptime = ?, totaltime = ? - starttime WHERE _id = ?", (now, now, track_id))


# ------------------------------------------------------------------------------------------------- formats
def elapsed(ms: int) -> str:
    """``DateUtils.formatElapsedTime``: "MM:SS", or "H:MM:SS" from an hour on."""
    s = max(0, int(ms or 0) // 1000)
    h, m, sec = s // 3600, s % 3600 // 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def decimal(value: float, places: int) -> str:
    """``StringUtils.formatDecimal``: fixed decimals, HALF_EVEN, grouping (en-US)."""
    from decimal import ROUND_HALF_EVEN, Decimal

    q = Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    return f"{q:,.{places}f}"


def distance_parts(meters: float | None, places: int = 2, threshold_mi: float = 0.5) -> tuple[str, str]:
    """``DistanceFormatter.getDistanceParts`` in IMPERIAL: miles above the threshold, else feet."""
    if meters is None or math.isnan(meters):
        return "-", "ft"
    if meters > threshold_mi * MILE_M:
        return decimal(meters / MILE_M, places), "mi"
    return decimal(meters / FOOT_M, places), "ft"


def time_distance(row: dict[str, Any]) -> str:
    """The row's "<elapsed> (<distance>)" (ListItemUtils.java:53-90)."""
    value, unit = distance_parts(row.get("totaldistance") or 0.0)
    text = f"{elapsed(row.get('totaltime') or 0)} ({value} {unit})"
    return text + ("  \u2027" if row.get("markerCount") else "")


def local(ms: int, offset_s: int = 0) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone(dt.timedelta(seconds=offset_s or 0)))


def relative_date(device: VirtualDevice, when: dt.datetime) -> str:
    """``StringUtils.formatDateTodayRelative`` (StringUtils.java:85-106)."""
    today = dt.datetime.fromtimestamp(device.wall_ms() / 1000, dt.UTC).date()
    days = (today - when.date()).days
    if days == 0:
        return "Today"
    if days == 1:
        return "Yesterday"
    if 1 < days < 7:
        return when.strftime("%A")
    if when.year == today.year:
        return f"{when.day} {when.strftime('%b')}"
    return f"{when.day} {when.strftime('%b')} {when.year}"


def speed_parts(mps: float | None, speed: bool) -> tuple[str, str]:
    """``SpeedFormatter.getSpeedParts`` in IMPERIAL: mph with one decimal, or pace "m:ss" min/mi."""
    mps = float(mps or 0.0)
    if speed:
        return decimal(mps * 3600 / MILE_M, 1), "mph"
    pace = int(MILE_M / mps) if mps > 0 else 0
    return f"{pace // 60}:{pace % 60:02d}", "min/mi"


def medium_datetime(when: dt.datetime) -> str:
    """The localized MEDIUM date-time of en-US (e.g. "Jan 15, 2026, 9:00:00\u202fAM")."""
    hour = when.hour % 12 or 12
    return f"{when.strftime('%b')} {when.day}, {when.year}, {hour}:{when.minute:02d}:{when.second:02d}\u202f" + (
        "AM" if when.hour < 12 else "PM")
