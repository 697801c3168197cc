"""The music profile's Ordered Collection operations on the virtual Retro Music: adb-side seeding of a
playlist and of the playing queue (setup only), scrolling to rows in both directions, several additions,
interleaved additions, removing every row (and the row the detail screen saves back when it is left), several
handle drags, and the list reader (rows of the list only, never the detail header's name)."""

from __future__ import annotations

import pytest

from emukit.apps.music import list_titles
from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.media import make_mp3
from emukit.probes import probe

TITLES = [f"{w} Song" for w in ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel",
                                 "India", "Juliet", "Kilo", "Lima", "Mike", "November")]


@pytest.fixture(scope="module")
def music(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    d.shell("pm clear code.name.monkey.retromusic; rm -rf /sdcard/Music/*", check=True)
    sync = d.adbutils().sync
    for t in TITLES:
        sync.push(make_mp3(t, "Band"), f"/sdcard/Music/{t.lower().replace(' ', '_')}.mp3")
    m = profile_for(d, "music")
    m.launch(fresh=True)
    yield m
    d.close()


def order(m, playlist=None):
    return probe(m.driver, "ordered", **({"playlist": playlist} if playlist else {})).canonical["ordered_items"]


def test_seeded_playlist_then_remove_all_and_rebuild(music):
    music.seed_playlist("Mix", ["Kilo Song", "Alpha Song", "November Song"])
    music.seed_playlist("Other")
    music.launch(fresh=True)
    assert order(music, "Mix") == ["Kilo Song", "Alpha Song", "November Song"]
    music.open_playlist("Mix")
    assert music.visible_titles() == ["Kilo Song", "Alpha Song", "November Song"]
    assert music.driver.exists(**music.sel("playlist_header_title"), text="Mix")  # shown, but not a row
    music.remove_all_from_playlist()
    assert order(music, "Mix") == []
    music.back()  # PlaylistDetailsFragment.onPause saves the row its adapter still held
    assert order(music, "Mix") == ["November Song"]
    music.tab("Songs")
    # the Songs tab is sorted by title: the profile scrolls down for November, up again for Alpha
    actions = music.add_all_to_playlist(["November Song", "Alpha Song", "Mike Song"], "Mix")
    assert [a.type for a in actions].count("swipe") >= 2
    assert order(music, "Mix") == ["November Song", "Alpha Song", "Mike Song"]
    music.add_to_playlists(["Bravo Song", "Lima Song", "Charlie Song"], ["Other", "Mix", "Other"])
    assert order(music, "Mix") == ["November Song", "Alpha Song", "Mike Song", "Lima Song"]
    assert order(music, "Other") == ["Bravo Song", "Charlie Song"]
    music.tab("Playlists")
    music.driver.tap(**music.sel("row_title"), text="Mix")
    assert list_titles(music.driver.hierarchy()) == order(music, "Mix")
    music.back()


def test_seeded_queue_and_drags(music):
    songs = ["Golf Song", "Echo Song", "India Song", "Bravo Song", "Juliet Song", "Delta Song"]
    music.seed_queue(songs, position=0)
    music.launch(fresh=True)
    assert order(music) == songs
    music.open_now_playing()
    assert music.driver.exists(**music.sel("player_title"), text="Golf Song")
    assert music.visible_titles() == []  # the Songs list is still in the dump, all of it under Now playing
    music.open_queue()
    music.moves([[2, 0], [5, 3], [1, 5]])  # head, middle, tail
    expected = ["India Song", "Echo Song", "Delta Song", "Bravo Song", "Juliet Song", "Golf Song"]
    assert order(music) == expected
    assert list_titles(music.driver.hierarchy()) == expected  # the first row, right under the toolbar, too
    music.back()  # back to Now playing (the queue's onDestroy expands the panel)
    assert music.driver.exists(**music.sel("now_playing_queue"))
    music.back()


def test_seeding_is_refused_in_recorded_steps(music):
    class Recorder:
        def before(self, driver, action):
            """Records nothing: only the refusal matters."""

        def after(self, driver, action):
            """Records nothing: only the refusal matters."""

    music.driver.recorder = Recorder()
    try:
        with pytest.raises(ConfigError):
            music.seed_playlist("Nope", ["Alpha Song"])
    finally:
        music.driver.recorder = None
