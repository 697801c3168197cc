"""Atomic file replacement: a crash or a full disk mid-write never leaves a half-written file behind, and a
replaced file keeps its permissions."""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def default_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file: 0o666 less the process umask."""
    with _UMASK_LOCK:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def _temporary(path: Path, data: str | bytes) -> str:
    """Write ``data`` to a flushed temporary file beside ``path`` with the mode ``path`` has (or a new file's
    default mode: ``mkstemp`` alone would leave 0600); returns its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = default_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data.encode() if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) through a temporary file in the same folder,
    flushed to disk, then renamed over the target; the file keeps its mode."""
    tmp = _temporary(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def create_exclusive(path: Path, data: str | bytes) -> bool:
    """Create ``path`` with ``data`` only if it does not exist yet, atomically (a reader never sees a partial
    file; two writers racing for one name never overwrite each other). False when the name is taken."""
    tmp = _temporary(path, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)
    return True
