"""Stress-suite move table of the Persistent Artifact family's host variants in Simple Gallery Pro (seed 002
Appendix F.3/F.4; templates with ``variant: {app: gallery}``). Every selector is an entry of the device build's
``gallery:`` table (``emukit/apps/tables/com.simplemobiletools.gallery.pro/396.yaml``, Simple-Gallery 6.28.1).

The variants' setting steps end in the viewer (ViewPagerActivity) on a file of a folder the trajectory touched,
never on the tracked file itself once it has been copied, moved or deleted; their convergence goes back to the
folders screen from wherever the viewer is, so every move starts and ends in the viewer:

* neutral and ``low``: the system round trips, the toolbar's overflow opened and dismissed, the Properties
  dialog of the file shown opened and closed (read only);
* ``medium``: a cancelled operation on the file shown (Delete -> "No"; Copy to / Move to -> "Other folder" ->
  the folder picker's Cancel): the same gestures as the state-setting operations, left undone;
* ``high``: the same on the folder's neighbouring file (a swipe to it, the operation, a swipe back): a near-name
  distractor of the tracked file or its same-picture twin, plus a confirmed delete of that neighbour (into the
  Recycle Bin). The distractors are created in every touched folder by :func:`.persistent.persistent_distractors`
  (near names keep the target's extension, so the Gallery lists them beside it).

What the real app does that shapes the moves: Delete is a bottom action asking "Are you sure ... Recycle
Bin?" with Yes / No (ViewPagerActivity.kt, bottom_actions.xml); Copy to / Move to open PickDirectoryDialog,
whose "Other folder" opens the file system's folder picker (commons FilePickerDialog, Cancel / OK); a horizontal
swipe on the pager shows the folder's next file (MyViewPager). Every move has an even number of actions, so moves
and the two-action system fillers add up to any even depth.
"""

from __future__ import annotations

from typing import Any

from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move, Step
from emukit.builder.stress_tables import register_table
from emukit.builder.stress_tables._common import Sel, tap
from emukit.builder.stress_tables.persistent import persistent_distractors


def _gallery(name: str, **extra: Any) -> Sel:
    """An entry of the Gallery's table for the device's build, plus ``extra`` fields."""
    return {"sel": f"gallery:{name}", **extra}


# the pager swiped right to left (the next file) and back, across the middle of the screen
TO_NEXT: Step = {"swipe": {"x1": "87.5%", "y1": "50%", "x2": "12.5%", "y2": "50%", "duration_ms": 300}}
TO_PREVIOUS: Step = {"swipe": {"x1": "12.5%", "y1": "50%", "x2": "87.5%", "y2": "50%", "duration_ms": 300}}

VIEWER = _gallery("viewer_pager")
DELETE = _gallery("bottom_delete")
OVERFLOW = _gallery("more_options")
CANCELLED_DELETE = (tap(DELETE), tap(_gallery("delete_no")))
CONFIRMED_DELETE = (tap(DELETE), tap(_gallery("delete_yes")))
# Copy to / Move to (overflow rows), "Other folder", the folder picker's Cancel
CANCELLED_COPY = (tap(OVERFLOW), tap(_gallery("viewer_copy_to")), tap(_gallery("pick_dir_other")),
                  tap(_gallery("file_picker_cancel")))
CANCELLED_MOVE = (tap(OVERFLOW), tap(_gallery("viewer_move_to")), tap(_gallery("pick_dir_other")),
                  tap(_gallery("file_picker_cancel")))

_NEUTRAL = (
    Move("overflow_menu", (tap(OVERFLOW), BACK), (VIEWER, OVERFLOW)),
    Move("properties_open_close", (tap(_gallery("viewer_properties")), tap(_gallery("properties_ok"))),
         (VIEWER, _gallery("viewer_properties"))),
    *SYSTEM_NEUTRAL,
)

_MEDIUM = (
    Move("cancelled_delete_shown", CANCELLED_DELETE, (VIEWER, DELETE)),
    Move("cancelled_copy_shown", CANCELLED_COPY, (VIEWER, OVERFLOW)),
    Move("cancelled_move_shown", CANCELLED_MOVE, (VIEWER, OVERFLOW)),
)

_HIGH = (
    Move("cancelled_delete_neighbour", (TO_NEXT, *CANCELLED_DELETE, TO_PREVIOUS), (VIEWER, DELETE)),
    Move("delete_neighbour", (TO_NEXT, *CONFIRMED_DELETE, TO_PREVIOUS), (VIEWER, DELETE)),
)

GALLERY_TABLE = register_table(FamilyTable(
    family="persistent",
    app="gallery",
    neutral=_NEUTRAL,
    levels={"low": _NEUTRAL, "medium": _MEDIUM, "high": _HIGH},
    distractors=persistent_distractors,
))
