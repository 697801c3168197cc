"""View mode: the document's Markdown rendered into a WebView, with long-press word selection and Copy.

What real Markor does (gsantner/markor@ab21754): ``DocumentEditAndViewFragment.updateViewModeText`` hands the
*editor's* text (not the file) to ``MarkdownTextConverter``, which renders it with flexmark 0.42.14 into HTML
shown in the WebView ``document__fragment_view_webview``. The soft line break is left at flexmark's default
(``MarkdownTextConverter.java:162`` keeps ``HtmlRenderer.SOFT_BREAK`` commented out) and lines only become
paragraphs of their own when ``pref_key__markdown_newline_newparagraph`` is on (``MarkdownTextConverter.java:
272-274``), which defaults to false (``preferences_master.xml:459-463``, ``AppSettings.java:181-183``). So
consecutive lines join into one ``<p>`` and show as one paragraph separated by spaces; a blank line starts a
new paragraph. No table of contents is added unless its levels are chosen (``AppSettings.java:185-196``).

How a dump shows it (Chromium's accessibility tree under the WebView): the WebView itself, then the page's
root web area (also ``android.webkit.WebView``: ``AXRoleToAndroidClassName`` in
chromium ``ui/accessibility/ax_assistant_structure.cc``), then one node per block. A paragraph that holds
only text is reported as an ``android.widget.TextView`` with the paragraph's text
(``BrowserAccessibilityAndroid::GetClassName`` / ``IsAndroidTextView`` in
``content/browser/accessibility/browser_accessibility_android.cc``); headings are ``android.view.View``
holding their anchor link (``AnchorLinkExtension`` wraps the heading text, ``MarkdownTextConverter.java:
179-181``), a list item an ``android.view.View`` with its marker and its text. Each paragraph node spans its
block's full width, as a ``<p>`` box does. Simplifications: a list is not wrapped in its own container node,
and inline markup is flattened into the paragraph's text (Chromium would expose an emphasised run as a child
node).

Selection follows Chromium's touch behaviour: a long press on a word selects that word (word characters:
letters, digits and ``_``; a hyphen or punctuation ends a word, as ICU's word breaks do for the payloads used
here) and shows the floating toolbar with Copy and Select all; a long press on empty space selects nothing;
Select all selects the whole page; any tap on the page ends the selection; Copy puts the selected text on
the clipboard as HTML with a plain-text item (``ClipData.newHtmlText("html", text, html)`` in chromium
``ui/android/java/src/org/chromium/ui/base/ClipboardImpl.java``) and ends the selection. BACK is not handled
by the page (Chromium's ``shouldPropagateKeyEvent`` keeps BACK from the renderer), so it leaves the document.
The real toolbar also offers Share (and, where an app resolves it, Web search); they are not drawn here.

Screen state: ``act.state["sel"]`` = ``{"block": i, "start": a, "end": b}`` (offsets in block ``i``'s text) or
``{"all": True}``; ``act.state["vscroll"]`` the page scroll in px.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.state import Activity, ClipState
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.render import font, line_height, wrap
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

WEBVIEW = "android.webkit.WebView"
BLOCK_VIEW = "android.view.View"
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
BULLET_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
WORD_RE = re.compile(r"\w+")
INLINE = [(re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"), (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),
          (re.compile(r"(?<!\w)([*_])(.+?)\1(?!\w)"), r"\2"), (re.compile(r"`([^`]*)`"), r"\1"),
          (re.compile(r"~~(.+?)~~"), r"\1")]

# CSS pixels of Markor's page (TextConverterBase.HTML001_HEAD_WITH_BASESTYLE: html and body padding 4px 8px,
# plus the browser's 8px body margin) and of the default text (16px at textZoom 15/15.7, AppSettings.java:121-127)
PAGE_LEFT_DP = 24
PAGE_TOP_DP = 16
TEXT_DP = 15
HEADING_EM = {1: 2.0, 2: 1.5, 3: 1.17, 4: 1.0, 5: 0.83, 6: 0.67}
LIST_INDENT_DP = 40
SELECTION = (179, 211, 252)  # the selection highlight colour


@dataclass(frozen=True)
class Block:
    """One block of the rendered page."""

    kind: str  # "p", "h1".."h6", "li", "pre"
    text: str
    anchor: str = ""  # a heading's generated id

    @property
    def size(self) -> int:
        em = HEADING_EM.get(int(self.kind[1]), 1.0) if self.kind[0] == "h" and self.kind != "h" else 1.0
        return theme.dp(TEXT_DP * em)

    @property
    def bold(self) -> bool:
        return self.kind.startswith("h")


def _inline(text: str) -> str:
    for pattern, repl in INLINE:
        text = pattern.sub(repl, text)
    return text


def _anchor(text: str) -> str:
    """flexmark's generated header id: lower case, spaces to dashes, other punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-")


def blocks(source: str) -> list[Block]:
    """The page's blocks for a Markdown document (the subset the notebook's notes use)."""
    out: list[Block] = []
    para: list[str] = []
    item: list[str] | None = None
    code: list[str] | None = None

    def flush() -> None:
        nonlocal para, item
        if para:
            out.append(Block("p", _join(para)))
            para = []
        if item is not None:
            out.append(Block("li", _join(item)))
            item = None

    for raw in source.replace("\r\n", "\n").split("\n"):
        if code is not None:
            if FENCE_RE.match(raw):
                out.append(Block("pre", "\n".join(code)))
                code = None
            else:
                code.append(raw)
            continue
        if FENCE_RE.match(raw):
            flush()
            code = []
            continue
        if not raw.strip():
            flush()
            continue
        heading, bullet = HEADING_RE.match(raw), BULLET_RE.match(raw)
        if heading:
            flush()
            text = _inline(heading.group(2) or "")
            out.append(Block(f"h{len(heading.group(1))}", text, _anchor(text)))
        elif bullet:
            flush()
            item = [bullet.group(1)]
        elif item is not None:
            item.append(raw)  # a lazy continuation line of the list item
        else:
            para.append(raw)
    if code is not None:
        out.append(Block("pre", "\n".join(code)))
    flush()
    return out


def _join(lines: list[str]) -> str:
    """Lines of one paragraph: a soft break shows as a space, two trailing spaces (or a backslash) as a
    hard line break."""
    text = ""
    for i, line in enumerate(lines):
        hard = line.endswith(("  ", "\\"))
        body = line.rstrip("\\").strip() if hard else line.strip()
        text += _inline(body)
        if i < len(lines) - 1:
            text += "\n" if hard else " "
    return text


def word_at(text: str, offset: int) -> tuple[int, int] | None:
    """The word containing character ``offset`` (None when the offset is not on a word)."""
    for m in WORD_RE.finditer(text):
        if m.start() <= offset < m.end():
            return m.start(), m.end()
    return None


def page_text(shown: list[Block]) -> str:
    """The plain text of the whole page as a copy of it reads (blocks separated by a blank line)."""
    return "\n\n".join(b.text for b in shown if b.text)


@lru_cache(maxsize=4096)
def _rows(text: str, size: int, bold: bool, width: int) -> tuple[tuple[int, str], ...]:
    """Word-wrapped rows of one block (memoised: wrapping is slow)."""
    return tuple(wrap(text, font(size, bold), width, 400)) if text else ()


class Layout:
    """Geometry of one block: its wrapped rows, line height and margins."""

    def __init__(self, block: Block, width: int) -> None:
        self.block = block
        self.font = font(block.size, block.bold)
        self.lh = round(line_height(self.font) * 1.1)
        self.indent = theme.dp(LIST_INDENT_DP) if block.kind == "li" else 0
        self.rows = _rows(block.text, block.size, block.bold, max(1, width - self.indent)) or ((0, ""),)
        self.margin = 0 if block.kind == "li" else round(block.size * (0.67 if block.kind == "h1" else 1.0))
        self.height = len(self.rows) * self.lh + (theme.dp(6) if block.kind == "h1" else 0)

    def offset_at(self, x: int, y: int) -> int | None:
        """Character offset in the block's text under (x, y) relative to the text's top-left; None past the
        end of a row or outside the rows."""
        row = y // self.lh
        if x < 0 or not 0 <= row < len(self.rows):
            return None
        start, text = self.rows[row]
        for k in range(len(text)):
            if self.font.getlength(text[:k + 1]) > x:
                return start + k
        return None

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """(row, x0, x1) pixel spans of [start, end) relative to the text's left edge."""
        out = []
        for r, (rs, text) in enumerate(self.rows):
            a, b = max(start, rs), min(end, rs + len(text))
            if a < b:
                out.append((r, round(self.font.getlength(text[:a - rs])), round(self.font.getlength(text[:b - rs]))))
        return out


def on_back(act: Activity) -> bool:
    """BACK is not consumed by the page: the selection ends with the document."""
    act.state.pop("sel", None)
    return False


def build(device: VirtualDevice, act: Activity, area: Bounds, root: View, source: str) -> None:
    """Add the WebView showing ``source`` in ``area`` (and the selection toolbar) to ``root``."""
    shown = blocks(source)
    left, top, right, bottom = area
    x0 = left + theme.dp(PAGE_LEFT_DP)
    width = right - left - 2 * theme.dp(PAGE_LEFT_DP)
    layouts = [Layout(b, width) for b in shown]
    # positions: margins collapse between blocks (the larger one wins), as CSS block margins do
    tops: list[int] = []
    y, prev_margin = theme.dp(PAGE_TOP_DP), 0
    for lay in layouts:
        y += max(lay.margin, prev_margin) if tops else lay.margin
        tops.append(y)
        y += lay.height
        prev_margin = lay.margin
    total = y + prev_margin + theme.dp(PAGE_TOP_DP)
    max_scroll = max(0, total - (bottom - top))
    scroll = max(0, min(int(act.state.get("vscroll", 0)), max_scroll))
    sel = act.state.get("sel")

    def clear() -> None:
        act.state.pop("sel", None)

    def on_scroll(dy: int) -> None:
        act.state["vscroll"] = max(0, min(scroll + dy, max_scroll))

    host = View(cls=WEBVIEW, bounds=area, resource_id=T.rid("view_webview"), scrollable=max_scroll > 0,
                focusable=True, on_scroll=on_scroll if max_scroll > 0 else None,
                on_click=clear if sel else None, style=Style(bg=theme.BACKGROUND))
    page = View(cls=WEBVIEW, bounds=area)
    host.add(page)
    origins: dict[int, tuple[int, int]] = {}
    for i, (lay, block_top) in enumerate(zip(layouts, tops, strict=True)):
        y_abs = top + block_top - scroll
        if y_abs + lay.height <= top or y_abs >= bottom:
            continue
        tx = x0 + lay.indent
        origins[i] = (tx, y_abs)
        picked = sel is not None and bool(sel.get("all") or sel.get("block") == i)
        page.add(_block_view(act, lay, i, (x0, y_abs, right - theme.dp(PAGE_LEFT_DP), y_abs + lay.height), tx,
                             picked, tops, clear))
    root.add(host)
    if sel is not None:
        toolbar = _toolbar(device, act, area, shown, layouts, origins, sel)
        if toolbar is not None:
            root.add(toolbar)


def _block_view(act: Activity, lay: Layout, index: int, box: Bounds, tx: int, picked: bool,
                tops: list[int], clear: Callable[[], None]) -> View:
    """One block's nodes: a paragraph TextView, a heading View > link View > text, or a list item. A selected
    block is tinted as a whole (the highlight is paint, not a node, so the block keeps its place in the dump)."""
    block = lay.block
    text_style = Style(fg=theme.TEXT, font_size=block.size, bold=block.bold, valign="top",
                       max_lines=len(lay.rows), bg=SELECTION if picked else None)

    def select(px: int, py: int) -> None:
        offset = lay.offset_at(px - tx, py - box[1])
        word = word_at(block.text, offset) if offset is not None else None
        if word is not None:
            act.state["sel"] = {"block": index, "start": word[0], "end": word[1]}

    text_box = (tx, box[1], box[2], box[3])
    if block.kind.startswith("h"):
        def jump() -> None:
            clear()
            act.state["vscroll"] = max(0, tops[index] - theme.dp(PAGE_TOP_DP))

        heading = View(cls=BLOCK_VIEW, bounds=box)
        link = View(cls=BLOCK_VIEW, bounds=text_box, clickable=True, focusable=True, on_click=jump)
        link.add(View(cls="android.widget.TextView", bounds=text_box, text=block.text, on_long_click_at=select,
                      style=text_style))
        return heading.add(link)
    if block.kind == "li":
        item = View(cls=BLOCK_VIEW, bounds=box)
        item.add(View(cls=BLOCK_VIEW, bounds=(box[0] + lay.indent - theme.dp(14), box[1],
                                                             box[0] + lay.indent, box[1] + lay.lh), text="\u2022",
                      style=Style(fg=theme.TEXT, font_size=block.size)))
        item.add(View(cls="android.widget.TextView", bounds=text_box, text=block.text, on_long_click_at=select,
                      style=text_style))
        return item
    return View(cls="android.widget.TextView", bounds=box, text=block.text, on_long_click_at=select,
                style=text_style)


def _toolbar(device: VirtualDevice, act: Activity, area: Bounds, shown: list[Block], layouts: list[Layout],
             origins: dict[int, tuple[int, int]], sel: dict) -> View | None:
    """The floating text toolbar (Copy, Select all) above the selection, or below it without room above."""
    if sel.get("all"):
        text = page_text(shown)
        anchor = ((area[0] + area[2]) // 2, area[1] + theme.dp(8), area[1] + theme.dp(8))
    else:
        i = sel.get("block", -1)
        if i not in origins:
            return None  # scrolled out of sight: the toolbar hides with its selection
        lay = layouts[i]
        text = lay.block.text[sel["start"]:sel["end"]]
        spans = lay.spans(sel["start"], sel["end"]) or [(0, 0, 0)]
        tx, ty = origins[i]
        row, a, b = spans[0]
        anchor = (tx + (a + b) // 2, ty + row * lay.lh, ty + (spans[-1][0] + 1) * lay.lh)

    def copy() -> None:
        device.state.clip = ClipState(label="html", text=text, mime_type="text/html")
        act.state.pop("sel", None)

    def select_all() -> None:
        act.state["sel"] = {"all": True}

    items: list[tuple[str, Callable[[], None]]] = [(T.text("text_copy"), copy)]
    if not sel.get("all"):
        items.append((T.text("text_select_all"), select_all))
    return floating_toolbar(anchor, items, area)


def floating_toolbar(anchor: tuple[int, int, int], items: list[tuple[str, Callable[[], None]]],
                     frame: Bounds) -> View:
    """The framework's floating toolbar for a selection spanning ``anchor`` = (centre x, top, bottom): a row of
    items, each a clickable LinearLayout (content-desc = title) holding the title TextView
    ``android:id/floating_toolbar_menu_item_text`` (frameworks/base ``floating_popup_menu_button.xml``)."""
    f = font(theme.dp(14))
    pad = theme.dp(16)
    widths = [int(f.getlength(title)) + 2 * pad for title, _ in items]
    height = theme.dp(48)
    width = sum(widths) + theme.dp(8)
    cx, sel_top, sel_bottom = anchor
    x0 = max(frame[0] + theme.dp(8), min(cx - width // 2, frame[2] - theme.dp(8) - width))
    y0 = sel_top - height - theme.dp(8)
    if y0 < frame[1]:
        y0 = sel_bottom + theme.dp(24)  # below the selection, clear of its handles
    bar = View(cls="android.widget.LinearLayout", bounds=(x0, y0, x0 + width, y0 + height),
               style=Style(bg=theme.SURFACE, radius=theme.dp(12), elevation=8))
    x = x0 + theme.dp(4)
    for (title, callback), w in zip(items, widths, strict=True):
        button = View(cls="android.widget.LinearLayout", bounds=(x, y0, x + w, y0 + height), content_desc=title,
                      clickable=True, focusable=True, on_click=callback)
        button.add(View(cls="android.widget.TextView", bounds=(x, y0, x + w, y0 + height), text=title,
                        resource_id="android:id/floating_toolbar_menu_item_text",
                        style=Style(fg=theme.TEXT, font_size=theme.dp(14), align="center")))
        bar.add(button)
        x += w
    return bar
