"""External trajectories for the offline reference-action track (GUI-CC rolls world models along real
trajectories): the common form every dataset reader returns, and the reader registry.

A reader is one module that registers a function ``read(folder, *, limit) -> list[Trajectory]`` under its
format name with :func:`register`; it reads a locally downloaded dataset in its published layout and raises
:class:`TrajectoryError` naming the file and field for anything missing or malformed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.plugins import Registry


class TrajectoryError(ConfigError):
    """A dataset folder that does not have the layout its format publishes; the message names the file."""


@dataclass(frozen=True)
class Trajectory:
    """One real episode: the instruction, the screenshots ``screens[0..T]`` and the actions ``actions[0..T-1]``
    (``actions[t]`` was taken on ``screens[t]`` and led to ``screens[t+1]``), in device pixels.

    A screen is a file (datasets that publish screenshots as files) or the image bytes themselves (datasets
    that pack them into records). ``truncated`` says why the episode was cut short of what the dataset holds
    (an action with no emukit equivalent, a missing final screen), or is None."""

    id: str
    instruction: str
    screens: tuple[Path | bytes, ...]
    actions: tuple[Action, ...]
    source: str  # the format name
    truncated: str | None = None

    def screen_png(self, t: int) -> bytes:
        from emukit.evaluate.adapters.base import image_png

        item = self.screens[t]
        where = f"{self.source} episode {self.id} screen {t}" if isinstance(item, bytes) else str(item)
        try:
            return image_png(item if isinstance(item, bytes) else item.read_bytes(), where)
        except OSError as exc:
            raise TrajectoryError(f"{where}: cannot read ({exc.strerror})") from None
        except ValueError as exc:
            raise TrajectoryError(str(exc)) from None


Reader = Callable[..., list[Trajectory]]
#: dataset layout name -> reader: every module of this package (a new dataset is one new module, nothing else
#: edited), or of an outside package named by an ``emukit.trajectory_formats`` entry point (emukit/plugins.py)
READERS: Registry[Reader] = Registry("trajectory format", "emukit.evaluate.trajectories", "emukit.trajectory_formats")


def register(name: str) -> Callable[[Reader], Reader]:
    """Decorator: register a reader function under its dataset layout name."""
    return READERS.register(name)


def first(episodes: Iterable[Trajectory], limit: int | None) -> list[Trajectory]:
    """The first ``limit`` episodes (all when None), reading no further than that."""
    return list(islice(episodes, limit or None))


def formats() -> list[str]:
    """Every registered dataset layout."""
    return READERS.names()


def read_trajectories(folder: Path | str, fmt: str, *, limit: int | None = None) -> list[Trajectory]:
    """The trajectories of a local dataset folder in format ``fmt``."""
    if fmt not in READERS:
        raise TrajectoryError(f"unknown trajectory format {fmt!r}; known: {', '.join(formats())}")
    root = Path(folder)
    if not root.is_dir():
        raise TrajectoryError(f"{root}: not a folder")
    return READERS[fmt](root, limit=limit)


KEYCODE_HOME, KEYCODE_BACK, KEYCODE_ENTER = 3, 4, 66  # android.view.KeyEvent
LONG_PRESS_MS = 1000
SCROLL_MS = 500


def scroll_swipe(direction: str, box: tuple[int, int, int, int], where: str) -> Action:
    """A ``scroll`` in ``direction`` over ``box`` (left, top, right, bottom) as the swipe that performs it:
    from the box's centre to its far edge *against* the direction, so "down" reveals what lies below (the
    finger moves up). This is how AndroidWorld executes it (google-research/android_world d9c569f764b3,
    ``android_world/env/actuation.py``, ``execute_adb_action``: scroll); AndroidControl, recorded with the same
    action vocabulary, is read the same way."""
    left, top, right, bottom = box
    cx, cy = (left + right) // 2, (top + bottom) // 2
    ends = {"down": (cx, top), "up": (cx, bottom), "right": (left, cy), "left": (right, cy)}
    if direction not in ends:
        raise TrajectoryError(f"{where}: scroll direction must be up, down, left or right, got {direction!r}")
    x2, y2 = ends[direction]
    return Action(type="swipe", x=cx, y=cy, x2=x2, y2=y2, duration_ms=SCROLL_MS)
