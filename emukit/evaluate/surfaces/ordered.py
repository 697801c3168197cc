"""The Ordered Collection surface of ``ref:surface``: the playlist detail or the compact playing queue, one
primary row per item in the consequence's order (rows shrink to fit a long list)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.surfaces._page import Page, app_bar_css, esc

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext


@SURFACES.register("ordered")
def ordered_html(ctx: PredictionContext) -> str:
    """Playlist detail or compact playing queue: one primary row per item, in the supplied order."""
    page, p = Page(ctx), Page(ctx).px
    d = dict(ctx.consequence or {})
    items = [str(i) for i in d.get("items") or []]
    kind = d.get("collection_type") or "playing_queue"
    title = "Now playing queue" if kind == "playing_queue" else "Playlist"  # Retro Music's queue title
    avail = 800 - 100 - 20
    row_h = min(56.0, avail / max(1, len(items)))
    css = app_bar_css(page) + (
        f".row{{position:absolute;left:{p(16)};right:{p(16)};height:{p(row_h)};font-size:{p(min(16, row_h * 0.5))};"
        f"line-height:{p(row_h)};white-space:nowrap;overflow:hidden;text-overflow:ellipsis}}")
    rows = "".join(f'<div class="row" style="top:{p(96 + i * row_h)}">{esc(item)}</div>' for i, item in enumerate(items))
    return page.doc(title, css, f'<div class="status">9:41</div><div class="bar">{title}</div>{rows}')
