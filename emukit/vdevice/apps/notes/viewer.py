"""View mode: the document's Markdown rendered into a WebView, with long-press word selection and Copy.

What real Markor does (gsantner/markor@ab21754): ``DocumentEditAndViewFragment.updateViewModeText`` hands the
*editor's* text (not the file) to ``MarkdownTextConverter``, which renders it with flexmark 0.42.14 into HTML
shown in the WebView ``document__fragment_view_webview``. The soft line break is left at flexmark's default
(``MarkdownTextConverter.java:162`` keeps ``HtmlRenderer.SOFT_BREAK`` commented out) and lines only become
paragraphs of their own when ``pref_key__markdown_newline_newparagraph`` is on (``MarkdownTextConverter.java:
272-274``), which defaults to false (``preferences_master.xml:459-463``, ``AppSettings.java:181-183``). So
consecutive lines join into one ``<p>`` and show as one paragraph separated by spaces; a blank line starts a
new paragraph. No table of contents is added unless its levels are chosen (``AppSettings.java:185-196``).

The page itself (Chromium's accessibility nodes, word selection, the floating toolbar, Copy as HTML with a
plain-text item) is the kit's :mod:`emukit.vdevice.kit.webview`; the blocks come from
:mod:`emukit.vdevice.kit.markdown`. What is Markor's here: the WebView's id ``document__fragment_view_webview``,
the page's CSS paddings and the toolbar's labels (this table's ``text_copy`` / ``text_select_all``, the
framework's strings). The real toolbar also offers Share (and, where an app resolves it, Web search); they are
not drawn here. BACK is not handled by the page (Chromium's ``shouldPropagateKeyEvent`` keeps BACK from the
renderer), so it leaves the document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.notes.storage import T
from emukit.vdevice.kit import webview
from emukit.vdevice.kit.markdown import blocks
from emukit.vdevice.state import Activity
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, View

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["PAGE_LEFT_DP", "PAGE_TOP_DP", "blocks", "build", "on_back"]

# CSS pixels of Markor's page (TextConverterBase.HTML001_HEAD_WITH_BASESTYLE: html and body padding 4px 8px,
# plus the browser's 8px body margin)
PAGE_LEFT_DP = 24
PAGE_TOP_DP = 16


def on_back(act: Activity) -> bool:
    """BACK is not consumed by the page: the selection ends with the document."""
    act.state.pop("sel", None)
    return False


def build(device: VirtualDevice, act: Activity, area: Bounds, root: View, source: str) -> None:
    """Add the WebView showing ``source`` in ``area`` (and the selection toolbar) to ``root``."""
    style = webview.DocumentStyle(left_dp=PAGE_LEFT_DP, top_dp=PAGE_TOP_DP, bottom_px=theme.dp(PAGE_TOP_DP),
                                  copy_label=T.text("text_copy"), select_all_label=T.text("text_select_all"),
                                  host_id=T.rid("view_webview"))
    for view in webview.document(device, act.state, area, blocks(source), style):
        root.add(view)
