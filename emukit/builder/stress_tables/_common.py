"""What the app-based stress tables share (:mod:`.clipboard`, :mod:`.ordered`): selectors of an app's table,
taps and long presses on them, and the list scrolls."""

from __future__ import annotations

from typing import Any

from emukit.builder.stress_model import Step

Sel = dict[str, Any]


def tap(sel: Sel) -> Step:
    return {"tap": sel}


def press(sel: Sel) -> Step:
    return {"long_press": sel}


# vertical swipes in the middle of the screen: they scroll a list (a page, the notebook, songs, the queue);
# coordinates are percentages of the screen, resolved on the device when the step runs (emukit.builder.steps)
SCROLL_DOWN: Step = {"swipe": {"x1": "50%", "y1": "62.5%", "x2": "50%", "y2": "37.5%", "duration_ms": 300}}
SCROLL_UP: Step = {"swipe": {"x1": "50%", "y1": "37.5%", "x2": "50%", "y2": "62.5%", "duration_ms": 300}}
