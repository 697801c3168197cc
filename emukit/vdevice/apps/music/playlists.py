"""Playlists as the app holds them: loaded from ``playlist.db`` into process state, written through at once.

Every edit the real app makes with a Room DAO call right away (create, add songs, rename, delete, remove a
song) goes to the database first and the in-memory copy is then re-read from it, so what the screens show is
what a probe reads. A reorder in the playlist detail screen is the exception: it only moves the adapter's
rows and is saved when the screen is left (:func:`save_detail`, PlaylistDetailsFragment.onPause).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.music import store
from emukit.vdevice.apps.music.const import T, app_data
from emukit.vdevice.apps.music.store import Song

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

Playlist = dict[str, Any]


def playlists(device: VirtualDevice) -> list[Playlist]:
    """All playlists as the Playlists tab lists them, each ``{"id", "name", "songs"}``: the default sort order
    PLAYLIST_A_Z is Kotlin's ``sortedBy { playlistName }`` (RoomRepository.kt:64-69), a stable, case-sensitive
    sort of the rows in table order."""
    data = app_data(device)
    if "playlists" not in data:
        reload(device)
    return data["playlists"]


def reload(device: VirtualDevice) -> None:
    """Re-read the playlists from the database."""
    lists = store.load_playlists(device)
    app_data(device)["playlists"] = sorted(lists, key=lambda p: (p["name"], p["id"]))


def get(device: VirtualDevice, pid: int) -> Playlist | None:
    """The playlist with id ``pid``."""
    return next((p for p in playlists(device) if p["id"] == pid), None)


def in_table_order(device: VirtualDevice) -> list[Playlist]:
    """The playlists in PlaylistEntity row order (``SELECT * FROM PlaylistEntity``, PlaylistDao.kt:31-32), as the
    "Add to playlist" chooser lists them."""
    return sorted(playlists(device), key=lambda p: p["id"])


def by_name(device: VirtualDevice, name: str) -> Playlist | None:
    """The first playlist named exactly ``name`` in table order (PlaylistDao.playlist(name), used by
    LibraryViewModel.addToPlaylist)."""
    return next((p for p in in_table_order(device) if p["name"] == name), None)


def add_songs_by_name(device: VirtualDevice, name: str, songs: list[Song]) -> str:
    """LibraryViewModel.addToPlaylist (LibraryViewModel.kt:328-355): create the playlist if no playlist has
    that name, then insert the songs (a song already in it moves to the end: Room's REPLACE on the unique
    (playlist_creator_id, id) index). Returns the last toast ("Added N song(s) to name"; a new playlist's
    "created successfully" toast comes first and is replaced by it)."""
    existing = by_name(device, name)
    pid = store.create_playlist(device, name) if existing is None else existing["id"]
    if songs:
        store.insert_songs(device, pid, songs)
    reload(device)
    return T.text("toast_added_to_playlist", n=len(songs), playlist=name)


def rename(device: VirtualDevice, pid: int, name: str) -> None:
    """Rename playlist ``pid``."""
    store.rename_playlist(device, pid, name)
    reload(device)


def delete(device: VirtualDevice, pid: int) -> None:
    """Delete playlist ``pid`` with its songs."""
    store.delete_playlist(device, pid)
    reload(device)


def remove_song(device: VirtualDevice, pid: int, song_id: int) -> None:
    """RoomRepository.deleteSongsInPlaylist: ``DELETE FROM SongEntity WHERE playlist_creator_id = pid AND
    id = song`` (PlaylistDao.kt:37-38)."""
    store.remove_song(device, pid, song_id)
    reload(device)


def save_detail(device: VirtualDevice, pid: int, songs: list[Song]) -> None:
    """OrderablePlaylistSongAdapter.saveSongs on PlaylistDetailsFragment.onPause (PlaylistDetailsFragment.kt:162-165,
    OrderablePlaylistSongAdapter.kt:129-133): the adapter's rows, in their order on screen, inserted again
    with REPLACE, so each gets a new song_key in that order. The adapter keeps the last row it showed when
    the playlist became empty (PlaylistDetailsFragment.songs, lines 172-179, swaps only a non-empty list), so
    leaving an emptied playlist puts that song back; rows of a playlist deleted meanwhile are written too
    (the table has no foreign key), where no playlist lists them."""
    if songs:
        store.insert_songs(device, pid, songs)
        reload(device)


def duration_ms(playlist: Playlist) -> int:
    """Total length of a playlist."""
    return sum(int(s.get("duration", 0)) for s in playlist["songs"])
