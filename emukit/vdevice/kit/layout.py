"""A screen declared from the real layout XML: the nodes it nests, each naming a selector-table entry.

An app writes its layout once, as the XML nests it::

    EDITOR = N(cls="android.widget.ScrollView", entry="event_scrollview", children=(
        N(entry="event_title", h=56),
        N(entry="event_description", h=56),
        N(row=True, h=56, children=(N(entry="event_start_date"), N(entry="event_start_time", w=120))),
    ))

``entry`` gives the node's resource id, class and fixed text or content-desc from the table (so they are the
real app's); ``cls`` a class for a container the table does not name. Sizes are in dp: ``h`` a node's height
(0: the sum of its children's, or what is left for the last child), ``w`` a width inside a ``row`` (0: an even
share of what is left), ``pad`` an inset. :func:`inflate` lays the tree out top to bottom (rows left to right)
and binds each entry's dynamic part from ``bind``: ``{"event_title": {"text": ..., "on_text": ...}}`` sets those
:class:`~emukit.vdevice.ui.view.View` fields (``style`` keys are merged into the node's style). An EditText
entry is editable, focusable and long-clickable, so the window manager's editing (focus, caret, selection
handles, the floating text toolbar) works on it as on any field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from emukit.apps.selectors import SelectorTable
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.view import Bounds, Style, View

EDIT_TEXT = "android.widget.EditText"
_TEXT_CLASSES = {"android.widget.TextView", "android.widget.Button", EDIT_TEXT, "android.widget.CheckBox",
                 "android.widget.Switch", "android.widget.RadioButton"}


@dataclass(frozen=True)
class N:
    """One node of a layout."""

    entry: str = ""
    cls: str = ""
    h: int = 0
    w: int = 0
    pad: int = 0
    row: bool = False
    children: tuple[N, ...] = ()
    style: Style | None = None

    def height(self) -> int:
        """The node's height in dp (its own, else its children's)."""
        if self.h:
            return self.h
        if self.row:
            return max((c.height() for c in self.children), default=0) + 2 * self.pad
        return sum(c.height() for c in self.children) + 2 * self.pad


def _base_view(node: N, table: SelectorTable | None, bounds: Bounds) -> View:
    view = View(cls=node.cls or "android.widget.LinearLayout", bounds=bounds)
    if node.entry and table is not None:
        entry = table.entry(node.entry)
        view.resource_id = entry.resource_id or ""
        view.cls = entry.class_name or node.cls or view.cls
        view.content_desc = entry.description or ""
        if entry.text is not None and "{" not in entry.text:
            view.text = entry.text
    if node.style is not None:
        view.style = replace(node.style)
    elif view.cls in _TEXT_CLASSES:
        view.style = Style(fg=theme.TEXT, font_size=theme.TEXT_BODY_L, padding=theme.dp(16))
    if view.cls == EDIT_TEXT:
        view.editable = view.focusable = view.clickable = view.long_clickable = True
        view.key = view.resource_id or node.entry
        view.style.border, view.style.border_width = theme.OUTLINE, max(1, theme.dp(1))
    return view


def _bind(view: View, fields: Mapping[str, Any]) -> None:
    for key, value in fields.items():
        if key == "style":
            view.style = replace(view.style, **value)
        elif key == "children":
            view.children.extend(value)
        else:
            if not hasattr(view, key):
                raise AttributeError(f"a view has no field {key!r} to bind")
            setattr(view, key, value)
    if view.on_click is not None:
        view.clickable = True
    if view.on_long_click is not None:
        view.long_clickable = True


def inflate(node: N, bounds: Bounds, table: SelectorTable | None,
            bind: Mapping[str, Mapping[str, Any]] | None = None) -> View:
    """The view tree of ``node`` laid out in ``bounds`` with the table's ids, classes and strings; ``bind``
    sets each entry's dynamic fields (an entry bound to ``{"visible": False}`` is left out, as ``GONE``, and
    takes no room)."""
    bind = bind or {}
    view = _base_view(node, table, bounds)
    if node.entry in bind:
        _bind(view, bind[node.entry])
    left, top, right, bottom = bounds
    pad = theme.dp(node.pad)
    left, top, right, bottom = left + pad, top + pad, right - pad, bottom - pad
    shown = [c for c in node.children if bind.get(c.entry, {}).get("visible", True)]
    if node.row:
        fixed = sum(theme.dp(c.w) for c in shown if c.w)
        flexible = [c for c in shown if not c.w]
        share = (right - left - fixed) // max(1, len(flexible))
        x = left
        for i, child in enumerate(shown):
            width = theme.dp(child.w) if child.w else share
            x1 = right if i == len(shown) - 1 else x + width
            view.add(inflate(child, (x, top, x1, bottom), table, bind))
            x = x1
        return view
    y = top
    for i, child in enumerate(shown):
        height = theme.dp(child.height())
        last = i == len(shown) - 1
        y1 = bottom if last and not child.h and not child.children else min(bottom, y + height)
        view.add(inflate(child, (left, y, right, y1), table, bind))
        y = y1
    return view
