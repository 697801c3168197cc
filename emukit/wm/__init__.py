"""World-model requests: per-model formats, action overlays, canonical hashing and the deterministic
state-conditioning interface (seed 002 Section 4.1, Appendices C.5 and E).

Typical use::

    from emukit.wm import get_format, render_state, request_hash

    fmt = get_format("gworld")
    body = fmt.build_request(png, action, family="clipboard")            # observation condition
    digest = request_hash(body)                                           # what A/B must share
    text = render_state("clipboard", {"clipboard_type": "text", "clipboard_text": "hi"}, action=action)
    body = fmt.build_request(png, action, family="clipboard", condition_text=text)
"""

from __future__ import annotations

from emukit.wm.canonical import canonical_json, encode_png, png_data_url, request_hash
from emukit.wm.contracts import CONTRACTS, FAMILIES, contract_for
from emukit.wm.formats import FORMATS, FormatError, Viewport, WorldModelFormat, get_format
from emukit.wm.state_interface import StateValidationError, render_state, resolve_consequence

__all__ = ["CONTRACTS", "FAMILIES", "FORMATS", "FormatError", "StateValidationError", "Viewport",
           "WorldModelFormat", "canonical_json", "contract_for", "encode_png", "get_format", "png_data_url",
           "render_state", "request_hash", "resolve_consequence"]
