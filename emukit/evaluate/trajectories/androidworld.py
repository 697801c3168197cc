"""AndroidWorld episodes as its evaluation runs save them (google-research/android_world d9c569f764b3):
``<task>_<instance>.pkl.gz`` files in a run folder, each a GZIP-compressed pickle of a list of episode
dicts (``android_world/checkpointer.py``, ``IncrementalCheckpointer``).

An episode (``android_world/constants.py``, ``EpisodeConstants``) holds ``goal``, ``task_template``,
``instance_id``, ``is_successful`` and ``episode_data``: the agent's per-step records transposed into a
dict of lists (``android_world/episode_runner.py``). The readers know the two reference agents' records:

- M3A (``agents/m3a.py``): ``raw_screenshot`` (the screen the step acts on, an RGB array),
  ``before_ui_elements`` (``UIElement`` objects with ``bbox_pixels``), ``action_output_json`` (a
  ``JSONAction``) and ``after_screenshot_with_som`` (the next screen *with* set-of-marks boxes drawn, so
  never used as a reference screen);
- T3A (``agents/t3a.py``): ``before_screenshot``, ``after_screenshot`` (raw), ``before_element_list`` and
  ``action_output`` (text ending in ``Action: {json}``).

Actions follow ``android_world/env/json_action.py`` and are placed as ``env/actuation.py`` executes them:
an ``index`` is the centre of that element's ``bbox_pixels``; ``input_text`` types at its target;
``scroll`` is :func:`~emukit.evaluate.trajectories.base.scroll_swipe` over the element (or the screen);
``swipe`` crosses the screen's middle in its direction. ``status`` and ``answer`` end the episode (the
step's screen is the last one). An action with no emukit equivalent (``double_tap``, ``unknown``, drags,
keycodes other than Home, Back and Enter) ends the episode there, and ``Trajectory.truncated`` says so; so
does an M3A episode that ran out of steps, whose last raw screen was never recorded.

**Pickles run code when loaded**, and a downloaded run folder is untrusted input: files are read with an
unpickler that constructs only containers, NumPy arrays and ``datetime`` values. Every other class or
function a pickle names (AndroidWorld's dataclasses, or anything hostile) becomes an inert :class:`Opaque`
record of its name, arguments and state; nothing named in the file is ever called.
"""

from __future__ import annotations

import datetime
import gzip
import io
import json
import pickle
import re
import zlib
from pathlib import Path
from typing import Any

from emukit.actions import Action
from emukit.evaluate.trajectories.base import (
    KEYCODE_BACK,
    KEYCODE_ENTER,
    KEYCODE_HOME,
    LONG_PRESS_MS,
    SCROLL_MS,
    Trajectory,
    TrajectoryError,
    first,
    register,
    scroll_swipe,
)
from emukit.images import png_size

ENDING = ("status", "answer")
KEYCODES = {"KEYCODE_HOME": KEYCODE_HOME, "KEYCODE_BACK": KEYCODE_BACK, "KEYCODE_ENTER": KEYCODE_ENTER}


class Opaque:
    """A pickled object whose class was not constructed. :class:`SafeUnpickler` hands out one subclass per
    ``module.name`` the file names; building it (REDUCE, NEWOBJ, BUILD) only records the arguments and the
    state, and attribute reads come from the state."""

    _qualname = "?"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__["_args"] = args

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2 and (state[0] is None or isinstance(state[0], dict)):
            state = {**(state[0] or {}), **(state[1] or {})}  # (dict state, slots state)
        self.__dict__["_state"] = state if isinstance(state, dict) else {"state": state}

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__.get("_state") or {}
        if name in state:
            return state[name]
        raise AttributeError(f"{self._qualname} has no {name!r}")

    def fields(self) -> dict[str, Any]:
        return dict(self.__dict__.get("_state") or {})

    def __repr__(self) -> str:
        return f"Opaque({self._qualname})"


_OPAQUE: dict[str, type[Opaque]] = {}


def opaque_class(qualname: str) -> type[Opaque]:
    if qualname not in _OPAQUE:
        _OPAQUE[qualname] = type(f"Opaque[{qualname}]", (Opaque,), {"_qualname": qualname, "__module__": __name__})
    return _OPAQUE[qualname]


def _reconstructor(cls: Any, base: Any, state: Any) -> Any:
    """copyreg._reconstructor (how protocols 0 and 1 rebuild plain objects): only an Opaque is made."""
    target = cls if isinstance(cls, type) and issubclass(cls, Opaque) else opaque_class(repr(cls))
    return target.__new__(target)


def _allowed() -> dict[tuple[str, str], Any]:
    import numpy as np
    from numpy._core import multiarray

    allowed: dict[tuple[str, str], Any] = {
        ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
        ("builtins", "bytearray"): bytearray, ("builtins", "slice"): slice, ("builtins", "range"): range,
        ("datetime", "datetime"): datetime.datetime, ("datetime", "date"): datetime.date,
        ("datetime", "timedelta"): datetime.timedelta, ("datetime", "timezone"): datetime.timezone,
        ("collections", "OrderedDict"): dict,
        ("copyreg", "_reconstructor"): _reconstructor,
        ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): np.dtype,
    }
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):  # NumPy 1 and 2 spell it differently
        allowed[(module, "_reconstruct")] = multiarray._reconstruct
        allowed[(module, "scalar")] = multiarray.scalar
    for module in ("numpy.core.numeric", "numpy._core.numeric"):
        allowed[(module, "_frombuffer")] = np._core.numeric._frombuffer  # type: ignore[attr-defined]
    return allowed


class SafeUnpickler(pickle.Unpickler):
    """See the module docstring: containers, NumPy arrays and datetimes are built; the rest is inert."""

    _ALLOWED: dict[tuple[str, str], Any] | None = None

    def find_class(self, module: str, name: str) -> Any:
        if SafeUnpickler._ALLOWED is None:
            SafeUnpickler._ALLOWED = _allowed()
        found = SafeUnpickler._ALLOWED.get((module, name))
        if found is not None:
            return found
        if module == "numpy" and name.endswith("DType"):  # numpy.dtypes classes name themselves like this
            import numpy as np

            return np.dtype
        return opaque_class(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("persistent references are not read")


def load_episodes(path: Path) -> list[Any]:
    """The episode list of one ``.pkl.gz`` file, loaded safely."""
    try:
        raw = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:
        raise TrajectoryError(f"{path}: not a GZIP file ({exc})") from None
    try:
        data = SafeUnpickler(io.BytesIO(raw)).load()
    except Exception as exc:  # noqa: BLE001 - any malformed pickle is the file's fault
        raise TrajectoryError(f"{path}: not a readable pickle ({type(exc).__name__}: {exc})") from None
    if isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], list):
        data = data[0]  # DeprecatedCheckpointer's (episodes, completed_tasks)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise TrajectoryError(f"{path}: expected a list of episode dicts, got {type(data).__name__}")
    return data


def _png(value: Any, where: str) -> bytes:
    import numpy as np
    from PIL import Image

    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if not isinstance(value, np.ndarray) or value.ndim != 3 or value.shape[2] not in (3, 4):
        raise TrajectoryError(f"{where}: a screenshot must be an H x W x 3 (or 4) array, got "
                              f"{getattr(value, 'shape', type(value).__name__)}")
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(value[:, :, :3]).astype(np.uint8)).save(out, format="PNG",
                                                                                   compress_level=1)
    return out.getvalue()


def _fields(value: Any) -> dict[str, Any]:
    if isinstance(value, Opaque):
        return value.fields()
    if isinstance(value, dict):
        return value
    return {}


def _action_dict(step: dict[str, Any]) -> dict[str, Any] | None:
    """The step's JSONAction as a dict: M3A's ``action_output_json``, else the JSON after ``Action:`` in
    ``action_output`` (T3A), else None (the agent produced no valid action)."""
    converted = _fields(step.get("action_output_json"))
    if converted.get("action_type"):
        return converted
    text = step.get("action_output")
    if isinstance(text, str):
        match = re.search(r"Action:\s*(\{.*\})", text, re.DOTALL)
        if match:
            try:
                data = json.loads(match.group(1))
            except ValueError:
                return None
            return data if isinstance(data, dict) and data.get("action_type") else None
    return None


def _box(elements: Any, index: Any, where: str) -> tuple[int, int, int, int]:
    try:
        i = int(index)
        box = _fields(_fields(elements[i]).get("bbox_pixels"))
        return (round(float(box["x_min"])), round(float(box["y_min"])), round(float(box["x_max"])),
                round(float(box["y_max"])))
    except (TypeError, ValueError, IndexError, KeyError):
        raise TrajectoryError(f"{where}: index {index!r} names no element with bbox_pixels on that step's "
                              "screen") from None


def to_action(data: dict[str, Any], elements: Any, size: tuple[int, int], where: str) -> Action | str:
    """A JSONAction dict as an emukit action, or the reason it has none (a string)."""
    kind = data.get("action_type")

    def point() -> tuple[int, int]:
        if data.get("index") is not None:
            left, top, right, bottom = _box(elements, data["index"], where)
            return (left + right) // 2, (top + bottom) // 2
        try:
            return round(float(data["x"])), round(float(data["y"]))
        except (KeyError, TypeError, ValueError):
            raise TrajectoryError(f"{where}: a {kind} action needs an index or x and y, got {data!r}") from None

    if kind in ("click", "long_press"):
        x, y = point()
        return Action(type="tap", x=x, y=y) if kind == "click" else \
            Action(type="long_press", x=x, y=y, duration_ms=LONG_PRESS_MS)
    if kind == "input_text":
        text = data.get("text")
        if not isinstance(text, str) or not text:
            return "an input_text action without text"
        if data.get("index") is not None or (data.get("x") is not None and data.get("y") is not None):
            x, y = point()
            return Action(type="type", text=text, x=x, y=y)
        return Action(type="type", text=text)
    if kind == "keyboard_enter":
        return Action(type="key", key=KEYCODE_ENTER)
    if kind in ("navigate_home", "navigate_back"):
        return Action(type="key", key=KEYCODE_HOME if kind == "navigate_home" else KEYCODE_BACK)
    if kind == "press_keyboard" and data.get("keycode") in KEYCODES:
        return Action(type="key", key=KEYCODES[data["keycode"]])
    if kind == "scroll":
        box = _box(elements, data["index"], where) if data.get("index") else (0, 0, size[0], size[1])
        return scroll_swipe(str(data.get("direction")), box, where)
    if kind == "swipe":
        w, h = size
        mx, my = w // 2, h // 2
        ends = {"down": (mx, 0, mx, h), "up": (mx, h, mx, 0), "left": (0, my, w, my), "right": (w, my, 0, my)}
        if data.get("direction") not in ends:
            raise TrajectoryError(f"{where}: swipe direction must be up, down, left or right, got "
                                  f"{data.get('direction')!r}")
        x, y, x2, y2 = ends[data["direction"]]
        return Action(type="swipe", x=x, y=y, x2=x2, y2=y2, duration_ms=SCROLL_MS)
    if kind == "open_app":
        name = data.get("app_name")
        return Action(type="open_app", text=name) if isinstance(name, str) and name else "open_app without app_name"
    if kind == "wait":
        return Action(type="wait", duration_ms=1000)  # actuation.py sleeps one second
    return f"action_type {kind!r} has no emukit equivalent"


def _episode(doc: Any, where: str) -> Trajectory:
    if not isinstance(doc, dict):
        raise TrajectoryError(f"{where}: an episode must be a dict, got {type(doc).__name__}")
    data = doc.get("episode_data")
    if not isinstance(data, dict) or not data:
        raise TrajectoryError(f"{where}: episode_data (the per-step records) is missing or empty"
                              + (f" (the run recorded: {doc.get('exception_info')!r})" if doc.get("exception_info")
                                 else ""))
    lengths = {len(v) for v in data.values() if isinstance(v, list)}
    if len(lengths) != 1:
        raise TrajectoryError(f"{where}: episode_data's lists differ in length ({sorted(lengths)})")
    n = lengths.pop()
    m3a = "raw_screenshot" in data
    before_key = "raw_screenshot" if m3a else "before_screenshot"
    if before_key not in data:
        raise TrajectoryError(f"{where}: episode_data has neither raw_screenshot (M3A) nor before_screenshot (T3A)")
    elements_key = "before_ui_elements" if m3a else "before_element_list"
    steps = [{k: v[t] for k, v in data.items() if isinstance(v, list)} for t in range(n)]
    screens: list[bytes] = []
    actions: list[Action] = []
    truncated: str | None = None
    for t, step in enumerate(steps):
        here = f"{where}: step {t}"
        if step.get(before_key) is None:
            truncated = f"step {t}: no screenshot recorded"
            break
        screens.append(_png(step[before_key], f"{here}: {before_key}"))
        action_data = _action_dict(step)
        if action_data is None:
            truncated = f"step {t}: the agent produced no valid action"
            break
        if action_data.get("action_type") in ENDING:
            break
        action = to_action(action_data, step.get(elements_key) or [], png_size(screens[-1]), here)
        if isinstance(action, str):
            truncated = f"step {t}: {action}"
            break
        actions.append(action)
    else:
        last_after = steps[-1].get("after_screenshot") if steps and not m3a else None
        if last_after is not None:
            screens.append(_png(last_after, f"{where}: step {n - 1}: after_screenshot"))
        elif actions:
            actions.pop()  # M3A records the final screen only with set-of-marks drawn on it
            truncated = f"step {n - 1}: the episode ran out of steps and its last raw screen was not recorded"
    if not actions:
        raise TrajectoryError(f"{where}: no action could be read ({truncated or 'the episode ended at once'})")
    goal = doc.get("goal")
    ident = f"{doc.get('task_template') or 'episode'}_{doc.get('instance_id', 0)}"
    return Trajectory(id=ident, instruction=str(goal or ""), screens=tuple(screens[:len(actions) + 1]),
                      actions=tuple(actions), source="androidworld-episodes", truncated=truncated)


@register("androidworld-episodes")
def read(root: Path, *, limit: int | None = None) -> list[Trajectory]:
    """Episodes of the ``*.pkl.gz`` files of an AndroidWorld run folder, in file-name order."""
    files = sorted(root.glob("*.pkl.gz"))
    if not files:
        raise TrajectoryError(f"{root}: no *.pkl.gz episode file (AndroidWorld saves a run as "
                              "<task>_<instance>.pkl.gz files in its run folder)")
    return first((_episode(doc, f"{path}: episode {i}") for path in files
                  for i, doc in enumerate(load_episodes(path))), limit)
