"""Registry of world-model request formats: ``get_format("code2world")``, ``get_format("gworld")``.

Adding a format is one new module in this package (or in your own package, named by an ``emukit.wm_formats``
entry point) with a :class:`~emukit.wm.formats.base.WorldModelFormat` subclass decorated with
:func:`~emukit.wm.formats.base.register_format`; its ``name`` is the key of ``PairRecord.request_hashes``, and
the builder, the release audit and ``emukit evaluate --format`` take it from :data:`FORMATS` (emukit/plugins.py).
"""

from __future__ import annotations

from typing import Any

from emukit.wm.formats.base import (
    DEFAULT_GENERATION,
    FORMATS,
    FormatError,
    Viewport,
    WorldModelFormat,
    register_format,
)

__all__ = ["DEFAULT_GENERATION", "FORMATS", "FormatError", "Viewport", "WorldModelFormat", "get_format",
           "register_format"]


def get_format(name: str, **options: Any) -> WorldModelFormat:
    """A new instance of the format called ``name`` (``options``: ``model``, ``crop``, ``generation``)."""
    return FORMATS.get(name)(**options)
