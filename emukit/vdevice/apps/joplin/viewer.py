"""The note body in view mode: the Markdown rendered into react-native-webview's WebView, with Chromium's
accessibility nodes, long-press word selection and the floating toolbar's Copy.

The page is built with the same pieces as Markor's view mode (:mod:`emukit.vdevice.apps.notes.viewer`: blocks,
their geometry, the paragraph / heading / list-item nodes, the framework floating toolbar), so both WebViews
report their text the way Chromium does (``BrowserAccessibilityAndroid::GetClassName``: a text-only paragraph is
an ``android.widget.TextView``; the WebView and its root web area are ``android.webkit.WebView``). What differs
is Joplin's: markdown-it renders with ``breaks`` on (``breaks: !softbreaks``, MdToHtml.ts:472, and
``markdown.softbreaks`` defaults to false, Setting.ts:1213), so a single newline inside a paragraph is a line
break, not a space; the WebView has no id (ExtendedWebView sets no testID, NoteBodyViewer.tsx:107-117); Copy and
Select all are this table's entries. The selection state is ``act.state["sel"]`` / ``act.state["vscroll"]`` as in
Markor's page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from emukit.vdevice.apps.joplin.data import T
from emukit.vdevice.apps.notes import viewer as page
from emukit.vdevice.state import Activity, ClipState
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

WEBVIEW = T.cls("body_viewer")


def with_breaks(body: str) -> str:
    """The body as markdown-it with ``breaks`` reads it: a line followed by another line of the same paragraph
    ends in a hard break (written as two trailing spaces for the block parser)."""
    lines = body.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        if page.FENCE_RE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        joins = (not fenced and line.strip() and following.strip() and not page.HEADING_RE.match(line)
                 and not page.FENCE_RE.match(following) and not page.HEADING_RE.match(following)
                 and not page.BULLET_RE.match(following))
        out.append(line.rstrip() + "  " if joins else line)
    return "\n".join(out)


def blocks(body: str) -> list[page.Block]:
    return page.blocks(with_breaks(body))


def build(device: VirtualDevice, act: Activity, area: Bounds, root: View, body: str) -> None:
    """Add the WebView showing ``body`` in ``area`` (and the selection toolbar while a word is selected)."""
    shown = blocks(body)
    left, top, right, bottom = area
    x0 = left + theme.dp(page.PAGE_LEFT_DP)
    width = right - left - 2 * theme.dp(page.PAGE_LEFT_DP)
    layouts = [page.Layout(b, width) for b in shown]
    tops: list[int] = []
    y, prev_margin = theme.dp(page.PAGE_TOP_DP), 0
    for lay in layouts:  # CSS block margins collapse: the larger one separates two blocks
        y += max(lay.margin, prev_margin) if tops else lay.margin
        tops.append(y)
        y += lay.height
        prev_margin = lay.margin
    total = y + prev_margin + theme.dp(150)  # paddingBottom 150 (Note.tsx:1466-1468)
    max_scroll = max(0, total - (bottom - top))
    scroll = max(0, min(int(act.state.get("vscroll", 0)), max_scroll))
    sel = act.state.get("sel")

    def clear() -> None:
        act.state.pop("sel", None)

    def on_scroll(dy: int) -> None:
        act.state["vscroll"] = max(0, min(scroll + dy, max_scroll))

    host = View(cls=WEBVIEW, bounds=area, scrollable=max_scroll > 0, focusable=True,
                on_scroll=on_scroll if max_scroll > 0 else None, on_click=clear if sel else None,
                style=Style(bg=theme.BACKGROUND))
    web_area = View(cls=WEBVIEW, bounds=area)
    host.add(web_area)
    origins: dict[int, tuple[int, int]] = {}
    for i, (lay, block_top) in enumerate(zip(layouts, tops, strict=True)):
        y_abs = top + block_top - scroll
        if y_abs + lay.height <= top or y_abs >= bottom:
            continue
        tx = x0 + lay.indent
        origins[i] = (tx, y_abs)
        picked = sel is not None and bool(sel.get("all") or sel.get("block") == i)
        web_area.add(page._block_view(act, lay, i, (x0, y_abs, right - theme.dp(page.PAGE_LEFT_DP),
                                                    y_abs + lay.height), tx, picked, tops, clear))
    root.add(host)
    if sel is not None:
        bar = _toolbar(device, act, area, shown, layouts, origins, sel)
        if bar is not None:
            root.add(bar)


def selected_text(shown: list[page.Block], sel: dict) -> str:
    if sel.get("all"):
        return page.page_text(shown)
    block = shown[sel["block"]]
    return block.text[sel["start"]:sel["end"]]


def _toolbar(device: VirtualDevice, act: Activity, area: Bounds, shown: list[page.Block],
             layouts: list[page.Layout], origins: dict[int, tuple[int, int]], sel: dict) -> View | None:
    """Chromium's selection popup (the framework floating toolbar): Copy, and Select all while one word is
    selected; Copy puts the selection on the clipboard as HTML with its plain text and ends the selection."""
    if sel.get("all"):
        anchor = ((area[0] + area[2]) // 2, area[1] + theme.dp(8), area[1] + theme.dp(8))
    else:
        i = sel.get("block", -1)
        if i not in origins:
            return None
        lay = layouts[i]
        spans = lay.spans(sel["start"], sel["end"]) or [(0, 0, 0)]
        tx, ty = origins[i]
        row, a, b = spans[0]
        anchor = (tx + (a + b) // 2, ty + row * lay.lh, ty + (spans[-1][0] + 1) * lay.lh)
    text = selected_text(shown, sel)

    def copy() -> None:
        device.state.clip = ClipState(label="html", text=text, mime_type="text/html")
        act.state.pop("sel", None)

    def select_all() -> None:
        act.state["sel"] = {"all": True}

    items: list[tuple[str, Callable[[], None]]] = [(T.text("text_copy"), copy)]
    if not sel.get("all"):
        items.append((T.text("text_select_all"), select_all))
    return page.floating_toolbar(anchor, items, area)
