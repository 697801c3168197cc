"""What the app's buttons and menu items do, shared by every screen; each writes through when the real app
does (see :mod:`playback` and :mod:`playlists` for the moments)."""

from __future__ import annotations

import random
from typing import Any

from emukit.vdevice.apps.music import library, playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import SHUFFLE_ON
from emukit.vdevice.apps.music.store import Song
from emukit.vdevice.apps.music.ui import Ui


def source_songs(ui: Ui, source: dict[str, Any]) -> list[Song]:
    """The songs of a list a row was shown in: ``{"kind": "songs"|"album"|"artist"|"playlist"|"queue", "id"}``."""
    kind, ident = source.get("kind"), source.get("id")
    if kind == "album":
        group = next((a for a in library.albums(ui.device) if a["id"] == ident), None)
        return list(group["songs"]) if group else []
    if kind == "artist":
        group = next((a for a in library.artists(ui.device) if a["id"] == ident), None)
        return list(group["songs"]) if group else []
    if kind == "playlist":
        playlist = pl.get(ui.device, int(ident or 0))
        return list(playlist["songs"]) if playlist else []
    if kind == "queue":
        return list(playback.player(ui.device)["queue"])
    return list(library.songs(ui.device))


def play_list(ui: Ui, songs: list[Song], index: int) -> None:
    """A tap on a song (SongAdapter: MusicPlayerRemote.openQueue(dataSet, position, true))."""
    if songs:
        playback.open_queue(ui.device, songs, max(0, min(index, len(songs) - 1)), play=True)


def shuffle_all(ui: Ui, songs: list[Song]) -> None:
    """The Shuffle button (LibraryViewModel.shuffleSongs -> openAndShuffleQueue): shuffle on, a random first
    song, playing."""
    if not songs:
        return
    p = playback.player(ui.device)
    p["shuffle"] = SHUFFLE_ON
    start = random.Random(ui.device.elapsed_ms() + len(songs)).randrange(len(songs))
    playback.open_queue(ui.device, songs, start, play=True)


def play_next(ui: Ui, songs: list[Song]) -> None:
    """"Play next": insert after the current song (toast)."""
    ui.close_overlays()
    if songs:
        ui.toast(playback.play_next(ui.device, songs))


def enqueue(ui: Ui, songs: list[Song]) -> None:
    """"Add to playing queue": append to the queue (toast)."""
    ui.close_overlays()
    if songs:
        ui.toast(playback.enqueue(ui.device, songs))


def remove_from_queue(ui: Ui, index: int) -> None:
    """"Remove from playing queue" (MusicPlayerRemote.removeFromQueue(position))."""
    playback.remove_at(ui.device, index)


def ask_playlist(ui: Ui, songs: list[Song]) -> None:
    """"Add to playlist": the chooser (AddToPlaylistDialog)."""
    ui.open_dialog("add_to_playlist", songs=[dict(s) for s in songs], scroll=0)


def ask_new_playlist(ui: Ui, songs: list[Song] | None = None) -> None:
    """CreatePlaylistDialog; ``songs`` go into the new playlist."""
    ui.open_dialog("new_playlist", songs=[dict(s) for s in songs or []], name="")


def create_playlist(ui: Ui, name: str, songs: list[Song]) -> None:
    """The "Create" button: the dialog closes either way (an AlertDialog button dismisses it); an empty name
    only sets the field's error, so nothing is created (CreatePlaylistDialog.kt:62-71)."""
    ui.close_overlays()
    if name:
        ui.toast(pl.add_songs_by_name(ui.device, name, songs))


def add_to_playlist_named(ui: Ui, name: str, songs: list[Song]) -> None:
    """A playlist picked in the chooser: LibraryViewModel.addToPlaylist by its name (toast)."""
    ui.close_overlays()
    ui.toast(pl.add_songs_by_name(ui.device, name, songs))


def delete_playlist(ui: Ui, pid: int) -> None:
    """Confirmed deletion (DeletePlaylistDialog): its songs, then the playlist; an open detail screen of it
    closes (playlistExists -> navigateUp)."""
    ui.close_overlays()
    pl.delete(ui.device, pid)


def rename_playlist(ui: Ui, pid: int, name: str) -> None:
    """The rename dialog's "Rename" button (an empty name renames nothing)."""
    ui.close_overlays()
    if name:
        pl.rename(ui.device, pid, name)


def remove_from_playlist(ui: Ui, pid: int, song: Song) -> None:
    """Confirmed "Remove from playlist" of one song."""
    ui.close_overlays()
    pl.remove_song(ui.device, pid, int(song.get("id", 0)))


def details(ui: Ui, song: Song) -> None:
    """The song's Details dialog."""
    ui.open_dialog("details", song=dict(song))


def open_player(ui: Ui) -> None:
    """The mini player was tapped: the panel expands (Now playing)."""
    if playback.current(ui.device) is not None:
        ui.expand()


def open_queue_screen(ui: Ui) -> None:
    """"Now playing queue" (AbsPlayerFragment.kt:178-186): navigate to the queue and collapse the panel; the
    list opens scrolled to the song after the current one (PlayingQueueFragment.kt:103)."""
    p = playback.player(ui.device)
    ui.collapse()
    ui.push("queue", first=max(0, p["pos"] + 1))


def clear_queue(ui: Ui) -> None:
    """"Clear playing queue": nothing left to play, so the panel and the queue screen go away."""
    ui.close_overlays()
    playback.clear(ui.device)


def leave(ui: Ui) -> None:
    """Navigate up from the top destination, with what the fragment does when it goes: the playlist detail
    saves its rows (onPause), the queue expands the panel again if songs are left (onDestroy,
    PlayingQueueFragment.kt:181-182)."""
    entry = ui.pop()
    if entry is None:
        return
    if entry["s"] == "playlist":
        pl.save_detail(ui.device, int(entry.get("id", 0)), list(entry.get("rows", [])))
    if entry["s"] == "queue" and playback.current(ui.device) is not None:
        ui.expand()


def select_tab(ui: Ui, tab: str) -> None:
    """A bottom navigation item: that library destination; the selected one again scrolls its list to the
    top (MainActivity.kt:83-89, setOnItemReselectedListener -> scrollToTop)."""
    ui.close_overlays()
    if ui.state.get("tab", "songs") == tab:
        ui.top.setdefault("scrolls", {})[tab] = 0
    ui.state["tab"] = tab
