"""What the app's buttons and menu items do, shared by every screen (each writes through at once)."""

from __future__ import annotations

import random
from typing import Any

from emukit.vdevice.apps.music import library, playback
from emukit.vdevice.apps.music import playlists as pl
from emukit.vdevice.apps.music.const import NAME_EMPTY, SHUFFLE_ON
from emukit.vdevice.apps.music.rows import ROW_H
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
    """Tap on a song: the list becomes the queue and playback starts at that song."""
    if songs:
        playback.open_queue(ui.device, songs, max(0, min(index, len(songs) - 1)), play=True)


def shuffle_all(ui: Ui, songs: list[Song]) -> None:
    """"Shuffle all": shuffle mode on, the list shuffled with a random first song, playing."""
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


def ask_playlist(ui: Ui, songs: list[Song]) -> None:
    """"Add to playlist": the chooser dialog (New playlist + every playlist)."""
    ui.open_dialog("add_to_playlist", songs=[dict(s) for s in songs], scroll=0)


def ask_new_playlist(ui: Ui, songs: list[Song] | None = None) -> None:
    """The "New playlist" name dialog; ``songs`` go into the new playlist."""
    ui.open_dialog("new_playlist", songs=[dict(s) for s in songs or []], name="", error="")


def create_playlist(ui: Ui, name: str, songs: list[Song]) -> bool:
    """The "Create" button: False (and an error under the field) for an empty name."""
    name = name.strip()
    dlg = ui.state.get("dialog") or {}
    if not name:
        dlg["error"] = NAME_EMPTY
        return False
    ui.close_overlays()
    ui.toast(pl.add_songs_by_name(ui.device, name, songs))
    return True


def add_to_playlist(ui: Ui, pid: int, songs: list[Song]) -> None:
    """A playlist picked in the chooser: append the songs (toast)."""
    ui.close_overlays()
    ui.toast(pl.add_songs(ui.device, pid, songs))


def delete_playlist(ui: Ui, pid: int) -> None:
    """Confirmed deletion: the playlist disappears; its detail screen closes if it was open."""
    ui.close_overlays()
    pl.delete(ui.device, pid)
    ui.state["nav"] = [e for e in ui.nav if not (e["s"] == "playlist" and e.get("id") == pid)] or [{"s": "library"}]


def rename_playlist(ui: Ui, pid: int, name: str) -> None:
    """The rename dialog's "Rename" button."""
    name = name.strip()
    if not name:
        (ui.state.get("dialog") or {})["error"] = NAME_EMPTY
        return
    ui.close_overlays()
    pl.rename(ui.device, pid, name)


def remove_from_playlist(ui: Ui, key: int) -> None:
    """Confirmed "Remove from playlist" of the row with ``song_key`` ``key``."""
    ui.close_overlays()
    pl.remove_song(ui.device, key)


def details(ui: Ui, song: Song) -> None:
    """The song's Details dialog."""
    ui.open_dialog("details", song=dict(song))


def open_player(ui: Ui) -> None:
    """The mini player was tapped: open Now playing."""
    if playback.current(ui.device) is not None:
        ui.push("player")


def open_queue_screen(ui: Ui) -> None:
    """Open the playing queue scrolled to the current song."""
    p = playback.player(ui.device)
    ui.push("queue", scroll=max(0, p["pos"]) * ROW_H)


def clear_queue(ui: Ui) -> None:
    """"Clear playing queue": nothing left to play, so the player screens close."""
    ui.close_overlays()
    playback.clear(ui.device)
    ui.state["nav"] = [e for e in ui.nav if e["s"] not in ("player", "queue")] or [{"s": "library"}]
