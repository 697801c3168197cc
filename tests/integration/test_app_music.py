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

from emukit.apps.selectors import table
from emukit.media import make_mp3
from tests.integration.helpers import emu

PKG = "code.name.monkey.retromusic"
T = table(PKG)
MAIN = f"{PKG}/.activities.MainActivity"
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
    assert d(resourceId=T.rid("row_title"), text="Amber").wait(timeout=10)
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
def _list_xpath() -> str:
    """The screen's RecyclerView: ``recycler_view`` on the library tabs, ``recyclerView`` on details."""
    ids = [T.rid(n) for n in ("songs_list", "playlist_detail_list", "queue_list")]
    return "//*[" + " or ".join(f'@resource-id="{i}"' for i in ids) + "]"


def row_part(d, title: str, part: str):
    """A part of the list row titled ``title``: the list's child that contains that title."""
    return d.xpath(f'{_list_xpath()}/*[.//*[@resource-id="{T.rid("row_title")}"][@text="{title}"]]'
                   f'//*[@resource-id="{T.rid(part)}"]')


def list_titles(d) -> list[str]:
    return [el.text for el in d.xpath(f'{_list_xpath()}/*//*[@resource-id="{T.rid("row_title")}"]').all()]


def _covered(d, bounds: tuple[int, int, int, int]) -> bool:
    """Whether the mini player, the bottom navigation or a floating button is drawn over ``bounds``."""
    for entry in ("mini_player", "bottom_nav", "shuffle_fab", "clear_queue"):
        el = d(resourceId=T.rid(entry))
        if el.exists:
            b = el.info["bounds"]
            if b["left"] < bounds[2] and bounds[0] < b["right"] and b["top"] < bounds[3] and bounds[1] < b["bottom"]:
                return True
    return False


def reveal(d, title: str, part: str) -> None:
    """Scroll the list until the row's ``part`` shows clear of what is drawn over the list."""
    for _ in range(6):
        found = row_part(d, title, part)
        if found.exists and not _covered(d, found.get().bounds):
            return
        box = d.xpath(_list_xpath()).get().bounds
        x = box[0] + 100
        d.swipe(x, box[1] + (box[3] - box[1]) * 2 // 3, x, box[1] + 60, 0.3)
    raise AssertionError(f"row {title!r} stays covered")


def song_menu(d, title: str, item: str) -> None:
    """Bring the row titled ``title`` clear into view, open its menu and pick ``item`` (a table entry)."""
    reveal(d, title, "row_menu")
    row_part(d, title, "row_menu").click()
    d(text=T.text(item)).click()


def to_tab(d, entry: str) -> None:
    d(resourceId=T.rid(entry), description=T.desc(entry)).click()


def add_to_playlist(d, title: str, name: str) -> None:
    song_menu(d, title, "song_add_to_playlist")
    d(resourceId=T.rid("add_to_playlist_choice"), text=name).click()


def create_playlist(d, name: str) -> None:
    """"New playlist" is in the Playlists toolbar's overflow menu."""
    to_tab(d, "tab_playlists")
    d(description=T.desc("more_options")).click()
    d(text=T.text("menu_new_playlist")).click()
    d(resourceId=T.rid("new_playlist_name")).set_text(name)
    d(resourceId=T.rid("dialog_positive"), text=T.text("new_playlist_create")).click()


def open_playlist(d, name: str) -> None:
    to_tab(d, "tab_playlists")
    row_part(d, name, "row_title").click()
    assert d(resourceId=T.rid("playlist_header_title"), text=name).wait(timeout=5)


def open_queue(d) -> None:
    d(resourceId=T.rid("mini_player_title")).click()  # Now playing: the panel expands
    d(resourceId=T.rid("now_playing_queue"), description=T.desc("now_playing_queue")).click()


def handle(d, title: str) -> tuple[int, int]:
    return row_part(d, title, "row_drag_handle").get().center()


def row_y(d, title: str) -> int:
    return row_part(d, title, "row_title").get().center()[1]


# ------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("order", [("Cedar", "Amber", "Elm", "Birch", "Dune"),
                                   ("Birch", "Dune", "Cedar", "Elm", "Amber")])
def test_playing_queue_appends_in_two_orders(d, adb_device, tmp_path, order) -> None:
    for title in order:
        song_menu(d, title, "song_add_to_queue")
    d(resourceId=T.rid("mini_player_title")).click()  # the Now playing anchor
    assert d(resourceId=T.rid("player_title"), text=order[0]).exists
    assert queue(adb_device, tmp_path) == list(order)
    d(description=T.desc("now_playing_queue")).click()
    assert d(text=T.text("queue_title")).exists
    assert list_titles(d) == list(order)
    assert not d(resourceId=T.rid("mini_player")).exists  # the queue hides the sliding panel


def test_queue_drag_insertions_head_middle_tail(d, adb_device, tmp_path) -> None:
    for title in SONGS[:6]:
        song_menu(d, title, "song_add_to_queue")
    open_queue(d)
    x, y = handle(d, "Elm")  # head, with `input swipe` held for a second
    adb_device.shell(f"input swipe {x} {y} {x} {row_y(d, 'Amber')} 1000")
    assert queue(adb_device, tmp_path) == ["Elm", "Amber", "Birch", "Cedar", "Dune", "Fjord"]
    x, y = handle(d, "Amber")  # tail, with `input draganddrop`
    adb_device.shell(f"input draganddrop {x} {y} {x} {row_y(d, 'Fjord')} 800")
    assert queue(adb_device, tmp_path) == ["Elm", "Birch", "Cedar", "Dune", "Fjord", "Amber"]
    x, y = handle(d, "Fjord")  # middle, with uiautomator2's drag
    d.drag(x, y, x, row_y(d, "Cedar"), 0.5)
    assert queue(adb_device, tmp_path) == ["Elm", "Birch", "Fjord", "Cedar", "Dune", "Amber"]
    d.press("back")  # leaving the queue expands Now playing again
    assert d(resourceId=T.rid("now_playing_queue")).exists


def test_ten_item_playlist_hidden_suffix(d, adb_device, tmp_path, vdevice, adb_server) -> None:
    create_playlist(d, "Ten")
    to_tab(d, "tab_songs")
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
        assert "Ten" not in list_titles(d)  # the header's name is not a row
        if d(scrollable=True).exists:
            d(scrollable=True).scroll.toEnd()
        assert row_part(d, last_two[1], "row_title").exists
    assert suffixes == {("Isle", "Juniper"): ["Isle", "Juniper"], ("Juniper", "Isle"): ["Juniper", "Isle"]}


def test_remove_all_then_rebuild_in_another_order(d, adb_device, tmp_path) -> None:
    create_playlist(d, "Reset")
    to_tab(d, "tab_songs")
    for title in ("Amber", "Birch", "Cedar", "Dune"):
        add_to_playlist(d, title, "Reset")
    open_playlist(d, "Reset")
    for title in ("Cedar", "Amber", "Dune", "Birch"):
        song_menu(d, title, "playlist_song_remove")
        d(resourceId=T.rid("dialog_positive"), text=T.text("remove_song_confirm")).click()
    assert d(resourceId=T.rid("empty")).exists
    assert playlist(adb_device, tmp_path, "Reset") == []
    d.press("back")  # the detail saves the row it still shows (PlaylistDetailsFragment.onPause)
    assert playlist(adb_device, tmp_path, "Reset") == ["Birch"]
    to_tab(d, "tab_songs")
    for title in ("Dune", "Birch", "Amber", "Cedar"):
        add_to_playlist(d, title, "Reset")
    assert playlist(adb_device, tmp_path, "Reset") == ["Dune", "Birch", "Amber", "Cedar"]


def test_two_playlists_with_interleaved_additions(d, adb_device, tmp_path) -> None:
    create_playlist(d, "Target")
    create_playlist(d, "Distractor")
    to_tab(d, "tab_songs")
    for title, name in (("Elm", "Target"), ("Elm", "Distractor"), ("Amber", "Distractor"), ("Birch", "Target"),
                        ("Dune", "Distractor"), ("Cedar", "Target")):
        add_to_playlist(d, title, name)
    assert playlist(adb_device, tmp_path, "Target") == ["Elm", "Birch", "Cedar"]
    assert playlist(adb_device, tmp_path, "Distractor") == ["Elm", "Amber", "Dune"]
    open_playlist(d, "Target")
    assert list_titles(d) == ["Elm", "Birch", "Cedar"]


def test_playlist_create_and_delete_through_the_ui(d, adb_device, tmp_path) -> None:
    to_tab(d, "tab_playlists")
    assert d(resourceId=T.rid("empty_text"), text=T.text("no_playlists")).exists
    d(description=T.desc("more_options")).click()
    d(text=T.text("menu_new_playlist")).click()
    d(resourceId=T.rid("new_playlist_name")).click()
    adb_device.shell("input text Gym")  # typed through the soft keyboard's field
    d(text=T.text("new_playlist_create")).click()
    db = pull_db(adb_device, tmp_path, "playlist.db")
    assert db.execute("SELECT playlist_name FROM PlaylistEntity").fetchall() == [("Gym",)]
    song_menu(d, "Gym", "playlist_delete")
    assert d(resourceId=T.rid("dialog_message"), text="Delete the playlist Gym?").exists
    d.press("back")  # BACK cancels the dialog
    assert not d(resourceId=T.rid("dialog_message")).exists
    song_menu(d, "Gym", "playlist_delete")
    d(resourceId=T.rid("dialog_positive"), text=T.text("delete_playlist_confirm")).click()
    assert d(resourceId=T.rid("empty_text"), text=T.text("no_playlists")).exists
    db = pull_db(adb_device, tmp_path, "playlist.db")
    assert db.execute("SELECT COUNT(*) FROM PlaylistEntity").fetchone() == (0,)
    assert d.app_current()["activity"].endswith("activities.MainActivity")
