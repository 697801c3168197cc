"""External trajectories for the offline reference-action track (GUI-CC rolls world models along real
trajectories): the common form every dataset reader returns, and the reader registry.

A reader is one module that registers a function ``read(folder, *, limit) -> list[Trajectory]`` under its
format name with :func:`register`; it reads a locally downloaded dataset in its published layout and raises
:class:`TrajectoryError` naming the file and field for anything missing or malformed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from emukit.device.actions import Action
from emukit.errors import ConfigError


class TrajectoryError(ConfigError):
    """A dataset folder that does not have the layout its format publishes; the message names the file."""


@dataclass(frozen=True)
class Trajectory:
    """One real episode: the instruction, the screenshots ``screens[0..T]`` and the actions ``actions[0..T-1]``
    (``actions[t]`` was taken on ``screens[t]`` and led to ``screens[t+1]``), in device pixels."""

    id: str
    instruction: str
    screens: tuple[Path, ...]
    actions: tuple[Action, ...]
    source: str  # the format name

    def screen_png(self, t: int) -> bytes:
        from emukit.evaluate.adapters.base import image_png

        path = self.screens[t]
        try:
            return image_png(path.read_bytes(), str(path))
        except OSError as exc:
            raise TrajectoryError(f"{path}: cannot read ({exc.strerror})") from None
        except ValueError as exc:
            raise TrajectoryError(str(exc)) from None


Reader = Callable[..., list[Trajectory]]
_READERS: dict[str, Reader] = {}


def register(name: str) -> Callable[[Reader], Reader]:
    def deco(fn: Reader) -> Reader:
        _READERS[name] = fn
        return fn

    return deco


def formats() -> list[str]:
    from emukit.evaluate.trajectories import guiodyssey  # noqa: F401 - the built-in readers register

    return sorted(_READERS)


def read_trajectories(folder: Path | str, fmt: str, *, limit: int | None = None) -> list[Trajectory]:
    """The trajectories of a local dataset folder in format ``fmt``."""
    known = formats()
    if fmt not in _READERS:
        raise TrajectoryError(f"unknown trajectory format {fmt!r}; known: {', '.join(known)}")
    root = Path(folder)
    if not root.is_dir():
        raise TrajectoryError(f"{root}: not a folder")
    return _READERS[fmt](root, limit=limit)
