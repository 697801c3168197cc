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
  observation-only PairCorrect is 0 by construction.

Both are deterministic and never see the true next screen or the outcome.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from typing import Any

from emukit.evaluate.adapters.base import (
    ModelAdapter,
    Prediction,
    PredictionContext,
    register,
)
from emukit.evaluate.parsers.persistent import PINNED_DEVICE_NAME
from emukit.wm import png_data_url
from emukit.wm.state_interface import clock

BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
BASE_W = 360  # the layouts below are written for a 360 px wide viewport and scaled to the real one


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


class _Page:
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
        return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{_esc(title)}</title>"
                f"<style>{base}{css}</style></head><body><div id=\"render-target\">{body}</div></body></html>")


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
    page = _Page(ctx)
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
                     f'height:{height:.2f}px;font-size:{size:.2f}px;line-height:{height:.2f}px">{_esc(text)}</span>')
    css = (".shot{position:absolute;left:0;top:0;width:100%;height:100%;display:block}"
           ".t{position:absolute;color:transparent;white-space:nowrap;overflow:hidden}")
    img = f'<img class="shot" alt="" src="{png_data_url(ctx.observation_png)}">' if ctx.observation_png else ""
    return page.doc("current screen", css, img + "".join(spans))


# -- ref:surface ----------------------------------------------------------------------------------------------

def _keyboard(page: _Page) -> str:
    rows = "".join(f'<div class="kr">{"".join(f"<span class=k>{c}</span>" for c in row)}</div>' for row in KEY_ROWS)
    return f'<div class="kb">{rows}</div>'


def _keyboard_css(page: _Page) -> str:
    p = page.px
    return (f".kb{{position:absolute;left:0;right:0;bottom:0;height:{p(190)};background:#e7e6ee;padding:{p(10)} {p(4)}}}"
            f".kr{{display:flex;justify-content:center;margin:{p(6)} 0}}"
            f".k{{display:inline-block;width:{p(30)};height:{p(42)};margin:0 {p(2)};border-radius:{p(6)};"
            f"background:#fff;text-align:center;line-height:{p(42)};font-size:{p(17)}}}")


def _app_bar_css(page: _Page) -> str:
    p = page.px
    return (f".bar{{position:absolute;left:0;right:0;top:{p(24)};height:{p(56)};display:flex;align-items:center;"
            f"padding:0 {p(16)};font-size:{p(20)}}}.status{{position:absolute;left:0;right:0;top:0;height:{p(24)};"
            f"font-size:{p(12)};padding:{p(4)} {p(16)}}}")


def persistent_html(ctx: PredictionContext) -> str:
    """Files: Downloads-scoped search (result row or explicit empty state) or the requested folder."""
    page, p = _Page(ctx), _Page(ctx).px
    d = dict(ctx.consequence or {})
    probe = d.get("probe") or (ctx.interface_context or {}).get("probe") or (
        "search" if ctx.action.type == "type" else "folder")
    present = bool(d.get("present"))
    name = str(d.get("artifact") or "")
    css = _app_bar_css(page) + (
        f".row{{position:absolute;left:{p(16)};right:{p(16)};height:{p(56)}}}"
        f".name{{font-size:{p(16)};line-height:{p(24)}}}.sub{{font-size:{p(12)};color:#46464f;line-height:{p(18)}}}"
        f".empty{{position:absolute;left:0;right:0;top:{p(250)};text-align:center;font-size:{p(16)}}}"
        f".head{{position:absolute;left:{p(16)};top:{p(140)};font-size:{p(14)};color:#46464f}}")
    if probe == "search":
        query = ctx.action.text or ""
        css += (f".field{{position:absolute;left:{p(12)};right:{p(12)};top:{p(30)};height:{p(44)};border-radius:{p(22)};"
                f"background:#eeedf4;padding:0 {p(16)};line-height:{p(44)};font-size:{p(16)}}}"
                f".chips{{position:absolute;left:{p(12)};top:{p(92)};display:flex}}"
                f".chip{{border:1px solid #777680;border-radius:{p(8)};padding:{p(4)} {p(10)};margin-right:{p(8)};"
                f"font-size:{p(13)}}}") + _keyboard_css(page)
        body = (f'<div class="status">9:41</div><div class="field">{_esc(query)}</div>'
                '<div class="chips"><span class="chip">Images</span><span class="chip">Audio</span>'
                '<span class="chip">Documents</span></div><div class="head">Files in Downloads</div>')
        if present:
            body += (f'<div class="row" style="top:{p(170)}"><div class="name">{_esc(name)}</div>'
                     '<div class="sub">Downloads</div></div>')
        else:
            body += '<div class="empty">No matches in Downloads</div>'
        return page.doc("Files search", css, body + _keyboard(page))
    folder = str(d.get("folder") or (ctx.interface_context or {}).get("folder") or "/storage/emulated/0")
    parts = [x for x in folder.split("/") if x]
    root = str((ctx.interface_context or {}).get("root_label") or PINNED_DEVICE_NAME)  # the root's title
    title = parts[-1] if parts else root
    rel = parts[3:] if parts[:3] == ["storage", "emulated", "0"] else parts
    crumbs = " \u203a ".join([root, *rel])
    css += f".crumb{{position:absolute;left:{p(16)};top:{p(86)};font-size:{p(13)};color:#46464f}}"
    body = (f'<div class="status">9:41</div><div class="bar">{_esc(title)}</div>'
            f'<div class="crumb">{_esc(crumbs)}</div>')
    if present:
        body += (f'<div class="row" style="top:{p(130)}"><div class="name">{_esc(name)}</div>'
                 '<div class="sub">Jan 15</div></div>')
    else:
        body += '<div class="empty">No items</div>'
    return page.doc(f"Files {title}", css, body)


def clipboard_html(ctx: PredictionContext) -> str:
    """Markor-like editor: title bar at the top, the pasted payload in the editor body."""
    page, p = _Page(ctx), _Page(ctx).px
    d = dict(ctx.consequence or {})
    payload = str(d.get("inserted") or "")
    css = _app_bar_css(page) + (
        f".editor{{position:absolute;left:{p(16)};right:{p(16)};top:{p(110)};min-height:{p(40)};font-size:{p(17)};"
        f"line-height:{p(26)};white-space:pre-wrap;word-break:break-word}}") + _keyboard_css(page)
    body = (f'<div class="status">9:41</div><div class="bar">Note</div>'
            f'<div class="editor">{_esc(payload)}</div>')
    return page.doc("Editor", css, body + _keyboard(page))


def ordered_html(ctx: PredictionContext) -> str:
    """Playlist detail or compact playing queue: one primary row per item, in the supplied order."""
    page, p = _Page(ctx), _Page(ctx).px
    d = dict(ctx.consequence or {})
    items = [str(i) for i in d.get("items") or []]
    kind = d.get("collection_type") or "playing_queue"
    title = "Now playing queue" if kind == "playing_queue" else "Playlist"  # Retro Music's queue title
    avail = 800 - 100 - 20
    row_h = min(56.0, avail / max(1, len(items)))
    css = _app_bar_css(page) + (
        f".row{{position:absolute;left:{p(16)};right:{p(16)};height:{p(row_h)};font-size:{p(min(16, row_h * 0.5))};"
        f"line-height:{p(row_h)};white-space:nowrap;overflow:hidden;text-overflow:ellipsis}}")
    rows = "".join(f'<div class="row" style="top:{p(96 + i * row_h)}">{_esc(item)}</div>' for i, item in enumerate(items))
    return page.doc(title, css, f'<div class="status">9:41</div><div class="bar">{title}</div>{rows}')


def temporal_html(ctx: PredictionContext) -> str:
    """Notification shade: one Clock card (fired / running) or a neutral card, footer Manage / Clear all."""
    page, p = _Page(ctx), _Page(ctx).px
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


SURFACES = {"persistent": persistent_html, "clipboard": clipboard_html, "ordered": ordered_html,
            "temporal": temporal_html}


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
        page = copy_current_html(context) if self.kind == "copy-current" else SURFACES[context.family](context)
        return Prediction(html=page, raw=page)
