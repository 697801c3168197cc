"""Canonical serialization of world-model requests and the SHA-256 that identifies them.

A strict pair is only strict when both branches send the *same bytes* to a world model (seed 002 Appendix
C.5). These helpers make "the same" well defined:

* :func:`canonical_json` — UTF-8 JSON with sorted keys, no insignificant whitespace, tuples as lists, floats
  written by Python's shortest round-trip ``repr`` (``-0.0`` folded into ``0.0``; NaN/Infinity refused), and
  anything that is not plain JSON data refused instead of being stringified silently.
* :func:`request_hash` — the SHA-256 hex digest of that serialization.
* :func:`encode_png` / :func:`png_data_url` — images inside requests are re-encoded by emukit's own PNG
  encoder (:func:`emukit.images.encode_png`: RGB, one fixed row filter, zlib level 1, no ancillary chunks: no
  text, time, gamma or ICC metadata), so the bytes depend only on the pixels and on the zlib build; hashes
  are comparable between runs of the same environment (A and B of a pair are always hashed together).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Mapping
from typing import Any

from PIL import Image

from emukit.errors import ConfigError
from emukit.hashing import sha256_hex
from emukit.images import BandCache
from emukit.images import encode_png as _encode_png

#: compressed PNG bands of the images requests carry, shared by every caller in the process (bounded: 16 MB of
#: bands, plus the last image's pixels for the row comparison)
_BANDS = BandCache(max_bands=8192, max_bytes=16 * 2**20, name="request image bands")


def _normalize(obj: Any, path: str) -> Any:
    """Return ``obj`` as plain JSON data, or raise :class:`ConfigError` naming the offending path."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        if not math.isfinite(obj):
            raise ConfigError(f"canonical_json: {path} is {obj!r}; NaN and Infinity have no canonical JSON form")
        return 0.0 if obj == 0 else obj
    if isinstance(obj, Mapping):
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if not isinstance(key, str):
                raise ConfigError(f"canonical_json: {path} has a non-string key {key!r}")
            out[key] = _normalize(value, f"{path}.{key}")
        return out
    if isinstance(obj, (list, tuple)):
        return [_normalize(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    raise ConfigError(f"canonical_json: {path} is a {type(obj).__name__}, not JSON data")


def canonical_json(obj: Any) -> bytes:
    """Serialize ``obj`` canonically: sorted keys, ``,``/``:`` separators, UTF-8 (no ``\\u`` escapes for
    non-ASCII), stable float text. Equal data always gives byte-identical output."""
    data = _normalize(obj, "$")
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8")


def request_hash(request: Mapping[str, Any]) -> str:
    """SHA-256 hex digest of the canonical JSON of a complete request body."""
    return sha256_hex(canonical_json(request))


def encode_png(image: Image.Image) -> bytes:
    """Encode ``image`` as deterministic RGB PNG bytes (no metadata chunks: ``.info`` is never written).

    Compressed bands are shared through one bounded :class:`~emukit.images.BandCache` for the process:
    the images a format draws (a screen with the action marked) mostly repeat the rows of the one before
    (the bars, the unchanged parts of the screen), and with the cache only the changed rows are compressed
    again. The bytes are the same as without it."""
    return _encode_png(image, _BANDS)


def png_data_url(png: bytes) -> str:
    """``data:image/png;base64,...`` for PNG bytes (standard alphabet, padded, no line breaks)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
