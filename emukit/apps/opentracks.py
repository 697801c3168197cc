"""OpenTracks v4.11.3 (``de.dennisguse.opentracks``, versionCode 5705, the build android_world installs): open it
from All Apps (through its introduction), record a track and name it, open a track's statistics, edit its name,
activity type and description, copy and paste text between those fields, delete it; its tracks read as
android_world reads them; the ``tracks:`` section of a base snapshot spec (recorded tracks generated as data).

Selects only through the pinned table (``tables/de.dennisguse.opentracks/5705.yaml``; repo ``ot``
OpenTracksApp/OpenTracks 4c204b6b at tag v4.11.3).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "OpenTracks"; the launcher activity is IntroductionActivity, which shows two pages under
  a "next" FAB (``next_button``, no content-desc) until its last page is passed (preference ``showIntroduction``);
  android_world's setup never passes it (it starts TrackListActivity directly), so the first launch from All
  Apps shows it;
* TrackListActivity asks for location, nearby devices and notifications when any is missing (the system's
  permission dialog, "Allow");
* the red FAB ``track_list_fab_action`` ("Record") starts a track and opens TrackRecordingActivity, whose FAB
  ("Stop") must be held; TrackStoppedActivity then offers the name / activity type / description fields and
  ``finish_button`` ("Stop") stores them;
* a row (``track_list_item_name``) opens TrackRecordedActivity; its BottomAppBar overflow ("More options") holds
  Edit and Delete; Delete asks "Delete track?" (Cancel / OK);
* TrackEditActivity's fields are EditTexts: text is copied with the framework's floating toolbar (long press,
  "Select all", "Copy") and pasted with a long press, "Paste"; Save (``track_edit_save``) writes and finishes.
  Share and Show on map send intents (no clipboard); the statistics texts are not selectable.

The tracks probe (:func:`read_tracks`) pulls the whole ``databases`` folder (``-wal`` included) and runs
``SELECT * FROM tracks`` on the copy, as android_world's ``sqlite_utils.get_rows_from_remote_device`` does
(android_world d9c569f7 task_evals/information_retrieval/activity_app_utils.py:34-37, 133-141).
"""

from __future__ import annotations

import datetime as dt
import shlex
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.apps.dataspec import AppDatabase, DbReading, sql_literal
from emukit.apps.opentracks_media import generate
from emukit.device.driver import Driver
from emukit.errors import DeviceError

PACKAGE = "de.dennisguse.opentracks"
TRACKS_DB = AppDatabase(PACKAGE, "database.db")
LIST_ACTIVITY = f"{PACKAGE}.TrackListActivity"
KEYCODE_DEL, KEYCODE_MOVE_END = 67, 123  # android.view.KeyEvent
#: the columns of ``tracks`` as CustomSQLiteOpenHelper version 37 creates them (TracksColumns.java:65-86)
COLUMNS = ["_id", "name", "description", "category", "starttime", "stoptime", "numpoints", "totaldistance",
           "totaltime", "movingtime", "avgspeed", "avgmovingspeed", "maxspeed", "minelevation", "maxelevation",
           "elevationgain", "icon", "uuid", "elevationloss", "starttime_offset", "activity_type"]
#: ActivityType ids whose English localized string is the id itself (ActivityType.java:14-86, strings.xml)
ACTIVITY_TYPES = {"airplane", "biking", "boat", "climbing", "cycling", "driving", "hiking", "kayaking",
                  "mountain biking", "other", "paddling", "road biking", "rowing", "running", "sailing",
                  "skateboarding", "skiing", "snowboarding", "surfing", "swimming", "trail hiking", "trail running",
                  "walking", "workout", "unknown"}


class TrackSpec(BaseModel):
    """A recorded track of a base snapshot: the ``tracks`` row android_world writes for its activity tasks
    (activity_app_utils.py:65-110: category = activity_type, times in ms, distance in m) plus the trackpoints of a
    generated route (:mod:`emukit.apps.opentracks_media`), since this device cannot record one by GPS."""

    model_config = ConfigDict(extra="forbid")
    name: str
    start: dt.datetime
    minutes: float = Field(30, gt=0)
    distance_m: float = Field(0.0, ge=0)
    category: str = "unknown"
    description: str = ""
    elevation_gain: float = Field(0.0, ge=0)
    elevation_loss: float = Field(0.0, ge=0)
    markers: list[str] = Field(default_factory=list)


def track_rows(item: TrackSpec) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    start = item.start if item.start.tzinfo else item.start.replace(tzinfo=dt.UTC)
    track, points = generate(item.name, item.category, item.description, int(start.timestamp() * 1000),
                             item.minutes, item.distance_m, elevation_gain=item.elevation_gain,
                             elevation_loss=item.elevation_loss)
    track["activity_type"] = item.category if item.category in ACTIVITY_TYPES else "unknown"
    return track, points


class TrackSeed(SeedSection):
    """``tracks:`` in a base snapshot spec: rows of ``tracks`` with their ``trackpoints`` (and named ``markers``)
    in ``database.db``, written with the app stopped as android_world writes its rows (sqlite_utils
    insert_rows_to_remote_db), after a start of TrackListActivity created the database (as android_world's setup
    starts it; the introduction is left pending, as there)."""

    key = "tracks"
    item = TrackSpec
    create_timeout_s = 30.0

    @classmethod
    def insert_sql(cls, items: list[Any]) -> str:
        statements = []
        for item in items:
            track, points = track_rows(item)
            cols = ", ".join(track)
            values = ", ".join("X'" + v.hex() + "'" if isinstance(v, bytes) else sql_literal(v)
                               for v in track.values())
            statements.append(f"INSERT INTO tracks ({cols}) VALUES ({values});")
            for p in points:
                statements.append(f"INSERT INTO trackpoints (trackid, {', '.join(p)}) VALUES "
                                  f"((SELECT MAX(_id) FROM tracks), {', '.join(sql_literal(v) for v in p.values())});")
            for i, marker in enumerate(item.markers):
                statements.append("INSERT INTO markers (name, description, category, icon, trackid, length, duration, "
                                  f"time) VALUES ({sql_literal(marker)}, '', '', '', (SELECT MAX(_id) FROM tracks), "
                                  f"0, 0, {track['starttime'] + (i + 1) * 60_000});")
        return "BEGIN; " + " ".join(statements) + " COMMIT;"

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        if not TRACKS_DB.exists(driver):
            driver.shell(f"am start -n {PACKAGE}/{LIST_ACTIVITY}", check=True)
            deadline = time.monotonic() + cls.create_timeout_s
            while not TRACKS_DB.exists(driver):
                if time.monotonic() > deadline:
                    raise DeviceError(f"{driver.serial}: {TRACKS_DB.path} did not appear within "
                                      f"{cls.create_timeout_s:.0f} s of starting {LIST_ACTIVITY}")
                time.sleep(0.2)
        driver.shell(f"am force-stop {PACKAGE}", check=True)
        driver.shell(f"sqlite3 {shlex.quote(TRACKS_DB.path)} {shlex.quote(cls.insert_sql(items))}", check=True)


def read_tracks(driver: Driver) -> DbReading:
    """Every row of ``tracks`` (an explicit empty reading with its ``reason`` when the app has not created its
    database: installed or cleared and not started since)."""
    return TRACKS_DB.read(driver, "SELECT * FROM tracks ORDER BY _id")


@register_app
class OpenTracksProfile(AppProfile):
    package = PACKAGE
    name = "opentracks"
    database = TRACKS_DB
    activity = LIST_ACTIVITY  # what android_world starts (adb_utils.py:161-163)
    seed = TrackSeed
    main_screens = ("list",)
    fixture_screens = ("introduction", "track_list", "detail", "edit", "delete_confirm")

    # ------------------------------------------------------------------ screens
    def first_run_screen(self) -> str | None:
        """``intro``, ``allow_button`` (a permission prompt), ``list``, ``detail``, ``edit``, ``recording``,
        ``stopped`` or None while none of them is in front."""
        if self.driver.exists(**self.sel("intro_next")):
            return "intro"
        if self.driver.exists(**self.sel("permissions:allow_button")):
            return "allow_button"
        if self.driver.exists(**self.sel("record_fab")):
            return "list"
        if self.driver.exists(**self.sel("detail_tabs")) and not self.driver.exists(**self.sel("recording_fab")):
            return "detail"
        if self.driver.exists(**self.sel("edit_save")):
            return "edit"
        if self.driver.exists(**self.sel("recording_fab")):
            return "recording"
        if self.driver.exists(**self.sel("stopped_finish")):
            return "stopped"
        return None

    def _past_first_run(self) -> None:
        """Tap through the introduction and allow the permission prompts until the track list shows."""
        for _ in range(8):
            screen = self.driver.wait_until(self.first_run_screen, "OpenTracks")
            if screen == "intro":
                self.driver.tap(**self.sel("intro_next"))
            elif screen == "allow_button":
                self.driver.tap(**self.sel("permissions:allow_button"))
            elif screen == "list":
                return
            else:
                self.driver.back()
            self.driver.wait_stable()
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "OpenTracks' track list")

    @operation
    def complete_first_run(self) -> None:
        """Start the launcher activity fresh and walk its introduction and permission prompts to the list."""
        self.driver.shell(f"am force-stop {PACKAGE}", check=True)
        self.driver.shell(f"monkey -p {PACKAGE} -c android.intent.category.LAUNCHER 1")
        self._past_first_run()

    @operation
    def open_from_all_apps(self) -> None:
        """Open the app from the launcher's All Apps by its label (through the introduction when it shows)."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self._past_first_run()

    def _to_list(self) -> None:
        for _ in range(4):
            if self.first_run_screen() == "list":
                return
            self.driver.back()
            self.driver.wait_stable()
        self.launch()
        self._past_first_run()

    # ------------------------------------------------------------------ tracks
    @operation
    def open_track(self, name: str) -> None:
        """Tap the track's row on the list: its statistics."""
        self._to_list()
        self.driver.tap(**self.sel("row_name"), text=name)
        self.driver.wait_until(lambda: self.first_run_screen() == "detail", f"the track {name!r}")

    def _overflow(self, entry: str) -> None:
        """The detail screen's overflow ("More options"), then its ``detail_edit`` or ``detail_delete`` row."""
        self.driver.tap(**self.sel("more_options"))
        if entry == "detail_edit":
            self.driver.tap(**self.sel("detail_edit"))
        elif entry == "detail_delete":
            self.driver.tap(**self.sel("detail_delete"))
        else:
            raise DeviceError(f"{self.driver.serial}: {entry!r} is not an overflow row this profile uses")

    def _wait_intro(self) -> None:
        self.driver.element(**self.sel("intro_next"))

    def _wait_delete_dialog(self) -> None:
        self.driver.element(**self.sel("delete_message"))

    @operation
    def open_editor(self, name: str) -> None:
        """The track's statistics, overflow, Edit."""
        self.open_track(name)
        self._overflow("detail_edit")
        self.driver.wait_until(lambda: self.first_run_screen() == "edit", "the edit screen")

    @operation
    def fill(self, *, name: str | None = None, activity_type: str | None = None,
             description: str | None = None) -> None:
        """Type into the edit (or stopped) screen's fields, each cleared first."""
        stopped = self.first_run_screen() == "stopped"
        for entry, value in (("name_field", name), ("activity_type_field", activity_type),
                             ("description_field", description)):
            if value is None:
                continue
            field = self._tap_field(("stopped_" + entry) if stopped else entry)
            if field.text:
                self.driver.key(KEYCODE_MOVE_END)
                for _ in range(len(field.text)):
                    self.driver.key(KEYCODE_DEL)
            if value:
                self.driver.type_text(value)

    @operation
    def save(self) -> None:
        """Save on the edit screen (Stop on the stopped screen): the fields are written, the screen finishes."""
        if self.first_run_screen() == "stopped":
            self.driver.tap(**self.sel("stopped_finish"))
        else:
            self.driver.tap(**self.sel("edit_save"))
        self.driver.wait_until(lambda: self.first_run_screen() in ("list", "detail"), "the edit screen to close")

    @operation
    def record_track(self, name: str, *, activity_type: str | None = None, description: str = "") -> None:
        """Record (the FAB), hold Stop, name the track on the stopped screen and store it. The device has no
        GPS: the track gets no route (seed one with the ``tracks:`` section instead)."""
        self._to_list()
        self.driver.tap(**self.sel("record_fab"))
        fab = self.driver.element(**self.sel("recording_fab"))
        self.driver.long_press(*fab.center)
        self.driver.wait_until(lambda: self.first_run_screen() == "stopped", "the stopped screen")
        self.fill(name=name, activity_type=activity_type, description=description or None)
        self.save()

    @operation
    def edit_track(self, name: str, *, new_name: str | None = None, activity_type: str | None = None,
                   description: str | None = None) -> None:
        """Open the track's edit screen, change its fields, Save."""
        self.open_editor(name)
        self.fill(name=new_name, activity_type=activity_type, description=description)
        self.save()

    @operation
    def delete_track(self, name: str) -> None:
        """The track's statistics, overflow Delete, OK."""
        self.open_track(name)
        self._overflow("detail_delete")
        self._wait_delete_dialog()
        self.driver.tap(**self.sel("delete_ok"))
        self.driver.wait_until(lambda: self.first_run_screen() == "list", "the list after Delete")

    @operation
    def copy_field(self, entry: str) -> None:
        """Select all of an edit field's text and copy it (framework floating toolbar)."""
        field = self._tap_field(entry)
        self.select_all_and_copy(field)

    @operation
    def paste_into(self, entry: str) -> None:
        """Long-press an edit field and Paste the clipboard at the caret."""
        field = self._tap_field(entry)
        self.paste_at(field)

    def _tap_field(self, entry: str) -> Any:
        """Tap one of the edit / stopped screens' text fields; its element."""
        if entry == "name_field":
            field = self.driver.element(**self.sel("name_field"))
        elif entry == "activity_type_field":
            field = self.driver.element(**self.sel("activity_type_field"))
        elif entry == "description_field":
            field = self.driver.element(**self.sel("description_field"))
        elif entry == "stopped_name_field":
            field = self.driver.element(**self.sel("stopped_name_field"))
        elif entry == "stopped_activity_type_field":
            field = self.driver.element(**self.sel("stopped_activity_type_field"))
        elif entry == "stopped_description_field":
            field = self.driver.element(**self.sel("stopped_description_field"))
        else:
            raise DeviceError(f"{self.driver.serial}: {entry!r} is not an OpenTracks text field")
        self.driver.tap(*field.center)
        return field

    def tracks(self) -> DbReading:
        return read_tracks(self.driver)

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``opentracks database``: database.db has the ``tracks`` columns android_world reads (the 21 of
        version 37), or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read OpenTracks' database", "fix the root row first"
            reading = TRACKS_DB.read(self.driver, "PRAGMA table_info(tracks)")
            if reading.reason is not None:
                return True, f"no database yet ({reading.reason})", ""
            columns = [r["name"] for r in reading.rows]
            fix = f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            return columns == COLUMNS, f"tracks has {len(columns)} columns", fix

        return [("opentracks database", row)]

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        return capture_screens(self)


def capture_screens(profile: OpenTracksProfile) -> dict[str, Callable[[], None]]:
    """The structure fixtures' screens (``tests/fixtures/real/hierarchy/opentracks/<name>.yaml``) and how to bring
    each up from anywhere; for a capture walk (each ends with BACK). The track they show is seeded ("Fixture
    Run", 30 minutes, 5 km, started an hour before the device's clock)."""
    driver = profile.driver

    def seeded() -> None:
        driver.shell(f"pm clear {PACKAGE}", check=True)
        now = dt.datetime.fromtimestamp(int(driver.shell("date +%s").text.strip()), dt.UTC)
        TrackSeed.apply(driver, [TrackSpec(name="Fixture Run", start=now - dt.timedelta(hours=1), minutes=30,
                                           distance_m=5000.0, category="running", description="Fixture")])

    def introduction() -> None:
        driver.shell(f"pm clear {PACKAGE}", check=True)
        driver.shell(f"monkey -p {PACKAGE} -c android.intent.category.LAUNCHER 1")
        profile._wait_intro()

    def track_list() -> None:
        seeded()
        profile.launch(fresh=True)
        profile._past_first_run()

    def detail() -> None:
        track_list()
        profile.open_track("Fixture Run")

    def edit() -> None:
        track_list()
        profile.open_editor("Fixture Run")

    def delete_confirm() -> None:
        detail()
        profile._overflow("detail_delete")
        profile._wait_delete_dialog()

    return {"introduction": introduction, "track_list": track_list, "detail": detail, "edit": edit,
            "delete_confirm": delete_confirm}
