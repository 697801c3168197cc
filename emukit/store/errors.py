"""Errors of the store layer; each message names the path, URL, pair or work key at fault."""

from __future__ import annotations

from pathlib import Path

from emukit.errors import EmukitError


class StoreError(EmukitError):
    """The database or the artifact store could not be opened, read or written as asked."""


class ArtifactError(StoreError):
    """An artifact object is missing or does not hold the bytes its name promises."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


class MissingArtifactError(ArtifactError):
    """No object with this hash and extension is stored."""


class CorruptArtifactError(ArtifactError):
    """The object's content does not hash to the SHA-256 in its name."""


class MixedProvenanceError(StoreError):
    """A pair would join pairs of the same request (template, seed) built on another device kind or other app
    builds; ``--allow-mixed`` lets it."""
