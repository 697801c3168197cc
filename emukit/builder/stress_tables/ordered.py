"""Stress-suite move table of the Ordered Collection family (seed 002 Appendix F.3/F.4).

d-stress and ``low`` interference use the system-level moves (Overview and notification shade round trips),
which apply in any app and change neither a playlist nor the queue.

``medium`` and ``high`` interference use Retro Music, starting from the screen where a template's
state-setting steps end (and coming back to it, so the template's convergence steps still apply). Every
selector is an entry of the installed build's table (``music:`` is Retro Music 6.1.0,
``emukit/apps/tables/code.name.monkey.retromusic/10603.yaml``), with the row's text or position added as data.

Ordered Collection (Retro Music; the Songs tab or the playing queue, RetroMusicPlayer@f41a800): ``medium``
is song and collection browsing (other tabs, an album or artist, Now playing, the queue, scrolling); ``high``
is an operation on a target song, the target playlist or a near-name playlist that is cancelled: a song's menu
dismissed, "Add to playlist" -> "New playlist" -> the name dialog's Cancel, "Remove from playlist" -> Cancel,
a playlist's overflow menu dismissed, Now playing's overflow menu (Save / Clear playing queue) dismissed.
What the real app does that shapes the moves:

* The queue is reached from Now playing (the mini player expands it) through its toolbar icon "Now playing
  queue" (entry ``now_playing_queue``, menu_player.xml:24-29); opening it collapses the panel, BACK on the
  queue expands Now playing again, BACK on Now playing collapses it (AbsPlayerFragment.kt:178-186,
  PlayingQueueFragment.kt:181-182).
* The Playlists tab is a two-column grid of cards sorted by name (``PLAYLIST_A_Z``, the default of
  PreferenceUtil.kt:204-208; RoomRepository.kt:64-69), each titled in a view of entry ``row_title``; a card
  is tapped by its title after a scroll down, which brings a second row of cards into view where one row
  fills the screen. The playlist detail's header shows the name in a view of the same id (entry
  ``playlist_header_title``), which is not a row, so a detail's rows are addressed by their menus (entry
  ``row_menu``), the first of which is the first song's. The detail toolbar's overflow ("More options")
  holds menu_playlist_detail.xml (PlaylistDetailsFragment.kt:145).
* Now playing is drawn over the library destination it was opened on, which stays in the hierarchy under it
  (sliding_music_panel_layout.xml:9-17 the navigation host, then 19-43 the sliding panel), so the Songs tab's
  toolbar overflow is the first "More options" of the dump and Now playing's own the second.
* Dialogs close with their negative button (entry ``dialog_negative``, "Cancel": AddToPlaylistDialog.kt:69,
  CreatePlaylistDialog.kt:72, RemoveSongFromPlaylistDialog.kt:72).

The near-name playlists (e.g. "Road Trip 2" beside "Road Trip", or named after the queued songs) are created
by adb-side setup the way templates seed playlists.

Every move has an even number of actions, so moves and the two-action system fillers add up to any even d.

"""

from __future__ import annotations

import random
from typing import Any

from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move, Step
from emukit.builder.stress_tables import register_table
from emukit.builder.stress_tables._common import SCROLL_DOWN, SCROLL_UP, Sel, tap


def _music(name: str, **extra: Any) -> Sel:
    """An entry of Retro Music's table for the device's build, plus ``extra`` fields (text, instance)."""
    return {"sel": f"music:{name}", **extra}


def _tab(entry: str) -> Step:
    """A bottom navigation item (``tab_songs``, ``tab_albums``, ``tab_artists``, ``tab_playlists``)."""
    return tap(_music(entry))


def _row_menu(i: int) -> Sel:
    """The "More options" button of the i-th list row in the dump (rows in order, top to bottom)."""
    return _music("row_menu", instance=i)


SONGS: Sel = _music("tab_songs", selected=True)  # the library on its Songs tab
QUEUE = (_music("queue_title"), _music("queue_list"))  # the playing queue
HAS_QUEUE: Sel = _music("mini_player")  # the mini player: something is queued
TO_SONGS = _tab("tab_songs")
OPEN_NOW_PLAYING = tap(_music("mini_player_title"))  # the mini player expands to Now playing
QUEUE_ICON = tap(_music("now_playing_queue"))  # Now playing's "Now playing queue": the queue
CANCEL = tap(_music("dialog_negative"))
# "Add to playlist" from an open song menu: the chooser (New playlist, then every playlist), "New playlist"
# (its name dialog, the keyboard on its field), the dialog's Cancel
NEW_PLAYLIST_CANCELLED = (tap(_music("song_add_to_playlist")), tap(_music("add_to_playlist_new")), CANCEL)
# a card of the Playlists grid, after a scroll down: the grid is sorted by name and two columns wide, so on a
# small display (720x1280 at 320 dpi) only its first row shows at the top, while at the end of its scroll the
# two rows of up to four playlists (the template's and the near-name ones) show their titles; where the grid
# fits the screen the swipe moves nothing
OPEN_PLAYLIST = (_tab("tab_playlists"), SCROLL_DOWN, tap(_music("row_title", text="{name}")))
CLOSE_PLAYLIST = (BACK, SCROLL_UP, TO_SONGS)  # back to the Playlists tab, its grid to the top, then Songs
OPEN_QUEUE = (OPEN_NOW_PLAYING, QUEUE_ICON)
# Now playing's toolbar overflow: the second "More options" of the dump (the library tab's is the first)
PLAYER_OVERFLOW = tap(_music("more_options", instance=1))

_ORDERED_MEDIUM = (
    # the Songs tab
    Move("albums_tab", (_tab("tab_albums"), TO_SONGS), (SONGS,)),
    Move("artists_tab", (_tab("tab_artists"), TO_SONGS), (SONGS,)),
    Move("playlists_tab", (_tab("tab_playlists"), TO_SONGS), (SONGS,)),
    Move("songs_scroll", (SCROLL_DOWN, SCROLL_UP), (SONGS,)),
    # the first card of the Albums / Artists grid opened (its songs) and left
    Move("album_opened", (_tab("tab_albums"), tap(_music("row_title", instance=0)), BACK, TO_SONGS), (SONGS,)),
    Move("artist_opened", (_tab("tab_artists"), tap(_music("row_title", instance=0)), BACK, TO_SONGS),
         (SONGS,)),
    Move("now_playing_opened", (OPEN_NOW_PLAYING, BACK), (SONGS, HAS_QUEUE)),
    # the queue and back: BACK on the queue expands Now playing, BACK there collapses it
    Move("queue_viewed", (*OPEN_QUEUE, BACK, BACK), (SONGS, HAS_QUEUE)),
    # the playing queue (Now playing expands below it when it is left)
    Move("queue_scroll", (SCROLL_DOWN, SCROLL_UP), QUEUE),
    Move("now_playing_round_trip", (BACK, QUEUE_ICON), QUEUE),
    Move("library_round_trip", (BACK, BACK, *OPEN_QUEUE), QUEUE),
)

_ORDERED_HIGH = (
    # the Songs tab: a song's menu (row 1 is wholly on screen after any scrolling)
    Move("song_menu_dismissed", (tap(_row_menu(1)), BACK), (SONGS, _row_menu(1))),
    Move("song_new_playlist_cancelled", (tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED), (SONGS, _row_menu(1))),
    # a playlist (the target or a near-name one) opened from the Playlists tab; its toolbar's overflow menu
    Move("playlist_opened", (*OPEN_PLAYLIST, *CLOSE_PLAYLIST), (SONGS,), "playlists"),
    Move("playlist_menu_dismissed", (*OPEN_PLAYLIST, tap(_music("more_options")), BACK, *CLOSE_PLAYLIST),
         (SONGS,), "playlists"),
    # the target playlist's first song (the first row menu of the detail: the header holds none); after the
    # cancelled removal a scroll of the detail (it collapses the header) keeps the number of actions even
    Move("playlist_song_menu_dismissed", (*OPEN_PLAYLIST, tap(_row_menu(0)), BACK, *CLOSE_PLAYLIST), (SONGS,),
         "target"),
    Move("playlist_song_removal_cancelled", (*OPEN_PLAYLIST, tap(_row_menu(0)), tap(_music("playlist_song_remove")),
                                             CANCEL, SCROLL_DOWN, *CLOSE_PLAYLIST), (SONGS,), "target"),
    Move("playlist_song_new_playlist_cancelled", (*OPEN_PLAYLIST, tap(_row_menu(0)), *NEW_PLAYLIST_CANCELLED,
                                                  *CLOSE_PLAYLIST), (SONGS,), "target"),
    # a queued song, from the Songs tab (the queue opens at the song after the current one)
    Move("queue_song_menu_dismissed_from_library", (*OPEN_QUEUE, tap(_row_menu(1)), BACK, BACK, BACK),
         (SONGS, HAS_QUEUE)),
    Move("queue_song_new_playlist_cancelled_from_library", (*OPEN_QUEUE, tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED,
                                                            BACK, BACK), (SONGS, HAS_QUEUE)),
    # the playing queue: a queued song's menu, Now playing's overflow (Save / Clear playing queue) dismissed
    Move("queue_song_menu_dismissed", (tap(_row_menu(1)), BACK), (*QUEUE, _row_menu(1))),
    Move("queue_song_new_playlist_cancelled", (tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED),
         (*QUEUE, _row_menu(1))),
    Move("player_menu_dismissed", (BACK, PLAYER_OVERFLOW, BACK, QUEUE_ICON), QUEUE),
)

_NEAR_FORMS = ("{} 2", "{} (old)", "New {}", "{} Vol. 2")


def ordered_distractors(state_params: dict[str, Any], params: dict[str, Any], branch_steps: list[Step],
                        rng: random.Random) -> tuple[dict[str, list[str]], list[Step]]:
    """Playlists to interfere with: for a playlist template the target (``target``) and two near-name
    playlists (``playlists`` holds all three); for a queue template two playlists named after its first
    queued songs. The new ones are created empty by setup steps (the app is stopped for it, then started
    again), as templates seed playlists; at most two, so the "Add to playlist" chooser still shows every
    playlist without scrolling."""
    target = state_params.get("playlist")
    taken = {str(v) for v in params.values() if isinstance(v, str)}
    taken |= {str(x) for v in params.values() if isinstance(v, list) for x in v if isinstance(x, str)}
    if target:
        forms = rng.sample(_NEAR_FORMS, len(_NEAR_FORMS))
        near = [f.format(target) for f in forms if f.format(target) not in taken][:2]
        pools = {"playlists": [str(target), *near], "target": [str(target)]}
    else:
        near = [f"{song} Mix" for song in params.get("songs", [])[:2] if f"{song} Mix" not in taken]
        pools = {"playlists": near, "target": []}
    setup: list[Step] = [{"music.seed_playlist": {"name": name}} for name in near]
    return pools, ([*setup, {"launch": "music"}] if setup else [])


ORDERED_TABLE = register_table(FamilyTable(
    family="ordered", neutral=SYSTEM_NEUTRAL,
    levels={"low": SYSTEM_NEUTRAL, "medium": _ORDERED_MEDIUM, "high": _ORDERED_HIGH},
    distractors=ordered_distractors,
))
