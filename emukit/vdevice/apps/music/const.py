"""Names shared by the Retro Music modules: the pinned build's selector table, on-device paths and the texts
the app composes. Every id, string and content-desc a screen shows comes from the table (``T``), the one the
music profile selects through, so the virtual app cannot show a selector the real build lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from emukit.apps.selectors import table

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

PKG = "code.name.monkey.retromusic"
T = table(PKG)
MAIN_ACTIVITY = f"{PKG}.activities.MainActivity"

DATA_DIR = f"/data/data/{PKG}"
PLAYLIST_DB = f"{DATA_DIR}/databases/playlist.db"  # Room, MainModule.kt "playlist.db"
QUEUE_DB = f"{DATA_DIR}/databases/music_playback_state.db"  # MusicPlaybackQueueStore
PREFS_XML = f"{DATA_DIR}/shared_prefs/{PKG}_preferences.xml"  # PreferenceManager.getDefaultSharedPreferences
MUSIC_DIR = "/storage/emulated/0/Music"

# MusicService's shared-preference keys (service/MusicService.kt:1413-1416)
PREF_POSITION = "POSITION"
PREF_POSITION_IN_TRACK = "POSITION_IN_TRACK"
PREF_SHUFFLE = "SHUFFLE_MODE"
PREF_REPEAT = "REPEAT_MODE"

REPEAT_NONE, REPEAT_ALL, REPEAT_THIS = 0, 1, 2
SHUFFLE_NONE, SHUFFLE_ON = 0, 1

# the bottom navigation's items in menu order (res/menu/bottom_navigation_main.xml); the entries of the table
TABS = ("home", "songs", "albums", "artists", "playlists")
TAB_ENTRY = {tab: f"tab_{tab}" for tab in TABS}


def app_data(device: VirtualDevice) -> dict[str, Any]:
    """The app's in-memory process state (dropped on force-stop)."""
    return device.state.app_data.setdefault(PKG, {})


def fmt_duration(ms: int) -> str:
    """MusicUtil.getReadableDurationString: ``mm:ss``, or ``hh:mm:ss`` from an hour on (MusicUtil.kt:232-253)."""
    secs = max(0, ms) // 1000
    minutes, secs = divmod(secs, 60)
    if minutes < 60:
        return f"{minutes:02d}:{secs:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def songs_label(n: int) -> str:
    """MusicUtil.getSongCountString: ``1 Song`` / ``N Songs``."""
    return T.text("song_count_one", n=n) if n == 1 else T.text("song_count", n=n)


def info_string(first: str, second: str) -> str:
    """MusicUtil.buildInfoString: the two parts joined by the app's separator (either may be empty)."""
    if not first or not second:
        return first or second
    return f"{first}{T.text('info_separator')}{second}"
