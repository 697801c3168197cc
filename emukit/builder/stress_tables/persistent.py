"""Stress-suite move table of the Persistent Artifact family (seed 002 Appendix F.3/F.4), in the Files app
(DocumentsUI; every selector is an entry of the device build's ``files:`` table).

Neutral moves and ``low`` interference are unrelated navigation (scrolling the file list, the overflow menu,
search opened and closed, the roots drawer) plus the system-level round trips. ``medium`` is a cancelled
operation (select and deselect, delete, copy, move, each cancelled) on an unrelated distractor file; ``high``
the same on a near-name, same-extension distractor, plus a confirmed delete of that distractor (the tracked
artifact is never touched). The distractor files are created by adb-side setup steps
(:func:`persistent_distractors`) in every folder the trajectory touches.
"""

from __future__ import annotations

import posixpath
import random
import re
from typing import Any

from emukit.builder.stress_model import BACK, SYSTEM_NEUTRAL, FamilyTable, Move
from emukit.builder.stress_tables import register_table


def _files(name: str, **extra: Any) -> dict[str, Any]:
    """A selector from the Files table of the device's build (DocumentsUI), plus ``extra`` fields."""
    return {"sel": f"files:{name}", **extra}


def _files_moves(pool: str, *, confirmed_delete: bool) -> tuple[Move, ...]:
    """Operations on a distractor file row of the Files app that leave the tracked artifact alone: selection
    mode is left with its close button (content-desc Cancel), dialogs with their Cancel button."""
    row = _files("row_title", text="{name}")
    close = {"tap": _files("action_mode_close")}
    overflow = {"tap": _files("more_options")}
    moves = [
        Move(f"select_deselect_{pool}", ({"long_press": row}, close), (row,), pool),
        Move(f"cancelled_delete_{pool}", ({"long_press": row}, {"tap": _files("action_delete")},
                                           {"tap": _files("delete_cancel")}, close), (row,), pool),
        Move(f"cancelled_copy_{pool}", ({"long_press": row}, overflow, {"tap": _files("menu_copy_to")},
                                         {"tap": _files("pick_cancel")}), (row,), pool),
        Move(f"cancelled_move_{pool}", ({"long_press": row}, overflow, {"tap": _files("menu_move_to")},
                                         {"tap": _files("pick_cancel")}), (row,), pool),
    ]
    if confirmed_delete:
        moves.append(Move(f"delete_{pool}", ({"long_press": row}, {"tap": _files("action_delete")},
                                             {"tap": _files("delete_confirm")}), (row,), pool))
    return tuple(moves)


# vertical swipes across the lower middle of the screen (the file list), as percentages of the screen
_FILES_SCROLL_DOWN = {"swipe": {"x1": "50%", "y1": "79.17%", "x2": "50%", "y2": "54.17%", "duration_ms": 300}}
_FILES_SCROLL_UP = {"swipe": {"x1": "50%", "y1": "54.17%", "x2": "50%", "y2": "79.17%", "duration_ms": 300}}

_FILES_NEUTRAL = (
    Move("scroll_down", (_FILES_SCROLL_DOWN,)),
    Move("scroll_up", (_FILES_SCROLL_UP,)),
    Move("overflow_menu", ({"tap": _files("more_options")}, BACK), (_files("more_options"),)),
    Move("search_open_close", ({"tap": _files("search")}, {"tap": _files("search_collapse")}),
         (_files("search"),)),
    Move("roots_drawer", ({"tap": _files("show_roots")}, BACK), (_files("show_roots"),)),
    *SYSTEM_NEUTRAL,
)


# ------------------------------------------------------------------------------------------ distractors
_UNRELATED_WORDS = ("recipe", "poster", "slides", "diary", "budget", "flyer", "notes", "checklist")
_UNRELATED_EXTS = ("txt", "pdf", "jpg", "docx", "xlsx", "png")


def _strings(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(_strings(v) for v in obj)) if obj else set()
    return {str(obj)}


def persistent_distractors(state_params: dict[str, Any], params: dict[str, Any], branch_steps: list[dict[str, Any]],
                           rng: random.Random) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    """Distractor files for a Persistent Artifact trajectory: ``unrelated`` (other stems and extensions) and
    ``near`` (the target's stem with a near number, same extension). Returns (pools, setup steps): each name
    is created in each folder the trajectory touches (source and destination folders, the folders of every
    path and destination of the setting steps), so one is on screen wherever the setting steps end."""
    source = str(state_params["source"])
    target = posixpath.basename(source)
    taken = {posixpath.basename(s) for s in _strings(params) | _strings(state_params) | _strings(branch_steps)}
    folders: list[str] = []

    def folder(path: str) -> None:
        if path.startswith("/storage/emulated/0") and path not in folders:
            folders.append(path.rstrip("/"))

    folder(posixpath.dirname(source))
    if state_params.get("destination"):
        folder(posixpath.dirname(str(state_params["destination"])))
    for step in branch_steps:
        (_, args), = step.items()
        if isinstance(args, dict):
            if isinstance(args.get("path"), str):
                folder(posixpath.dirname(args["path"]))
            if isinstance(args.get("dest"), str):
                folder(args["dest"])
    stem, dot, ext = target.rpartition(".")
    if not dot:
        stem, ext = target, "txt"
    m = re.fullmatch(r"(.*?)(\d+)", stem)
    near: list[str] = []
    if m:
        base, digits = m.group(1), m.group(2)
        n = int(digits)
        candidates = [digits[::-1], str(n + 1), str(max(n - 1, 0)), str(n + 11)]
        near = [f"{base}{c}.{ext}" for c in candidates]
    near += [f"{stem}_old.{ext}", f"{stem}-2.{ext}"]
    near = [x for x in dict.fromkeys(near) if x not in taken and x != target][:2]
    unrelated: list[str] = []
    while len(unrelated) < 2:
        word, number = rng.choice(_UNRELATED_WORDS), rng.randint(10, 99)  # drawn in this order (seeded)
        name = f"{word}_{number}.{rng.choice([e for e in _UNRELATED_EXTS if e != ext])}"
        if name not in taken and name not in unrelated:
            unrelated.append(name)
    pools = {"near": near, "unrelated": unrelated}
    return pools, distractor_setup(pools, folders)


def distractor_setup(pools: dict[str, list[str]], folders: list[str]) -> list[dict[str, Any]]:
    """Setup steps (adb side, never shown to a model) creating every distractor in every existing folder."""
    steps = []
    for folder in folders:
        for names in pools.values():
            for name in names:
                path = f"{folder}/{name}"
                steps.append({"shell": f"[ -d '{folder}' ] && echo distractor > '{path}' && "
                                       f"touch -t 202601150900.00 '{path}' || true"})
    return steps


PERSISTENT_TABLE = register_table(FamilyTable(
    family="persistent",
    neutral=_FILES_NEUTRAL,
    levels={
        "low": _FILES_NEUTRAL,  # unrelated navigation
        "medium": _files_moves("unrelated", confirmed_delete=False),  # cancelled ops on unrelated files
        "high": _files_moves("near", confirmed_delete=True),  # near-name, same-extension distractors
    },
    distractors=persistent_distractors,
))
