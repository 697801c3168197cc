"""Web content as Chromium reports it: a page of text blocks in a WebView (Markor's view mode, Joplin's note
body) or in Chrome's content area, laid out, scrolled, selected and copied the way Chromium does.

The nodes (chromium ``content/browser/accessibility/browser_accessibility_android.cc``,
``BrowserAccessibilityAndroid::GetClassName`` / ``IsAndroidTextView``, and ``ui/accessibility/
ax_assistant_structure.cc``, ``AXRoleToAndroidClassName``): the WebView, then the page's root web area (also
``android.webkit.WebView``), then one node per block. A block that holds only text is an
``android.widget.TextView`` with its text spanning the block's full width, as a ``<p>`` box does; a heading is an
``android.view.View`` holding its anchor link (a ``View``) holding the text; a list item a ``View`` with its marker
and its text. Inline markup is flattened into the block's text (Chromium would expose an emphasised run as a child
node) and a list is not wrapped in a container node.

Selection follows Chromium's touch selection: a long press on a word selects it (word characters: letters,
digits and ``_``; a hyphen or punctuation ends a word, as ICU's word breaks do for the payloads used here) and
shows the framework's floating toolbar; a long press on empty space selects nothing; Select all selects the whole
page; a tap on the page ends the selection; Copy puts the selection on the clipboard as HTML with a plain-text
item (``ClipData.newHtmlText`` in chromium ``ui/android/java/src/org/chromium/ui/base/ClipboardImpl.java``) and
ends the selection. The selection lives in the activity's state: ``state["sel"]`` = ``{"block": i, "start": a,
"end": b}`` (offsets in block ``i``'s text) or ``{"all": True}``; ``state["vscroll"]`` is the page scroll in px.

Which blocks a page holds, its CSS paddings, the WebView's id and the toolbar's labels are the app's
(:mod:`emukit.vdevice.apps.notes.viewer`, :mod:`emukit.vdevice.apps.joplin.viewer`,
:mod:`emukit.vdevice.apps.chrome.page`); the geometry and the nodes are here, once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from emukit.vdevice.state import ClipState
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.render import font, line_height, wrap
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

WEBVIEW = "android.webkit.WebView"
BLOCK_VIEW = "android.view.View"
WORD_RE = re.compile(r"\w+")
# the default text: Markor's (16 CSS px at textZoom 15/15.7, gsantner/markor@ab21754 AppSettings.java:121-127),
# also used for Joplin's note body and Chrome's pages (their CSS sizes are not modelled); the browser's default
# heading sizes and list indent (h1 2em ... h6 0.67em, padding-inline-start 40px)
TEXT_DP = 15
HEADING_EM = {1: 2.0, 2: 1.5, 3: 1.17, 4: 1.0, 5: 0.83, 6: 0.67}
LIST_INDENT_DP = 40
SELECTION = (179, 211, 252)  # the selection highlight colour

Action = Callable[[], None]
Anchor = tuple[int, int, int]  # (centre x, top, bottom) of a selection


@dataclass(frozen=True)
class Block:
    """One block of a rendered page."""

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


def word_at(text: str, offset: int) -> tuple[int, int] | None:
    """The word containing character ``offset`` (None when the offset is not on a word)."""
    for m in WORD_RE.finditer(text):
        if m.start() <= offset < m.end():
            return m.start(), m.end()
    return None


def page_text(shown: Sequence[Block]) -> str:
    """The plain text of the whole page as a copy of it reads (blocks separated by a blank line)."""
    return "\n\n".join(b.text for b in shown if b.text)


def selected_text(shown: Sequence[Block], sel: dict[str, Any]) -> str:
    """The text a Copy of selection ``sel`` puts on the clipboard."""
    if sel.get("all"):
        return page_text(shown)
    return shown[sel["block"]].text[sel["start"]:sel["end"]]


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


def stack(layouts: Sequence[Layout], top_px: int) -> tuple[list[int], int]:
    """The blocks' tops and the bottom of the last block's margin: block margins collapse between blocks (the
    larger one separates two blocks), as CSS block margins do; the page starts ``top_px`` down."""
    tops: list[int] = []
    y, prev_margin = top_px, 0
    for lay in layouts:
        y += max(lay.margin, prev_margin) if tops else lay.margin
        tops.append(y)
        y += lay.height
        prev_margin = lay.margin
    return tops, y + prev_margin


def select_word(state: dict[str, Any], lay: Layout, index: int, text_origin: tuple[int, int]) -> Callable[[int, int], None]:
    """The long-press handler of block ``index`` whose text starts at ``text_origin``: it selects the word
    under the press (nothing on empty space)."""

    def select(px: int, py: int) -> None:
        offset = lay.offset_at(px - text_origin[0], py - text_origin[1])
        word = word_at(lay.block.text, offset) if offset is not None else None
        if word is not None:
            state["sel"] = {"block": index, "start": word[0], "end": word[1]}

    return select


def block_view(state: dict[str, Any], lay: Layout, index: int, box: Bounds, tx: int, picked: bool,
               on_anchor: Action) -> View:
    """One block's nodes: a paragraph TextView, a heading View > link View > text (the link runs
    ``on_anchor``), or a list item. A selected block is tinted as a whole (the highlight is paint, not a node, so
    the block keeps its place in the dump)."""
    block = lay.block
    text_style = Style(fg=theme.TEXT, font_size=block.size, bold=block.bold, valign="top",
                       max_lines=len(lay.rows), bg=SELECTION if picked else None)
    select = select_word(state, lay, index, (tx, box[1]))
    text_box = (tx, box[1], box[2], box[3])
    if block.kind.startswith("h"):
        heading = View(cls=BLOCK_VIEW, bounds=box)
        link = View(cls=BLOCK_VIEW, bounds=text_box, clickable=True, focusable=True, on_click=on_anchor)
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


def selection_anchor(area: Bounds, layouts: Sequence[Layout | None], origins: dict[int, tuple[int, int]],
                     sel: dict[str, Any]) -> Anchor | None:
    """Where the floating toolbar of selection ``sel`` attaches; None when the selected block is scrolled out
    of sight (the toolbar hides with its selection)."""
    if sel.get("all"):
        return (area[0] + area[2]) // 2, area[1] + theme.dp(8), area[1] + theme.dp(8)
    i = sel.get("block", -1)
    lay = layouts[i] if isinstance(i, int) and 0 <= i < len(layouts) else None
    if i not in origins or lay is None:
        return None
    spans = lay.spans(sel["start"], sel["end"]) or [(0, 0, 0)]
    tx, ty = origins[i]
    row, a, b = spans[0]
    return tx + (a + b) // 2, ty + row * lay.lh, ty + (spans[-1][0] + 1) * lay.lh


def copy_action(device: VirtualDevice, state: dict[str, Any], text: str) -> Action:
    """Copy: the selection on the clipboard as HTML with its plain text; the selection ends."""

    def copy() -> None:
        device.state.clip = ClipState(label="html", text=text, mime_type="text/html")
        state.pop("sel", None)

    return copy


def select_all_action(state: dict[str, Any]) -> Action:
    def select_all() -> None:
        state["sel"] = {"all": True}

    return select_all


def end_selection_action(state: dict[str, Any]) -> Action:
    """An item that leaves the page (Share, Web search: not modelled) and ends the selection."""

    def end() -> None:
        state.pop("sel", None)

    return end


def floating_toolbar(anchor: Anchor, items: Sequence[tuple[str, Action]], frame: Bounds) -> View:
    """The framework's floating toolbar for a selection spanning ``anchor``: a row of items, each a clickable
    LinearLayout (content-desc = title) holding the title TextView ``android:id/floating_toolbar_menu_item_text``
    (frameworks/base ``floating_popup_menu_button.xml``); above the selection, or below it without room above."""
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


@dataclass(frozen=True)
class DocumentStyle:
    """What an app's page sets: its CSS paddings (dp), the space below the last block (px), the WebView's
    resource id ("" when the app sets none) and the toolbar's Copy and Select all labels."""

    left_dp: int
    top_dp: int
    bottom_px: int
    copy_label: str
    select_all_label: str
    host_id: str = ""


def document(device: VirtualDevice, state: dict[str, Any], area: Bounds, shown: Sequence[Block],
             style: DocumentStyle) -> list[View]:
    """A document's blocks in a WebView filling ``area``: the WebView (scrollable when the page is taller than
    the area) with its root web area and the visible blocks' nodes, then, while a selection shows, the floating
    toolbar with Copy (and Select all while one word is selected)."""
    left, top, right, bottom = area
    x0 = left + theme.dp(style.left_dp)
    width = right - left - 2 * theme.dp(style.left_dp)
    layouts = [Layout(b, width) for b in shown]
    tops, end = stack(layouts, theme.dp(style.top_dp))
    max_scroll = max(0, end + style.bottom_px - (bottom - top))
    scroll = max(0, min(int(state.get("vscroll", 0)), max_scroll))
    sel = state.get("sel")
    clear = end_selection_action(state)

    def on_scroll(dy: int) -> None:
        state["vscroll"] = max(0, min(scroll + dy, max_scroll))

    host = View(cls=WEBVIEW, bounds=area, resource_id=style.host_id, scrollable=max_scroll > 0,
                focusable=True, on_scroll=on_scroll if max_scroll > 0 else None,
                on_click=clear if sel else None, style=Style(bg=theme.BACKGROUND))
    web_area = View(cls=WEBVIEW, bounds=area)
    host.add(web_area)
    origins: dict[int, tuple[int, int]] = {}
    for i, (lay, block_top) in enumerate(zip(layouts, tops, strict=True)):
        y_abs = top + block_top - scroll
        if y_abs + lay.height <= top or y_abs >= bottom:
            continue
        tx = x0 + lay.indent

        def jump(i: int = i) -> None:  # a heading's anchor link scrolls the page to it
            state.pop("sel", None)
            state["vscroll"] = max(0, tops[i] - theme.dp(style.top_dp))

        origins[i] = (tx, y_abs)
        picked = sel is not None and bool(sel.get("all") or sel.get("block") == i)
        web_area.add(block_view(state, lay, i, (x0, y_abs, right - theme.dp(style.left_dp), y_abs + lay.height),
                                tx, picked, jump))
    out = [host]
    anchor = selection_anchor(area, layouts, origins, sel) if sel is not None else None
    if sel is not None and anchor is not None:
        items: list[tuple[str, Action]] = [(style.copy_label, copy_action(device, state, selected_text(shown, sel)))]
        if not sel.get("all"):
            items.append((style.select_all_label, select_all_action(state)))
        out.append(floating_toolbar(anchor, items, area))
    return out
