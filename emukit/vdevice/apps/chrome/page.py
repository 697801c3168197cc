"""A local page in Chrome's content area, as Chromium's accessibility tree reports it, with word selection and
Chromium's selection popup.

The nodes (content/browser/accessibility/browser_accessibility_android.cc, ui/accessibility/
ax_assistant_structure.cc; the table's web_* entries): the root web area as ``android.webkit.WebView`` whose text
is the page title, then one node per block: a text-only block as ``android.widget.TextView`` with its text, a text
``<input>`` as an editable ``android.widget.EditText`` (value as text, placeholder as hint), a ``<button>`` as
``android.widget.Button``. The blocks are laid out and selected with the kit's geometry and word rules
(:mod:`emukit.vdevice.kit.webview`: ``Layout``, ``select_word``, ``floating_toolbar``), as the WebViews of Markor
and Joplin are.

Selection (Chromium's touch selection): a long press on a word selects it and shows the floating toolbar with
Chromium's select_action_menu items for read-only text: Copy, Share, Select all, Web search. Copy puts the
selection on the clipboard as HTML with its plain text (ClipboardImpl's ``newHtmlText``) and ends the selection;
Select all selects the page's text; Share and Web search end the selection without touching the clipboard (the
share sheet and the search tab are not modelled); a tap on the page ends it.

Screen state: the activity's ``sel`` = ``{"block": i, "start": a, "end": b}`` or ``{"all": True}``; ``vscroll``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from emukit.vdevice.apps.chrome import data as D
from emukit.vdevice.kit.webview import (
    SELECTION,
    Block,
    Layout,
    copy_action,
    end_selection_action,
    floating_toolbar,
    select_all_action,
    select_word,
    selection_anchor,
)
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, Style, View

if TYPE_CHECKING:
    from emukit.vdevice.kit.app import Ctx

PAGE_LEFT_DP = 16
PAGE_TOP_DP = 16
CONTROL_DP = 48


def build(ctx: Ctx, area: Bounds, url: str) -> View:
    """The content view of the page at ``url`` inside ``area`` (and the selection toolbar when one shows)."""
    device, state = ctx.device, ctx.state
    page = D.load_page(device, url)
    tab = D.tab(device)
    inputs: dict[str, str] = tab.setdefault("inputs", {})
    left, top, right, bottom = area
    x0 = left + theme.dp(PAGE_LEFT_DP)
    width = right - left - 2 * theme.dp(PAGE_LEFT_DP)
    # geometry: text blocks wrap like Markor's paragraphs; inputs and buttons are one control high
    heights: list[int] = []
    layouts: list[Layout | None] = []
    for node in page.nodes:
        if node.kind in ("input", "button"):
            layouts.append(None)
            heights.append(theme.dp(CONTROL_DP))
        else:
            lay = Layout(Block(node.kind if node.kind in ("p", "li") or node.kind[:1] == "h" else "p", node.text),
                         width)
            layouts.append(lay)
            heights.append(lay.height)
    tops, y = [], theme.dp(PAGE_TOP_DP)
    for h in heights:
        tops.append(y)
        y += h + theme.dp(12)
    max_scroll = max(0, y + theme.dp(PAGE_TOP_DP) - (bottom - top))
    scroll = max(0, min(int(state.get("vscroll", 0)), max_scroll))
    sel = state.get("sel")

    def clear() -> None:
        state.pop("sel", None)

    def on_scroll(dy: int) -> None:
        state["vscroll"] = max(0, min(scroll + dy, max_scroll))

    host = View(cls="android.widget.FrameLayout", bounds=area, resource_id=D.T.rid("compositor_view_holder"),
                style=Style(bg=theme.BACKGROUND))
    root = View(cls=D.T.cls("web_root"), bounds=area, text=page.title, focusable=True,
                scrollable=max_scroll > 0, on_scroll=on_scroll if max_scroll > 0 else None,
                on_click=clear if sel else None)
    host.add(root)
    origins: dict[int, tuple[int, int]] = {}
    for i, (node, lay, block_top, h) in enumerate(zip(page.nodes, layouts, tops, heights, strict=True)):
        y_abs = top + block_top - scroll
        if y_abs + h <= top or y_abs >= bottom:
            continue
        box = (x0, y_abs, right - theme.dp(PAGE_LEFT_DP), y_abs + h)
        if node.kind == "input":
            root.add(_input(inputs, i, node, box))
        elif node.kind == "button":
            root.add(View(cls=D.T.cls("web_button"), bounds=(x0, y_abs, x0 + theme.dp(120), y_abs + h),
                          text=node.text, clickable=True, focusable=True, on_click=clear,
                          style=Style(bg=theme.SURFACE_VARIANT, radius=theme.dp(4), align="center",
                                      font_size=theme.TEXT_BODY)))
        else:
            assert lay is not None
            origins[i] = (x0, y_abs)
            picked = sel is not None and bool(sel.get("all") or sel.get("block") == i)
            root.add(_text(state, lay, i, box, picked))
    if sel is not None:
        toolbar = _toolbar(ctx, area, page, layouts, origins, sel)
        if toolbar is not None:
            host.add(toolbar)
    return host


def _input(inputs: dict[str, str], index: int, node: D.PageNode, box: Bounds) -> View:
    key = str(index)

    def put(text: str) -> None:
        inputs[key] = text

    return View(cls=D.T.cls("web_input"), bounds=box, text=inputs.get(key, node.text), hint=node.hint,
                editable=True, focusable=True, clickable=True, long_clickable=True, key=f"chrome-input-{index}",
                on_text=put, style=Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, padding=theme.dp(8),
                                         border=theme.OUTLINE, border_width=max(1, theme.dp(1))))


def _text(state: dict[str, Any], lay: Layout, index: int, box: Bounds, picked: bool) -> View:
    block = lay.block
    return View(cls=D.T.cls("web_text"), bounds=box, text=block.text,
                on_long_click_at=select_word(state, lay, index, (box[0], box[1])),
                style=Style(fg=theme.TEXT, font_size=block.size, bold=block.bold, valign="top",
                            max_lines=len(lay.rows), bg=SELECTION if picked else None))


def page_text(page: D.Page) -> str:
    return "\n".join(n.text for n in page.nodes if n.kind not in ("input", "button") and n.text)


def _toolbar(ctx: Ctx, area: Bounds, page: D.Page, layouts: list[Layout | None],
             origins: dict[int, tuple[int, int]], sel: dict[str, Any]) -> View | None:
    """Chromium's selection popup for read-only text: Copy, Share, Select all (while one word is selected),
    Web search."""
    state = ctx.state
    anchor = selection_anchor(area, layouts, origins, sel)
    if anchor is None:
        return None
    if sel.get("all"):
        text = page_text(page)
    else:
        lay = layouts[sel["block"]]
        assert lay is not None
        text = lay.block.text[sel["start"]:sel["end"]]
    dismiss = end_selection_action(state)
    items: list[tuple[str, Callable[[], None]]] = [(D.T.text("text_copy"), copy_action(ctx.device, state, text)),
                                                   (D.T.text("text_share"), dismiss)]
    if not sel.get("all"):
        items.append((D.T.text("text_select_all"), select_all_action(state)))
    items.append((D.T.text("text_web_search"), dismiss))
    return floating_toolbar(anchor, items, area)
