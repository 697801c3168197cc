"""Stress-suite move tables of the Clipboard and Ordered Collection families (seed 002 Appendix F.3/F.4).

d-stress and ``low`` interference use the system-level moves (Overview and notification shade round trips),
which apply in any app and change neither the clipboard nor a playlist or queue.

``medium`` and ``high`` interference use the family's app, starting from the screen where a template's
state-setting steps end (and coming back to it, so the template's convergence steps still apply):

* Clipboard (Markor; the page in view mode, the page in edit mode, or the notebook list): ``medium`` is app
  interaction that has nothing to do with copying (mode toggles, scrolling, opening a page or the New document
  dialog and leaving); ``high`` is copy-adjacent but never effective: a payload line (the target's included)
  selected and dismissed, Select all then a new selection, the editor's text toolbar (Paste / Select all, Cut /
  Copy) opened and closed. No move taps Copy, Cut or Paste, so the clipboard keeps the payload.
* Ordered Collection (Retro Music; the Songs tab or the playing queue): ``medium`` is song and collection
  browsing (other tabs, an album or artist, Now playing, the queue, scrolling); ``high`` is an operation on a
  target song, the target playlist or a near-name playlist that is cancelled: a song's menu dismissed, "Add to
  playlist" -> "New playlist" -> Cancel, "Remove from playlist" -> Cancel, a playlist's menu dismissed. The
  near-name playlists (e.g. "Road Trip 2" beside "Road Trip", or named after the queued songs) are created by
  adb-side setup the way templates seed playlists.

Every move has an even number of actions, so moves and the two-action system fillers add up to any even d.
"""

from __future__ import annotations

import random
from typing import Any

from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move, Step

Sel = dict[str, Any]


# vertical swipes in the middle of the screen: they scroll a list (a page, the notebook, songs, the queue)
SCROLL_DOWN: Step = {"swipe": {"x1": 540, "y1": 1500, "x2": 540, "y2": 900, "duration_ms": 300}}
SCROLL_UP: Step = {"swipe": {"x1": 540, "y1": 900, "x2": 540, "y2": 1500, "duration_ms": 300}}


# ------------------------------------------------------------------------------------------ Clipboard
MARKOR = "net.gsantner.markor"
LINE = f"{MARKOR}:id/source_line"
EDITOR = f"{MARKOR}:id/document__fragment__edit__highlighting_editor"
DOC_ROW = f"{MARKOR}:id/opoc_filesystem_item__title"
PAGE = "Codes.md"  # the clipboard templates' source page

TO_EDIT: Step = {"tap": {"description": "Edit mode"}}  # the toggle shows the mode it switches to
TO_VIEW: Step = {"tap": {"description": "View mode"}}
UP: Step = {"tap": {"description": "Navigate up"}}
PRESS_EDITOR: Step = {"long_press": {"resourceId": EDITOR}}  # focus + text toolbar (Paste / Select all)
PAYLOAD: Sel = {"resourceId": LINE, "text": "{name}"}
# a tap on the blank page below the lines: ends a view-mode selection (the toolbar sits next to the line)
BESIDE: Step = {"tap": {"x": 540, "y": 1800}}

VIEWING = ({"description": "Edit mode"}, {"resourceId": LINE})  # a page in view mode
EDITING = ({"description": "View mode"}, {"resourceId": EDITOR})  # a page in edit mode
NOTEBOOK = ({"resourceId": DOC_ROW, "text": PAGE}, {"description": "Create a new document"})

_CLIPBOARD_MEDIUM = (
    Move("view_edit_toggle", (TO_EDIT, TO_VIEW), VIEWING),
    Move("view_scroll", (SCROLL_DOWN, SCROLL_UP), VIEWING),
    Move("edit_view_toggle", (TO_VIEW, TO_EDIT), EDITING),
    Move("editor_focus_keyboard_hidden", ({"tap": {"resourceId": EDITOR}}, BACK), EDITING),
    Move("page_opened", ({"tap": {"resourceId": DOC_ROW, "text": PAGE}}, UP), NOTEBOOK),
    Move("draft_opened", ({"tap": {"resourceId": DOC_ROW, "text": "Draft.md"}}, UP),
         (*NOTEBOOK, {"resourceId": DOC_ROW, "text": "Draft.md"})),
    Move("new_document_cancelled", ({"tap": {"description": "Create a new document"}}, {"tap": {"text": "Cancel"}}),
         NOTEBOOK),
    Move("page_selected_deselected", ({"long_press": {"resourceId": DOC_ROW, "text": PAGE}},
                                      {"tap": {"description": "Done"}}), NOTEBOOK),
    Move("notebook_scroll", (SCROLL_DOWN, SCROLL_UP), NOTEBOOK),
)

_CLIPBOARD_HIGH = (
    # view mode: a payload line's word selected (Copy / Select all offered), dismissed without copying
    Move("line_selected_back", ({"long_press": PAYLOAD}, BACK), (*VIEWING, PAYLOAD), "lines"),
    Move("line_selected_tap_beside", ({"long_press": PAYLOAD}, BESIDE), (*VIEWING, PAYLOAD), "lines"),
    # Select all (only offered on a line of several words), then a new word selection, dismissed
    Move("line_select_all_reselected", ({"long_press": PAYLOAD}, {"tap": {"text": "Select all"}},
                                        {"long_press": PAYLOAD}, BACK), (*VIEWING, PAYLOAD), "phrases"),
    Move("view_editor_text_menu_closed", (TO_EDIT, PRESS_EDITOR, BACK, TO_VIEW), VIEWING),
    # edit mode: the editor's text toolbar; BACK closes it and hides the keyboard
    Move("editor_text_menu_closed", (PRESS_EDITOR, BACK), EDITING),
    Move("editor_select_all_dropped", (PRESS_EDITOR, {"tap": {"text": "Select all"}},
                                       {"tap": {"resourceId": EDITOR}}, BACK), EDITING),
    Move("edit_line_selected_back", (TO_VIEW, {"long_press": {"resourceId": LINE, "instance": 0}}, BACK, TO_EDIT),
         EDITING),
    # notebook: into the source page and out again (a fresh page opens in edit mode)
    Move("page_text_menu_closed", ({"tap": {"resourceId": DOC_ROW, "text": PAGE}}, PRESS_EDITOR, BACK, UP),
         NOTEBOOK),
    Move("page_select_all_dropped", ({"tap": {"resourceId": DOC_ROW, "text": PAGE}}, PRESS_EDITOR,
                                     {"tap": {"text": "Select all"}}, {"tap": {"resourceId": EDITOR}}, BACK, UP),
         NOTEBOOK),
    Move("page_line_selected_back", ({"tap": {"resourceId": DOC_ROW, "text": PAGE}}, TO_VIEW,
                                     {"long_press": PAYLOAD}, BACK, TO_EDIT, UP), NOTEBOOK, "lines"),
)


def clipboard_distractors(state_params: dict[str, Any], params: dict[str, Any], branch_steps: list[Step],
                          rng: random.Random) -> tuple[dict[str, list[str]], list[Step]]:
    """The source page's payload lines as shown in view mode (``lines``; the target's among them) and those
    of several words (``phrases``, where Select all is offered). The page exists already: no setup."""
    words = [str(p) for p in params.get("p", [])]
    tags = [str(t) for t in params.get("t", [])]
    lines = [f"{w} {t}" for w, t in zip(words, tags, strict=False)] if tags else words
    return {"lines": lines, "phrases": [x for x in lines if " " in x]}, []


CLIPBOARD_TABLE = FamilyTable(family="clipboard", neutral=SYSTEM_NEUTRAL,
                              levels={"low": SYSTEM_NEUTRAL, "medium": _CLIPBOARD_MEDIUM, "high": _CLIPBOARD_HIGH},
                              distractors=clipboard_distractors)


# ------------------------------------------------------------------------------------------ Ordered Collection
RETRO = "code.name.monkey.retromusic"
ROW_MENU = f"{RETRO}:id/menu"  # a list row's "More options"
TITLE = f"{RETRO}:id/title"
MINI = f"{RETRO}:id/miniPlayerTitle"


def _tab(name: str) -> Step:
    return {"tap": {"description": name}}


def _row_menu(i: int) -> Step:
    """The "More options" of the i-th list row on screen."""
    return {"tap": {"resourceId": ROW_MENU, "instance": i}}


SONGS: Sel = {"description": "Songs", "selected": True}  # the library on its Songs tab
QUEUE: Sel = {"resourceId": f"{RETRO}:id/toolbar_title", "text": "Playing queue"}
HAS_QUEUE: Sel = {"resourceId": MINI}  # the mini player: something is queued
CANCEL: Step = {"tap": {"text": "Cancel"}}
# "Add to playlist" from an open song menu: the chooser (every playlist), "New playlist" (its name dialog), Cancel
NEW_PLAYLIST_CANCELLED = ({"tap": {"text": "Add to playlist"}},
                          {"tap": {"resourceId": "android:id/text1", "text": "New playlist"}}, CANCEL)
OPEN_PLAYLIST = (_tab("Playlists"), {"tap": {"resourceId": TITLE, "text": "{name}"}})
CLOSE_PLAYLIST = (BACK, _tab("Songs"))
OPEN_QUEUE = ({"tap": {"resourceId": MINI}}, {"tap": {"description": "Playing queue"}})

_ORDERED_MEDIUM = (
    # the Songs tab
    Move("albums_tab", (_tab("Albums"), _tab("Songs")), (SONGS,)),
    Move("artists_tab", (_tab("Artists"), _tab("Songs")), (SONGS,)),
    Move("playlists_tab", (_tab("Playlists"), _tab("Songs")), (SONGS,)),
    Move("songs_scroll", (SCROLL_DOWN, SCROLL_UP), (SONGS,)),
    Move("album_opened", (_tab("Albums"), {"tap": {"resourceId": TITLE, "instance": 0}}, BACK, _tab("Songs")),
         (SONGS,)),
    Move("artist_opened", (_tab("Artists"), {"tap": {"resourceId": TITLE, "instance": 0}}, BACK, _tab("Songs")),
         (SONGS,)),
    Move("now_playing_opened", ({"tap": {"resourceId": MINI}}, BACK), (SONGS, HAS_QUEUE)),
    Move("queue_viewed", (*OPEN_QUEUE, BACK, BACK), (SONGS, HAS_QUEUE)),
    # the playing queue (Now playing below it)
    Move("queue_scroll", (SCROLL_DOWN, SCROLL_UP), (QUEUE,)),
    Move("now_playing_round_trip", (BACK, {"tap": {"description": "Playing queue"}}), (QUEUE,)),
    Move("library_round_trip", (BACK, BACK, *OPEN_QUEUE), (QUEUE,)),
)

_ORDERED_HIGH = (
    # the Songs tab: a song's menu (row 1 is wholly on screen after any scrolling)
    Move("song_menu_dismissed", (_row_menu(1), BACK), (SONGS, {"resourceId": ROW_MENU, "instance": 1})),
    Move("song_new_playlist_cancelled", (_row_menu(1), *NEW_PLAYLIST_CANCELLED),
         (SONGS, {"resourceId": ROW_MENU, "instance": 1})),
    # a playlist (the target or a near-name one) opened from the Playlists tab
    Move("playlist_opened", (*OPEN_PLAYLIST, *CLOSE_PLAYLIST), (SONGS,), "playlists"),
    Move("playlist_menu_dismissed", (*OPEN_PLAYLIST, {"tap": {"resourceId": f"{RETRO}:id/action_overflow"}},
                                     BACK, *CLOSE_PLAYLIST), (SONGS,), "playlists"),
    # the target playlist's first song
    Move("playlist_song_menu_dismissed", (*OPEN_PLAYLIST, _row_menu(0), BACK, *CLOSE_PLAYLIST), (SONGS,), "target"),
    Move("playlist_song_removal_cancelled", (*OPEN_PLAYLIST, _row_menu(0), {"tap": {"text": "Remove from playlist"}},
                                             CANCEL, SCROLL_DOWN, *CLOSE_PLAYLIST), (SONGS,), "target"),
    Move("playlist_song_new_playlist_cancelled", (*OPEN_PLAYLIST, _row_menu(0), *NEW_PLAYLIST_CANCELLED,
                                                  *CLOSE_PLAYLIST), (SONGS,), "target"),
    # a queued song, from the Songs tab
    Move("queue_song_menu_dismissed_from_library", (*OPEN_QUEUE, _row_menu(1), BACK, BACK, BACK),
         (SONGS, HAS_QUEUE)),
    Move("queue_song_new_playlist_cancelled_from_library", (*OPEN_QUEUE, _row_menu(1), *NEW_PLAYLIST_CANCELLED,
                                                            BACK, BACK), (SONGS, HAS_QUEUE)),
    # the playing queue: a queued song's menu, Now playing's menu (Save / Clear playing queue) dismissed
    Move("queue_song_menu_dismissed", (_row_menu(1), BACK), (QUEUE, {"resourceId": ROW_MENU, "instance": 1})),
    Move("queue_song_new_playlist_cancelled", (_row_menu(1), *NEW_PLAYLIST_CANCELLED),
         (QUEUE, {"resourceId": ROW_MENU, "instance": 1})),
    Move("player_menu_dismissed", (BACK, {"tap": {"resourceId": f"{RETRO}:id/action_overflow"}}, BACK,
                                   {"tap": {"description": "Playing queue"}}), (QUEUE,)),
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


ORDERED_TABLE = FamilyTable(family="ordered", neutral=SYSTEM_NEUTRAL,
                            levels={"low": SYSTEM_NEUTRAL, "medium": _ORDERED_MEDIUM, "high": _ORDERED_HIGH},
                            distractors=ordered_distractors)
