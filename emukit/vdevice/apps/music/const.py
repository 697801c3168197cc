"""Names shared by the Retro Music modules: package, on-device paths, resource ids and UI text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PKG = "code.name.monkey.retromusic"
MAIN_ACTIVITY = f"{PKG}.activities.MainActivity"

DATA_DIR = f"/data/data/{PKG}"
PLAYLIST_DB = f"{DATA_DIR}/databases/playlist.db"
QUEUE_DB = f"{DATA_DIR}/databases/music_playback_state.db"
PREFS_XML = f"{DATA_DIR}/shared_prefs/{PKG}_preferences.xml"  # PreferenceManager.getDefaultSharedPreferences
MEDIA_DB = "/data/data/com.android.providers.media.module/databases/external.db"
MUSIC_DIR = "/storage/emulated/0/Music"

# MusicService's shared-preference keys
PREF_POSITION = "POSITION"
PREF_POSITION_IN_TRACK = "POSITION_IN_TRACK"
PREF_SHUFFLE = "SHUFFLE_MODE"
PREF_REPEAT = "REPEAT_MODE"

REPEAT_NONE, REPEAT_ALL, REPEAT_THIS = 0, 1, 2
SHUFFLE_NONE, SHUFFLE_ON = 0, 1

TABS = ("songs", "albums", "artists", "playlists")
TAB_LABELS = {"songs": "Songs", "albums": "Albums", "artists": "Artists", "playlists": "Playlists"}
TAB_IDS = {"songs": "action_song", "albums": "action_album", "artists": "action_artist",
           "playlists": "action_playlist"}

# Retro Music's strings
ADDED_ONE_TO_QUEUE = "Added 1 title to the playing queue."
ADDED_N_TO_QUEUE = "Added {n} titles to the playing queue."
ADDED_TO_PLAYLIST = "Added {n} song(s) to {name}"
PLAYLIST_CREATED = "{name} created successfully"
NAME_EMPTY = "Playlist name can't be empty"


def rid(name: str) -> str:
    """A full resource id of the app: ``rid("title")`` -> ``code.name.monkey.retromusic:id/title``."""
    return f"{PKG}:id/{name}"


def app_data(device: VirtualDevice) -> dict[str, Any]:
    """The app's in-memory process state (dropped on force-stop)."""
    return device.state.app_data.setdefault(PKG, {})


def fmt_duration(ms: int) -> str:
    """``m:ss`` (or ``h:mm:ss``) like MusicUtil.getReadableDurationString."""
    secs = max(0, ms) // 1000
    hours, rest = divmod(secs, 3600)
    mins, secs = divmod(rest, 60)
    return f"{hours}:{mins:02d}:{secs:02d}" if hours else f"{mins}:{secs:02d}"


def songs_label(n: int) -> str:
    """``1 song`` / ``N songs``."""
    return f"{n} song" if n == 1 else f"{n} songs"
