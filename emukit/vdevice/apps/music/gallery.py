"""Gallery scenes of Retro Music: every screen, menu and dialog, with a few demo songs and playlists."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.media import make_mp3
from emukit.vdevice.apps.music import actions as a
from emukit.vdevice.apps.music import library, playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import MUSIC_DIR, PKG
from emukit.vdevice.apps.music.screens import open_playlist
from emukit.vdevice.apps.music.ui import Ui
from emukit.vdevice.ui import theme

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

DEMO_SONGS = (
    ("Blue Horizon", "The Lanterns", "Open Water", 214), ("Copper Sky", "Mira Vale", "Northbound", 187),
    ("Daybreak", "The Lanterns", "Open Water", 241), ("Ember Road", "Kite Parade", "Signals", 199),
    ("Glass Garden", "Mira Vale", "Northbound", 176), ("Harbor Lights", "Kite Parade", "Signals", 228),
    ("Juniper", "Oren Bell", "Quiet Rooms", 203), ("Lowland", "Oren Bell", "Quiet Rooms", 255),
)


def seed_songs(device: VirtualDevice, songs: tuple[tuple[str, str, str, int], ...] = DEMO_SONGS) -> None:
    """Write demo MP3s into the Music folder (the app indexes them when it is shown)."""
    device.fs.makedirs(MUSIC_DIR)
    for title, artist, album, secs in songs:
        device.fs.write_bytes(f"{MUSIC_DIR}/{title}.mp3", make_mp3(title, artist, album, secs))


def _ui(device: VirtualDevice) -> Ui:
    return Ui(device, device.top, theme.APP_FRAME)


def scenes(device: VirtualDevice) -> Iterator[str]:
    """Drive ``device`` through the app, yielding a scene name in each state."""
    device.start_activity(PKG)
    yield "Songs: empty library"
    _ui(device).state["tab"] = "playlists"
    yield "Playlists: none yet"
    seed_songs(device)
    ui = _ui(device)
    ui.state["tab"] = "songs"
    yield "Songs"
    ui.open_menu("song", ui.frame[2], ui.frame[1] + theme.dp(200), song=library.songs(device)[1], index=1,
                 source={"kind": "songs"})
    yield "Song menu"
    a.ask_playlist(ui, [library.songs(device)[1]])
    yield "Add to playlist: no playlists"
    a.ask_new_playlist(ui, [library.songs(device)[1]])
    ui.state["dialog"]["name"] = "Road trip"
    yield "New playlist dialog"
    ui.close_overlays()
    songs = library.songs(device)
    pl.add_songs_by_name(device, "Road trip", [songs[i] for i in (3, 0, 5, 2)])
    pl.add_songs_by_name(device, "Morning", [songs[i] for i in (6, 1)])
    pl.add_songs_by_name(device, "Empty one", [])
    a.ask_playlist(ui, [songs[4]])
    yield "Add to playlist dialog"
    ui.close_overlays()
    for tab in ("home", "albums", "artists", "playlists"):
        ui.state["tab"] = tab
        yield f"{tab.title()} tab"
    x, y = ui.frame[2], ui.frame[1] + theme.dp(64)
    ui.open_menu("library", x, y, tab="playlists")
    yield "Playlists overflow menu"
    road = pl.by_name(device, "Road trip")
    assert road is not None
    ui.open_menu("playlist", x, y * 3, pid=road["id"])
    yield "Playlist menu"
    ui.open_dialog("rename", pid=road["id"], name="Road trip")
    yield "Rename playlist dialog"
    ui.open_dialog("delete_playlist", pid=road["id"], name="Road trip")
    yield "Delete playlist dialog"
    ui.close_overlays()
    open_playlist(ui, road["id"])
    yield "Playlist detail"
    ui.open_menu("pl_song", x, y * 4, song=road["songs"][1], pid=road["id"])
    yield "Playlist song menu"
    ui.open_dialog("remove_song", pid=road["id"], song=road["songs"][1])
    yield "Remove song dialog"
    ui.close_overlays()
    a.leave(ui)
    empty = pl.by_name(device, "Empty one")
    assert empty is not None
    open_playlist(ui, empty["id"])
    yield "Empty playlist"
    a.leave(ui)
    ui.state["tab"] = "albums"
    ui.push("album", id=library.albums(device)[0]["id"])
    yield "Album detail"
    ui.pop()
    ui.state["tab"] = "artists"
    ui.push("artist", id=library.artists(device)[1]["id"])
    yield "Artist detail"
    ui.pop()
    ui.state["tab"] = "songs"
    a.play_list(ui, library.songs(device), 2)
    playback.enqueue(device, [songs[0]])
    device.advance(65_000)
    yield "Songs with mini player"
    a.open_player(ui)
    yield "Now playing"
    playback.toggle_play(device)
    playback.cycle_repeat(device)
    yield "Now playing: paused, repeat all"
    ui.open_menu("player", x, ui.frame[3] - theme.dp(64))
    yield "Now playing menu"
    a.details(ui, playback.current(device) or {})
    yield "Details dialog"
    ui.close_overlays()
    a.open_queue_screen(ui)
    yield "Playing queue"
    ui.open_menu("queue_song", x, y * 4, song=playback.player(device)["queue"][3], index=3)
    yield "Queue song menu"
    ui.close_overlays()
    ui.toast(playback.enqueue(device, [songs[5]]))
    yield "Toast after Add to playing queue"
    device.state.ui.toast = None
    device.wm.expand_notifications()
    yield "Media notification"
