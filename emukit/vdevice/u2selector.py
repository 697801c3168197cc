"""UiSelector matching for the virtual uiautomator2 server.

uiautomator2 sends a selector as the JSON form of its ``Selector`` dict: attribute criteria (``text``,
``resourceIdMatches``, ``clickable``...), a ``mask`` whose bits say which criteria are set, and the parallel
lists ``childOrSibling`` / ``childOrSiblingSelector`` built by ``child()`` and ``sibling()``.

Matching runs over the *composed screen*: every window of :meth:`WindowManager.windows`, each walked in
document (pre-)order, the same nodes and order as the hierarchy dump. ``index`` is a node's position among
its parent's visible children (a window root's is its window position); ``instance`` picks the n-th match.
A ``child`` criterion searches the descendants of the nodes matched so far, a ``sibling`` criterion the
descendants of their parents (the search starts from the parent, as ``UiSelector.fromParent`` does).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from emukit.vdevice.ui.view import Bounds, View


class SelectorError(ValueError):
    """The selector JSON is malformed (wrong type, bad regular expression...)."""


# uiautomator2 field name -> (mask bit, name in UiSelector.toString())
FIELDS: dict[str, tuple[int, str]] = {
    "text": (0x01, "TEXT"),
    "textContains": (0x02, "CONTAINS_TEXT"),
    "textMatches": (0x04, "PATTERN_TEXT"),
    "textStartsWith": (0x08, "START_TEXT"),
    "className": (0x10, "CLASS"),
    "classNameMatches": (0x20, "PATTERN_CLASS"),
    "description": (0x40, "DESCRIPTION"),
    "descriptionContains": (0x80, "CONTAINS_DESCRIPTION"),
    "descriptionMatches": (0x0100, "PATTERN_DESCRIPTION"),
    "descriptionStartsWith": (0x0200, "START_DESCRIPTION"),
    "checkable": (0x0400, "CHECKABLE"),
    "checked": (0x0800, "CHECKED"),
    "clickable": (0x1000, "CLICKABLE"),
    "longClickable": (0x2000, "LONG_CLICKABLE"),
    "scrollable": (0x4000, "SCROLLABLE"),
    "enabled": (0x8000, "ENABLED"),
    "focusable": (0x010000, "FOCUSABLE"),
    "focused": (0x020000, "FOCUSED"),
    "selected": (0x040000, "SELECTED"),
    "packageName": (0x080000, "PACKAGE_NAME"),
    "packageNameMatches": (0x100000, "PACKAGE_NAME_REGEX"),
    "resourceId": (0x200000, "RESOURCE_ID"),
    "resourceIdMatches": (0x400000, "RESOURCE_ID_REGEX"),
    "index": (0x800000, "INDEX"),
    "instance": (0x01000000, "INSTANCE"),
}
_STRING_FIELDS = {name for name, (bit, _) in FIELDS.items() if bit <= 0x0200 or 0x080000 <= bit <= 0x400000}
_INT_FIELDS = {"index", "instance"}


@dataclass
class Node:
    """One node of the composed screen with what matching needs beyond the :class:`View` itself."""

    view: View
    pos: int  # position in the flat list (document order)
    parent: int | None  # position of the parent in the flat list
    index: int  # position among the parent's visible children
    visible_bounds: Bounds
    focused: bool
    children: list[int] = field(default_factory=list)
    end: int = 0  # one past the last descendant's position (descendants are contiguous in pre-order)

    @property
    def focusable(self) -> bool:
        return self.view.focusable or self.view.editable


def field_key(view: View) -> str:
    """The focus key of an editable view, as the window manager keeps it in ``state.ui.focused_id``."""
    try:
        from emukit.vdevice.ui.wm import field_key as wm_field_key
    except ImportError:  # a window manager without the helper: keys are plain id keys
        return view.id_key
    return wm_field_key(view)


def _clip(bounds: Bounds, clip: Bounds) -> Bounds:
    left, top = max(bounds[0], clip[0]), max(bounds[1], clip[1])
    right, bottom = min(bounds[2], clip[2]), min(bounds[3], clip[3])
    return left, top, max(left, right), max(top, bottom)


def flatten(windows: Sequence[View], focused_key: str | None = None, screen: Bounds | None = None) -> list[Node]:
    """All visible nodes of ``windows`` in document order (the hierarchy dump's order: a view kept out of the
    hierarchy is out of reach of selectors too, with its subtree), their visible bounds clipped to ``screen``
    (default: the whole display)."""
    if screen is None:
        from emukit.vdevice.device import current_screen

        width, height, _ = current_screen()
        screen = (0, 0, width, height)
    nodes: list[Node] = []

    def visit(view: View, parent: int | None, index: int, clip: Bounds) -> None:
        focused = view.focused or bool(view.editable and focused_key and field_key(view) == focused_key)
        pos = len(nodes)
        node = Node(view, pos, parent, index, _clip(view.bounds, clip), focused)
        nodes.append(node)
        for i, child in enumerate(c for c in view.children if c.visible and c.in_hierarchy):
            node.children.append(len(nodes))
            visit(child, pos, i, node.visible_bounds)
        node.end = len(nodes)

    for i, window in enumerate(w for w in windows if w.visible):
        visit(window, None, i, screen)
    return nodes


# ---------------------------------------------------------------------------------------------- criteria
def _active(selector: dict[str, Any]) -> dict[str, Any]:
    """The criteria a selector sets: known fields present in the dict and (when given) in the mask."""
    mask = selector.get("mask")
    if mask is not None and (isinstance(mask, bool) or not isinstance(mask, int)):
        raise SelectorError(f"mask must be an integer, got {mask!r}")
    out: dict[str, Any] = {}
    for name, value in selector.items():
        if name not in FIELDS or (mask is not None and not mask & FIELDS[name][0]):
            continue
        if name in _STRING_FIELDS and not isinstance(value, str):
            raise SelectorError(f"{name} must be a string, got {value!r}")
        if name in _INT_FIELDS and (isinstance(value, bool) or not isinstance(value, int)):
            raise SelectorError(f"{name} must be an integer, got {value!r}")
        if name not in _STRING_FIELDS and name not in _INT_FIELDS and not isinstance(value, bool):
            raise SelectorError(f"{name} must be a boolean, got {value!r}")
        out[name] = value
    return out


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise SelectorError(f"bad regular expression {pattern!r}: {exc}") from None


_BOOL_GETTERS: dict[str, Callable[[Node], bool]] = {
    "checkable": lambda n: n.view.checkable,
    "checked": lambda n: n.view.checked,
    "clickable": lambda n: n.view.clickable,
    "longClickable": lambda n: n.view.long_clickable,
    "scrollable": lambda n: n.view.scrollable,
    "enabled": lambda n: n.view.enabled,
    "focusable": lambda n: n.focusable,
    "focused": lambda n: n.focused,
    "selected": lambda n: n.view.selected,
}


def _predicate(criteria: dict[str, Any]) -> Callable[[Node], bool]:
    """Compile the criteria (all but ``instance``) into one test."""
    tests: list[Callable[[Node], bool]] = []
    for name, value in criteria.items():
        if name == "instance":
            continue
        if name in _BOOL_GETTERS:
            getter = _BOOL_GETTERS[name]
            tests.append(lambda n, g=getter, v=value: g(n) == v)
        elif name == "index":
            tests.append(lambda n, v=value: n.index == v)
        else:
            tests.append(_string_test(name, value))
    return lambda node: all(t(node) for t in tests)


def _string_test(name: str, value: str) -> Callable[[Node], bool]:
    field_of = {"text": "text", "className": "cls", "description": "content_desc", "packageName": "package"}
    prefix = next((p for p in field_of if name.startswith(p)), None)
    attr: Callable[[Node], str] = attrgetter(f"view.{field_of[prefix] if prefix else 'resource_id'}")
    if name.endswith("Matches"):
        rx = _regex(value)
        return lambda n: rx.fullmatch(attr(n)) is not None
    if name.endswith("Contains"):
        return lambda n: value in attr(n)
    if name.endswith("StartsWith"):
        return lambda n: attr(n).startswith(value)
    return lambda n: attr(n) == value


def _chain(selector: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    kinds = selector.get("childOrSibling") or []
    subs = selector.get("childOrSiblingSelector") or []
    if not isinstance(kinds, list) or not isinstance(subs, list) or len(kinds) != len(subs):
        raise SelectorError("childOrSibling and childOrSiblingSelector must be lists of the same length")
    out = []
    for kind, sub in zip(kinds, subs):
        if kind not in ("child", "sibling") or not isinstance(sub, dict):
            raise SelectorError(f"bad child/sibling criterion {kind!r}: {sub!r}")
        out.append((kind, sub))
    return out


# ---------------------------------------------------------------------------------------------- matching
def _resolve(nodes: list[Node], selector: dict[str, Any], scope: Sequence[int] | None,
             use_instance: bool) -> list[int]:
    if not isinstance(selector, dict):
        raise SelectorError(f"a selector must be a JSON object, got {selector!r}")
    criteria = _active(selector)
    chain = _chain(selector)
    test = _predicate(criteria)
    candidates = range(len(nodes)) if scope is None else scope
    found = [i for i in candidates if test(nodes[i])]
    # the caller may drop the instance of the final stage only (count, objInfoOfAllInstances)
    if "instance" in criteria and (use_instance or chain):
        found = _pick(found, criteria["instance"])
    for pos, (kind, sub) in enumerate(chain):
        sub_scope: set[int] = set()
        for i in found:
            if kind == "child":
                sub_scope.update(range(i + 1, nodes[i].end))
            else:
                parent = nodes[i].parent
                if parent is not None:
                    sub_scope.update(range(parent + 1, nodes[parent].end))
        last = pos == len(chain) - 1
        found = _resolve(nodes, sub, sorted(sub_scope), use_instance or not last)
    return found


def _pick(found: list[int], instance: int) -> list[int]:
    return [found[instance]] if 0 <= instance < len(found) else []


def find_all(nodes: list[Node], selector: dict[str, Any], *, use_instance: bool = True) -> list[Node]:
    """Nodes matching ``selector`` in document order. ``use_instance=False`` ignores the ``instance`` of
    the final stage (what ``count`` and ``objInfoOfAllInstances`` count over)."""
    return [nodes[i] for i in _resolve(nodes, selector, None, use_instance)]


def find(nodes: list[Node], selector: dict[str, Any]) -> Node | None:
    """The first node matching ``selector`` (``instance`` applied), or None."""
    found = find_all(nodes, selector)
    return found[0] if found else None


def _rect(bounds: Bounds) -> dict[str, int]:
    left, top, right, bottom = bounds
    return {"bottom": bottom, "left": left, "right": right, "top": top}


def obj_info(node: Node) -> dict[str, Any]:
    """The server's ObjInfo of a node (what ``UiObject.info`` returns to the client)."""
    view = node.view
    return {
        "bounds": _rect(view.bounds),
        "checkable": view.checkable,
        "checked": view.checked,
        "childCount": len(node.children),
        "className": view.cls,
        "clickable": view.clickable,
        "contentDescription": view.content_desc or None,
        "enabled": view.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "longClickable": view.long_clickable,
        "packageName": view.package or None,
        "resourceName": view.resource_id or None,
        "scrollable": view.scrollable,
        "selected": view.selected,
        "text": view.text,
        "visibleBounds": _rect(node.visible_bounds),
    }


def click_point(node: Node) -> tuple[int, int]:
    """Centre of the visible part of the node (of its bounds when nothing of it is visible)."""
    left, top, right, bottom = node.visible_bounds
    if right <= left or bottom <= top:
        left, top, right, bottom = node.view.bounds
    return (left + right) // 2, (top + bottom) // 2


def describe(selector: Any) -> str:
    """``UiSelector[TEXT=Foo, INSTANCE=1, CHILD=UiSelector[...]]`` like UiSelector.toString()."""
    if not isinstance(selector, dict):
        return f"UiSelector[{selector!r}]"
    parts = []
    try:
        criteria = _active(selector)
        chain = _chain(selector)
    except SelectorError:
        return f"UiSelector[{selector!r}]"
    for name, value in criteria.items():
        shown = str(value).lower() if isinstance(value, bool) else value
        parts.append(f"{FIELDS[name][1]}={shown}")
    for kind, sub in chain:
        parts.append(f"{'CHILD' if kind == 'child' else 'PARENT'}={describe(sub)}")
    return "UiSelector[" + ", ".join(parts) + "]"


def child_selector(parent: dict[str, Any], child: dict[str, Any], instance: int) -> dict[str, Any]:
    """A selector for the ``instance``-th match of ``child`` among the descendants of ``parent``'s match
    (what childByText & co. hand back instead of the server-side object name of the real server)."""
    sub = {k: v for k, v in child.items() if k not in ("childOrSibling", "childOrSiblingSelector")}
    mask = sub.get("mask")
    if not isinstance(mask, int) or isinstance(mask, bool):
        mask = sum(bit for name, (bit, _) in FIELDS.items() if name in sub)
    sub["instance"] = instance
    sub["mask"] = mask | FIELDS["instance"][0]
    sub.setdefault("childOrSibling", [])
    sub.setdefault("childOrSiblingSelector", [])
    out = dict(parent)
    out["childOrSibling"] = [*(parent.get("childOrSibling") or []), "child"]
    out["childOrSiblingSelector"] = [*(parent.get("childOrSiblingSelector") or []), sub]
    return out
