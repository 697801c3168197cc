"""The Persistent Artifact surface of ``ref:surface``: the Files app's Downloads-scoped search (one result row
or the explicit empty state "No matches in Downloads", with a QWERTY keyboard) or the requested folder listing
(breadcrumb from the device's root label, one row for the file or "No items")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.evaluate.parsers.persistent import PINNED_DEVICE_NAME
from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.surfaces._page import Page, app_bar_css, esc, keyboard, keyboard_css

if TYPE_CHECKING:
    from emukit.evaluate.adapters.base import PredictionContext


@SURFACES.register("persistent")
def persistent_html(ctx: PredictionContext) -> str:
    """Files: Downloads-scoped search (result row or explicit empty state) or the requested folder."""
    page, p = Page(ctx), Page(ctx).px
    d = dict(ctx.consequence or {})
    probe = d.get("probe") or (ctx.interface_context or {}).get("probe") or (
        "search" if ctx.action.type == "type" else "folder")
    present = bool(d.get("present"))
    name = str(d.get("artifact") or "")
    css = app_bar_css(page) + (
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
                f"font-size:{p(13)}}}") + keyboard_css(page)
        body = (f'<div class="status">9:41</div><div class="field">{esc(query)}</div>'
                '<div class="chips"><span class="chip">Images</span><span class="chip">Audio</span>'
                '<span class="chip">Documents</span></div><div class="head">Files in Downloads</div>')
        if present:
            body += (f'<div class="row" style="top:{p(170)}"><div class="name">{esc(name)}</div>'
                     '<div class="sub">Downloads</div></div>')
        else:
            body += '<div class="empty">No matches in Downloads</div>'
        return page.doc("Files search", css, body + keyboard(page))
    folder = str(d.get("folder") or (ctx.interface_context or {}).get("folder") or "/storage/emulated/0")
    parts = [x for x in folder.split("/") if x]
    root = str((ctx.interface_context or {}).get("root_label") or PINNED_DEVICE_NAME)  # the root's title
    title = parts[-1] if parts else root
    rel = parts[3:] if parts[:3] == ["storage", "emulated", "0"] else parts
    crumbs = " \u203a ".join([root, *rel])
    css += f".crumb{{position:absolute;left:{p(16)};top:{p(86)};font-size:{p(13)};color:#46464f}}"
    body = (f'<div class="status">9:41</div><div class="bar">{esc(title)}</div>'
            f'<div class="crumb">{esc(crumbs)}</div>')
    if present:
        body += (f'<div class="row" style="top:{p(130)}"><div class="name">{esc(name)}</div>'
                 '<div class="sub">Jan 15</div></div>')
    else:
        body += '<div class="empty">No items</div>'
    return page.doc(f"Files {title}", css, body)
