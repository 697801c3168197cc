"""AndroidControl in its published layout (google-research/google-research 19638399cc9e,
``android_control/README.md``): GZIP-compressed TFRecord files ``android_control-000NN-of-00020``, one
``tf.train.Example`` per episode with

- ``episode_id`` (int), ``goal`` (the episode's instruction),
- ``screenshots`` (PNG bytes, one per observation), ``screenshot_widths`` / ``screenshot_heights``,
- ``accessibility_trees`` (serialized AndroidAccessibilityForest protos; not read: the track's models see
  screenshots),
- ``actions`` (JSON dictionaries with ``action_type``; ``len(screenshots) - 1`` of them, ``actions[t]``
  taken between ``screenshots[t]`` and ``screenshots[t+1]``) and ``step_instructions``.

Action types: ``click`` and ``long_press`` (``x``, ``y`` in screenshot pixels), ``scroll`` (``direction``,
performed over the whole screen as :func:`~emukit.evaluate.trajectories.base.scroll_swipe` says),
``open_app`` (``app_name``), ``input_text`` (``text``), ``type`` (``x``, ``y``, ``text``: an older README's
click-type-enter, read as typing at that point), ``navigate_home``, ``navigate_back``, ``wait``.
Screenshots stay in memory as the PNG bytes the record holds: use ``--limit`` for a part of the 15,000
episodes.
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
    first,
    register,
    scroll_swipe,
)
from emukit.evaluate.trajectories.tfrecord import example_features, records
from emukit.images import png_size

FILE_GLOB = "android_control*"
ACTION_TYPES = ("click", "long_press", "scroll", "open_app", "input_text", "type", "navigate_home",
                "navigate_back", "wait")


def _coord(data: dict[str, Any], key: str, where: str) -> int:
    try:
        return round(float(data[key]))
    except (KeyError, TypeError, ValueError):
        raise TrajectoryError(f"{where}: a {data.get('action_type')} action needs a number {key!r}, "
                              f"got {data.get(key)!r}") from None


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise TrajectoryError(f"{where}: a {data.get('action_type')} action needs a text {key!r}, got {value!r}")
    return value


def to_action(data: Any, where: str, size: tuple[int, int]) -> Action:
    """One AndroidControl action dictionary as an emukit action (``size``: the screenshot's width, height)."""
    if not isinstance(data, dict):
        raise TrajectoryError(f"{where}: an action must be a JSON object, got {data!r}")
    kind = data.get("action_type")
    if kind in ("click", "long_press"):
        x, y = _coord(data, "x", where), _coord(data, "y", where)
        return Action(type="tap", x=x, y=y) if kind == "click" else \
            Action(type="long_press", x=x, y=y, duration_ms=LONG_PRESS_MS)
    if kind == "scroll":
        return scroll_swipe(str(data.get("direction")), (0, 0, size[0], size[1]), where)
    if kind == "open_app":
        return Action(type="open_app", text=_text(data, "app_name", where))
    if kind == "input_text":
        return Action(type="type", text=_text(data, "text", where))
    if kind == "type":
        return Action(type="type", text=_text(data, "text", where), x=_coord(data, "x", where),
                      y=_coord(data, "y", where))
    if kind in ("navigate_home", "navigate_back"):
        return Action(type="key", key=KEYCODE_HOME if kind == "navigate_home" else KEYCODE_BACK)
    if kind == "wait":
        return Action(type="wait")
    raise TrajectoryError(f"{where}: unknown action_type {kind!r} (AndroidControl's are {', '.join(ACTION_TYPES)})")


def _one(features: dict[str, list[Any]], where: str) -> Trajectory:
    for name in ("episode_id", "goal", "screenshots", "actions"):
        if name not in features:
            raise TrajectoryError(f"{where}: feature {name!r} is missing (AndroidControl records hold episode_id, "
                                  "goal, screenshots, screenshot_widths, screenshot_heights, actions, "
                                  "step_instructions)")
    shots: list[bytes] = features["screenshots"]
    raw_actions: list[bytes] = features["actions"]
    episode = str(features["episode_id"][0]) if features["episode_id"] else "?"
    where = f"{where} (episode {episode})"
    if len(raw_actions) != len(shots) - 1 or not raw_actions:
        raise TrajectoryError(f"{where}: {len(shots)} screenshots need {max(len(shots) - 1, 0)} actions, got "
                              f"{len(raw_actions)} (at least one action)")
    widths, heights = features.get("screenshot_widths") or [], features.get("screenshot_heights") or []
    actions: list[Action] = []
    for t, raw in enumerate(raw_actions):
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise TrajectoryError(f"{where}: actions[{t}] is not JSON ({exc})") from None
        if t < len(widths) and t < len(heights):
            size = (int(widths[t]), int(heights[t]))
        else:
            try:
                size = png_size(shots[t])
            except ValueError:
                raise TrajectoryError(f"{where}: screenshots[{t}] is not a PNG and no screenshot_widths/heights "
                                      "give its size") from None
        actions.append(to_action(data, f"{where}: actions[{t}]", size))
    goal = features["goal"][0].decode("utf-8", "replace") if features["goal"] else ""
    return Trajectory(id=episode, instruction=goal, screens=tuple(shots), actions=tuple(actions),
                      source="androidcontrol")


@register("androidcontrol")
def read(root: Path, *, limit: int | None = None) -> list[Trajectory]:
    """Episodes of the ``android_control*`` TFRecord files in ``root``, in file-name then record order."""
    files = sorted(p for p in root.glob(FILE_GLOB) if p.is_file() and not p.name.endswith(".json"))
    if not files:
        raise TrajectoryError(f"{root}: no {FILE_GLOB} TFRecord file (AndroidControl's layout is "
                              "android_control-000NN-of-00020, GZIP-compressed TFRecords)")
    return first((_one(example_features(data, f"{path}: record {n}"), f"{path}: record {n}")
                  for path in files for n, data in enumerate(records(path))), limit)
