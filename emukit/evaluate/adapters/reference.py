"""Bundled reference models: pipeline sanity checks that need no weights.

* ``ref:copy-current`` predicts that nothing changes: the current screenshot as a full-viewport ``<img>``
  (data URL) with the hierarchy's texts laid over it at their on-screen bounds, in transparent ink, so the
  rendered PNG looks like the current screen and the family parsers read the current surface's texts.
* ``ref:surface`` renders exactly the surface implied by its conditioning: the family (its transition
  contract), the action, and — under the oracle-state and predictive-state conditions — the state-interface
  consequence ``D = g_f(Z, A, c)`` that the request's state block states (:func:`emukit.wm.resolve_consequence`,
  carried in :class:`PredictionContext`). Persistent: a Downloads-scoped Files search with one result row or
  "No matches in Downloads" and a QWERTY keyboard, or the requested folder listing; Clipboard: an editor whose
  body holds the pasted payload; Ordered: the playlist / queue with one primary row per item, in order;
  Temporal: the notification shade with a Clock card (Time's up + Stop, or MM:SS + Timer + Pause, the order of the real timer notification) or a neutral
  card. Without state (observation, raw history) it renders the family's state-less default (file absent,
  empty paste, empty list, no timer): a deterministic function of an A/B-identical request, so its
  observation-only PairCorrect is 0 by construction. Each family's surface is a module of
  :mod:`emukit.evaluate.surfaces`, found by the family's name. A sample without a family (a task step, an
  external trajectory's step) implies no family surface: ``ref:surface`` then predicts what
  ``ref:copy-current`` does, the current screen.

Both are deterministic and never see the true next screen or the outcome.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from emukit.evaluate.adapters.base import (
    ModelAdapter,
    Prediction,
    PredictionContext,
    register,
)
from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.surfaces._page import Page, esc
from emukit.wm import png_data_url

BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


# -- ref:copy-current -------------------------------------------------------------------------------------

def hierarchy_texts(xml: str) -> list[tuple[str, tuple[int, int, int, int]]]:
    """``(text, bounds)`` of every node with visible text in a uiautomator hierarchy XML."""
    if not xml.strip():
        return []
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return []
    out = []
    for node in root.iter("node"):
        text = (node.get("text") or "").strip()
        m = BOUNDS_RE.fullmatch(node.get("bounds") or "")
        if text and m:
            left, top, right, bottom = (int(g) for g in m.groups())
            if right > left and bottom > top:
                out.append((text, (left, top, right, bottom)))
    return out


def copy_current_html(ctx: PredictionContext) -> str:
    """The current screen as a page: screenshot image plus the hierarchy's texts at their bounds."""
    page = Page(ctx)
    sw, sh = ctx.screen_size
    fx, fy = page.w / sw, page.h / sh
    spans = []
    for text, (left, top, right, bottom) in hierarchy_texts(ctx.observation_xml):
        left, right = max(0, left), min(sw, right)
        top, bottom = max(0, top), min(sh, bottom)
        if right <= left or bottom <= top:
            continue
        height = (bottom - top) * fy
        width = (right - left) * fx
        # fit the box: at most 70 % of its height, and narrow enough that the text (about 0.6 em per
        # character in DejaVu Sans) is not clipped by the box's width
        size = max(1.0, min(height * 0.7, 40 * page.s, width / (0.62 * max(1, len(text)))))
        spans.append(f'<span class="t" style="left:{left * fx:.2f}px;top:{top * fy:.2f}px;width:{width:.2f}px;'
                     f'height:{height:.2f}px;font-size:{size:.2f}px;line-height:{height:.2f}px">{esc(text)}</span>')
    css = (".shot{position:absolute;left:0;top:0;width:100%;height:100%;display:block}"
           ".t{position:absolute;color:transparent;white-space:nowrap;overflow:hidden}")
    img = f'<img class="shot" alt="" src="{png_data_url(ctx.observation_png)}">' if ctx.observation_png else ""
    return page.doc("current screen", css, img + "".join(spans))


@register("ref")
class ReferenceAdapter(ModelAdapter):
    """``ref:copy-current`` or ``ref:surface`` (see the module docstring)."""

    deterministic = True
    concurrency = 4

    def __init__(self, spec: str, **_: Any) -> None:
        if spec not in ("copy-current", "surface"):
            from emukit.errors import ConfigError

            raise ConfigError(f"reference model 'ref:{spec}' is unknown; use ref:copy-current or ref:surface")
        self.kind = spec
        self.name = f"ref:{spec}"

    def predict(self, request: dict[str, Any], context: PredictionContext | None = None) -> Prediction:
        if context is None:
            return Prediction(error=f"{self.name} needs the prediction context (it does not read the chat body)")
        if self.kind == "copy-current" or context.family is None:  # no family: no surface but the current one
            page = copy_current_html(context)
        else:
            page = SURFACES.get(context.family)(context)
        return Prediction(html=page, raw=page)
