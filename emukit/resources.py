"""Where emukit finds its YAML data: causal templates, milestone tasks and base snapshot specs.

Each kind has a search path, read in this order:

1. folders given on the command line (``--templates DIR``, ``--tasks-dir DIR``; repeatable);
2. folders in the kind's environment variable (``$EMUKIT_TEMPLATES``, ``$EMUKIT_TASKS``,
   ``$EMUKIT_SNAPSHOTS``; several separated by ``os.pathsep``);
3. the shipped folder: in an installed emukit the copy packaged inside it (``emukit/_shipped/<kind>``,
   written by ``setup.py``'s build step), in a source checkout the project's top-level folder.

User folders are *merged* with the shipped ones; an id defined in two folders is an error that names both
files (:func:`unique`), never a silent override. The shipped folder of an installed emukit is read-only to
emukit's writers (:func:`writable`); a source checkout's is not, so reference trajectories recorded there
land in the project.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from emukit.errors import ConfigError

Kind = Literal["templates", "tasks", "snapshots"]
ENV_VARS: dict[str, str] = {"templates": "EMUKIT_TEMPLATES", "tasks": "EMUKIT_TASKS",
                            "snapshots": "EMUKIT_SNAPSHOTS"}
OPTIONS: dict[str, str] = {"templates": "--templates", "tasks": "--tasks-dir", "snapshots": "$EMUKIT_SNAPSHOTS"}
PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGED = PACKAGE_DIR / "_shipped"

T = TypeVar("T")


@functools.cache
def _checkout_dir(kind: Kind) -> Path | None:
    """The kind's folder of the source checkout this package was imported from, if it is one."""
    root = PACKAGE_DIR.parent
    pyproject = root / "pyproject.toml"
    folder = root / kind
    if folder.is_dir() and pyproject.is_file() and 'name = "emukit"' in pyproject.read_text(encoding="utf-8"):
        return folder
    return None


def shipped_dir(kind: Kind) -> Path:
    """The folder of the kind that ships with emukit (packaged copy first, else the source checkout's)."""
    packaged = PACKAGED / kind
    if packaged.is_dir():
        return packaged
    return _checkout_dir(kind) or packaged


def shipped_is_read_only(kind: Kind) -> bool:
    """True when the shipped folder is the packaged copy inside an installed emukit."""
    return shipped_dir(kind).resolve().is_relative_to(PACKAGED.resolve())


def user_dirs(kind: Kind, given: Iterable[Path] | None = ()) -> list[Path]:
    """The user's folders of the kind: ``given`` (command line), then the environment variable's. Each must
    be an existing folder (ConfigError naming the option or variable otherwise)."""
    found: list[tuple[Path, str]] = [(Path(p), OPTIONS[kind]) for p in (given or ())]
    env = os.environ.get(ENV_VARS[kind], "")
    found += [(Path(p), f"${ENV_VARS[kind]}") for p in env.split(os.pathsep) if p.strip()]
    out: list[Path] = []
    for path, where in found:
        path = path.expanduser()
        if not path.is_dir():
            raise ConfigError(f"{where} {path}: no such folder")
        if path.resolve() not in {p.resolve() for p in out}:
            out.append(path)
    return out


def search_path(kind: Kind, given: Iterable[Path] | None = ()) -> list[Path]:
    """User folders, then the shipped one (duplicates dropped)."""
    folders = user_dirs(kind, given)
    shipped = shipped_dir(kind)
    if shipped.is_dir() and shipped.resolve() not in {p.resolve() for p in folders}:
        folders.append(shipped)
    return folders


def writable(kind: Kind, given: Iterable[Path] | None = ()) -> Path:
    """Where new files of the kind are written: the first user folder, else the shipped folder of a source
    checkout. An installed emukit's shipped folder is refused (ConfigError saying what to pass instead)."""
    folders = user_dirs(kind, given)
    if folders:
        return folders[0]
    if shipped_is_read_only(kind):
        raise ConfigError(f"the {kind} shipped inside the installed emukit package are read-only; give "
                          f"{OPTIONS[kind]} DIR (or ${ENV_VARS[kind]}) for a folder of your own")
    return shipped_dir(kind)


def check_writable(kind: Kind, path: Path) -> None:
    """Refuse to write ``path`` when it lies in an installed emukit's shipped folder."""
    if shipped_is_read_only(kind) and Path(path).resolve().is_relative_to(PACKAGED.resolve()):
        raise ConfigError(f"{path}: shipped inside the installed emukit package (read-only); work on it from a "
                          f"source checkout (pip install -e .), or copy it under a new id into a folder of "
                          f"your own ({OPTIONS[kind]} DIR)")


def unique(kind: str, items: Sequence[tuple[str, str, T]]) -> list[T]:
    """``items`` as ``(id, source file, value)``; ConfigError when one id comes from two files."""
    seen: dict[str, str] = {}
    out: list[T] = []
    for key, source, value in items:
        if key in seen:
            raise ConfigError(f"{kind} {key!r} is defined twice: {seen[key]} and {source} (ids must be unique "
                              "across the shipped folder and your own; rename one)")
        seen[key] = source
        out.append(value)
    return out


def files_by_stem(kind: str, roots: Sequence[Path], *, recursive: bool = False) -> dict[str, Path]:
    """File stem -> path of every ``*.yaml`` in ``roots`` (subfolders too with ``recursive``), in search-path
    order; ConfigError (:func:`unique`) when a stem is in two files."""
    items = [(p.stem, str(p), (p.stem, p)) for root in roots
             for p in sorted(root.rglob("*.yaml") if recursive else root.glob("*.yaml"))]
    return dict(unique(kind, items))
