"""SHA-256 as emukit names content with it: artifacts are stored under the hex digest of their bytes, and an
exported artifact path (``artifacts/ab/cd/<sha256>.png``) names that digest."""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePosixPath

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


def sha256_hex(data: bytes) -> str:
    """The lowercase hex SHA-256 of ``data`` (the name an artifact is stored under)."""
    return hashlib.sha256(data).hexdigest()


def artifact_sha(ref: str) -> str:
    """The digest a content-addressed artifact path names (``artifacts/ab/cd/<sha256>.png`` -> ``<sha256>``);
    ValueError for a path that names none."""
    stem = PurePosixPath(str(ref)).name.split(".", 1)[0]
    if not _SHA_RE.match(stem):
        raise ValueError(f"{ref!r} is not a content-addressed artifact path")
    return stem
