"""Retro Music's over-adb smoke test, on a real `emukit vdevice serve` process, driven only as a user or a test
harness would drive the real app: uiautomator2 selectors, xpath and gestures, `adb shell input ...`, `am`, and
the emulator console's snapshots. State is checked where the real app keeps it, by pulling `databases/` (with
-wal/-shm when present) and querying the copies locally.

One device for the module: songs are pushed (and scanned with a broadcast) and the app is opened once, saved as
the console snapshot `music_base`, and the test starts by loading it. It fills the playing queue from the
songs' menus, opens the queue from Now playing and moves rows by their drag handles three ways (`input swipe`
held for a second, `input draganddrop`, uiautomator2's drag), reading the queue from the pulled database after
each move.

The other scenarios (the queue filled in two orders, a ten-song playlist's last two songs added in either order,
removing every song of a playlist and rebuilding it, two playlists filled in turns, creating and deleting a
playlist with BACK cancelling the dialog) are checked in-process in tests/vdevice/test_app_music.py.
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


# ------------------------------------------------------------------------------------------ UI steps
def _list_xpath() -> str:
    """The screen's RecyclerView: ``recycler_view`` on the library tabs, ``recyclerView`` on details."""
    ids = [T.rid(n) for n in ("songs_list", "playlist_detail_list", "queue_list")]
    return "//*[" + " or ".join(f'@resource-id="{i}"' for i in ids) + "]"


def row_part(d, title: str, part: str):
    """A part of the list row titled ``title``: the list's child that contains that title."""
    return d.xpath(f'{_list_xpath()}/*[.//*[@resource-id="{T.rid("row_title")}"][@text="{title}"]]'
                   f'//*[@resource-id="{T.rid(part)}"]')


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


def open_queue(d) -> None:
    d(resourceId=T.rid("mini_player_title")).click()  # Now playing: the panel expands
    d(resourceId=T.rid("now_playing_queue"), description=T.desc("now_playing_queue")).click()


def handle(d, title: str) -> tuple[int, int]:
    return row_part(d, title, "row_drag_handle").get().center()


def row_y(d, title: str) -> int:
    return row_part(d, title, "row_title").get().center()[1]


# ------------------------------------------------------------------------------------------ tests
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
