"""Stress-suite move table of the Ordered Collection family's host variants in VLC (seed 002 Appendix F.3/F.4;
templates with ``variant: {app: vlc}``). Every selector is an entry of the device build's ``vlc:`` table
(``emukit/apps/tables/org.videolan.vlc/13050408.yaml``, vlc-android 3.5.4).

The variants' setting steps end either on the Video tab (playlists built with "Add to playlist") or on the
open playlist (rows dragged); their convergence reaches the Playlists tab from any tab of the main screen (or
BACK from the open playlist first), so a move starts on one of those two screens and ends on a main-screen tab
or where it started:

* neutral and ``low``: the system round trips; a card's or a row's "More Actions" sheet opened and dismissed
  with BACK;
* ``medium``: browsing the library: another tab (Audio, Browse, Playlists: the target playlist's card among
  others) and back to Video; on the open playlist, its rows scrolled down and up;
* ``high``: operations on the target playlist left undone: "Add to playlist" of a video or a row opened (the
  sheet lists the target playlist and its near-name distractor) and dismissed with BACK; the target playlist's
  "More Actions" -> Delete -> the confirmation's Cancel.

The distractor is a playlist whose name is the target's with " 2" appended, holding one video, made by the
profile in the (unshown) setup as a user would, so the Playlists grid and the "Add to playlist" sheet list it
beside the target. What the real app does that shapes the moves: the ContextSheet and SavePlaylistDialog are
bottom sheets that BACK dismisses; a playlist card's Delete asks ConfirmDeleteDialog ("Delete forever" /
"Cancel"); a playlist row's Delete removes it at once (so no move uses it). Every move has an even number of
actions.
"""

from __future__ import annotations

import random
from typing import Any

from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move
from emukit.builder.stress_tables import register_table
from emukit.builder.stress_tables._common import SCROLL_DOWN, SCROLL_UP, Sel, tap


def _vlc(name: str, **extra: Any) -> Sel:
    """An entry of VLC's table for the device's build, plus ``extra`` fields."""
    return {"sel": f"vlc:{name}", **extra}


VIDEOS = _vlc("video_grid")  # the Video tab
TRACKS = _vlc("playlist_tracks")  # an open playlist
NAV = _vlc("bottom_nav")  # any tab of the main screen
TO_VIDEO = tap(_vlc("nav_video"))
ADD_TO_PLAYLIST = tap(_vlc("ctx_add_to_playlist"))

_NEUTRAL = (
    Move("video_sheet_dismissed", (tap(_vlc("video_more")), BACK), (VIDEOS, _vlc("video_more"))),
    Move("row_sheet_dismissed", (tap(_vlc("track_more")), BACK), (TRACKS, _vlc("track_more"))),
    *SYSTEM_NEUTRAL,
)

_MEDIUM = (
    Move("audio_tab_round_trip", (tap(_vlc("nav_audio")), TO_VIDEO), (VIDEOS,)),
    Move("browse_tab_round_trip", (tap(_vlc("nav_browse")), TO_VIDEO), (VIDEOS,)),
    Move("playlists_tab_round_trip", (tap(_vlc("nav_playlists")), TO_VIDEO), (VIDEOS,)),
    Move("rows_scrolled", (SCROLL_DOWN, SCROLL_UP), (TRACKS,)),
)

_HIGH = (
    Move("add_to_playlist_dismissed", (tap(_vlc("video_more")), ADD_TO_PLAYLIST, BACK, TO_VIDEO),
         (VIDEOS, _vlc("video_more"))),
    Move("playlist_delete_cancelled", (tap(_vlc("nav_playlists")), tap(_vlc("playlist_card_more")),
                                       tap(_vlc("ctx_delete")), tap(_vlc("delete_cancel"))), (NAV,)),
    Move("rows_add_to_playlist_dismissed",
         (tap(_vlc("track_more", instance=0)), ADD_TO_PLAYLIST, BACK,
          tap(_vlc("track_more", instance=1)), ADD_TO_PLAYLIST, BACK), (TRACKS, _vlc("track_more", instance=1))),
)


def vlc_distractors(state_params: dict[str, Any], params: dict[str, Any], branch_steps: list[dict[str, Any]],
                    rng: random.Random) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """A near-name playlist beside the tracked one (its name + " 2", one video of the template's, drawn with
    ``rng``), made through the profile in the setup."""
    target = str(state_params["playlist"])
    videos = [v for v in params.get("videos", []) if isinstance(v, str)]
    if not videos:
        return {}, []
    near = f"{target} 2"
    return {"near": [near]}, [{"vlc.create_playlist": {"name": near, "videos": [rng.choice(videos)]}}]


VLC_TABLE = register_table(FamilyTable(
    family="ordered",
    app="vlc",
    neutral=_NEUTRAL,
    levels={"low": _NEUTRAL, "medium": _MEDIUM, "high": _HIGH},
    distractors=vlc_distractors,
))
