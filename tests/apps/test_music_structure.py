"""The virtual Retro Music has the real app's structure on every screen the music profile touches: driven
through the profile on a virtual device (an ``emukit vdevice serve`` process), each screen's hierarchy dump
matches the fixture written from Retro Music's layout sources (``tests/fixtures/real/hierarchy/music``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.media import make_mp3
from tests.hierarchy_match import FIXTURES, match_fixture

SONGS = ("Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Grove", "Heath", "Isle", "Juniper", "Kestrel")
MUSIC = FIXTURES / "music"


@pytest.fixture(scope="module")
def music(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    d.shell("pm clear code.name.monkey.retromusic; rm -rf /sdcard/Music/*", check=True)
    sync = d.adbutils().sync
    for i, title in enumerate(SONGS):
        sync.push(make_mp3(title, f"Band {i % 3}", f"Record {i % 2}", 150 + i), f"/sdcard/Music/{title.lower()}.mp3")
    m = profile_for(d, "music")
    m.launch(fresh=True)  # indexes the library
    m.seed_playlist("Gamma", ["Cedar", "Amber", "Dune"])
    m.seed_playlist("Alpha", ["Birch", "Elm"])
    m.seed_playlist("Beta")
    m.launch(fresh=True)
    yield m
    d.close()


def matches(music, name: str) -> list[str]:
    return match_fixture(music.driver.hierarchy(), MUSIC / f"{name}.yaml")


def open_row_menu(music, title: str) -> None:
    """The row's menu, found and tapped the way the profile's row operations do."""
    row, _ = music._locate(title, ("menu",))
    music.driver.tap(*row.parts["menu"].center)


def test_fixtures_name_their_sources() -> None:
    from tests.hierarchy_match import load_fixture

    names = sorted(p.stem for p in MUSIC.glob("*.yaml"))
    assert names == ["add_to_playlist_dialog", "changelog", "mini_player", "new_playlist_dialog", "now_playing",
                     "permission", "playlist_detail", "playlists_card_menu", "playlists_overflow", "queue",
                     "songs_row_menu"]
    for name in names:
        doc = load_fixture(MUSIC / f"{name}.yaml")
        assert any("RetroMusicPlayer" in s.get("repo", "") for s in doc["sources"]), name


def test_songs_list_with_a_row_menu(music) -> None:
    music.tab("Songs")
    open_row_menu(music, "Dune")
    assert matches(music, "songs_row_menu") == []
    music.back()


def test_add_to_playlist_dialog(music) -> None:
    music.tab("Songs")
    open_row_menu(music, "Kestrel")  # the last row: under the shuffle button until the list scrolls
    music.driver.tap(**music.sel("song_add_to_playlist"))
    assert matches(music, "add_to_playlist_dialog") == []
    texts = [e.text for e in music.driver.elements() if e.resource_id == music.rid("add_to_playlist_choice")]
    assert texts == ["New playlist", "Gamma", "Alpha", "Beta"]  # the table's row order, not A-Z
    music.back()


def test_playlists_grid_pairs_each_card_with_its_own_menu(music) -> None:
    music.tab("Playlists")
    rows = music._rows()
    assert [r.title.text for r in rows] == ["Alpha", "Beta", "Gamma"]
    assert rows[0].bounds[1] == rows[1].bounds[1] and rows[0].bounds[2] <= rows[1].bounds[0]  # two columns
    for row in rows:
        menu = row.parts["menu"]
        inside = row.bounds[0] <= menu.bounds[0] and menu.bounds[2] <= row.bounds[2]
        assert inside and row.title.bounds[2] <= menu.bounds[0], row.title.text
    open_row_menu(music, "Beta")
    assert matches(music, "playlists_card_menu") == []
    music.back()
    music.driver.tap(**music.sel("more_options"))
    assert matches(music, "playlists_overflow") == []
    music.driver.tap(**music.sel("menu_new_playlist"))
    assert matches(music, "new_playlist_dialog") == []
    music.back()


def test_playlist_detail(music) -> None:
    music.open_playlist("Gamma")
    assert matches(music, "playlist_detail") == []
    assert music.visible_titles() == ["Cedar", "Amber", "Dune"]  # the header's name is no row
    music.back()


def test_mini_player_now_playing_and_queue(music) -> None:
    music.tab("Songs")
    for title in ("Cedar", "Amber", "Elm"):
        music.add_to_queue(title)
    assert matches(music, "mini_player") == []
    music.open_now_playing()
    assert matches(music, "now_playing") == []
    music.open_queue()
    assert matches(music, "queue") == []
    assert music.visible_titles() == ["Cedar", "Amber", "Elm"]
    music.back()
    music.back()


def test_a_fixture_mismatch_is_reported(music, tmp_path: Path) -> None:
    music.tab("Playlists")
    wrong = (MUSIC / "queue.yaml").read_text()
    (tmp_path / "wrong.yaml").write_text(wrong)
    problems = match_fixture(music.driver.hierarchy(), tmp_path / "wrong.yaml")
    assert problems and "Now playing queue" in " ".join(problems)
