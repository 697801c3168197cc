"""GUIOdyssey in its published layout (OpenGVLab/GUI-Odyssey 9ef208d028c0 ``introduction.md`` and
``Quickstart.md``): ``annotations/<episode_id>.json`` and ``screenshots/<file>.png`` under the data folder.

An annotation holds ``episode_id``, ``device_info`` (``w``, ``h``: the screen in pixels), ``task_info``
(``instruction``, ``task``) and ``steps``: each with ``step`` (0-based), ``screenshot`` (a file name in
``screenshots/``), ``action`` (CLICK, SCROLL, LONG_PRESS, TYPE, COMPLETE, IMPOSSIBLE, HOME, BACK) and
``info``: coordinates normalised to [0, 1000] (CLICK and LONG_PRESS ``[[x, y]]``, SCROLL
``[[x1, y1], [x2, y2]]``), the text for TYPE, empty otherwise. Step ``t``'s screenshot is the screen the
action is taken on; COMPLETE and IMPOSSIBLE end the episode (their screenshot is its final screen).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from emukit.actions import Action
from emukit.evaluate.trajectories.base import (
    KEYCODE_BACK,
    KEYCODE_HOME,
    LONG_PRESS_MS,
    Trajectory,
    TrajectoryError,
    register,
)

SCROLL_MS = 400  # GUIOdyssey records the swipe's two points, not a scroll direction
ENDING = ("COMPLETE", "IMPOSSIBLE")


def _point(info: Any, where: str, w: int, h: int, index: int = 0) -> tuple[int, int]:
    try:
        x, y = info[index]
        return round(float(x) / 1000 * w), round(float(y) / 1000 * h)
    except (TypeError, ValueError, IndexError):
        raise TrajectoryError(f"{where}: info must hold [x, y] points in [0, 1000], got {info!r}") from None


def _action(step: dict[str, Any], where: str, w: int, h: int) -> Action | None:
    kind = str(step.get("action", "")).upper()
    info = step.get("info")
    if kind in ENDING:
        return None
    if kind == "CLICK":
        if isinstance(info, str) and info.upper() in ("HOME", "BACK"):
            return Action(type="key", key=KEYCODE_HOME if info.upper() == "HOME" else KEYCODE_BACK)
        x, y = _point(info, where, w, h)
        return Action(type="tap", x=x, y=y)
    if kind == "LONG_PRESS":
        x, y = _point(info, where, w, h)
        return Action(type="long_press", x=x, y=y, duration_ms=LONG_PRESS_MS)
    if kind == "SCROLL":
        (x, y), (x2, y2) = _point(info, where, w, h, 0), _point(info, where, w, h, 1)
        return Action(type="swipe", x=x, y=y, x2=x2, y2=y2, duration_ms=SCROLL_MS)
    if kind == "TYPE":
        if not isinstance(info, str):
            raise TrajectoryError(f"{where}: a TYPE step's info is its text, got {info!r}")
        return Action(type="type", text=info)
    if kind in ("HOME", "BACK"):
        return Action(type="key", key=KEYCODE_HOME if kind == "HOME" else KEYCODE_BACK)
    raise TrajectoryError(f"{where}: unknown action {step.get('action')!r} (expected CLICK, SCROLL, LONG_PRESS, "
                          "TYPE, COMPLETE, IMPOSSIBLE, HOME or BACK)")


@register("guiodyssey")
def read(root: Path, *, limit: int | None = None) -> list[Trajectory]:
    """Episodes of a GUIOdyssey data folder (``root`` or ``root/data``), in file-name order."""
    base = root / "data" if (root / "data" / "annotations").is_dir() else root
    annotations, screenshots = base / "annotations", base / "screenshots"
    for folder in (annotations, screenshots):
        if not folder.is_dir():
            raise TrajectoryError(f"{folder}: missing (GUIOdyssey's layout is annotations/*.json and "
                                  "screenshots/*.png)")
    files = sorted(annotations.glob("*.json"))
    if not files:
        raise TrajectoryError(f"{annotations}: no *.json annotation")
    out: list[Trajectory] = []
    for path in files[:limit] if limit else files:
        try:
            doc = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise TrajectoryError(f"{path}: not readable JSON ({exc})") from None
        if not isinstance(doc, dict):
            raise TrajectoryError(f"{path}: expected a JSON object")
        try:
            w, h = int(doc["device_info"]["w"]), int(doc["device_info"]["h"])
        except (KeyError, TypeError, ValueError):
            raise TrajectoryError(f"{path}: device_info.w and device_info.h (the screen size) are required") from None
        task = doc.get("task_info") or {}
        steps = doc.get("steps")
        if not isinstance(steps, list) or len(steps) < 2:
            raise TrajectoryError(f"{path}: steps must list at least two steps")
        screens: list[Path] = []
        actions: list[Action] = []
        for i, step in enumerate(sorted(steps, key=lambda s: int(s.get("step", 0)) if isinstance(s, dict) else 0)):
            where = f"{path}: steps[{i}]"
            if not isinstance(step, dict) or not isinstance(step.get("screenshot"), str):
                raise TrajectoryError(f"{where}: screenshot (a file name) is required")
            shot = screenshots / step["screenshot"]
            if not shot.is_file():
                raise TrajectoryError(f"{where}: screenshot {shot} does not exist")
            screens.append(shot)
            action = _action(step, where, w, h)
            if action is None:
                break
            actions.append(action)
        if not actions or len(screens) != len(actions) + 1:
            raise TrajectoryError(f"{path}: the episode must end with a COMPLETE or IMPOSSIBLE step after at least "
                                  "one action (its screenshot is the final screen)")
        out.append(Trajectory(id=str(doc.get("episode_id") or path.stem),
                              instruction=str(task.get("instruction") or task.get("task") or ""),
                              screens=tuple(screens), actions=tuple(actions), source="guiodyssey"))
    return out
