"""Markdown as a page of blocks: the subset of CommonMark the notes emukit writes use (ATX headings, bullet
and ordered list items with lazy continuation lines, fenced code, paragraphs), with inline markup flattened to
its text, for the WebViews of Markor's view mode and Joplin's note body (:mod:`.webview`).

Line breaks follow CommonMark: a line ending in two spaces or a backslash is a hard break (``\\n`` in the
block's text), any other line end inside a paragraph a soft break that reads as a space. A renderer with
``breaks`` on (Joplin's markdown-it) marks its soft breaks hard before the text comes here.
"""

from __future__ import annotations

import re

from emukit.vdevice.kit.webview import Block

HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
BULLET_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$")
FENCE_RE = re.compile(r"^ {0,3}(```|~~~)")
INLINE = [(re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"), (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),
          (re.compile(r"(?<!\w)([*_])(.+?)\1(?!\w)"), r"\2"), (re.compile(r"`([^`]*)`"), r"\1"),
          (re.compile(r"~~(.+?)~~"), r"\1")]


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
