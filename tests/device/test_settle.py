"""The settled-screen rule for blinking carets (:mod:`emukit.device.settle`), on synthetic captures: a
420 dpi screen with one focused EditText whose 2 dp caret is drawn or not."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from emukit.device.settle import caret_phases, focused_editables

DPI = 420
FIELD = (40, 300, 1040, 500)  # left, top, right, bottom


def _xml(focused: bool = True, cls: str = "android.widget.EditText", text: str = "") -> str:
    return ('<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
            '<node index="0" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" focused="false">'
            f'<node index="0" class="{cls}" text="{text}" focused="{str(focused).lower()}" '
            f'bounds="[{FIELD[0]},{FIELD[1]}][{FIELD[2]},{FIELD[3]}]" /></node></hierarchy>')


def _png(caret_x: int | None = None, width_px: int = 5, extra: tuple[int, int, int, int] | None = None) -> bytes:
    img = np.full((2400, 1080, 3), 250, dtype=np.uint8)
    img[FIELD[1]:FIELD[3], FIELD[0]:FIELD[2]] = (235, 235, 235)
    if caret_x is not None:
        img[320:380, caret_x:caret_x + width_px] = (30, 90, 200)
    if extra is not None:
        x0, y0, x1, y1 = extra
        img[y0:y1, x0:x1] = (0, 0, 0)
    out = io.BytesIO()
    Image.fromarray(img).save(out, format="PNG")
    return out.getvalue()


def test_two_blink_phases_settle_on_the_hidden_one():
    hidden, shown = (_png(), _xml()), (_png(caret_x=100), _xml())
    assert caret_phases(shown, hidden, DPI) is hidden
    assert caret_phases(hidden, shown, DPI) is hidden


@pytest.mark.parametrize("shown, why", [
    ((_png(caret_x=100, width_px=40), _xml()), "a change wider than the caret's drawable"),
    ((_png(extra=(100, 1000, 104, 1060)), _xml()), "a caret-sized change outside the focused field"),
    ((_png(caret_x=100), _xml(text="a")), "the hierarchy changed too"),
])
def test_other_changes_are_not_settled(shown, why):
    assert caret_phases((_png(), _xml()), shown, DPI) is None, why


def test_no_focused_editable_means_no_caret():
    assert caret_phases((_png(), _xml(focused=False)), (_png(caret_x=100), _xml(focused=False)), DPI) is None
    assert caret_phases((_png(), _xml(cls="android.widget.TextView")),
                        (_png(caret_x=100), _xml(cls="android.widget.TextView")), DPI) is None
    assert focused_editables(_xml()) == [FIELD]
    assert focused_editables("not xml") == []


def test_identical_captures_are_not_phases():
    same = (_png(), _xml())
    assert caret_phases(same, same, DPI) is None
