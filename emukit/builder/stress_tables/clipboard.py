"""Stress-suite move table of the Clipboard family (seed 002 Appendix F.3/F.4).

d-stress and ``low`` interference use the system-level moves (Overview and notification shade round trips),
which apply in any app and leave the clipboard alone.

``medium`` and ``high`` interference use Markor, starting from the screen where a template's state-setting
steps end (and coming back to it, so the template's convergence steps still apply). Every selector is an
entry of the installed build's table (``notes:`` is Markor 2.10.9,
``emukit/apps/tables/net.gsantner.markor/146.yaml``), with the row's text or position added as data.

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

Every move has an even number of actions, so moves and the two-action system fillers add up to any even d.

"""

from __future__ import annotations

import random
from typing import Any

from emukit.apps.notes import FIRST_LINE_DP, PRESS_IN_DP
from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move, Step
from emukit.builder.stress_tables import register_table
from emukit.builder.stress_tables._common import SCROLL_DOWN, SCROLL_UP, Sel, press, tap


def _notes(name: str, **extra: Any) -> Sel:
    """An entry of Markor's table for the device's build, plus ``extra`` fields (text, instance)."""
    return {"sel": f"notes:{name}", **extra}


PAGE = "Codes.md"  # the clipboard templates' source page
DRAFT = "Draft.md"  # the blank note the templates' convergence pastes into

# the document toolbar's mode item names the mode it switches to (only one of them shows at a time)
TO_EDIT: Step = tap(_notes("edit_mode"))
TO_VIEW: Step = tap(_notes("view_mode"))
PRESS_EDITOR: Step = press(_notes("editor"))  # focus + the text toolbar (Paste / Select all, or a word's)
TAP_EDITOR: Step = tap(_notes("editor"))  # collapses a selection to the caret; the keyboard shows
SELECT_ALL: Step = tap(_notes("text_select_all"))
PARAGRAPH: Sel = _notes("view_paragraph", text="{name}")  # a payload's paragraph node in view mode
# its first word: pressed where the notes profile presses it (dp from the paragraph's top-left corner)
FIRST_WORD: Sel = {**PARAGRAPH, "at_dp": [PRESS_IN_DP, FIRST_LINE_DP]}
# a tap on the blank page below the paragraphs: ends any view-mode selection (the floating toolbar sits next
# to the selected word, above it, so well clear of this point)
BELOW: Step = {"tap": {"x": "50%", "y": "75%"}}
OPEN_PAGE: Step = tap(_notes("notebook_row_title", text=PAGE))
OPEN_DRAFT: Step = tap(_notes("notebook_row_title", text=DRAFT))

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
    Move("new_document_cancelled", (tap(_notes("fab_new")), tap(_notes("new_file_name")), BACK,
                                    tap(_notes("dialog_cancel"))), NOTEBOOK),
    # a long press selects the row, a tap on the selected row deselects it and ends selection mode
    Move("page_selected_deselected", (press(_notes("notebook_row_title", text=PAGE)),
                                      tap(_notes("notebook_row_title", text=PAGE))), NOTEBOOK),
    Move("notebook_scroll", (SCROLL_DOWN, SCROLL_UP), NOTEBOOK),
)

_CLIPBOARD_HIGH = (
    # view mode: a long press on a payload's paragraph (the target's among them), ended by a tap on the page
    Move("paragraph_pressed_tap_below", (press(FIRST_WORD), BELOW), (*VIEWING, PARAGRAPH), "paragraphs"),
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
    Move("edit_paragraph_pressed", (TO_VIEW, press(FIRST_WORD), BELOW, TO_EDIT),
         (*EDITING, _notes("editor", textContains="{name}")), "paragraphs"),
    # notebook: into the source page (it opens in view mode) and out again with BACK
    Move("page_paragraph_pressed", (OPEN_PAGE, press(FIRST_WORD), BELOW, BACK), NOTEBOOK, "paragraphs"),
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


CLIPBOARD_TABLE = register_table(FamilyTable(
    family="clipboard", neutral=SYSTEM_NEUTRAL,
    levels={"low": SYSTEM_NEUTRAL, "medium": _CLIPBOARD_MEDIUM, "high": _CLIPBOARD_HIGH},
    distractors=clipboard_distractors,
))
