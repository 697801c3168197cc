"""The note body in view mode: the Markdown rendered into react-native-webview's WebView, with Chromium's
accessibility nodes, long-press word selection and the floating toolbar's Copy.

The page is the kit's (:mod:`emukit.vdevice.kit.webview`: blocks, their geometry, the paragraph / heading /
list-item nodes as Chromium reports them, word selection, the framework floating toolbar), as Markor's view mode
is. What is Joplin's: markdown-it renders with ``breaks`` on (``breaks: !softbreaks``, MdToHtml.ts:472, and
``markdown.softbreaks`` defaults to false, Setting.ts:1213), so a single newline inside a paragraph is a line
break, not a space; the WebView (this table's ``body_viewer``, class ``android.webkit.WebView``) has no id
(ExtendedWebView sets no testID, NoteBodyViewer.tsx:107-117); the page ends with paddingBottom 150; Copy and
Select all are this table's entries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.joplin.data import T
from emukit.vdevice.kit import webview
from emukit.vdevice.kit.markdown import BULLET_RE, FENCE_RE, HEADING_RE
from emukit.vdevice.kit.markdown import blocks as markdown_blocks
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

# the page's paddings: as Markor's page (not settled from Joplin's note-viewer CSS)
PAGE_LEFT_DP = 24
PAGE_TOP_DP = 16


def with_breaks(body: str) -> str:
    """The body as markdown-it with ``breaks`` reads it: a line followed by another line of the same paragraph
    ends in a hard break (written as two trailing spaces for the block parser)."""
    lines = body.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        if FENCE_RE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        joins = (not fenced and line.strip() and following.strip() and not HEADING_RE.match(line)
                 and not FENCE_RE.match(following) and not HEADING_RE.match(following)
                 and not BULLET_RE.match(following))
        out.append(line.rstrip() + "  " if joins else line)
    return "\n".join(out)


def blocks(body: str) -> list[webview.Block]:
    return markdown_blocks(with_breaks(body))


def build(device: VirtualDevice, act: Activity, area: Bounds, root: View, body: str) -> None:
    """Add the WebView showing ``body`` in ``area`` (and the selection toolbar while a word is selected)."""
    style = webview.DocumentStyle(left_dp=PAGE_LEFT_DP, top_dp=PAGE_TOP_DP,
                                  bottom_px=theme.dp(150),  # paddingBottom 150 (Note.tsx:1466-1468)
                                  copy_label=T.text("text_copy"), select_all_label=T.text("text_select_all"))
    for view in webview.document(device, act.state, area, blocks(body), style):
        root.add(view)
