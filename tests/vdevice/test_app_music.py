"""The virtual Retro Music app, driven in-process through the window manager (taps, swipes, drags, keys,
typing) and checked in the places the real app keeps its state: playlist.db, music_playback_state.db, the
default shared prefs and the media index."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from emukit.vdevice.apps.music import MusicApp
from emukit.vdevice.apps.music.const import MEDIA_DB, PKG, PLAYLIST_DB, PREFS_XML, QUEUE_DB
from emukit.vdevice.device import VirtualDevice
from emukit.media import make_mp3, read_tags
from emukit.vdevice.ui.view import View

TITLES = ("Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Grove", "Heath", "Isle", "Juniper", "Kestrel")
BACK = 4


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@pytest.fixture
def device(tmp_path: Path) -> VirtualDevice:
    dev = VirtualDevice(tmp_path / "dev", wipe=True)
    dev.wm.crash_on_error = False
    return dev


def push_songs(dev: VirtualDevice, titles: tuple[str, ...] = TITLES[:6]) -> None:
    for i, title in enumerate(titles):
        dev.fs.write_bytes(f"/sdcard/Music/{title.lower()}.mp3",
                           make_mp3(title, f"Artist {i % 3}", f"Album {i % 2}", 120 + i))


def start(dev: VirtualDevice, titles: tuple[str, ...] = TITLES[:6]) -> None:
    push_songs(dev, titles)
    dev.start_activity(PKG)


# ------------------------------------------------------------------------------------------ view helpers
def views(dev: VirtualDevice) -> list[View]:
    return [v for win in dev.wm.windows() for v in win.walk()]


def find(dev: VirtualDevice, **attrs: object) -> View:
    found = dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items()))
    assert found is not None, attrs
    return found


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def texts(dev: VirtualDevice, name: str = "title") -> list[str]:
    return [v.text for v in views(dev) if v.resource_id == rid(name)]


def row_of(dev: VirtualDevice, title: str) -> View:
    """The list row showing ``title``."""
    for win in dev.wm.windows():
        for v in win.walk():
            if any(c.resource_id == rid("title") and c.text == title for c in v.children):
                return v
    raise AssertionError(f"no row {title!r}")


def row_part(row: View, name: str) -> View:
    return next(c for c in row.walk() if c.resource_id == rid(name))


def song_menu(dev: VirtualDevice, title: str, item: str) -> None:
    dev.wm.tap(*row_part(row_of(dev, title), "menu").center)
    tap(dev, text=item)


def tab(dev: VirtualDevice, name: str) -> None:
    tap(dev, content_desc=name, resource_id=rid({"Songs": "action_song", "Playlists": "action_playlist",
                                                 "Albums": "action_album", "Artists": "action_artist"}[name]))


# ------------------------------------------------------------------------------------------ state helpers
def query(dev: VirtualDevice, path: str, sql: str) -> list[tuple]:
    conn = sqlite3.connect(dev.fs.host(path))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def queue_titles(dev: VirtualDevice, table: str = "playing_queue") -> list[str]:
    return [r[0] for r in query(dev, QUEUE_DB, f"SELECT title FROM {table} ORDER BY rowid")]


def playlist_titles(dev: VirtualDevice, name: str) -> list[str]:
    return [r[0] for r in query(dev, PLAYLIST_DB, "SELECT s.title FROM SongEntity s JOIN PlaylistEntity p ON "
                                f"p.playlist_id = s.playlist_creator_id WHERE p.playlist_name = '{name}' "
                                "ORDER BY s.song_key")]


def prefs(dev: VirtualDevice) -> str:
    return dev.fs.read_bytes(PREFS_XML).decode()


def enqueue(dev: VirtualDevice, *titles: str) -> None:
    for title in titles:
        song_menu(dev, title, "Add to playing queue")


def new_playlist(dev: VirtualDevice, name: str) -> None:
    tab(dev, "Playlists")
    tap(dev, content_desc="New playlist")
    tap(dev, resource_id=rid("actionNewPlaylist"))
    dev.wm.input_text(name)
    tap(dev, text="Create")


def add_to_playlist(dev: VirtualDevice, title: str, playlist: str) -> None:
    song_menu(dev, title, "Add to playlist")
    tap(dev, text=playlist, resource_id="android:id/text1")


def open_queue(dev: VirtualDevice) -> None:
    tap(dev, resource_id=rid("miniPlayerTitle"))
    tap(dev, content_desc="Playing queue")


def handle_of(dev: VirtualDevice, title: str) -> tuple[int, int]:
    return row_part(row_of(dev, title), "drag_view").center


# ------------------------------------------------------------------------------------------ media
def test_make_mp3_round_trip_and_fallbacks() -> None:
    data = make_mp3("Señor Blue", "Zoë & the Keys", "Live", 200, track=4, year=1999)
    assert data[:3] == b"ID3" and data[3] == 3 and b"\xff\xfb" in data
    tags = read_tags(data, "/sdcard/Music/x.mp3")
    assert (tags.title, tags.artist, tags.album, tags.duration_ms, tags.track, tags.year) == \
        ("Señor Blue", "Zoë & the Keys", "Live", 200_000, 4, 1999)
    untagged = read_tags(b"\xff\xfb\x90\x64" + bytes(413) * 1, "/sdcard/Music/My Song.mp3")
    assert untagged.title == "My Song" and untagged.artist == "<unknown>"
    v24 = b"ID3\x04\x00\x00\x00\x00\x00\x11" + b"TIT2\x00\x00\x00\x07\x00\x00\x03Hello!"
    assert read_tags(v24, "a.mp3").title == "Hello!"


def test_library_is_scanned_sorted_with_stable_ids(device: VirtualDevice) -> None:
    start(device, ("Dune", "amber", "Cedar"))
    assert texts(device) == ["amber", "Cedar", "Dune"]
    assert texts(device, "text") == ["Artist 1", "Artist 2", "Artist 0"]
    ids = {r[1]: r[0] for r in query(device, MEDIA_DB, "SELECT _id, title FROM files")}
    device.fs.write_bytes("/sdcard/Music/birch.mp3", make_mp3("Birch", "New", "", 99))
    assert texts(device) == ["amber", "Birch", "Cedar", "Dune"]  # picked up on the next frame
    again = {r[1]: r[0] for r in query(device, MEDIA_DB, "SELECT _id, title FROM files")}
    assert all(again[t] == i for t, i in ids.items()) and again["Birch"] > max(ids.values())
    device.fs.host("/sdcard/Music/dune.mp3").unlink()
    assert texts(device) == ["amber", "Birch", "Cedar"]
    assert device.app(PKG).version_name.endswith("-emukit-virtual")


def test_empty_library_and_build_is_cheap(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    assert find(device, text="You have no songs")
    push_songs(device, TITLES)
    device.wm.windows()
    began = time.perf_counter()
    for _ in range(20):
        device.wm.windows()
    assert (time.perf_counter() - began) / 20 < 0.02


# ------------------------------------------------------------------------------------------ playing queue
def test_add_to_playing_queue_appends_in_order(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Cedar", "Amber", "Elm")
    assert device.state.ui.toast == "Added 1 title to the playing queue."
    enqueue(device, "Birch", "Dune")
    assert queue_titles(device) == ["Cedar", "Amber", "Elm", "Birch", "Dune"]
    assert queue_titles(device, "original_playing_queue") == queue_titles(device)
    assert '<int name="POSITION" value="0" />' in prefs(device)
    assert find(device, resource_id=rid("miniPlayerTitle")).text == "Cedar"
    assert find(device, resource_id=rid("miniPlayerPlayPauseButton")).content_desc == "Play"  # not started


def test_play_replaces_queue_and_play_next_inserts_after_current(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Cedar").center)  # tap = Play from this song in the Songs list
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    assert '<int name="POSITION" value="2" />' in prefs(device)
    assert find(device, resource_id=rid("miniPlayerPlayPauseButton")).content_desc == "Pause"
    song_menu(device, "Amber", "Play next")
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Amber", "Dune", "Elm", "Fjord"]
    song_menu(device, "Fjord", "Play")
    assert '<int name="POSITION" value="5" />' in prefs(device)
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]


def test_queue_drags_at_head_middle_and_tail(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord")
    open_queue(device)
    assert texts(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    x, y = handle_of(device, "Dune")
    device.wm.swipe(x, y, x, row_of(device, "Amber").center[1], 1000)  # to the head
    assert queue_titles(device) == ["Dune", "Amber", "Birch", "Cedar", "Elm", "Fjord"]
    x, y = handle_of(device, "Amber")
    device.wm.drag(x, y, x, row_of(device, "Fjord").center[1])  # to the tail (input draganddrop / u2 drag)
    assert queue_titles(device) == ["Dune", "Birch", "Cedar", "Elm", "Fjord", "Amber"]
    x, y = handle_of(device, "Fjord")
    device.wm.swipe(x, y, x, row_of(device, "Cedar").center[1], 600)  # into the middle
    assert queue_titles(device) == ["Dune", "Birch", "Fjord", "Cedar", "Elm", "Amber"]
    assert texts(device) == queue_titles(device)
    assert '<int name="POSITION" value="5" />' in prefs(device)  # the current song (Amber) moved with it
    assert row_of(device, "Amber").selected


def test_queue_remove_and_swipe_away(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch", "Cedar")
    open_queue(device)
    song_menu(device, "Birch", "Remove from playing queue")
    assert queue_titles(device) == ["Amber", "Cedar"]
    row = row_of(device, "Cedar")
    device.wm.swipe(row.bounds[0] + 300, row.center[1], row.bounds[2] - 40, row.center[1], 200)
    assert queue_titles(device) == ["Amber"]
    tap(device, content_desc="Clear playing queue")
    assert queue_titles(device) == [] and texts(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    assert device.wm.find_view(lambda v: v.resource_id == rid("miniPlayerTitle")) is None


def test_now_playing_controls_time_and_restart(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Dune").center)
    tap(device, resource_id=rid("miniPlayerTitle"))
    assert find(device, resource_id=rid("title")).text == "Dune"
    assert find(device, resource_id=rid("playPauseButton")).content_desc == "Pause"
    tap(device, content_desc="Next")
    assert find(device, resource_id=rid("title")).text == "Elm"
    tap(device, content_desc="Previous")
    assert find(device, resource_id=rid("title")).text == "Dune"
    device.advance(60_000)
    assert find(device, resource_id=rid("songCurrentProgress")).text == "1:00"
    device.advance(63_000 + 125_000)  # Dune (123 s) then Elm (124 s) end
    assert find(device, resource_id=rid("title")).text == "Fjord"
    assert '<int name="POSITION" value="5" />' in prefs(device)
    notes = device.notifications()
    assert [n.title for n in notes if n.package == PKG] == ["Fjord"]
    tap(device, content_desc="Pause")
    assert find(device, resource_id=rid("playPauseButton")).content_desc == "Play"
    tap(device, content_desc="Cycle repeat mode")
    assert '<int name="REPEAT_MODE" value="1" />' in prefs(device)
    device.force_stop(PKG)
    device.start_activity(PKG)
    assert find(device, resource_id=rid("miniPlayerTitle")).text == "Fjord"  # restored from the databases
    device.wm.key(BACK)
    assert device.top.package != PKG


def test_shuffle_keeps_original_queue(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Birch").center)
    tap(device, resource_id=rid("miniPlayerTitle"))
    tap(device, content_desc="Toggle shuffle mode")
    shuffled = queue_titles(device)
    assert shuffled[0] == "Birch" and sorted(shuffled) == sorted(TITLES[:6])
    assert queue_titles(device, "original_playing_queue") == list(TITLES[:6])
    tap(device, content_desc="Toggle shuffle mode")
    assert queue_titles(device) == list(TITLES[:6]) and '<int name="POSITION" value="1" />' in prefs(device)


# ------------------------------------------------------------------------------------------ playlists
def test_create_and_delete_playlist_with_dialogs(device: VirtualDevice) -> None:
    start(device)
    tab(device, "Playlists")
    assert find(device, text="You have no playlists")
    tap(device, content_desc="New playlist")
    tap(device, text="Create")  # empty name: stays open with an error
    assert find(device, resource_id=rid("textinput_error")).text == "Playlist name can't be empty"
    device.wm.key(BACK)  # closes the dialog
    assert device.wm.find_view(lambda v: v.text == "Create") is None
    new_playlist(device, "Road trip")
    assert query(device, PLAYLIST_DB, "SELECT playlist_id, playlist_name FROM PlaylistEntity") == [(1, "Road trip")]
    assert device.state.ui.toast == "Road trip created successfully"
    song_menu(device, "Road trip", "Delete")
    assert find(device, resource_id="android:id/message").text == "Delete the playlist Road trip?"
    tap(device, text="Cancel")
    assert len(query(device, PLAYLIST_DB, "SELECT * FROM PlaylistEntity")) == 1
    song_menu(device, "Road trip", "Delete")
    tap(device, text="Delete", resource_id="android:id/button1")
    assert query(device, PLAYLIST_DB, "SELECT * FROM PlaylistEntity") == []
    assert find(device, text="You have no playlists")


def test_add_to_new_playlist_from_song_menu_and_rename(device: VirtualDevice) -> None:
    start(device)
    song_menu(device, "Elm", "Add to playlist")
    tap(device, text="New playlist", resource_id="android:id/text1")
    device.wm.set_text(rid("actionNewPlaylist"), "Mix")
    tap(device, text="Create")
    assert device.state.ui.toast == "Added 1 song(s) to Mix"
    assert playlist_titles(device, "Mix") == ["Elm"]
    tab(device, "Playlists")
    song_menu(device, "Mix", "Rename")
    device.wm.set_text(rid("actionNewPlaylist"), "Evening mix")
    tap(device, text="Rename", resource_id="android:id/button1")
    assert playlist_titles(device, "Evening mix") == ["Elm"]


def test_ten_item_playlist_scrolls_and_reorders(device: VirtualDevice) -> None:
    start(device, TITLES)
    new_playlist(device, "Ten")
    tab(device, "Songs")
    order = list(TITLES[:8]) + ["Juniper", "Isle"]
    for title in order:
        if device.wm.find_view(lambda v, t=title: v.text == t and v.resource_id == rid("title")) is None:
            device.wm.swipe(540, 1700, 540, 700, 300)
        add_to_playlist(device, title, "Ten")
    assert playlist_titles(device, "Ten") == order
    keys = [r[0] for r in query(device, PLAYLIST_DB, "SELECT song_key FROM SongEntity ORDER BY song_key")]
    assert keys == list(range(1, 11))
    device.wm.tap(*row_of(device, "Kestrel").center)  # playing: the mini player takes room from the list
    tab(device, "Playlists")
    device.wm.tap(*row_of(device, "Ten").center)
    assert find(device, resource_id=rid("toolbar")).find(lambda v: v.text == "Ten")
    listing = find(device, resource_id=rid("recycler_view"))
    assert listing.scrollable and row_of(device, "Isle").bounds[3] > listing.bounds[3]  # needs a scroll
    device.wm.swipe(540, 1800, 540, 800, 300)
    assert texts(device)[-2:] == ["Juniper", "Isle"]
    assert row_of(device, "Isle").bounds[3] <= find(device, resource_id=rid("recycler_view")).bounds[3]
    x, y = handle_of(device, "Isle")
    device.wm.swipe(x, y, x, row_of(device, "Juniper").center[1], 1000)
    assert playlist_titles(device, "Ten")[-2:] == ["Isle", "Juniper"]
    keys = [r[0] for r in query(device, PLAYLIST_DB, "SELECT song_key FROM SongEntity ORDER BY song_key")]
    assert keys == list(range(11, 21))  # Room-style save: every row deleted and inserted again


def test_remove_all_then_rebuild(device: VirtualDevice) -> None:
    start(device)
    new_playlist(device, "Reset")
    tab(device, "Songs")
    for title in ("Amber", "Birch", "Cedar"):
        add_to_playlist(device, title, "Reset")
    tab(device, "Playlists")
    device.wm.tap(*row_of(device, "Reset").center)
    for title in ("Birch", "Amber", "Cedar"):
        song_menu(device, title, "Remove from playlist")
        assert find(device, resource_id="android:id/alertTitle").text == "Remove song from playlist"
        tap(device, text="Remove")
    assert playlist_titles(device, "Reset") == [] and find(device, text="Playlist is empty")
    device.wm.key(BACK)
    tab(device, "Songs")
    for title in ("Cedar", "Amber", "Birch"):
        add_to_playlist(device, title, "Reset")
    assert playlist_titles(device, "Reset") == ["Cedar", "Amber", "Birch"]


def test_interleaved_playlists_and_duplicate_moves_to_end(device: VirtualDevice) -> None:
    start(device)
    new_playlist(device, "Target")
    new_playlist(device, "Other")
    tab(device, "Songs")
    for title, name in (("Dune", "Target"), ("Amber", "Other"), ("Birch", "Target"), ("Cedar", "Other"),
                        ("Amber", "Target")):
        add_to_playlist(device, title, name)
    assert playlist_titles(device, "Target") == ["Dune", "Birch", "Amber"]
    assert playlist_titles(device, "Other") == ["Amber", "Cedar"]
    add_to_playlist(device, "Dune", "Target")  # Room REPLACE on (playlist, song id): moves it to the end
    assert playlist_titles(device, "Target") == ["Birch", "Amber", "Dune"]


def test_back_closes_menu_then_screen(device: VirtualDevice) -> None:
    start(device)
    new_playlist(device, "P")
    device.wm.tap(*row_of(device, "P").center)
    tap(device, content_desc="More options", resource_id=rid("action_overflow"))
    assert find(device, text="Rename")
    device.wm.key(BACK)
    assert device.wm.find_view(lambda v: v.text == "Rename") is None
    assert find(device, text="Playlist is empty")
    device.wm.key(BACK)
    assert find(device, resource_id=rid("action_playlist")).selected
    assert isinstance(device.app(PKG), MusicApp)


def test_gallery_scenes_render(device: VirtualDevice) -> None:
    names = []
    for name in device.app(PKG).gallery_scenes(device):
        assert device.screenshot_png()[:8] == b"\x89PNG\r\n\x1a\n"
        names.append(name)
    assert len(names) >= 25 and len(set(names)) == len(names)


def test_media_keys_control_playback(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Birch").center)
    device.wm.key(127)  # KEYCODE_MEDIA_PAUSE
    assert find(device, resource_id=rid("miniPlayerPlayPauseButton")).content_desc == "Play"
    device.wm.key(85)  # KEYCODE_MEDIA_PLAY_PAUSE
    device.wm.key(87)  # KEYCODE_MEDIA_NEXT
    assert find(device, resource_id=rid("miniPlayerTitle")).text == "Cedar"
    assert find(device, resource_id=rid("miniPlayerPlayPauseButton")).content_desc == "Pause"
