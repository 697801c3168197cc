"""Playlists as the app holds them: loaded from ``playlist.db`` into process state, written through at once.

Every edit goes to the database first and the in-memory copy is then re-read from it, so what the screens
show is always what a probe reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.music import store
from emukit.vdevice.apps.music.const import (
    ADDED_TO_PLAYLIST,
    PLAYLIST_CREATED,
    app_data,
)
from emukit.vdevice.apps.music.store import Song

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

Playlist = dict[str, Any]


def playlists(device: VirtualDevice) -> list[Playlist]:
    """All playlists sorted by name (A-Z, then id), each ``{"id", "name", "songs"}``."""
    data = app_data(device)
    if "playlists" not in data:
        reload(device)
    return data["playlists"]


def reload(device: VirtualDevice) -> None:
    """Re-read the playlists from the database."""
    lists = store.load_playlists(device)
    app_data(device)["playlists"] = sorted(lists, key=lambda p: (p["name"].lower(), p["id"]))


def get(device: VirtualDevice, pid: int) -> Playlist | None:
    """The playlist with id ``pid``."""
    return next((p for p in playlists(device) if p["id"] == pid), None)


def by_name(device: VirtualDevice, name: str) -> Playlist | None:
    """The playlist named exactly ``name``."""
    return next((p for p in playlists(device) if p["name"] == name), None)


def add_songs_by_name(device: VirtualDevice, name: str, songs: list[Song]) -> str:
    """LibraryViewModel.addToPlaylist: create the playlist if no playlist has that name, then insert the
    songs (a song already in it moves to the end, Room's REPLACE). Returns the toast text."""
    existing = by_name(device, name)
    created = existing is None
    pid = store.create_playlist(device, name) if existing is None else existing["id"]
    if songs:
        store.insert_songs(device, pid, songs)
    reload(device)
    if created and not songs:
        return PLAYLIST_CREATED.format(name=name)
    return ADDED_TO_PLAYLIST.format(n=len(songs), name=name)


def add_songs(device: VirtualDevice, pid: int, songs: list[Song]) -> str:
    """Append songs to playlist ``pid``; returns the toast text."""
    playlist = get(device, pid)
    if playlist is None:
        return ""
    store.insert_songs(device, pid, songs)
    reload(device)
    return ADDED_TO_PLAYLIST.format(n=len(songs), name=playlist["name"])


def rename(device: VirtualDevice, pid: int, name: str) -> None:
    """Rename playlist ``pid``."""
    store.rename_playlist(device, pid, name)
    reload(device)


def delete(device: VirtualDevice, pid: int) -> None:
    """Delete playlist ``pid`` with its songs."""
    store.delete_playlist(device, pid)
    reload(device)


def remove_song(device: VirtualDevice, key: int) -> None:
    """Remove one row (``song_key``) from its playlist."""
    store.remove_songs(device, [key])
    reload(device)


def move(device: VirtualDevice, pid: int, frm: int, to: int) -> None:
    """Drag-and-drop in a playlist: the new order is saved by deleting and re-inserting its rows."""
    playlist = get(device, pid)
    if playlist is None:
        return
    songs = list(playlist["songs"])
    if not (0 <= frm < len(songs)) or not (0 <= to < len(songs)) or frm == to:
        return
    songs.insert(to, songs.pop(frm))
    store.reorder_playlist(device, pid, songs)
    reload(device)


def duration_ms(playlist: Playlist) -> int:
    """Total length of a playlist."""
    return sum(int(s.get("duration", 0)) for s in playlist["songs"])
