"""VLC for Android 3.5.4 (``org.videolan.vlc``, versionCode 13050408, the x86_64 build android_world installs):
its video library, playlists made with "Add to playlist", a playlist's order changed by the drag handle, rows
removed and playlists deleted; copy and paste in the new playlist's name field; its playlists read as
android_world reads them; the ``videos:`` section of a base snapshot spec. VLC is the Ordered Collection
family's second producer (after Retro Music): :func:`probe_playlist` reads a playlist's order from the app's own
store.

Selects only through the pinned table (``tables/org.videolan.vlc/13050408.yaml``; repos ``vlc``
videolan/vlc-android a55f148e at tag 3.5.4 and ``ml`` the VLC medialibrary 981f8867).

What the operations rely on, from the app's source (the table cites each line):

* the launcher label is "VLC"; StartActivity routes a first run to the onboarding (Skip finishes it), and without
  all-files access every tab shows "Permission not granted" and GRANT PERMISSION, whose dialog's OK opens
  Settings' "All files access" page, as android_world's setup walks it (apps.py:651-689);
* a video card's "More Actions" opens the ContextSheet; "Add to playlist" opens SavePlaylistDialog, where a tap
  on an existing playlist appends at once, or a name typed in the sheet's EditText and "Save" creates one;
* a playlist card on the Playlists tab opens HeaderMediaListActivity; a row's drag handle ``item_move`` moves it
  (Playlist.move), its "More Actions" -> "Delete" removes it from the playlist at once; a card's "More Actions"
  -> "Delete" asks ConfirmDeleteDialog, "Delete forever" deletes the playlist;
* text is copied with the framework's floating toolbar (long press, "Select all", "Copy") and pasted with a long
  press, "Paste". The app's own "Copy to clipboard" exists only for stream entries.

The playlist probe pulls ``app_db`` (the folder of ``vlc_media.db``, with its ``-wal`` and ``-shm``) and runs
android_world's join of Playlist, PlaylistMediaRelation and Media ordered by position
(android_world d9c569f7 task_evals/single/vlc.py:29, 33-71).
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from emukit.apps.base import (
    AppProfile,
    DoctorCheck,
    SeedSection,
    operation,
    register_app,
)
from emukit.apps.dataspec import AppDatabase, DbReading
from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.probes.base import ProbeResult

PACKAGE = "org.videolan.vlc"
DB_FOLDER = f"/data/data/{PACKAGE}/app_db"
DB_NAME = "vlc_media.db"
VIDEOS_FOLDER = "/storage/emulated/0/VLCVideos"  # android_world apps.py:644
FIRST_RUN_STEPS = 8
MAX_SWIPES = 6
#: android_world's query (task_evals/single/vlc.py:33-47)
PLAYLIST_QUERY = ("SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name, "
                  "PlaylistMediaRelation.position AS order_in_playlist FROM PlaylistMediaRelation "
                  "INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id "
                  "INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id "
                  "ORDER BY Playlist.name, PlaylistMediaRelation.position")


class VideoSpec(BaseModel):
    """A video of a base snapshot's library: a generated MP4 (:func:`emukit.apps.vlc_media.make_mp4`) in
    ``VLCVideos``, the folder android_world's VLC tasks use."""

    model_config = ConfigDict(extra="forbid")
    file: str = Field(pattern=r"^[^/]+\.mp4$")
    seconds: float = Field(10.0, gt=0)

    def path(self) -> str:
        return f"{VIDEOS_FOLDER}/{self.file}"


class VideoSeed(SeedSection):
    """``videos:`` in a base snapshot spec: MP4 files the medialibrary discovers on VLC's next start (the spec's
    ``warm_apps: [vlc]``)."""

    key = "videos"
    item = VideoSpec
    provision = True

    @classmethod
    def device_files(cls, items: list[Any]) -> dict[str, bytes]:
        from emukit.apps.vlc_media import make_mp4

        return {video.path(): make_mp4(video.seconds) for video in items}

    @classmethod
    def apply(cls, driver: Driver, items: list[Any]) -> None:
        driver.shell(f"mkdir -p {shlex.quote(VIDEOS_FOLDER)}", check=True)
        sync = driver.adbutils().sync
        for path, data in cls.device_files(items).items():
            sync.push(data, path)


#: the same join with the media's title: what the playlist's rows show (the parser's title: the tags' title, else
#: the file name without its extension, ml:src/Media.cpp:106-128)
TITLES_QUERY = PLAYLIST_QUERY.replace("Media.filename AS media_file_name,",
                                      "Media.filename AS media_file_name, Media.title AS media_title,")


def shown_title(title: str, filename: str) -> str:
    """The title a row shows: the parsed title, or before parsing (title still the file name) that name without
    its extension."""
    if title == filename and "." in filename:
        return filename.rsplit(".", 1)[0]
    return title


def read_playlists(driver: Driver, query: str = PLAYLIST_QUERY) -> DbReading:
    """android_world's playlist rows (name, file name, 0-based position), or an explicit empty reading with its
    ``reason`` when VLC has no medialibrary database yet (installed or cleared and not started since); ``query``
    :data:`TITLES_QUERY` adds each media's title."""
    import sqlite3

    from emukit.probes.ordered import FolderMissing, pull_folder

    with tempfile.TemporaryDirectory(prefix="emukit-vlc-") as tmp:
        try:
            names = pull_folder(driver, DB_FOLDER, Path(tmp))
        except FolderMissing:
            return DbReading(reason=f"{DB_FOLDER} does not exist: {PACKAGE} has not started its media library since "
                                    "it was installed or cleared")
        if DB_NAME not in names:
            return DbReading(reason=f"no {DB_NAME} in {DB_FOLDER}", files=sorted(names))
        conn = sqlite3.connect(Path(tmp) / DB_NAME)
        conn.row_factory = sqlite3.Row
        try:
            rows = [dict(r) for r in conn.execute(query)]
        except sqlite3.Error as exc:
            raise DeviceError(f"{driver.serial}: {DB_FOLDER}/{DB_NAME}: {exc}") from None
        finally:
            conn.close()
        return DbReading(rows=rows, files=sorted(names))


def probe_playlist(driver: Driver, playlist: str, items: str = "file") -> ProbeResult:
    """The Ordered Collection state of VLC playlist ``playlist``: its media by position (empty, with
    ``evidence["reason"]``, when the database does not exist), as file names (``items="file"``, what android_world
    compares) or as the titles its rows show (``items="title"``, what a template's outcome reads on screen)."""
    if items not in ("file", "title"):
        raise ValueError(f"items must be 'file' or 'title', got {items!r}")
    reading = read_playlists(driver, TITLES_QUERY)
    rows = [r for r in reading.rows if r["playlist_name"] == playlist]
    ordered = [r["media_file_name"] if items == "file" else shown_title(str(r["media_title"]), str(r["media_file_name"]))
               for r in rows]
    return ProbeResult(family="ordered",
                       canonical={"collection_type": "playlist", "ordered_items": ordered},
                       evidence={"app": PACKAGE, "playlist": playlist, "items": items, "reason": reading.reason,
                                 "databases": reading.files, "rows": rows})


def playlist_titles(elements: list[Any], tbl: Any) -> list[str]:
    """The titles of the rows an open playlist shows in full, top to bottom: ``track_row_title`` inside the
    ``songs`` list (the same id names the cards' titles elsewhere), a row cut off at the list's edge left out
    (a dump clips its bounds, so it is shorter than the others). ``elements``: a dump's elements."""
    box = next((e.bounds for e in elements if e.resource_id == tbl.rid("playlist_tracks")), None)
    if box is None:
        return []
    titles = [e for e in elements if e.resource_id == tbl.rid("track_row_title") and e.text
              and box[0] <= e.bounds[0] and box[1] <= e.bounds[1] and e.bounds[2] <= box[2] and e.bounds[3] <= box[3]]
    if not titles:
        return []
    tallest = max(e.bounds[3] - e.bounds[1] for e in titles)
    return [e.text for e in sorted(titles, key=lambda e: e.bounds[1]) if e.bounds[3] - e.bounds[1] >= tallest]


@register_app
class VlcProfile(AppProfile):
    package = PACKAGE
    name = "vlc"
    #: the medialibrary database the playlist probe reads (see the module docstring)
    database = AppDatabase(PACKAGE, DB_NAME, "app_db")
    activity = f"{PACKAGE}.StartActivity"
    seed = VideoSeed
    main_screens = ("main",)
    fixture_screens = ("video", "add_to_playlist", "playlist")

    # ------------------------------------------------------------------ first run
    def first_run_screen(self) -> str | None:
        """The control that leaves the first-run screen in front; ``"main"`` on the library; None meanwhile."""
        # the control that leaves each first-run screen: onboarding Skip, the all-files dialog's OK, GRANT PERMISSION
        if self.driver.exists(**self.sel("onboarding_skip")):
            return "onboarding_skip"
        if self.driver.exists(**self.sel("all_access_ok")):
            return "all_access_ok"
        if self.driver.exists(**self.sel("grant_permission")):
            return "grant_permission"
        if self.driver.exists(**self.sel("settings:manage_all_files_switch")):
            return "settings"
        return "main" if self.driver.exists(**self.sel("bottom_nav")) else None

    @operation
    def complete_first_run(self) -> None:
        """Launch VLC and walk its first run as android_world's setup does (apps.py:679-687): Skip, GRANT
        PERMISSION, OK, "Allow access to manage all files" (then BACK); taps nothing that is not there."""
        self.launch()
        acted = False
        for _ in range(FIRST_RUN_STEPS):
            screen = self.driver.wait_until(self.first_run_screen, "VLC's library or a first-run screen")
            if screen == "main" and acted:
                self.launch(fresh=True)
                acted = False
                continue
            if screen == "main":
                return
            acted = True
            if screen == "settings":
                if self.switch_is_on("settings:manage_all_files_switch") is False:
                    self.driver.tap(**self.sel("settings:manage_all_files_switch"))
                    self.driver.wait_until(lambda: self.switch_is_on("settings:manage_all_files_switch"),
                                           "all-files access to turn on")
                self.driver.back()
            elif screen == "onboarding_skip":
                self.driver.tap(**self.sel("onboarding_skip"))
            elif screen == "all_access_ok":
                self.driver.tap(**self.sel("all_access_ok"))
            else:
                self.driver.tap(**self.sel("grant_permission"))
            self.driver.wait_idle()
        raise DeviceError(f"{self.driver.serial}: VLC still shows a first-run screen after {FIRST_RUN_STEPS} steps")

    @operation
    def open_from_all_apps(self) -> None:
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("launcher_icon"))
        self.driver.wait_until(lambda: self.first_run_screen() is not None, "VLC")

    # ------------------------------------------------------------------ library
    @operation
    def tab(self, name: str) -> None:
        """A bottom navigation tab: video, audio, browse, playlists, more."""
        if name == "video":
            self.driver.tap(**self.sel("nav_video"))
        elif name == "audio":
            self.driver.tap(**self.sel("nav_audio"))
        elif name == "browse":
            self.driver.tap(**self.sel("nav_browse"))
        elif name == "playlists":
            self.driver.tap(**self.sel("nav_playlists"))
        elif name == "more":
            self.driver.tap(**self.sel("nav_more"))
        else:
            raise ValueError(f"VLC has no tab {name!r} (video, audio, browse, playlists, more)")
        self.driver.wait_stable()

    def _video_in_view(self, title: str) -> None:
        """Scroll the Video tab's grid until the card titled ``title`` shows whole (a small display shows four
        video cards of six; the shared scroll goes down first, then back up)."""
        title_q = self.table.query("video_title")

        def find() -> Any:
            return next((e for e in self.driver.elements()
                         if e.resource_id == title_q["resourceId"] and e.text == title), None)

        self.scroll_into_view("video_grid", find, MAX_SWIPES)

    def _more_of(self, title_entry: str, title: str, more_entry: str) -> Any:
        """The "More Actions" button of the card or row titled ``title``."""
        title_q, more_q = self.table.query(title_entry), self.table.query(more_entry)
        elements = self.driver.elements()
        hit = next((e for e in elements if e.resource_id == title_q["resourceId"] and e.text == title), None)
        if hit is None:
            raise DeviceError(f"{self.driver.serial}: no {title!r} on screen")
        mores = [e for e in elements if e.resource_id == more_q["resourceId"]
                 and e.content_desc == more_q.get("description", e.content_desc)]
        best = min(mores, key=lambda m: abs(m.center[1] - hit.center[1]) + abs(m.center[0] - hit.center[0]),
                   default=None)
        if best is None:
            raise DeviceError(f"{self.driver.serial}: {title!r} has no More Actions button")
        return best

    @operation
    def add_to_playlist(self, video: str, playlist: str) -> None:
        """Video tab: the card's "More Actions", "Add to playlist"; an existing ``playlist`` is tapped, else it is
        typed as a new playlist's name and saved."""
        self.tab("video")
        self._video_in_view(video)
        more = self._more_of("video_title", video, "video_more")
        self.driver.tap(*more.center)
        self.driver.tap(**self.sel("ctx_add_to_playlist"))
        self.driver.element(**self.sel("playlist_save"))
        if self.driver.exists(**self.sel("existing_row_title", playlist=playlist)):
            self.driver.tap(**self.sel("existing_row_title", playlist=playlist))
        else:
            self.driver.tap(**self.sel("new_playlist_name"))
            self.driver.type_text(playlist)
            self._save_sheet()
            return
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("playlist_save")), "the sheet to close")

    def _save_sheet(self) -> None:
        """The sheet's Save, after BACK hides the keyboard when it shows: on a small display the keyboard covers the
        sheet's foot, where Save is (BACK with the keyboard up only hides it; the field's own IME action "Send"
        would save too, dialog_playlist.xml:69, SavePlaylistDialog.kt:189-190, but a keyboard draws it its own way)."""
        if self.keyboard_shown():
            self.driver.back()
            self.driver.wait_stable()
        self.driver.tap(**self.sel("playlist_save"))
        self.driver.wait_until(lambda: not self.driver.exists(**self.sel("playlist_save")), "the sheet to close")

    @operation
    def create_playlist(self, name: str, videos: list[str]) -> None:
        """A new playlist ``name`` holding ``videos`` in this order (Add to playlist, one video at a time)."""
        for video in videos:
            self.add_to_playlist(video, name)

    @operation
    def open_playlist(self, name: str) -> None:
        self.tab("playlists")
        self.driver.tap(**self.sel("playlist_card_title"), text=name)
        self.driver.element(**self.sel("playlist_header_title"), text=name)

    def visible_items(self) -> list[str]:
        """The titles of an open playlist's rows, top to bottom (an observation helper)."""
        rid = self.table.rid("track_row_title")
        return [e.text for e in self.driver.elements() if e.resource_id == rid]

    @operation
    def move(self, from_index: int, to_index: int) -> None:
        """Drag the row at ``from_index`` by its handle onto the row at ``to_index`` (open playlist, 0-based)."""
        rid_move, rid_title = self.table.rid("track_move"), self.table.rid("track_row_title")
        elements = self.driver.elements()
        handles = [e for e in elements if e.resource_id == rid_move]
        titles = [e for e in elements if e.resource_id == rid_title]
        x, y = handles[from_index].center
        self.driver.drag(x, y, x, titles[to_index].center[1], 1000, element=handles[from_index])
        self.driver.wait_stable()

    @operation
    def remove_from_playlist(self, title: str) -> None:
        """Open playlist: the row's "More Actions", "Delete" (removed at once)."""
        more = self._more_of("track_row_title", title, "track_more")
        self.driver.tap(*more.center)
        self.driver.tap(**self.sel("ctx_delete"))
        self.driver.wait_stable()

    @operation
    def delete_playlist(self, name: str) -> None:
        """Playlists tab: the card's "More Actions", "Delete", "Delete forever"."""
        self.tab("playlists")
        more = self._more_of("playlist_card_title", name, "playlist_card_more")
        self.driver.tap(*more.center)
        self.driver.tap(**self.sel("ctx_delete"))
        self.driver.tap(**self.sel("delete_forever"))
        self.driver.wait_stable()

    # ------------------------------------------------------------------ copy / paste (framework text toolbar)
    @operation
    def open_add_to_playlist(self, video: str) -> None:
        """The SavePlaylistDialog of ``video``, left open (its name field is where text is typed and pasted)."""
        self.tab("video")
        self._video_in_view(video)
        self.driver.tap(*self._more_of("video_title", video, "video_more").center)
        self.driver.tap(**self.sel("ctx_add_to_playlist"))
        self.driver.element(**self.sel("playlist_save"))

    @operation
    def type_name(self, text: str) -> None:
        self.driver.tap(**self.sel("new_playlist_name"))
        self.driver.type_text(text)

    @operation
    def copy_name(self) -> None:
        """Select all of the new playlist's name and copy it (floating toolbar)."""
        field = self.driver.element(**self.sel("new_playlist_name"))
        self.select_all_and_copy(field)

    @operation
    def paste_name(self) -> None:
        """Long-press the name field and Paste at the caret."""
        field = self.driver.element(**self.sel("new_playlist_name"))
        self.driver.tap(*field.center)
        self.paste_at(field)

    @operation
    def save(self) -> None:
        """The sheet's Save: the playlist named in the field gets the sheet's video."""
        self._save_sheet()

    # ------------------------------------------------------------------ probe, doctor
    def playlists(self) -> DbReading:
        return read_playlists(self.driver)

    def probe(self, playlist: str, items: str = "file") -> ProbeResult:
        return probe_playlist(self.driver, playlist, items)

    def capture_screens(self) -> dict[str, Callable[[], None]]:
        """The Video tab of a cleared VLC with three generated videos, the Add to playlist sheet with one
        playlist, that playlist opened."""
        videos = [VideoSpec(file=f) for f in ("clip_1.mp4", "footage_2.mp4", "scene_3.mp4")]
        titles = [v.file.removesuffix(".mp4") for v in videos]  # the cards show file names without extension

        def video() -> None:
            self.driver.shell(f"pm clear {PACKAGE}", check=True)
            VideoSeed.apply(self.driver, videos)
            self.complete_first_run()
            self.driver.element(**self.sel("video_title"), text=titles[0])

        def add_to_playlist() -> None:
            video()
            self.create_playlist("Capture check", titles[:1])
            self.open_add_to_playlist(titles[1])

        def playlist() -> None:
            video()
            self.create_playlist("Capture check", titles[:2])
            self.open_playlist("Capture check")

        return {"video": video, "add_to_playlist": add_to_playlist, "playlist": playlist}

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``vlc database``: vlc_media.db holds the Playlist / PlaylistMediaRelation / Media columns the probe
        joins, or does not exist yet (an explicit empty state)."""
        def row() -> tuple[bool, str, str]:
            if not rooted:
                return False, "needs root to read VLC's media library", "fix the root row first"
            try:
                reading = read_playlists(self.driver)
            except DeviceError as exc:
                return False, str(exc), f"adb -s {self.driver.serial} shell pm clear {PACKAGE}; reinstall the pinned build"
            if reading.reason is not None:
                return True, f"no media library yet ({reading.reason})", ""
            return True, f"{len(reading.rows)} playlist rows", ""

        return [("vlc database", row)]
