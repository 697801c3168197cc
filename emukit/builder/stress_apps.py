"""Stress-suite move tables of the Clipboard and Ordered Collection families (seed 002 Appendix F.3/F.4).

d-stress and ``low`` interference use the system-level moves (Overview and notification shade round trips),
which apply in any app and change neither the clipboard nor a playlist or queue.

``medium`` and ``high`` interference use the family's app, starting from the screen where a template's
state-setting steps end (and coming back to it, so the template's convergence steps still apply). Every
selector is an entry of the installed build's table (``notes:`` is Markor 2.10.9,
``emukit/apps/tables/net.gsantner.markor/146.yaml``; ``music:`` is Retro Music 6.1.0,
``emukit/apps/tables/code.name.monkey.retromusic/10603.yaml``), with the row's text or position added as data.

Clipboard (Markor; a page in view mode, a page in edit mode, or the notebook list). What the real app does
that shapes the moves (gsantner/markor@ab21754):

* View mode is a WebView; each blank-line separated paragraph of the page is one TextView node of Chromium's
  accessibility tree, as wide as the page (the source page holds one payload per paragraph). Its centre is
  blank page right of its one or two words, where Chromium's long press selects nothing
  (``SelectionController``: no word under the point), so the payload moves press the paragraph's first word
  as the notes profile does (``at_dp``: just inside its left edge, in the middle of its first line), which
  selects the word and opens the floating toolbar (Copy, Select all), and end with a tap on the blank page
  below the paragraphs, which ends the selection without copying. BACK is no way to end a view-mode
  selection: the page does not take it, so it closes the document.
* A document has no "Navigate up" (``DocumentActivity`` sets no home-as-up): BACK leaves it
  (``DocumentActivity.onBackPressed``, DocumentActivity.java:310), and only when neither a text toolbar nor
  the keyboard is open (a TextView takes the first BACK to end its text action mode, the keyboard the next
  one). Switching to view mode hides the keyboard and clears the editor's focus
  (``DocumentEditAndViewFragment.setViewModeVisibility``, DocumentEditAndViewFragment.java:753-762), which
  ends an editor selection too; so the moves close an editor excursion with View mode, or with one BACK while
  the document stays open, and never give two BACKs in a row after a text toolbar.
* A document opens in the mode it was left in (``onPause`` stores it, DocumentEditAndViewFragment.java:264;
  read back at line 216-222). Every template views Codes.md before it reaches the notebook, so from the
  notebook Codes.md opens in view mode; Draft.md is opened by the templates only in their convergence, in
  edit mode, and the moves leave it in edit mode again (the convergence long-presses its editor). A document
  opens without the keyboard (``windowSoftInputMode="stateUnchanged|adjustResize"``, AndroidManifest.xml:182).
* A notebook row's selection ends with a tap on the selected row (``GsFileBrowserListAdapter.onClick`` ->
  ``toggleSelection``, GsFileBrowserListAdapter.java:310-322, 390-409). The new file dialog focuses its name
  field and touches it, which shows the keyboard (NewFileDialog.java:115-116); BACK hides the keyboard and
  the dialog's negative button (entry ``dialog_cancel``, NewFileDialog.java:178) closes it, so no keyboard
  is left over the notebook.

``medium`` is app interaction that has nothing to do with copying (mode toggles, scrolling, opening a page and
leaving it, the new file dialog cancelled, a row selected and deselected); ``high`` is copy-adjacent but never
effective: a long press on a payload's paragraph (the target's included) ended by a tap on the page, the
editor's text toolbar (Paste / Select all) opened and closed, Select all over the whole source (every payload)
dropped again, the empty draft's Paste toolbar opened and closed. No move taps Copy, Cut or Paste, so the
clipboard keeps the payload. Changed from the earlier virtual UI: there is no per-line ``source_line`` node
(lines join into paragraphs), so "select a payload line and dismiss it with BACK" is gone (BACK closes the
page) and "Select all, then select a line again" is gone (Select all takes the whole page and is offered only
once a word is selected); the view-mode payload moves became the paragraph press ended by a tap, the
copy-adjacent selections moved into the editor, whose Select all covers every payload.

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

from emukit.apps.notes import FIRST_LINE_DP, PRESS_IN_DP
from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move, Step

Sel = dict[str, Any]


def _notes(name: str, **extra: Any) -> Sel:
    """An entry of Markor's table for the device's build, plus ``extra`` fields (text, instance)."""
    return {"sel": f"notes:{name}", **extra}


def _music(name: str, **extra: Any) -> Sel:
    """An entry of Retro Music's table for the device's build, plus ``extra`` fields (text, instance)."""
    return {"sel": f"music:{name}", **extra}


def _tap(sel: Sel) -> Step:
    return {"tap": sel}


def _press(sel: Sel) -> Step:
    return {"long_press": sel}


# vertical swipes in the middle of the screen: they scroll a list (a page, the notebook, songs, the queue);
# coordinates are percentages of the screen, resolved on the device when the step runs (emukit.builder.steps)
SCROLL_DOWN: Step = {"swipe": {"x1": "50%", "y1": "62.5%", "x2": "50%", "y2": "37.5%", "duration_ms": 300}}
SCROLL_UP: Step = {"swipe": {"x1": "50%", "y1": "37.5%", "x2": "50%", "y2": "62.5%", "duration_ms": 300}}


# ------------------------------------------------------------------------------------------ Clipboard
PAGE = "Codes.md"  # the clipboard templates' source page
DRAFT = "Draft.md"  # the blank note the templates' convergence pastes into

# the document toolbar's mode item names the mode it switches to (only one of them shows at a time)
TO_EDIT: Step = _tap(_notes("edit_mode"))
TO_VIEW: Step = _tap(_notes("view_mode"))
PRESS_EDITOR: Step = _press(_notes("editor"))  # focus + the text toolbar (Paste / Select all, or a word's)
TAP_EDITOR: Step = _tap(_notes("editor"))  # collapses a selection to the caret; the keyboard shows
SELECT_ALL: Step = _tap(_notes("text_select_all"))
PARAGRAPH: Sel = _notes("view_paragraph", text="{name}")  # a payload's paragraph node in view mode
# its first word: pressed where the notes profile presses it (dp from the paragraph's top-left corner)
FIRST_WORD: Sel = {**PARAGRAPH, "at_dp": [PRESS_IN_DP, FIRST_LINE_DP]}
# a tap on the blank page below the paragraphs: ends any view-mode selection (the floating toolbar sits next
# to the selected word, above it, so well clear of this point)
BELOW: Step = {"tap": {"x": "50%", "y": "75%"}}
OPEN_PAGE: Step = _tap(_notes("notebook_row_title", text=PAGE))
OPEN_DRAFT: Step = _tap(_notes("notebook_row_title", text=DRAFT))

VIEWING = (_notes("edit_mode"), _notes("view_webview"))  # a page in view mode
EDITING = (_notes("view_mode"), _notes("editor"))  # a page in edit mode
NOTEBOOK = (_notes("notebook_row_title", text=PAGE), _notes("fab_new"))
WITH_DRAFT = (*NOTEBOOK, _notes("notebook_row_title", text=DRAFT))

_CLIPBOARD_MEDIUM = (
    Move("view_edit_toggle", (TO_EDIT, TO_VIEW), VIEWING),
    Move("view_scroll", (SCROLL_DOWN, SCROLL_UP), VIEWING),
    Move("edit_view_toggle", (TO_VIEW, TO_EDIT), EDITING),
    # a tap focuses the editor and shows the keyboard; BACK hides it again
    Move("editor_focus_keyboard_hidden", (TAP_EDITOR, BACK), EDITING),
    # the notebook: a page opened (Codes.md in view mode, Draft.md in edit mode, no keyboard) and left with BACK
    Move("page_opened", (OPEN_PAGE, BACK), NOTEBOOK),
    Move("draft_opened", (OPEN_DRAFT, BACK), WITH_DRAFT),
    # the new file dialog: its name field has the focus and the keyboard; BACK hides that, CANCEL closes it
    Move("new_document_cancelled", (_tap(_notes("fab_new")), _tap(_notes("new_file_name")), BACK,
                                    _tap(_notes("dialog_cancel"))), NOTEBOOK),
    # a long press selects the row, a tap on the selected row deselects it and ends selection mode
    Move("page_selected_deselected", (_press(_notes("notebook_row_title", text=PAGE)),
                                      _tap(_notes("notebook_row_title", text=PAGE))), NOTEBOOK),
    Move("notebook_scroll", (SCROLL_DOWN, SCROLL_UP), NOTEBOOK),
)

_CLIPBOARD_HIGH = (
    # view mode: a long press on a payload's paragraph (the target's among them), ended by a tap on the page
    Move("paragraph_pressed_tap_below", (_press(FIRST_WORD), BELOW), (*VIEWING, PARAGRAPH), "paragraphs"),
    # view mode: into the editor (the source text, every payload in it) and back by View mode, which hides
    # the keyboard and drops the editor's selection
    Move("view_editor_text_menu_closed", (TO_EDIT, PRESS_EDITOR, BACK, TO_VIEW), VIEWING),
    Move("view_editor_select_all_dropped", (TO_EDIT, PRESS_EDITOR, SELECT_ALL, TO_VIEW), VIEWING),
    Move("view_editor_select_all_tapped_away", (TO_EDIT, PRESS_EDITOR, SELECT_ALL, TAP_EDITOR, BACK, TO_VIEW),
         VIEWING),
    # edit mode: the editor's text toolbar; one BACK ends it (the document stays open)
    Move("editor_text_menu_closed", (PRESS_EDITOR, BACK), EDITING),
    Move("editor_select_all_dropped", (PRESS_EDITOR, SELECT_ALL, TAP_EDITOR, BACK), EDITING),
    Move("editor_select_all_view_round_trip", (PRESS_EDITOR, SELECT_ALL, TO_VIEW, TO_EDIT), EDITING),
    # edit mode: the payload's paragraph in view mode (when the editor still holds the payload)
    Move("edit_paragraph_pressed", (TO_VIEW, _press(FIRST_WORD), BELOW, TO_EDIT),
         (*EDITING, _notes("editor", textContains="{name}")), "paragraphs"),
    # notebook: into the source page (it opens in view mode) and out again with BACK
    Move("page_paragraph_pressed", (OPEN_PAGE, _press(FIRST_WORD), BELOW, BACK), NOTEBOOK, "paragraphs"),
    Move("page_text_menu_closed", (OPEN_PAGE, TO_EDIT, PRESS_EDITOR, BACK, TO_VIEW, BACK), NOTEBOOK),
    Move("page_select_all_dropped", (OPEN_PAGE, TO_EDIT, PRESS_EDITOR, SELECT_ALL, TO_VIEW, BACK), NOTEBOOK),
    # notebook: the blank draft's Paste toolbar (the clipboard holds the payload) opened and closed; View mode
    # and Edit mode take any keyboard away, so the last BACK leaves the draft, in edit mode as it was
    Move("draft_paste_menu_closed", (OPEN_DRAFT, PRESS_EDITOR, BACK, TO_VIEW, TO_EDIT, BACK), WITH_DRAFT),
)


def clipboard_distractors(state_params: dict[str, Any], params: dict[str, Any], branch_steps: list[Step],
                          rng: random.Random) -> tuple[dict[str, list[str]], list[Step]]:
    """The source page's payload paragraphs as view mode shows them (``paragraphs``; the target's among them):
    the payload word, or "payload tag" where the template gives tags. The page exists already: no setup."""
    words = [str(p) for p in params.get("p", [])]
    tags = [str(t) for t in params.get("t", [])]
    paragraphs = [f"{w} {t}" for w, t in zip(words, tags, strict=False)] if tags else words
    return {"paragraphs": paragraphs}, []


CLIPBOARD_TABLE = FamilyTable(family="clipboard", neutral=SYSTEM_NEUTRAL,
                              levels={"low": SYSTEM_NEUTRAL, "medium": _CLIPBOARD_MEDIUM, "high": _CLIPBOARD_HIGH},
                              distractors=clipboard_distractors)


# ------------------------------------------------------------------------------------------ Ordered Collection
def _tab(entry: str) -> Step:
    """A bottom navigation item (``tab_songs``, ``tab_albums``, ``tab_artists``, ``tab_playlists``)."""
    return _tap(_music(entry))


def _row_menu(i: int) -> Sel:
    """The "More options" button of the i-th list row in the dump (rows in order, top to bottom)."""
    return _music("row_menu", instance=i)


SONGS: Sel = _music("tab_songs", selected=True)  # the library on its Songs tab
QUEUE = (_music("queue_title"), _music("queue_list"))  # the playing queue
HAS_QUEUE: Sel = _music("mini_player")  # the mini player: something is queued
TO_SONGS = _tab("tab_songs")
OPEN_NOW_PLAYING = _tap(_music("mini_player_title"))  # the mini player expands to Now playing
QUEUE_ICON = _tap(_music("now_playing_queue"))  # Now playing's "Now playing queue": the queue
CANCEL = _tap(_music("dialog_negative"))
# "Add to playlist" from an open song menu: the chooser (New playlist, then every playlist), "New playlist"
# (its name dialog, the keyboard on its field), the dialog's Cancel
NEW_PLAYLIST_CANCELLED = (_tap(_music("song_add_to_playlist")), _tap(_music("add_to_playlist_new")), CANCEL)
# a card of the Playlists grid, after a scroll down: the grid is sorted by name and two columns wide, so on a
# small display (720x1280 at 320 dpi) only its first row shows at the top, while at the end of its scroll the
# two rows of up to four playlists (the template's and the near-name ones) show their titles; where the grid
# fits the screen the swipe moves nothing
OPEN_PLAYLIST = (_tab("tab_playlists"), SCROLL_DOWN, _tap(_music("row_title", text="{name}")))
CLOSE_PLAYLIST = (BACK, SCROLL_UP, TO_SONGS)  # back to the Playlists tab, its grid to the top, then Songs
OPEN_QUEUE = (OPEN_NOW_PLAYING, QUEUE_ICON)
# Now playing's toolbar overflow: the second "More options" of the dump (the library tab's is the first)
PLAYER_OVERFLOW = _tap(_music("more_options", instance=1))

_ORDERED_MEDIUM = (
    # the Songs tab
    Move("albums_tab", (_tab("tab_albums"), TO_SONGS), (SONGS,)),
    Move("artists_tab", (_tab("tab_artists"), TO_SONGS), (SONGS,)),
    Move("playlists_tab", (_tab("tab_playlists"), TO_SONGS), (SONGS,)),
    Move("songs_scroll", (SCROLL_DOWN, SCROLL_UP), (SONGS,)),
    # the first card of the Albums / Artists grid opened (its songs) and left
    Move("album_opened", (_tab("tab_albums"), _tap(_music("row_title", instance=0)), BACK, TO_SONGS), (SONGS,)),
    Move("artist_opened", (_tab("tab_artists"), _tap(_music("row_title", instance=0)), BACK, TO_SONGS),
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
    Move("song_menu_dismissed", (_tap(_row_menu(1)), BACK), (SONGS, _row_menu(1))),
    Move("song_new_playlist_cancelled", (_tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED), (SONGS, _row_menu(1))),
    # a playlist (the target or a near-name one) opened from the Playlists tab; its toolbar's overflow menu
    Move("playlist_opened", (*OPEN_PLAYLIST, *CLOSE_PLAYLIST), (SONGS,), "playlists"),
    Move("playlist_menu_dismissed", (*OPEN_PLAYLIST, _tap(_music("more_options")), BACK, *CLOSE_PLAYLIST),
         (SONGS,), "playlists"),
    # the target playlist's first song (the first row menu of the detail: the header holds none); after the
    # cancelled removal a scroll of the detail (it collapses the header) keeps the number of actions even
    Move("playlist_song_menu_dismissed", (*OPEN_PLAYLIST, _tap(_row_menu(0)), BACK, *CLOSE_PLAYLIST), (SONGS,),
         "target"),
    Move("playlist_song_removal_cancelled", (*OPEN_PLAYLIST, _tap(_row_menu(0)), _tap(_music("playlist_song_remove")),
                                             CANCEL, SCROLL_DOWN, *CLOSE_PLAYLIST), (SONGS,), "target"),
    Move("playlist_song_new_playlist_cancelled", (*OPEN_PLAYLIST, _tap(_row_menu(0)), *NEW_PLAYLIST_CANCELLED,
                                                  *CLOSE_PLAYLIST), (SONGS,), "target"),
    # a queued song, from the Songs tab (the queue opens at the song after the current one)
    Move("queue_song_menu_dismissed_from_library", (*OPEN_QUEUE, _tap(_row_menu(1)), BACK, BACK, BACK),
         (SONGS, HAS_QUEUE)),
    Move("queue_song_new_playlist_cancelled_from_library", (*OPEN_QUEUE, _tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED,
                                                            BACK, BACK), (SONGS, HAS_QUEUE)),
    # the playing queue: a queued song's menu, Now playing's overflow (Save / Clear playing queue) dismissed
    Move("queue_song_menu_dismissed", (_tap(_row_menu(1)), BACK), (*QUEUE, _row_menu(1))),
    Move("queue_song_new_playlist_cancelled", (_tap(_row_menu(1)), *NEW_PLAYLIST_CANCELLED),
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


ORDERED_TABLE = FamilyTable(family="ordered", neutral=SYSTEM_NEUTRAL,
                            levels={"low": SYSTEM_NEUTRAL, "medium": _ORDERED_MEDIUM, "high": _ORDERED_HIGH},
                            distractors=ordered_distractors)
