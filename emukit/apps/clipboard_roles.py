"""Which on-screen controls copy, cut or paste, and which only look as if they did, from the selector tables.

Each table marks its clipboard controls (``clipboard: copy|cut|paste|none`` on an entry, see
:class:`emukit.apps.selectors.Entry`): the framework's floating text toolbar items an app shows, an app's own
"Copy to clipboard" items, and the look-alikes that leave the clipboard alone (DocumentsUI's "Copy to…" and its
"Copy" button copy files; a task app's "Copy" duplicates tasks). :func:`clipboard_role` tells, for a control
seen in a hierarchy (its resource id, text, content description and the package of the window it is in), what
tapping it does; ``None`` when no table knows the control, so the caller can fall back on its label.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from emukit.apps.selectors import all_tables

ClipboardRole = Literal["copy", "cut", "paste", "none"]


@dataclass(frozen=True)
class _Marked:
    resource_id: str | None
    text: str | None
    description: str | None
    role: ClipboardRole


def _fold(value: str | None) -> str:
    return " ".join((value or "").replace("\u2026", "...").split()).casefold()


@functools.cache
def _index() -> dict[str, tuple[_Marked, ...]]:
    """Marked entries by package, over every table (every pinned build of every app)."""
    out: dict[str, list[_Marked]] = {}
    for table in all_tables():
        for entry in table.selectors.values():
            if entry.clipboard is None:
                continue
            out.setdefault(table.package, []).append(
                _Marked(entry.resource_id, _fold(entry.text) or None, _fold(entry.description) or None,
                        entry.clipboard))
    return {k: tuple(v) for k, v in out.items()}


def clipboard_role(*, package: str | None, resource_id: str = "", text: str = "",
                   description: str = "") -> ClipboardRole | None:
    """What tapping this control does to the clipboard, by the tables of ``package``: a marked entry with a
    resource id matches that id; one without matches the text or content description. ``None``: unknown."""
    marked = _index().get(package or "", ())
    text_f, desc_f = _fold(text), _fold(description)
    for m in marked:
        if m.resource_id and resource_id == m.resource_id:
            return m.role
    by_label = [m for m in marked
                if (m.text and m.text in (text_f, desc_f)) or (m.description and m.description in (desc_f, text_f))]
    roles = {m.role for m in by_label}
    if len(roles) <= 1:
        return roles.pop() if roles else None
    # one label, two meanings (the text toolbar's "Copy" and a menu item "Copy" that duplicates): the floating
    # toolbar's items carry no id of the app (the clickable item has none, its label is
    # android:id/floating_toolbar_menu_item_text); an app's menu row or icon carries one (its own id, or the
    # overflow row's title id)
    toolbar = not resource_id or resource_id.startswith("android:id/floating_toolbar")
    preferred = [m for m in by_label if (m.resource_id is None) == toolbar]
    return (preferred or by_label)[0].role


@functools.cache
def _keys() -> frozenset[str]:
    return frozenset(k for marks in _index().values() for m in marks
                     for k in (m.resource_id, m.text, m.description) if k)


def may_be_marked(*, resource_id: str = "", text: str = "", description: str = "") -> bool:
    """Whether any table marks a control with this id, text or description (a cheap test before the package of
    the window is looked up)."""
    keys = _keys()
    return bool(resource_id and resource_id in keys) or _fold(text) in keys or _fold(description) in keys


def marked_packages() -> list[str]:
    """The packages whose tables mark clipboard controls."""
    return sorted(_index())
