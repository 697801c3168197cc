"""When a screen counts as settled, on a device whose caret blinks.

A real device never shows the same pixels twice while a text field has the focus: Android's ``Editor``
toggles the caret every 500 ms (``Editor.BLINK``) and shows it again on every edit or cursor move. Waiting
for two byte-equal captures would then never end, and accepting any two captures would accept a screen
that is still changing. The rule here is narrow: two captures whose hierarchies are identical and whose
pixels differ only inside a strip no wider than the caret's drawable, lying within the focused editable
field, are two phases of one settled screen. Anything else (a countdown's text, a moving list, a toast)
changes the hierarchy or a larger area and is not settled.

Of the two phases the one returned is the phase with the caret hidden, so two branches that reach the same
screen return the same bytes whatever the blink phase at the moment of capture.

The caret's size: ``core/res/res/drawable/text_cursor_material.xml`` (aosp-mirror/platform_frameworks_base
6fb93f2c8526dab964e0db9fc4594ee9e6529353) is a 2 dp x 2 dp tinted rectangle inside a 2 dp inset, stretched to
the line height: at most 6 dp wide with its inset.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image

CARET_DRAWABLE_DP = 6  # text_cursor_material.xml: 2 dp wide + 2 dp inset on each side
EDITABLE_CLASSES = ("android.widget.EditText", "android.widget.AutoCompleteTextView",
                    "android.widget.MultiAutoCompleteTextView")
Capture = tuple[bytes, str]  # (PNG screenshot, hierarchy XML)
Bounds = tuple[int, int, int, int]  # left, top, right, bottom in pixels


def focused_editables(xml: str) -> list[Bounds]:
    """Bounds of the focused editable text fields in a hierarchy dump."""
    from emukit.hierarchy import parse_bounds

    if 'focused="true"' not in xml:  # most screens: no parse needed
        return []
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return []
    return [parse_bounds(n.get("bounds", "[0,0][0,0]")) for n in root.iter("node")
            if n.get("focused") == "true" and n.get("class", "") in EDITABLE_CLASSES]


def _pixels(png: bytes) -> np.ndarray | None:
    try:
        with Image.open(io.BytesIO(png)) as image:
            return np.asarray(image.convert("RGB"))
    except OSError:
        return None


def _changed_box(a: np.ndarray, b: np.ndarray) -> Bounds | None:
    """The bounding box (left, top, right, bottom; right/bottom exclusive) of the pixels that differ."""
    if a.shape != b.shape:
        return None
    diff = np.any(a != b, axis=-1) if a.ndim == 3 else a != b
    rows = np.flatnonzero(diff.any(axis=1))
    cols = np.flatnonzero(diff.any(axis=0))
    if rows.size == 0:
        return None
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def caret_phases(first: Capture, second: Capture, density_dpi: int) -> Capture | None:
    """When ``first`` and ``second`` are two blink phases of one screen (see the module docstring), the
    phase with the caret hidden; otherwise None."""
    if first[1] != second[1] or first[0] == second[0]:
        return None
    fields = focused_editables(first[1])
    if not fields:
        return None
    a, b = _pixels(first[0]), _pixels(second[0])
    if a is None or b is None:
        return None
    box = _changed_box(a, b)
    if box is None:
        return None
    left, top, right, bottom = box
    if right - left > round(CARET_DRAWABLE_DP * density_dpi / 160) + 2:  # +2: anti-aliased edges
        return None
    if not any(fl <= left and right <= fr and ft <= top and bottom <= fb for fl, ft, fr, fb in fields):
        return None
    # the hidden phase: the strip shows the field's background, like the column next to it
    w = a.shape[1]
    beside = left - 1 if left > 0 else min(right, w - 1)
    context = a[top:bottom, beside:beside + 1].astype(np.int16)
    far_a = float(np.abs(a[top:bottom, left:right].astype(np.int16) - context).sum())
    far_b = float(np.abs(b[top:bottom, left:right].astype(np.int16) - context).sum())
    return first if far_a <= far_b else second
