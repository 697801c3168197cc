"""The Temporal Deadline surface of ``ref:surface``: the notification shade with one Clock card (Time's up +
Stop, or MM:SS + Timer + Pause, the order of the real timer notification) or a neutral card, and the footer
Manage / Clear all."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.surfaces._page import Page
from emukit.families.temporal import clock

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext


@SURFACES.register("temporal")
def temporal_html(ctx: PredictionContext) -> str:
    """Notification shade: one Clock card (fired / running) or a neutral card, footer Manage / Clear all."""
    page, p = Page(ctx), Page(ctx).px
    d = dict(ctx.consequence or {})
    outcome = d.get("outcome") or "none"
    css = (f"#render-target{{background:#dfe3ec}}main{{position:absolute;inset:0;padding:{p(24)} {p(16)}}}"
           f"h1{{font-size:{p(18)};font-weight:normal;margin:0 0 {p(16)}}}"
           f"section{{background:#fff;border-radius:{p(20)};padding:{p(16)} {p(20)};margin:0 0 {p(16)}}}"
           f"section p{{margin:{p(4)} 0;font-size:{p(15)}}}section .big{{font-size:{p(22)}}}"
           f"button{{margin-top:{p(8)};font:inherit;font-size:{p(14)};border:0;border-radius:{p(16)};"
           f"padding:{p(6)} {p(16)};background:#d8e2ff}}footer{{display:flex;justify-content:space-between;"
           f"font-size:{p(14)}}}")
    if outcome == "fired":
        card = "<p>Clock</p><p class=\"big\">Time's up</p><button>Stop</button>"
    elif outcome == "running":
        card = (f"<p>Clock</p><p class=\"big\">{clock(int(d.get('remaining_seconds') or 0))}</p><p>Timer</p>"
                "<button>Pause</button>")
    else:
        card = "<p>Android System</p><p>Device storage is running normally</p>"
    body = (f"<main><h1>Notifications</h1><section>{card}</section>"
            "<footer><span>Manage</span><span>Clear all</span></footer></main>")
    return page.doc("Notification shade", css, body)
