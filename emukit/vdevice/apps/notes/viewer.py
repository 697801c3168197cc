"""The read-only view mode of a document: Markdown shown line by line, with word and line selection.

Every non-blank source line becomes one ``TextView`` (resource id ``net.gsantner.markor:id/source_line``);
headings are drawn larger and bold without their ``#`` marks, list items with a bullet instead of ``-``/``*``.
A long press on a line selects the word under the finger (a run of non-space characters, without leading
or trailing punctuation) and shows the floating toolbar *Copy* / *Select all*; *Select all* extends the
selection to the whole line (its displayed text). *Copy* puts the selection on the system clipboard (label
``markor``) and ends the selection; a tap anywhere else or BACK ends it without copying.

Screen state: ``act.state["sel"] = {"line": source line index, "start", "end"}`` (offsets in the line's
displayed text) and ``act.state["scroll"]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes.storage import rid
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui import widgets as w
from emukit.vdevice.ui.render import font, line_height, wrap
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

LINE_ID = rid("source_line")
VIEW_ID = rid("document__fragment_view_webview")
MARGIN = 56  # px between the screen edge and the text
PAD = 6  # px of padding inside each line view
GAP = 18  # px between blocks
BLANK_H = 40  # height of a blank source line
BULLET_W = 52
HEADING_SIZES = {1: 64, 2: 56, 3: 50, 4: 46, 5: 44, 6: 44}
PUNCTUATION = ".,;:!?\"'()[]{}<>*_`~\u201c\u201d\u2018\u2019\u00ab\u00bb"
HIGHLIGHT = theme.PRIMARY
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
BULLET_RE = re.compile(r"^(\s*)[-*+]\s+(.*)$")


@dataclass(frozen=True)
class Block:
    """How one source line is shown."""

    index: int  # source line number (0-based)
    text: str  # displayed text ("" for a blank line)
    size: int = theme.TEXT_BODY_L
    bold: bool = False
    bullet: bool = False


def blocks(source: str) -> list[Block]:
    """The displayed blocks of a Markdown document, one per source line."""
    out: list[Block] = []
    for i, line in enumerate(source.split("\n")):
        line = line.rstrip("\r")
        heading = HEADING_RE.match(line)
        bullet = BULLET_RE.match(line)
        if not line.strip():
            out.append(Block(i, ""))
        elif heading:
            out.append(Block(i, heading.group(2), HEADING_SIZES[len(heading.group(1))], bold=True))
        elif bullet:
            out.append(Block(i, bullet.group(2), bullet=True))
        else:
            out.append(Block(i, line))
    while out and not out[-1].text:
        out.pop()
    return out


def word_at(text: str, offset: int) -> tuple[int, int]:
    """The word around character ``offset`` (the nearest one when the offset is on a space)."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"\S+", text):
        a, b = m.start(), m.end()
        while a < b and text[a] in PUNCTUATION:
            a += 1
        while b > a and text[b - 1] in PUNCTUATION:
            b -= 1
        spans.append((a, b) if a < b else (m.start(), m.end()))
    if not spans:
        return 0, len(text)
    return min(spans, key=lambda s: 0 if s[0] <= offset < s[1] else min(abs(offset - s[0]), abs(offset - s[1] + 1)))


@lru_cache(maxsize=4096)
def _rows(text: str, size: int, bold: bool, width: int) -> tuple[tuple[int, str], ...]:
    """Word-wrapped rows of one line (a pure function of its arguments, memoised: wrapping is slow)."""
    return tuple(wrap(text, font(size, bold), width, 200)) if text else ()


class Layout:
    """Geometry of one block at a given text width: wrapped rows and their pixel positions."""

    def __init__(self, block: Block, width: int) -> None:
        self.block = block
        self.font = font(block.size, block.bold)
        self.lh = line_height(self.font)
        self.rows = _rows(block.text, block.size, block.bold, width)
        self.height = (len(self.rows) * self.lh + 2 * PAD + GAP) if block.text else BLANK_H

    def offset_at(self, x: int, y: int) -> int:
        """Character offset in the block's text under the point (relative to the text's top-left)."""
        row = max(0, min(len(self.rows) - 1, y // self.lh))
        start, text = self.rows[row]
        k = 0
        while k < len(text) and self.font.getlength(text[:k + 1]) <= x:
            k += 1
        return start + min(k, max(0, len(text) - 1))

    def spans(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """(row, x0, x1) pixel spans of the text range [start, end), relative to the text's left edge."""
        out = []
        for r, (rs, text) in enumerate(self.rows):
            a, b = max(start, rs), min(end, rs + len(text))
            if a < b:
                out.append((r, round(self.font.getlength(text[:a - rs])), round(self.font.getlength(text[:b - rs]))))
        return out


def on_back(act: Activity) -> bool:
    """BACK ends a selection (nothing is copied)."""
    if act.state.get("sel"):
        act.state.pop("sel")
        return True
    return False


def build(device: VirtualDevice, act: Activity, body: Bounds, root: View, source: str) -> None:
    """Add the view-mode content for ``source`` in ``body`` (and the selection toolbar) to ``root``."""
    shown = blocks(source)
    if not shown:
        empty = w.empty_state(body, "notes", "This document is empty. Switch to edit mode to write.")
        empty.children[-1].resource_id = rid("empty_hint")
        root.add(empty)
        return
    left, right = body[0], body[2]
    width = right - left - 2 * MARGIN
    sel = act.state.get("sel")
    layouts = [Layout(b, width - (BULLET_W if b.bullet else 0)) for b in shown]
    boxes: dict[int, tuple[int, int]] = {}  # source line -> (text x, text y) of the line's layout

    def make(layout: Layout) -> Callable[[int], View]:
        def row(y: int) -> View:
            block = layout.block
            box = View(cls="android.view.View", bounds=(left, y, right, y + layout.height))
            if not block.text:
                return box
            tx = left + MARGIN + (BULLET_W if block.bullet else 0)
            ty = y + PAD
            boxes[block.index] = (tx, ty)
            if block.bullet:
                box.add(w.label((left + MARGIN - 4, ty, tx, ty + layout.lh), "\u2022", size=block.size,
                                color=theme.TEXT_SECONDARY))
            picked = sel is not None and sel.get("line") == block.index
            if picked:
                for r, x0, x1 in layout.spans(sel["start"], sel["end"]):
                    box.add(View(bounds=(tx + x0 - 2, ty + r * layout.lh, tx + x1 + 2, ty + (r + 1) * layout.lh),
                                 style=Style(bg=HIGHLIGHT, bg_alpha=80, radius=4)))
            box.add(View(cls="android.widget.TextView", bounds=(tx - PAD, y, right - MARGIN + PAD,
                                                                 y + layout.height - GAP),
                         text=block.text, resource_id=LINE_ID, long_clickable=True, selected=picked,
                         on_long_click_at=lambda px, py: select_word(act, layout, px - tx, py - ty),
                         style=Style(fg=theme.TEXT, font_size=block.size, bold=block.bold, padding=PAD,
                                     valign="top", max_lines=len(layout.rows))))
            return box
        return row

    rows = [(layout.height, make(layout)) for layout in layouts]
    root.add(w.scroll_list(body, rows, act.state.get("scroll", 0), lambda v: act.state.update(scroll=v),
                           rid=VIEW_ID, cls="android.webkit.WebView", padding_bottom=96))
    if sel is not None:
        root.on_click = lambda: act.state.pop("sel", None)
        layout = next((lay for lay in layouts if lay.block.index == sel.get("line")), None)
        if layout is not None and sel.get("line") in boxes:
            root.add(_toolbar(device, act, body, layout, boxes[sel["line"]]))


def select_word(act: Activity, layout: Layout, x: int, y: int) -> None:
    """Long press at (x, y) relative to the line's text: select the word there."""
    start, end = word_at(layout.block.text, layout.offset_at(x, y))
    act.state["sel"] = {"line": layout.block.index, "start": start, "end": end}


def _toolbar(device: VirtualDevice, act: Activity, body: Bounds, layout: Layout, origin: tuple[int, int]) -> View:
    """Copy / Select all above the selection (below it when there is no room above)."""
    sel = act.state["sel"]
    text = layout.block.text
    spans = layout.spans(sel["start"], sel["end"]) or [(0, 0, 0)]
    row, x0, x1 = spans[0]
    tx, ty = origin
    top_y = ty + row * layout.lh
    last_row = spans[-1][0]
    bottom_y = ty + (last_row + 1) * layout.lh

    def copy() -> None:
        device.set_clip(text[sel["start"]:sel["end"]], label="markor")
        act.state.pop("sel", None)

    def select_all() -> None:
        act.state["sel"] = {"line": sel["line"], "start": 0, "end": len(text)}

    items = [("Copy", copy)]
    if (sel["start"], sel["end"]) != (0, len(text)):
        items.append(("Select all", select_all))
    anchor_x = tx + (x0 + x1) // 2 if len(spans) == 1 else (body[0] + body[2]) // 2
    height = 126 + 48
    anchor_y = top_y if top_y - height >= body[1] else bottom_y + height + 24
    bar = w.floating_toolbar(anchor_x, anchor_y, items, frame=body)
    bar.resource_id = rid("text_selection_toolbar")
    for button in bar.children:  # the framework's ids of the text actions (android.R.id.copy / selectAll)
        button.resource_id = {"Copy": "android:id/copy", "Select all": "android:id/selectAll"}[button.text]
    return bar
