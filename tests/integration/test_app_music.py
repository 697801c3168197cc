"""Retro Music on a real `emukit vdevice serve` process, driven only as a user or a test harness would drive
the real app: uiautomator2 selectors and gestures, `adb shell input ...`, `am`, and the emulator console's
snapshots. State is checked where the real app keeps it, by pulling `databases/` (with -wal/-shm when present)
and querying the copies locally.

One device for the module: songs are pushed and the app is opened once, saved as the console snapshot
`music_base`, and every test starts by loading it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from emukit.media import make_mp3
from tests.integration.helpers import emu

PKG = "code.name.monkey.retromusic"
MAIN = f"{PKG}/.activities.MainActivity"
RID = f"{PKG}:id/"
SONGS = ("Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Grove", "Heath", "Isle", "Juniper")
BASE = "music_base"




@pytest.fixture(scope="module")
def u2(vdevice, adb_device, adb_server):
    """uiautomator2 on the module's device, with ten songs indexed and Retro Music open (snapshot BASE)."""
    import uiautomator2

    for i, title in enumerate(SONGS):
        adb_device.sync.push(make_mp3(title, f"Band {i % 3}", f"Record {i % 2}", 150 + i),
                             f"/sdcard/Music/{title.lower()}.mp3")
        adb_device.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE "
                         f"-d file:///sdcard/Music/{title.lower()}.mp3")
    adb_device.shell(f"am start -n {MAIN}")
    d = uiautomator2.connect(vdevice.serial)
    assert d(resourceId=RID + "title", text="Amber").wait(timeout=10)
    assert "OK" in emu(adb_server, vdevice.serial, "avd", "snapshot", "save", BASE)
    yield d
    d.stop_uiautomator()


@pytest.fixture
def d(u2, vdevice, adb_server):
    """A fresh start for every test: the base snapshot loaded."""
    assert "OK" in emu(adb_server, vdevice.serial, "avd", "snapshot", "load", BASE)
    return u2


# ------------------------------------------------------------------------------------------ reading state
def pull_db(adb_device, tmp_path: Path, name: str) -> sqlite3.Connection:
    """Pull the whole databases folder (-wal/-shm included) and open a local copy of ``name``."""
    local = tmp_path / f"pull{len(list(tmp_path.iterdir()))}"
    adb_device.sync.pull(f"/data/data/{PKG}/databases", local, exist_ok=True)
    return sqlite3.connect(local / name)


def queue(adb_device, tmp_path: Path) -> list[str]:
    db = pull_db(adb_device, tmp_path, "music_playback_state.db")
    return [r[0] for r in db.execute("SELECT title FROM playing_queue ORDER BY rowid")]


def playlist(adb_device, tmp_path: Path, name: str) -> list[str]:
    db = pull_db(adb_device, tmp_path, "playlist.db")
    return [r[0] for r in db.execute(
        "SELECT s.title FROM SongEntity s JOIN PlaylistEntity p ON p.playlist_id = s.playlist_creator_id "
        "WHERE p.playlist_name = ? ORDER BY s.song_key", (name,))]


# ------------------------------------------------------------------------------------------ UI steps
def row_part(d, title: str, part: str):
    return d.xpath(f'//*[@resource-id="{RID}title"][@text="{title}"]/../*[@resource-id="{RID}{part}"]')


def song_menu(d, title: str, item: str) -> None:
    """Scroll the list to ``title``, open its "More options" menu and pick ``item``."""
    if not d(resourceId=RID + "title", text=title).exists:
        d(scrollable=True).scroll.to(resourceId=RID + "title", text=title)
    row_part(d, title, "menu").click()
    d(text=item).click()


def to_tab(d, name: str) -> None:
    d(description=name).click()


def add_to_playlist(d, title: str, name: str) -> None:
    song_menu(d, title, "Add to playlist")
    d(resourceId="android:id/text1", text=name).click()


def create_playlist(d, name: str) -> None:
    to_tab(d, "Playlists")
    d(description="New playlist").click()
    d(resourceId=RID + "actionNewPlaylist").set_text(name)
    d(text="Create").click()


def open_playlist(d, name: str) -> None:
    to_tab(d, "Playlists")
    d(resourceId=RID + "title", text=name).click()
    assert d(resourceId=RID + "toolbar").child(text=name).exists


def handle(d, title: str) -> tuple[int, int]:
    return row_part(d, title, "drag_view").get().center()


def row_y(d, title: str) -> int:
    return d(resourceId=RID + "title", text=title).center()[1]


# ------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("order", [("Cedar", "Amber", "Elm", "Birch", "Dune"),
                                   ("Birch", "Dune", "Cedar", "Elm", "Amber")])
def test_playing_queue_appends_in_two_orders(d, adb_device, tmp_path, order) -> None:
    for title in order:
        song_menu(d, title, "Add to playing queue")
    d(resourceId=RID + "miniPlayerTitle").click()  # the Now playing anchor
    assert d(resourceId=RID + "title", text=order[0]).exists
    assert queue(adb_device, tmp_path) == list(order)
    d(description="Playing queue").click()
    titles = [el.text for el in d.xpath(f'//*[@resource-id="{RID}recycler_view"]//*[@resource-id="{RID}title"]')
              .all()]
    assert titles == list(order)


def test_queue_drag_insertions_head_middle_tail(d, adb_device, tmp_path) -> None:
    for title in SONGS[:6]:
        song_menu(d, title, "Add to playing queue")
    d(resourceId=RID + "miniPlayerTitle").click()
    d(description="Playing queue").click()
    x, y = handle(d, "Elm")  # head, with `input swipe` held for a second
    adb_device.shell(f"input swipe {x} {y} {x} {row_y(d, 'Amber')} 1000")
    assert queue(adb_device, tmp_path) == ["Elm", "Amber", "Birch", "Cedar", "Dune", "Fjord"]
    x, y = handle(d, "Amber")  # tail, with `input draganddrop`
    adb_device.shell(f"input draganddrop {x} {y} {x} {row_y(d, 'Fjord')} 800")
    assert queue(adb_device, tmp_path) == ["Elm", "Birch", "Cedar", "Dune", "Fjord", "Amber"]
    x, y = handle(d, "Fjord")  # middle, with uiautomator2's drag
    d.drag(x, y, x, row_y(d, "Cedar"), 0.5)
    assert queue(adb_device, tmp_path) == ["Elm", "Birch", "Fjord", "Cedar", "Dune", "Amber"]


def test_ten_item_playlist_hidden_suffix(d, adb_device, tmp_path, vdevice, adb_server) -> None:
    create_playlist(d, "Ten")
    to_tab(d, "Songs")
    for title in SONGS[:8]:
        add_to_playlist(d, title, "Ten")
    assert "OK" in emu(adb_server, vdevice.serial, "avd", "snapshot", "save", "music_prefix8")
    suffixes = {}
    for last_two in (("Isle", "Juniper"), ("Juniper", "Isle")):
        assert "OK" in emu(adb_server, vdevice.serial, "avd", "snapshot", "load", "music_prefix8")
        for title in last_two:
            add_to_playlist(d, title, "Ten")
        songs = playlist(adb_device, tmp_path, "Ten")
        assert songs[:8] == list(SONGS[:8]) and len(songs) == 10
        suffixes[last_two] = songs[8:]
        open_playlist(d, "Ten")
        if d(scrollable=True).exists:
            d(scrollable=True).scroll.toEnd()
        assert d(resourceId=RID + "title", text=last_two[1]).exists
    assert suffixes == {("Isle", "Juniper"): ["Isle", "Juniper"], ("Juniper", "Isle"): ["Juniper", "Isle"]}


def test_remove_all_then_rebuild_in_another_order(d, adb_device, tmp_path) -> None:
    create_playlist(d, "Reset")
    to_tab(d, "Songs")
    for title in ("Amber", "Birch", "Cedar", "Dune"):
        add_to_playlist(d, title, "Reset")
    open_playlist(d, "Reset")
    for title in ("Cedar", "Amber", "Dune", "Birch"):
        song_menu(d, title, "Remove from playlist")
        d(text="Remove").click()
    assert d(text="Playlist is empty").exists
    assert playlist(adb_device, tmp_path, "Reset") == []
    d.press("back")
    to_tab(d, "Songs")
    for title in ("Dune", "Birch", "Amber", "Cedar"):
        add_to_playlist(d, title, "Reset")
    assert playlist(adb_device, tmp_path, "Reset") == ["Dune", "Birch", "Amber", "Cedar"]


def test_two_playlists_with_interleaved_additions(d, adb_device, tmp_path) -> None:
    create_playlist(d, "Target")
    create_playlist(d, "Distractor")
    to_tab(d, "Songs")
    for title, name in (("Elm", "Target"), ("Elm", "Distractor"), ("Amber", "Distractor"), ("Birch", "Target"),
                        ("Dune", "Distractor"), ("Cedar", "Target")):
        add_to_playlist(d, title, name)
    assert playlist(adb_device, tmp_path, "Target") == ["Elm", "Birch", "Cedar"]
    assert playlist(adb_device, tmp_path, "Distractor") == ["Elm", "Amber", "Dune"]
    open_playlist(d, "Target")
    shown = [el.text for el in d.xpath(f'//*[@resource-id="{RID}recycler_view"]//*[@resource-id="{RID}title"]').all()]
    assert shown == ["Elm", "Birch", "Cedar"]


def test_playlist_create_and_delete_through_the_ui(d, adb_device, tmp_path) -> None:
    to_tab(d, "Playlists")
    assert d(text="You have no playlists").exists
    d(description="New playlist").click()
    d(resourceId=RID + "actionNewPlaylist").click()
    adb_device.shell("input text Gym")  # typed through the soft keyboard's field
    d(text="Create").click()
    db = pull_db(adb_device, tmp_path, "playlist.db")
    assert db.execute("SELECT playlist_name FROM PlaylistEntity").fetchall() == [("Gym",)]
    song_menu(d, "Gym", "Delete")
    assert d(resourceId="android:id/message", text="Delete the playlist Gym?").exists
    d.press("back")  # BACK cancels the dialog
    assert not d(resourceId="android:id/message").exists
    song_menu(d, "Gym", "Delete")
    d(resourceId="android:id/button1", text="Delete").click()
    assert d(text="You have no playlists").exists
    db = pull_db(adb_device, tmp_path, "playlist.db")
    assert db.execute("SELECT COUNT(*) FROM PlaylistEntity").fetchone() == (0,)
    assert d.app_current()["activity"].endswith("activities.MainActivity")
