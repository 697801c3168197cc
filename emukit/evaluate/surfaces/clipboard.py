"""The Clipboard surface of ``ref:surface``: a Markor-like editor, title bar at the top and the pasted
payload in the editor body, above a keyboard."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.surfaces._page import Page, app_bar_css, esc, keyboard, keyboard_css

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext


@SURFACES.register("clipboard")
def clipboard_html(ctx: PredictionContext) -> str:
    """Markor-like editor: title bar at the top, the pasted payload in the editor body."""
    page, p = Page(ctx), Page(ctx).px
    d = dict(ctx.consequence or {})
    payload = str(d.get("inserted") or "")
    css = app_bar_css(page) + (
        f".editor{{position:absolute;left:{p(16)};right:{p(16)};top:{p(110)};min-height:{p(40)};font-size:{p(17)};"
        f"line-height:{p(26)};white-space:pre-wrap;word-break:break-word}}") + keyboard_css(page)
    body = (f'<div class="status">9:41</div><div class="bar">Note</div>'
            f'<div class="editor">{esc(payload)}</div>')
    return page.doc("Editor", css, body + keyboard(page))
