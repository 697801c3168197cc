"""The page frame and widgets the reference model's surfaces share: a full-viewport page laid out for a
360-px-wide screen and scaled to the format's viewport, a QWERTY keyboard, the status and app bars."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext

KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
BASE_W = 360  # the layouts are written for a 360 px wide viewport and scaled to the real one


def esc(text: str) -> str:
    """``text`` escaped for HTML text and attribute values."""
    return html.escape(text, quote=True)


class Page:
    """A full-viewport page in the format's CSS viewport; sizes are written for a 360-px width."""

    def __init__(self, ctx: PredictionContext) -> None:
        self.w, self.h, _ = ctx.viewport
        self.s = self.w / BASE_W

    def px(self, v: float) -> str:
        return f"{round(v * self.s, 2)}px"

    def doc(self, title: str, css: str, body: str) -> str:
        base = (f"*{{box-sizing:border-box}}html,body{{margin:0;padding:0;width:{self.w}px;height:{self.h}px;"
                f"overflow:hidden;background:transparent}}#render-target{{position:relative;width:{self.w}px;"
                f"height:{self.h}px;overflow:hidden;background:#fdfbff;color:#1b1b1f;"
                f"font-family:'DejaVu Sans',Roboto,Arial,sans-serif;font-size:{self.px(15)}}}")
        return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
                f"<style>{base}{css}</style></head><body><div id=\"render-target\">{body}</div></body></html>")


def keyboard(page: Page) -> str:
    """A three-row QWERTY software keyboard at the bottom of the page (style: :func:`keyboard_css`)."""
    rows = "".join(f'<div class="kr">{"".join(f"<span class=k>{c}</span>" for c in row)}</div>' for row in KEY_ROWS)
    return f'<div class="kb">{rows}</div>'


def keyboard_css(page: Page) -> str:
    p = page.px
    return (f".kb{{position:absolute;left:0;right:0;bottom:0;height:{p(190)};background:#e7e6ee;padding:{p(10)} {p(4)}}}"
            f".kr{{display:flex;justify-content:center;margin:{p(6)} 0}}"
            f".k{{display:inline-block;width:{p(30)};height:{p(42)};margin:0 {p(2)};border-radius:{p(6)};"
            f"background:#fff;text-align:center;line-height:{p(42)};font-size:{p(17)}}}")


def app_bar_css(page: Page) -> str:
    """Style of the status bar (``.status``) and the app bar under it (``.bar``)."""
    p = page.px
    return (f".bar{{position:absolute;left:0;right:0;top:{p(24)};height:{p(56)};display:flex;align-items:center;"
            f"padding:0 {p(16)};font-size:{p(20)}}}.status{{position:absolute;left:0;right:0;top:0;height:{p(24)};"
            f"font-size:{p(12)};padding:{p(4)} {p(16)}}}")
