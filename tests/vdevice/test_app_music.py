"""The virtual Retro Music app, driven in-process through the window manager (taps, swipes, drags, keys,
typing) and checked in the places the real app keeps its state: playlist.db, music_playback_state.db, the
default shared prefs and the media index; and at the moments the real app writes them."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from emukit.media import make_mp3, read_tags
from emukit.vdevice.apps.music import MusicApp, playback
from emukit.vdevice.apps.music.const import (
    PKG,
    PLAYLIST_DB,
    PREFS_XML,
    QUEUE_DB,
    T,
)
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.services.mediastore import DB_PATH as MEDIA_DB
from emukit.vdevice.ui.view import View

TITLES = ("Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Grove", "Heath", "Isle", "Juniper", "Kestrel")
BACK = 4


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


def absent(dev: VirtualDevice, **attrs: object) -> bool:
    return dev.wm.find_view(lambda v: all(getattr(v, k) == val for k, val in attrs.items())) is None


def tap(dev: VirtualDevice, **attrs: object) -> None:
    dev.wm.tap(*find(dev, **attrs).center)


def the_list(dev: VirtualDevice) -> View:
    """The screen's RecyclerView (library tabs, playlist detail or queue)."""
    for name in ("songs_list", "playlist_detail_list", "queue_list"):
        found = dev.wm.find_view(lambda v, n=name: v.resource_id == T.rid(n) and v.cls == T.cls(n))
        if found is not None:
            return found
    raise AssertionError("no list on screen")


def texts(dev: VirtualDevice) -> list[str]:
    """Titles of the list's rows (only rows: the list's children)."""
    return [v.text for row in the_list(dev).children for v in row.walk() if v.resource_id == T.rid("row_title")]


def row_of(dev: VirtualDevice, title: str) -> View:
    """The list's child showing ``title``."""
    for row in the_list(dev).children:
        if any(v.resource_id == T.rid("row_title") and v.text == title for v in row.walk()):
            return row
    raise AssertionError(f"no row {title!r}")


def row_part(row: View, entry: str) -> View:
    return next(v for v in row.walk() if v.resource_id == T.rid(entry))


def covered(dev: VirtualDevice, view: View) -> bool:
    """Whether the mini player, the bottom navigation or a floating button is drawn over ``view``."""
    b = view.bounds
    return any(v.bounds[0] < b[2] and b[0] < v.bounds[2] and v.bounds[1] < b[3] and b[1] < v.bounds[3]
               for v in views(dev) if v.resource_id in {T.rid(e) for e in ("mini_player", "bottom_nav",
                                                                            "shuffle_fab", "clear_queue")})


def reveal(dev: VirtualDevice, title: str) -> None:
    """Scroll the list down until the row's menu shows clear of what is drawn over the list."""
    for _ in range(6):
        try:
            row = row_of(dev, title)
        except AssertionError:
            row = None
        if row is not None and not covered(dev, row_part(row, "row_menu")):
            return
        box = the_list(dev).bounds
        dev.wm.swipe(box[0] + 100, box[1] + (box[3] - box[1]) * 2 // 3, box[0] + 100, box[1] + 60, 300)
    raise AssertionError(f"row {title!r} stays covered")


def song_menu(dev: VirtualDevice, title: str, item: str) -> None:
    """The row's menu, then the item (a table entry)."""
    reveal(dev, title)
    dev.wm.tap(*row_part(row_of(dev, title), "row_menu").center)
    tap(dev, text=T.text(item), resource_id=T.rid("popup_item"))


def tab(dev: VirtualDevice, name: str) -> None:
    """The bottom navigation item labelled ``name``."""
    entry = next(e for e in ("tab_home", "tab_songs", "tab_albums", "tab_artists", "tab_playlists")
                 if T.desc(e) == name)
    tap(dev, content_desc=T.desc(entry), resource_id=T.rid(entry))


def player_view(dev: VirtualDevice, entry: str) -> View:
    """A view of the expanded Now playing panel (the library stays in the tree beneath it)."""
    panel = find(dev, resource_id=T.rid("player_container"))
    found = panel.find(lambda v: v.resource_id == T.rid(entry))
    assert found is not None, entry
    return found


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
        song_menu(dev, title, "song_add_to_queue")


def new_playlist(dev: VirtualDevice, name: str) -> None:
    """Playlists tab, toolbar overflow "More options", "New playlist", the name, "Create"."""
    tab(dev, "Playlists")
    tap(dev, content_desc=T.desc("more_options"))
    tap(dev, text=T.text("menu_new_playlist"), resource_id=T.rid("popup_item"))
    tap(dev, resource_id=T.rid("new_playlist_name"))
    dev.wm.input_text(name)
    tap(dev, text=T.text("new_playlist_create"), resource_id=T.rid("dialog_positive"))


def add_to_playlist(dev: VirtualDevice, title: str, playlist: str) -> None:
    song_menu(dev, title, "song_add_to_playlist")
    tap(dev, text=playlist, resource_id=T.rid("add_to_playlist_choice"))


def open_queue(dev: VirtualDevice) -> None:
    tap(dev, resource_id=T.rid("mini_player_title"))
    tap(dev, content_desc=T.desc("now_playing_queue"), resource_id=T.rid("now_playing_queue"))


def handle_of(dev: VirtualDevice, title: str) -> tuple[int, int]:
    return row_part(row_of(dev, title), "row_drag_handle").center


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
    assert [v.text for v in views(device) if v.resource_id == T.rid("row_text")] == ["Artist 1", "Artist 2",
                                                                                     "Artist 0"]
    ids = {r[1]: r[0] for r in query(device, MEDIA_DB, "SELECT _id, title FROM files WHERE media_type = 2")}
    device.fs.write_bytes("/sdcard/Music/birch.mp3", make_mp3("Birch", "New", "", 99))
    assert texts(device) == ["amber", "Birch", "Cedar", "Dune"]  # picked up on the next frame
    again = {r[1]: r[0] for r in query(device, MEDIA_DB, "SELECT _id, title FROM files WHERE media_type = 2")}
    assert all(again[t] == i for t, i in ids.items()) and again["Birch"] > max(ids.values())
    device.fs.host("/sdcard/Music/dune.mp3").unlink()
    assert texts(device) == ["amber", "Birch", "Cedar"]
    app = device.app(PKG)
    assert app.version_name == "6.1.0-emukit-virtual" and app.version_code == 10603


def test_empty_library_and_build_is_cheap(device: VirtualDevice) -> None:
    device.start_activity(PKG)
    empty = find(device, resource_id=T.rid("empty"))
    assert empty.find(lambda v: v.resource_id == T.rid("empty_text") and v.text == T.text("no_songs"))
    push_songs(device, TITLES)
    device.wm.windows()
    began = time.perf_counter()
    for _ in range(20):
        device.wm.windows()
    assert (time.perf_counter() - began) / 20 < 0.02


def test_bottom_navigation_is_the_real_menu(device: VirtualDevice) -> None:
    start(device)
    items = [v for v in views(device) if v.resource_id in {T.rid(f"tab_{t}") for t in
                                                           ("home", "songs", "albums", "artists", "playlists")}]
    assert [v.content_desc for v in items] == ["For you", "Songs", "Albums", "Artists", "Playlists"]
    assert [v.selected for v in items] == [False, True, False, False, False]
    tab(device, "For you")
    assert find(device, resource_id=T.rid("home_shuffle")).text == "Shuffle"
    tab(device, "Songs")
    assert texts(device)[0] == "Amber"


# ------------------------------------------------------------------------------------------ playing queue
def test_add_to_playing_queue_appends_in_order(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Cedar", "Amber", "Elm")
    assert device.state.ui.toast == "Added 1 title to the playing queue."
    enqueue(device, "Birch", "Dune")
    assert queue_titles(device) == ["Cedar", "Amber", "Elm", "Birch", "Dune"]
    assert queue_titles(device, "original_playing_queue") == queue_titles(device)
    assert '<int name="POSITION" value="0" />' in prefs(device)  # the first add opened the queue
    assert find(device, resource_id=T.rid("mini_player_title")).text == "Cedar • Artist 2"
    assert find(device, resource_id=T.rid("mini_player_play_pause")).style.icon == "play"  # not started


def test_play_replaces_queue_and_play_next_inserts_after_current(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Cedar").center)  # a tap plays the Songs list from this song
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    assert '<int name="POSITION" value="2" />' in prefs(device)
    assert find(device, resource_id=T.rid("mini_player_play_pause")).style.icon == "pause"
    song_menu(device, "Amber", "song_play_next")
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Amber", "Dune", "Elm", "Fjord"]
    device.wm.tap(*row_of(device, "Fjord").center)
    assert '<int name="POSITION" value="5" />' in prefs(device)
    assert queue_titles(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]


def test_queue_drags_at_head_middle_and_tail(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord")
    open_queue(device)
    assert texts(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    assert absent(device, resource_id=T.rid("mini_player")) and absent(device, resource_id=T.rid("bottom_nav"))
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
    # the current song (Amber) moved with its row; MusicService.moveSong saves the queue, not POSITION
    assert playback.player(device)["pos"] == 5 and '<int name="POSITION" value="0" />' in prefs(device)
    assert row_part(row_of(device, "Amber"), "row_title").style.fg == row_part(row_of(device, "Dune"),
                                                                               "row_title").style.fg


def test_queue_remove_swipe_away_and_clear(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch", "Cedar")
    open_queue(device)
    song_menu(device, "Birch", "queue_song_remove")
    assert queue_titles(device) == ["Amber", "Cedar"]
    row = row_of(device, "Cedar")
    device.wm.swipe(row.bounds[0] + 300, row.center[1], row.bounds[2] - 40, row.center[1], 200)
    assert queue_titles(device) == ["Amber"]
    tap(device, resource_id=T.rid("clear_queue"), text=T.text("clear_queue"))
    assert queue_titles(device) == [] and texts(device) == ["Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord"]
    assert absent(device, resource_id=T.rid("mini_player_title"))
    assert '<int name="POSITION" value="-1" />' in prefs(device)


def test_leaving_the_queue_expands_now_playing(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch")
    open_queue(device)
    device.wm.key(BACK)  # PlayingQueueFragment.onDestroy expands the panel
    assert player_view(device, "player_title").text == "Amber"
    device.wm.key(BACK)  # the panel collapses
    assert absent(device, resource_id=T.rid("player_container")) and texts(device)[0] == "Amber"
    assert find(device, resource_id=T.rid("mini_player_title")).text.startswith("Amber")


def test_now_playing_controls_time_and_restart(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Dune").center)
    tap(device, resource_id=T.rid("mini_player_title"))
    assert player_view(device, "player_title").text == "Dune"
    assert player_view(device, "player_play_pause").style.icon == "pause"
    assert player_view(device, "now_playing_queue").content_desc == "Now playing queue"
    device.wm.tap(*player_view(device, "player_next").center)
    assert player_view(device, "player_title").text == "Elm"
    device.wm.tap(*player_view(device, "player_previous").center)
    assert player_view(device, "player_title").text == "Dune"
    device.advance(60_000)
    assert player_view(device, "player_progress").text == "01:00"
    device.advance(63_000 + 125_000)  # Dune (123 s) then Elm (124 s) end
    assert player_view(device, "player_title").text == "Fjord"
    assert '<int name="POSITION" value="5" />' in prefs(device)
    notes = device.notifications()
    assert [n.title for n in notes if n.package == PKG] == ["Fjord"]
    device.wm.tap(*player_view(device, "player_play_pause").center)
    assert player_view(device, "player_play_pause").style.icon == "play"
    assert '<int name="POSITION_IN_TRACK" value=' in prefs(device)
    device.wm.tap(*player_view(device, "player_repeat").center)
    assert '<int name="REPEAT_MODE" value="1" />' in prefs(device)
    device.force_stop(PKG)
    device.start_activity(PKG)
    assert find(device, resource_id=T.rid("mini_player_title")).text.startswith("Fjord")  # restored
    device.wm.key(BACK)
    assert device.top.package != PKG


def test_shuffle_keeps_original_queue(device: VirtualDevice) -> None:
    start(device)
    device.wm.tap(*row_of(device, "Birch").center)
    tap(device, resource_id=T.rid("mini_player_title"))
    device.wm.tap(*player_view(device, "player_shuffle").center)
    shuffled = queue_titles(device)
    assert shuffled[0] == "Birch" and sorted(shuffled) == sorted(TITLES[:6])
    assert queue_titles(device, "original_playing_queue") == list(TITLES[:6])
    assert '<int name="SHUFFLE_MODE" value="1" />' in prefs(device)
    device.wm.tap(*player_view(device, "player_shuffle").center)
    assert queue_titles(device) == list(TITLES[:6]) and playback.player(device)["pos"] == 1


def test_restore_needs_both_queues_and_a_position(device: VirtualDevice) -> None:
    start(device)
    enqueue(device, "Amber", "Birch")
    device.force_stop(PKG)
    conn = sqlite3.connect(device.fs.host(QUEUE_DB))
    conn.execute("DELETE FROM original_playing_queue WHERE title = 'Birch'")
    conn.commit()
    conn.close()
    device.start_activity(PKG)
    assert absent(device, resource_id=T.rid("mini_player"))  # sizes differ: nothing restored


# ------------------------------------------------------------------------------------------ playlists
def test_create_and_delete_playlist_with_dialogs(device: VirtualDevice) -> None:
    start(device)
    tab(device, "Playlists")
    assert find(device, resource_id=T.rid("empty_text")).text == T.text("no_playlists")
    tap(device, content_desc=T.desc("more_options"))
    items = [v.text for v in views(device) if v.resource_id == T.rid("popup_item")]
    assert items == ["Grid size", "Sort order", "New playlist", "Import playlist", "Settings"]
    tap(device, text=T.text("menu_new_playlist"))
    assert find(device, resource_id=T.rid("dialog_title")).text == "New playlist"
    tap(device, text="Create")  # an empty name: the dialog closes, nothing is created
    assert absent(device, text="Create") and query(device, PLAYLIST_DB, "SELECT * FROM PlaylistEntity") == []
    new_playlist(device, "Road trip")
    assert query(device, PLAYLIST_DB, "SELECT playlist_id, playlist_name FROM PlaylistEntity") == [(1, "Road trip")]
    assert device.state.ui.toast == "Added 0 song(s) to Road trip"
    song_menu(device, "Road trip", "playlist_delete")
    assert find(device, resource_id=T.rid("dialog_message")).text == "Delete the playlist Road trip?"
    tap(device, text="Cancel", resource_id=T.rid("dialog_negative"))
    assert len(query(device, PLAYLIST_DB, "SELECT * FROM PlaylistEntity")) == 1
    song_menu(device, "Road trip", "playlist_delete")
    tap(device, text="Delete", resource_id=T.rid("dialog_positive"))
    assert query(device, PLAYLIST_DB, "SELECT * FROM PlaylistEntity") == []
    assert find(device, resource_id=T.rid("empty_text")).text == T.text("no_playlists")


def test_grid_cards_hold_their_own_menus(device: VirtualDevice) -> None:
    start(device)
    for name in ("Beta", "alpha", "Gamma"):
        new_playlist(device, name)
    cards = the_list(device).children
    assert [row_part(c, "row_title").text for c in cards] == ["Beta", "Gamma", "alpha"]  # sortedBy, case first
    left, right = cards[0], cards[1]
    assert left.bounds[1] == right.bounds[1] and left.bounds[2] <= right.bounds[0]  # two columns
    for card in cards:
        menu, title = row_part(card, "row_menu"), row_part(card, "row_title")
        assert card.bounds[0] <= menu.bounds[0] and menu.bounds[2] <= card.bounds[2]
        assert menu.bounds[1] < title.bounds[3] and title.bounds[1] < menu.bounds[3]  # beside its title
    song_menu(device, "Beta", "playlist_delete")
    tap(device, text="Delete", resource_id=T.rid("dialog_positive"))
    assert [r[0] for r in query(device, PLAYLIST_DB, "SELECT playlist_name FROM PlaylistEntity")] == ["alpha", "Gamma"]


def test_add_to_new_playlist_from_song_menu_and_rename(device: VirtualDevice) -> None:
    start(device)
    new_playlist(device, "Zed")
    tab(device, "Songs")
    song_menu(device, "Elm", "song_add_to_playlist")
    choices = [v.text for v in views(device) if v.resource_id == T.rid("add_to_playlist_choice")]
    assert choices == ["New playlist", "Zed"]
    tap(device, text="New playlist", resource_id=T.rid("add_to_playlist_choice"))
    device.wm.set_text(T.rid("new_playlist_name"), "Mix")
    tap(device, text="Create")
    assert device.state.ui.toast == "Added 1 song(s) to Mix"
    assert playlist_titles(device, "Mix") == ["Elm"]
    song_menu(device, "Dune", "song_add_to_playlist")  # database order, not the Playlists tab's A-Z
    assert [v.text for v in views(device) if v.resource_id == T.rid("add_to_playlist_choice")] == [
        "New playlist", "Zed", "Mix"]
    device.wm.key(BACK)
    tab(device, "Playlists")
    song_menu(device, "Mix", "playlist_rename")
    device.wm.set_text(T.rid("new_playlist_name"), "Evening mix")
    tap(device, text="Rename", resource_id=T.rid("dialog_positive"))
    assert playlist_titles(device, "Evening mix") == ["Elm"]


def test_ten_item_playlist_scrolls_and_reorder_is_saved_on_leaving(device: VirtualDevice) -> None:
    start(device, TITLES)
    new_playlist(device, "Ten")
    tab(device, "Songs")
    order = list(TITLES[:8]) + ["Juniper", "Isle"]
    for title in order:
        add_to_playlist(device, title, "Ten")
    assert playlist_titles(device, "Ten") == order
    keys = [r[0] for r in query(device, PLAYLIST_DB, "SELECT song_key FROM SongEntity ORDER BY song_key")]
    assert keys == list(range(1, 11))
    device.wm.tap(*row_of(device, "Kestrel").center)  # playing: the mini player covers the list's foot
    tab(device, "Playlists")
    device.wm.tap(*row_part(row_of(device, "Ten"), "row_title").center)
    assert find(device, resource_id=T.rid("playlist_header_title")).text == "Ten"
    assert "Ten" not in texts(device)  # the header's name is not a row
    listing = the_list(device)
    assert listing.resource_id == T.rid("playlist_detail_list") and listing.scrollable
    assert row_of(device, "Isle").bounds[3] > find(device, resource_id=T.rid("mini_player")).bounds[1]
    for _ in range(3):
        device.wm.swipe(540, listing.bounds[3] - 300, 540, listing.bounds[1] + 100, 300)
    assert texts(device)[-2:] == ["Juniper", "Isle"]
    x, y = handle_of(device, "Isle")
    device.wm.swipe(x, y, x, row_of(device, "Juniper").center[1], 1000)
    assert texts(device)[-2:] == ["Isle", "Juniper"]
    assert playlist_titles(device, "Ten")[-2:] == ["Juniper", "Isle"]  # the adapter only, until onPause
    device.wm.key(BACK)
    assert playlist_titles(device, "Ten")[-2:] == ["Isle", "Juniper"]
    keys = [r[0] for r in query(device, PLAYLIST_DB, "SELECT song_key FROM SongEntity ORDER BY song_key")]
    assert keys == list(range(11, 21))  # saveSongs: every row inserted again with REPLACE


def test_remove_all_keeps_the_last_row_and_saves_it_back(device: VirtualDevice) -> None:
    start(device)
    new_playlist(device, "Reset")
    tab(device, "Songs")
    for title in ("Amber", "Birch", "Cedar"):
        add_to_playlist(device, title, "Reset")
    tab(device, "Playlists")
    device.wm.tap(*row_of(device, "Reset").center)
    for title in ("Birch", "Amber", "Cedar"):
        song_menu(device, title, "playlist_song_remove")
        assert find(device, resource_id=T.rid("dialog_title")).text == "Remove song from playlist"
        tap(device, text="Remove")
    assert playlist_titles(device, "Reset") == []
    assert find(device, resource_id=T.rid("empty")) and texts(device) == ["Cedar"]  # the stale row stays
    device.wm.key(BACK)  # onPause: the adapter's rows are saved again
    assert playlist_titles(device, "Reset") == ["Cedar"]
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
    toolbar = find(device, resource_id=T.rid("playlist_toolbar"))
    more = toolbar.find(lambda v: v.content_desc == T.desc("more_options"))
    assert more is not None
    device.wm.tap(*more.center)
    assert find(device, text="Rename")
    device.wm.key(BACK)
    assert absent(device, text="Rename")
    assert find(device, resource_id=T.rid("empty_text")).text == T.text("no_songs")
    device.wm.key(BACK)
    assert find(device, resource_id=T.rid("tab_playlists")).selected
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
    assert find(device, resource_id=T.rid("mini_player_play_pause")).style.icon == "play"
    device.wm.key(85)  # KEYCODE_MEDIA_PLAY_PAUSE
    device.wm.key(87)  # KEYCODE_MEDIA_NEXT
    assert find(device, resource_id=T.rid("mini_player_title")).text.startswith("Cedar")
    assert find(device, resource_id=T.rid("mini_player_play_pause")).style.icon == "pause"


# ------------------------------------------------------------------------------------------ ten-song library
# Moved in-process from the over-adb module (tests/integration/test_app_music.py, which keeps one smoke test):
# ten songs indexed and Retro Music open on Songs, the state the over-adb module saves as its base snapshot.
TEN = TITLES[:10]


@pytest.fixture
def ten(device: VirtualDevice) -> VirtualDevice:
    for i, title in enumerate(TEN):
        device.fs.write_bytes(f"/sdcard/Music/{title.lower()}.mp3",
                              make_mp3(title, f"Band {i % 3}", f"Record {i % 2}", 150 + i))
    device.start_activity(PKG)
    assert find(device, resource_id=T.rid("row_title"), text="Amber")
    return device


def open_playlist(dev: VirtualDevice, name: str) -> None:
    tab(dev, "Playlists")
    dev.wm.tap(*row_part(row_of(dev, name), "row_title").center)
    assert find(dev, resource_id=T.rid("playlist_header_title"), text=name)


def scroll_to_end(dev: VirtualDevice) -> None:
    """UiScrollable.scrollToEnd on the scrollable view: a page at a time (its own scrolling, else a swipe up the
    middle of the view) until the screen stops changing."""
    for _ in range(20):
        view = dev.wm.find_view(lambda v: v.scrollable)
        assert view is not None
        before = [(v.text, v.bounds) for v in views(dev)]
        left, top, right, bottom = view.bounds
        if view.on_scroll is not None:
            view.on_scroll(int((bottom - top) * 0.8))
        else:
            x = (left + right) // 2
            dev.wm.swipe(x, bottom - (bottom - top) // 10, x, top + (bottom - top) // 10, 275)
        if [(v.text, v.bounds) for v in views(dev)] == before:
            return
    raise AssertionError("the list does not reach its end")


@pytest.mark.parametrize("order", [("Cedar", "Amber", "Elm", "Birch", "Dune"),
                                   ("Birch", "Dune", "Cedar", "Elm", "Amber")])
def test_playing_queue_appends_in_two_orders(ten: VirtualDevice, order: tuple[str, ...]) -> None:
    enqueue(ten, *order)
    tap(ten, resource_id=T.rid("mini_player_title"))  # the Now playing anchor
    assert player_view(ten, "player_title").text == order[0]
    assert queue_titles(ten) == list(order)
    tap(ten, content_desc=T.desc("now_playing_queue"))
    assert find(ten, text=T.text("queue_title"))
    assert texts(ten) == list(order)
    assert absent(ten, resource_id=T.rid("mini_player"))  # the queue hides the sliding panel


def test_ten_item_playlist_hidden_suffix(ten: VirtualDevice) -> None:
    new_playlist(ten, "Ten")
    tab(ten, "Songs")
    for title in TEN[:8]:
        add_to_playlist(ten, title, "Ten")
    ten.snapshots.save("music_prefix8")  # `avd snapshot save`
    suffixes = {}
    for last_two in (("Isle", "Juniper"), ("Juniper", "Isle")):
        ten.snapshots.load("music_prefix8")
        for title in last_two:
            add_to_playlist(ten, title, "Ten")
        songs = playlist_titles(ten, "Ten")
        assert songs[:8] == list(TEN[:8]) and len(songs) == 10
        suffixes[last_two] = songs[8:]
        open_playlist(ten, "Ten")
        assert "Ten" not in texts(ten)  # the header's name is not a row
        if ten.wm.find_view(lambda v: v.scrollable) is not None:
            scroll_to_end(ten)  # `d(scrollable=True).scroll.toEnd()`
        assert row_part(row_of(ten, last_two[1]), "row_title")
    assert suffixes == {("Isle", "Juniper"): ["Isle", "Juniper"], ("Juniper", "Isle"): ["Juniper", "Isle"]}


def test_remove_all_then_rebuild_in_another_order(ten: VirtualDevice) -> None:
    new_playlist(ten, "Reset")
    tab(ten, "Songs")
    for title in ("Amber", "Birch", "Cedar", "Dune"):
        add_to_playlist(ten, title, "Reset")
    open_playlist(ten, "Reset")
    for title in ("Cedar", "Amber", "Dune", "Birch"):
        song_menu(ten, title, "playlist_song_remove")
        tap(ten, resource_id=T.rid("dialog_positive"), text=T.text("remove_song_confirm"))
    assert find(ten, resource_id=T.rid("empty"))
    assert playlist_titles(ten, "Reset") == []
    ten.wm.key(BACK)  # the detail saves the row it still shows (PlaylistDetailsFragment.onPause)
    assert playlist_titles(ten, "Reset") == ["Birch"]
    tab(ten, "Songs")
    for title in ("Dune", "Birch", "Amber", "Cedar"):
        add_to_playlist(ten, title, "Reset")
    assert playlist_titles(ten, "Reset") == ["Dune", "Birch", "Amber", "Cedar"]


def test_two_playlists_with_interleaved_additions(ten: VirtualDevice) -> None:
    new_playlist(ten, "Target")
    new_playlist(ten, "Distractor")
    tab(ten, "Songs")
    for title, name in (("Elm", "Target"), ("Elm", "Distractor"), ("Amber", "Distractor"), ("Birch", "Target"),
                        ("Dune", "Distractor"), ("Cedar", "Target")):
        add_to_playlist(ten, title, name)
    assert playlist_titles(ten, "Target") == ["Elm", "Birch", "Cedar"]
    assert playlist_titles(ten, "Distractor") == ["Elm", "Amber", "Dune"]
    open_playlist(ten, "Target")
    assert texts(ten) == ["Elm", "Birch", "Cedar"]


def test_playlist_create_typed_and_delete_after_back_cancels(ten: VirtualDevice) -> None:
    tab(ten, "Playlists")
    assert find(ten, resource_id=T.rid("empty_text"), text=T.text("no_playlists"))
    tap(ten, content_desc=T.desc("more_options"))
    tap(ten, text=T.text("menu_new_playlist"))
    tap(ten, resource_id=T.rid("new_playlist_name"))
    ten.wm.input_text("Gym")  # typed through the soft keyboard's field
    tap(ten, text=T.text("new_playlist_create"))
    assert query(ten, PLAYLIST_DB, "SELECT playlist_name FROM PlaylistEntity") == [("Gym",)]
    song_menu(ten, "Gym", "playlist_delete")
    assert find(ten, resource_id=T.rid("dialog_message"), text="Delete the playlist Gym?")
    ten.wm.key(BACK)  # BACK cancels the dialog
    assert absent(ten, resource_id=T.rid("dialog_message"))
    song_menu(ten, "Gym", "playlist_delete")
    tap(ten, resource_id=T.rid("dialog_positive"), text=T.text("delete_playlist_confirm"))
    assert find(ten, resource_id=T.rid("empty_text"), text=T.text("no_playlists"))
    assert query(ten, PLAYLIST_DB, "SELECT COUNT(*) FROM PlaylistEntity") == [(0,)]
    assert ten.current_focus()[1].endswith("activities.MainActivity")
