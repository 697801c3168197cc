"""Registry of world-model request formats: ``get_format("code2world")``, ``get_format("gworld")``.

Adding a format means adding a module with a :class:`~emukit.wm.formats.base.WorldModelFormat` subclass and
one entry in :data:`FORMATS`; the name is the key of ``PairRecord.request_hashes``.
"""

from __future__ import annotations

from typing import Any

from emukit.errors import ConfigError
from emukit.wm.formats.base import DEFAULT_GENERATION, FormatError, Viewport, WorldModelFormat
from emukit.wm.formats.code2world import Code2WorldFormat
from emukit.wm.formats.gworld import GWorldFormat

#: format name -> class
FORMATS: dict[str, type[WorldModelFormat]] = {cls.name: cls for cls in (Code2WorldFormat, GWorldFormat)}

__all__ = ["DEFAULT_GENERATION", "FORMATS", "Code2WorldFormat", "FormatError", "GWorldFormat", "Viewport",
           "WorldModelFormat", "get_format"]


def get_format(name: str, **options: Any) -> WorldModelFormat:
    """A new instance of the format called ``name`` (``options``: ``model``, ``crop``, ``generation``)."""
    try:
        cls = FORMATS[name]
    except KeyError:
        raise ConfigError(f"unknown world-model format {name!r}; known: {', '.join(sorted(FORMATS))}") from None
    return cls(**options)
