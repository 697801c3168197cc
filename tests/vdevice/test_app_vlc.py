"""The virtual VLC for Android (org.videolan.vlc, versionCode 13050408), driven in-process through the window
manager like a user would; ids and strings come from its pinned selector table, the database is the
medialibrary's vlc_media.db with android_world's playlist query run on it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from emukit.apps.selectors import table
from emukit.apps.structure import match_fixture
from emukit.apps.vlc import PLAYLIST_QUERY
from emukit.apps.vlc_media import make_mp4, read_mp4
from emukit.vdevice.apps.vlc import VlcApp
from emukit.vdevice.apps.vlc import data as D
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell
from tests.vdevice.views import exists, find, install_standin, tap

T = table("org.videolan.vlc")
PKG = T.package
MAIN = f"{PKG}.gui.MainActivity"
ONBOARDING = f"{PKG}.gui.onboarding.OnboardingActivity"
PLAYLIST = f"{PKG}.gui.HeaderMediaListActivity"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "hierarchy" / "vlc"
VIDEOS = ("clip_1.mp4", "footage_2.mp4", "scene_3.mp4")


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "d", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def put_videos(dev: VirtualDevice, names=VIDEOS) -> None:
    dev.fs.makedirs(D.VIDEOS_FOLDER)
    for name in names:
        dev.fs.write_bytes(f"{D.VIDEOS_FOLDER}/{name}", make_mp4(5))


def start(dev: VirtualDevice) -> None:
    dev.go_home()
    dev.start_activity(PKG)


def aw_rows(dev: VirtualDevice) -> list[tuple[str, str, int]]:
    """android_world's query on the database file (task_evals/single/vlc.py:33-47)."""
    with sqlite3.connect(dev.fs.host(D.SCHEMA.path)) as db:
        return [tuple(r) for r in db.execute(PLAYLIST_QUERY)]


def tap_more(dev: VirtualDevice, title_entry: str, title: str, more_entry: str) -> None:
    title_view = find(dev, resource_id=T.rid(title_entry), text=title)
    mores = [v for v in dev.wm.windows()[0].walk() if v.resource_id == T.rid(more_entry)]
    mores += [v for win in dev.wm.windows()[1:] for v in win.walk() if v.resource_id == T.rid(more_entry)]
    cy, cx = title_view.center[1], title_view.center[0]
    best = min(mores, key=lambda m: abs(m.center[1] - cy) + abs(m.center[0] - cx))
    dev.wm.tap(*best.center)


def add_via_sheet(dev: VirtualDevice, video: str, playlist: str) -> None:
    tap(dev, resource_id=T.rid("nav_video"))
    tap_more(dev, "video_title", video, "video_more")
    tap(dev, resource_id=T.rid("ctx_add_to_playlist"), text="Add to playlist")
    if exists(dev, resource_id=T.rid("existing_row_title"), text=playlist):
        tap(dev, resource_id=T.rid("existing_row_title"), text=playlist)
    else:
        tap(dev, cls="android.widget.EditText")
        dev.wm.input_text(playlist)
        tap(dev, resource_id=T.rid("playlist_save"))
    assert not exists(dev, resource_id=T.rid("playlist_save"))


# ---------------------------------------------------------------------------------------------- identity, schema
def test_identity_and_first_start_creates_the_medialibrary(device: VirtualDevice) -> None:
    app = device.apps[PKG]
    assert isinstance(app, VlcApp)
    assert (app.version_code, app.version_name, app.label) == (13050408, "3.5.4-emukit-virtual", "VLC")
    assert app.launcher_activity == ".StartActivity"
    assert not D.STORE.exists(device)
    device.start_activity(PKG)
    assert device.current_focus() == (PKG, MAIN)  # StartActivity routed and finished
    assert D.SCHEMA.path == f"/data/data/{PKG}/app_db/vlc_media.db"
    assert D.STORE.exists(device)
    tables = {r["name"] for r in D.STORE.rows(device, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"Media", "Playlist", "PlaylistMediaRelation"} <= tables
    assert D.STORE.rows(device, "PRAGMA user_version") == [{"user_version": 36}]
    cols = [r["name"] for r in D.STORE.rows(device, "PRAGMA table_info(PlaylistMediaRelation)")]
    assert cols == ["media_id", "playlist_id", "position"]
    assert aw_rows(device) == []
    assert find(device, resource_id=T.rid("toolbar_title")).text == "VLC"
    assert exists(device, resource_id=T.rid("empty_text"))  # no media yet
    assert find(device, resource_id=T.rid("nav_video")).selected


def test_discovery_indexes_videos_with_their_file_names(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    put_videos(device)
    device.fs.write_bytes("/storage/emulated/0/Documents/notes.txt", b"not media")
    start(device)
    rows = D.STORE.rows(device, "SELECT type, title, filename, import_type FROM Media ORDER BY filename")
    assert rows == [{"type": 1, "title": n, "filename": n, "import_type": 0} for n in VIDEOS]
    titles = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("video_title")]
    assert titles == ["clip_1", "footage_2", "scene_3"]
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "video.yaml") == []


def test_generated_mp4_is_a_well_formed_video(device: VirtualDevice) -> None:
    info = read_mp4(make_mp4(42.5, 640, 360))
    assert info == {"boxes": ["ftyp", "moov", "mdat"], "duration_ms": 42500, "handler": "vide"}


# ---------------------------------------------------------------------------------------------- playlists
def test_add_to_new_then_existing_playlist_keeps_the_order(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    tap_more(device, "video_title", "scene_3", "video_more")
    tap(device, resource_id=T.rid("ctx_add_to_playlist"), text="Add to playlist")
    assert exists(device, resource_id=T.rid("existing_empty"), text="No playlist found.")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "add_to_playlist.yaml") != []  # no existing row yet
    tap(device, cls="android.widget.EditText")
    device.wm.input_text("Road Trips")
    tap(device, resource_id=T.rid("playlist_save"), text="Save")
    add_via_sheet(device, "clip_1", "Road Trips")
    add_via_sheet(device, "footage_2", "Road Trips")
    assert aw_rows(device) == [("Road Trips", "scene_3.mp4", 0), ("Road Trips", "clip_1.mp4", 1),
                               ("Road Trips", "footage_2.mp4", 2)]
    p = D.playlist_by_name(device, "Road Trips")
    assert (p["nb_video"], p["nb_present_video"]) == (3, 3)
    tap(device, resource_id=T.rid("nav_video"))
    tap_more(device, "video_title", "clip_1", "video_more")
    tap(device, resource_id=T.rid("ctx_add_to_playlist"), text="Add to playlist")
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "add_to_playlist.yaml") == []


def test_an_existing_name_shows_the_error_and_creates_nothing(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    add_via_sheet(device, "clip_1", "Focus")
    tap_more(device, "video_title", "scene_3", "video_more")
    tap(device, resource_id=T.rid("ctx_add_to_playlist"), text="Add to playlist")
    tap(device, cls="android.widget.EditText")
    device.wm.input_text("Focus")
    tap(device, resource_id=T.rid("playlist_save"))
    assert exists(device, text="Playlist Focus already exists")
    assert len(D.playlists(device)) == 1 and aw_rows(device) == [("Focus", "clip_1.mp4", 0)]


def test_playlist_detail_reorder_and_remove(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    for video in ("clip_1", "footage_2", "scene_3"):
        add_via_sheet(device, video, "Mix")
    tap(device, resource_id=T.rid("nav_playlists"))
    tap(device, resource_id=T.rid("playlist_card_title"), text="Mix")
    assert device.current_focus() == (PKG, PLAYLIST)
    assert find(device, resource_id=T.rid("playlist_header_title")).text == "Mix"
    assert match_fixture(device.hierarchy_xml(), FIXTURES / "playlist.yaml") == []
    handles = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("track_move")]
    titles = [v for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("track_row_title")]
    assert [t.text for t in titles] == ["clip_1", "footage_2", "scene_3"]
    x, y = handles[2].center
    device.wm.swipe(x, y, x, titles[0].center[1], 600)  # last row onto the first
    assert [r[1] for r in aw_rows(device)] == ["scene_3.mp4", "clip_1.mp4", "footage_2.mp4"]
    assert [r[2] for r in aw_rows(device)] == [0, 1, 2]
    tap_more(device, "track_row_title", "clip_1", "track_more")
    tap(device, resource_id=T.rid("ctx_delete"), text="Delete")
    assert aw_rows(device) == [("Mix", "scene_3.mp4", 0), ("Mix", "footage_2.mp4", 1)]
    rows = [v.text for v in device.wm.windows()[0].walk() if v.resource_id == T.rid("track_row_title")]
    assert rows == ["scene_3", "footage_2"]


def test_delete_playlist_asks_then_deletes(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    add_via_sheet(device, "clip_1", "Old")
    tap(device, resource_id=T.rid("nav_playlists"))
    tap_more(device, "playlist_card_title", "Old", "playlist_card_more")
    tap(device, resource_id=T.rid("ctx_delete"), text="Delete")
    assert exists(device, resource_id=T.rid("delete_title"), text="Delete playlist 'Old'?")
    tap(device, resource_id=T.rid("delete_cancel"))
    assert [p["name"] for p in D.playlists(device)] == ["Old"]
    tap_more(device, "playlist_card_title", "Old", "playlist_card_more")
    tap(device, resource_id=T.rid("ctx_delete"), text="Delete")
    tap(device, resource_id=T.rid("delete_forever"), text="Delete forever")
    assert D.playlists(device) == [] and aw_rows(device) == []
    assert D.STORE.rows(device, "SELECT COUNT(*) AS n FROM PlaylistMediaRelation") == [{"n": 0}]
    assert find(device, resource_id=T.rid("empty_text")).text == "No playlist found."


def test_position_triggers_match_the_medialibrary(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    ids = [m["id_media"] for m in D.media(device)]
    pid = D.create_playlist(device, "T")
    D.append(device, pid, ids)
    D.move(device, pid, 0, 2)
    assert [t["filename"] for t in D.tracks(device, pid)] == ["footage_2.mp4", "scene_3.mp4", "clip_1.mp4"]
    D.remove(device, pid, 1)
    assert [(t["filename"], t["position"]) for t in D.tracks(device, pid)] == [("footage_2.mp4", 0), ("clip_1.mp4", 1)]


# ---------------------------------------------------------------------------------------------- first run, pm clear
def test_hardware_first_run_onboarding_then_all_files_access(hardware: VirtualDevice) -> None:
    dev = hardware
    assert PKG not in dev.apps
    install_standin(dev, PKG)
    assert not dev.app_op_allowed(PKG, "MANAGE_EXTERNAL_STORAGE")
    put_videos(dev, ("clip_1.mp4",))
    dev.start_activity(PKG)
    assert dev.current_focus() == (PKG, ONBOARDING)
    assert find(dev, resource_id=T.rid("onboarding_welcome_title")).text == "Welcome to VLC!"
    tap(dev, resource_id=T.rid("onboarding_skip"), text="Skip")
    assert dev.current_focus() == (PKG, MAIN) and D.onboarding_done(dev)
    assert find(dev, resource_id=T.rid("permission_title")).text == "Permission not granted"
    assert D.media(dev) == []  # nothing discovered without access
    tap(dev, resource_id=T.rid("grant_permission"))
    assert find(dev, resource_id="android:id/alertTitle").text == "Allow VLC all file access"
    dev.wm.key(4)  # not cancelable
    assert exists(dev, resource_id="android:id/alertTitle")
    tap(dev, resource_id=T.rid("all_access_ok"), text="OK")
    assert dev.current_focus()[0] == "com.android.settings"
    tap(dev, text="Allow access to manage all files")
    assert dev.app_op_allowed(PKG, "MANAGE_EXTERNAL_STORAGE")
    dev.wm.key(4)
    assert dev.current_focus() == (PKG, MAIN)
    assert [m["filename"] for m in D.media(dev)] == ["clip_1.mp4"]
    dev.go_home()
    dev.start_activity(PKG)  # onboarding is not shown again
    assert dev.current_focus() == (PKG, MAIN)


def test_pm_clear_removes_the_database(device: VirtualDevice) -> None:
    put_videos(device)
    start(device)
    add_via_sheet(device, "clip_1", "Gone")
    assert D.STORE.exists(device)
    out: list[bytes] = []
    assert run_shell(device, f"pm clear {PKG}", out.append, out.append, b"", None) == 0
    assert not D.STORE.exists(device) and not device.fs.host(D.PREFS).exists()
    start(device)
    assert D.STORE.exists(device) and D.playlists(device) == []
    assert len(D.media(device)) == 3  # rediscovered


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = []
    for name in device.apps[PKG].gallery_scenes(device):
        names.append(name)
        png = device.screenshot_png()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    assert names == ["video grid (empty)", "video grid", "context sheet", "add to playlist", "playlists tab",
                     "delete confirmation", "playlist detail"]
