"""The store: SQLAlchemy tables (SQLite by default, any SQLAlchemy URL) and content-addressed artifact files.

``Store`` is the entry point; ``ArtifactStore`` is the artifact folder on its own. See ``docs/store.md``.
"""

from emukit.store.artifacts import ArtifactStore, sha256_hex
from emukit.store.convert import HIERARCHY_EXT, SCREENSHOT_EXT, RunInfo, StoredRejection, TemplateSummary
from emukit.store.db import Store
from emukit.store.engine import default_url, redact
from emukit.store.errors import (
    ArtifactError,
    CorruptArtifactError,
    MissingArtifactError,
    MixedProvenanceError,
    StoreError,
)

__all__ = [
    "HIERARCHY_EXT",
    "SCREENSHOT_EXT",
    "ArtifactError",
    "ArtifactStore",
    "CorruptArtifactError",
    "MissingArtifactError",
    "MixedProvenanceError",
    "RunInfo",
    "Store",
    "StoreError",
    "StoredRejection",
    "TemplateSummary",
    "default_url",
    "redact",
    "sha256_hex",
]
