"""The view tree: one structure gives the uiautomator hierarchy, the pixels and input hit-testing.

Apps build a fresh tree of :class:`View` from their state whenever the screen is needed; behaviour is
attached as callbacks (never serialised), so the tree itself holds no state that a snapshot could miss.
Bounds are absolute screen pixels ``(left, top, right, bottom)``, right/bottom exclusive, like Android's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr as _quoteattr

Bounds = tuple[int, int, int, int]
Color = tuple[int, int, int]


def _body_text_size() -> int:
    """The default text size: the theme's body size on this display (40 px at 420 dpi)."""
    from emukit.vdevice.ui import theme

    return theme.TEXT_BODY


@dataclass
class Style:
    """How the renderer draws a view. Colours are RGB tuples; ``None`` means transparent / inherit. Sizes are
    pixels of the display (see :mod:`emukit.vdevice.ui.theme` for density-scaled values)."""

    bg: Color | None = None
    fg: Color = (33, 33, 33)
    font_size: int = field(default_factory=_body_text_size)
    bold: bool = False
    radius: int = 0
    border: Color | None = None
    border_width: int = 0
    align: str = "left"  # left | center | right
    valign: str = "center"  # top | center | bottom
    padding: int = 0
    icon: str | None = None  # name of a vector icon drawn by the renderer
    icon_color: Color | None = None
    icon_size: int | None = None
    max_lines: int = 1
    elevation: int = 0  # draws a soft shadow below cards and dialogs
    # additions used by the renderer (all optional) -------------------------------------------------
    bg_alpha: int = 255  # opacity of ``bg`` (a scrim is ``bg=(0, 0, 0), bg_alpha=130``)
    bg2: Color | None = None  # with ``bg``: vertical gradient from ``bg`` (top) to ``bg2`` (bottom)
    icon_pos: str = "left"  # left | top | right: where the icon goes when the view also shows text
    icon_bg: Color | None = None  # a filled circle drawn behind the icon (launcher icons, tonal buttons)
    show_desc: bool = False  # draw ``content_desc`` as the label when ``text`` is empty (keyboard keys)


@dataclass
class View:
    """A node of the UI tree, with the attributes uiautomator reports and the behaviour input needs."""

    cls: str = "android.widget.FrameLayout"
    bounds: Bounds = (0, 0, 0, 0)
    text: str = ""
    resource_id: str = ""
    content_desc: str = ""
    package: str = ""
    hint: str = ""
    clickable: bool = False
    long_clickable: bool = False
    focusable: bool = False
    focused: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    enabled: bool = True
    selected: bool = False
    password: bool = False
    editable: bool = False
    key: str = ""  # stable id used for focus of editable fields (defaults to resource_id)
    style: Style = field(default_factory=Style)
    children: list[View] = field(default_factory=list)
    visible: bool = True  # False keeps the node out of the hierarchy and the pixels
    # False: drawn but not a node of the hierarchy (what an app paints on a canvas, e.g. a month grid's numbers)
    in_hierarchy: bool = True
    # behaviour ----------------------------------------------------------------------------------
    on_click: Callable[[], object] | None = None
    on_long_click: Callable[[], object] | None = None
    on_text: Callable[[str], object] | None = None  # editable: the new full text
    on_drag: Callable[[int, int, int, int], object] | None = None  # (x1, y1, x2, y2) from this view
    on_scroll: Callable[[int], object] | None = None  # dy in px (positive = content moves up)
    on_long_click_at: Callable[[int, int], object] | None = None  # long press with coordinates
    on_submit: Callable[[], object] | None = None  # editable: IME action / ENTER on a single-line field

    # ------------------------------------------------------------------ tree helpers
    def add(self, *views: View) -> View:
        self.children.extend(views)
        return self

    def walk(self) -> Iterator[View]:
        """Visible nodes in document (pre-)order (an explicit stack: nested generators cost a frame per level
        for every node yielded)."""
        if not self.visible:
            return
        stack = [self]
        while stack:
            view = stack.pop()
            yield view
            stack.extend(child for child in reversed(view.children) if child.visible)

    @property
    def id_key(self) -> str:
        return self.key or self.resource_id

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2

    def hit_path(self, x: int, y: int) -> list[View]:
        """The chain of visible views under (x, y), root first; later siblings are on top."""
        if not self.visible or not self.contains(x, y):
            return []
        for child in reversed(self.children):
            path = child.hit_path(x, y)
            if path:
                return [self, *path]
        return [self]

    def find(self, pred: Callable[[View], bool]) -> View | None:
        return next((v for v in self.walk() if pred(v)), None)

    def find_all(self, pred: Callable[[View], bool]) -> list[View]:
        return [v for v in self.walk() if pred(v)]

    def fill_package(self, package: str) -> None:
        for v in self.walk():
            if not v.package:
                v.package = package


def _bool(value: bool) -> str:
    return "true" if value else "false"


# ``quoteattr`` remembered for short values: a dump quotes five attributes per node, nearly all of them values
# seen in the dumps before ("", class names, packages, ids, labels), and saxutils escapes each in Python (in a
# CPU profile of a build, the largest single cost of a dump). Longer values (a note's text) are quoted afresh,
# so the cache holds at most 8192 values of at most 256 characters.
_QUOTE_CACHED_CHARS = 256


@functools.lru_cache(maxsize=8192)
def _quoted(value: str) -> str:
    return _quoteattr(value)


def quoteattr(value: str) -> str:
    """``xml.sax.saxutils.quoteattr(value)``."""
    return _quoted(value) if len(value) <= _QUOTE_CACHED_CHARS else _quoteattr(value)


def _node_xml(view: View, index: int, depth: int, out: list[str], max_depth: int | None) -> None:
    left, top, right, bottom = view.bounds
    attrs = (
        f'index="{index}" text={quoteattr(view.text)} resource-id={quoteattr(view.resource_id)} '
        f'class={quoteattr(view.cls)} package={quoteattr(view.package)} '
        f'content-desc={quoteattr(view.content_desc)} checkable="{_bool(view.checkable)}" '
        f'checked="{_bool(view.checked)}" clickable="{_bool(view.clickable)}" '
        f'enabled="{_bool(view.enabled)}" focusable="{_bool(view.focusable or view.editable)}" '
        f'focused="{_bool(view.focused)}" scrollable="{_bool(view.scrollable)}" '
        f'long-clickable="{_bool(view.long_clickable)}" password="{_bool(view.password)}" '
        f'selected="{_bool(view.selected)}" hint={quoteattr(view.hint)} '
        f'bounds="[{left},{top}][{right},{bottom}]"'
    )
    pad = "  " * (depth + 1)
    children = [c for c in view.children if c.visible and c.in_hierarchy]
    if not children or (max_depth is not None and depth + 1 >= max_depth):
        out.append(f"{pad}<node {attrs} />")
        return
    out.append(f"{pad}<node {attrs}>")
    for i, child in enumerate(children):
        _node_xml(child, i, depth + 1, out, max_depth)
    out.append(f"{pad}</node>")


def hierarchy_xml(windows: list[View], rotation: int = 0, max_depth: int | None = None) -> str:
    """uiautomator's dump format: one ``<node>`` root per window, in window order."""
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<hierarchy rotation="{rotation}">']
    for i, window in enumerate(w for w in windows if w.visible):
        _node_xml(window, i, 0, out, max_depth)
    out.append("</hierarchy>")
    return "\n".join(out) + "\n"
