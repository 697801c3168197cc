"""Evaluate milestone checks (:class:`~emukit.tasks.schema.Check`) on a live device or on a rendered screen.

On a device (:class:`DeviceView`) screen leaves read the UI hierarchy and the other leaves read ground truth
through the read-only probes (files with ``stat``/``cat``, the clipboard, the music databases, the Clock's
preferences, ``settings get``); every value is read at most once per view. On a rendered world-model
prediction (:class:`ScreenView`) only visible-text screen leaves can be answered, which is why every
milestone carries a visual ``screen_check``.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from functools import cached_property
from typing import Any, Protocol

from emukit.device.driver import Driver
from emukit.probes.ordered import collection_items
from emukit.tasks.schema import (
    AppLeaf,
    Check,
    ClipboardLeaf,
    CollectionLeaf,
    FileLeaf,
    ScreenLeaf,
    SettingLeaf,
    TimerLeaf,
)


class View(Protocol):
    """What a check reads: a screen, and (on devices) ground truth."""

    def screen(self, leaf: ScreenLeaf) -> bool: ...

    def truth(self, check: Check) -> bool: ...


def evaluate(check: Check, view: View) -> bool:
    """The check's truth value on ``view``."""
    kind = check.kind
    if kind == "all":
        return all(evaluate(c, view) for c in check.all or ())
    if kind == "any":
        return any(evaluate(c, view) for c in check.any or ())
    if kind == "not_":
        return not evaluate(check.not_, view)  # type: ignore[arg-type]
    if kind == "screen":
        return view.screen(check.screen)  # type: ignore[arg-type]
    return view.truth(check)


def _node_matches(node: ET.Element, leaf: ScreenLeaf) -> bool:
    text = node.get("text", "")
    if leaf.text is not None and text.strip() != leaf.text:
        return False
    if leaf.text_contains is not None and leaf.text_contains not in text:
        return False
    if leaf.content_desc is not None and node.get("content-desc", "") != leaf.content_desc:
        return False
    if leaf.resource_id is not None:
        rid = node.get("resource-id", "")
        if rid != leaf.resource_id and not rid.endswith(f":id/{leaf.resource_id}"):
            return False
    for flag in ("checked", "selected", "focused", "clickable"):
        want = getattr(leaf, flag)
        if want is not None and (node.get(flag, "false") == "true") != want:
            return False
    return node.get("bounds", "[0,0][0,0]") != "[0,0][0,0]"


def hierarchy_has(xml: str, leaf: ScreenLeaf) -> bool:
    """Whether the hierarchy satisfies a screen leaf (``absent`` inverts it)."""
    found = any(_node_matches(n, leaf) for n in ET.fromstring(xml).iter("node"))
    return found != leaf.absent


class DeviceView:
    """One moment of a device: its hierarchy (given or read once) and ground truth read on demand, once."""

    def __init__(self, driver: Driver, xml: str | None = None) -> None:
        self.driver = driver
        self._xml = xml
        self._cache: dict[tuple[str, ...], Any] = {}

    @property
    def xml(self) -> str:
        if self._xml is None:
            self._xml = self.driver.hierarchy()
        return self._xml

    def screen(self, leaf: ScreenLeaf) -> bool:
        return hierarchy_has(self.xml, leaf)

    def _once(self, key: tuple[str, ...], read: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = read()
        return self._cache[key]

    def truth(self, check: Check) -> bool:
        kind = check.kind
        leaf = getattr(check, kind)
        return getattr(self, f"_{kind}")(leaf)

    # -- leaves ------------------------------------------------------------------------------------------
    def _app(self, leaf: AppLeaf) -> bool:
        package, activity = self._once(("app",), lambda: self.driver.focused_app() or ("", ""))
        return package == leaf.package and (leaf.activity is None or leaf.activity in activity)

    def _file(self, leaf: FileLeaf) -> bool:
        def read() -> str | None:
            q = shlex.quote(leaf.path)
            res = self.driver.shell(f"if [ -f {q} ]; then echo F; cat {q}; else echo N; fi")
            out = res.text
            return out[2:] if out.startswith("F\n") else None

        content = self._once(("file", leaf.path), read)
        if content is None:
            return not leaf.exists
        if not leaf.exists:
            return False
        if leaf.equals is not None and content.rstrip("\n") != leaf.equals.rstrip("\n"):
            return False
        if leaf.contains is not None and leaf.contains not in content:
            return False
        return leaf.not_contains is None or leaf.not_contains not in content

    def _clipboard(self, leaf: ClipboardLeaf) -> bool:
        from emukit.probes.clipboard import probe_clipboard

        text = self._once(("clipboard",), lambda: probe_clipboard(self.driver).canonical["clipboard_text"])
        if leaf.empty is not None and (not text) != leaf.empty:
            return False
        if leaf.equals is not None and text != leaf.equals:
            return False
        return leaf.contains is None or leaf.contains in (text or "")

    def _collection(self, leaf: CollectionLeaf) -> bool:
        items = self._once(("collection", leaf.playlist or ""), lambda: collection_items(self.driver, leaf.playlist))
        if items is None:
            return not leaf.exists
        if not leaf.exists:
            return False
        if leaf.equals is not None and items != leaf.equals:
            return False
        if leaf.ends_with is not None and items[len(items) - len(leaf.ends_with):] != leaf.ends_with:
            return False
        if leaf.includes is not None and not set(leaf.includes) <= set(items):
            return False
        return leaf.length is None or len(items) == leaf.length

    def _timer(self, leaf: TimerLeaf) -> bool:
        from emukit.probes.temporal import read_clock, timers_from_prefs

        def newest() -> tuple[str, int]:
            prefs, elapsed = read_clock(self.driver)
            timers = timers_from_prefs(prefs, elapsed)
            if not timers:
                return "none", 0
            t = timers[-1]
            state = {"reset": "none", "missed": "expired"}.get(str(t["state"]), str(t["state"]))
            return state, max(0, int(t["remaining_ms"])) // 1000  # type: ignore[arg-type]

        state, remaining = self._once(("timer",), newest)
        if state != leaf.state:
            return False
        if leaf.remaining_min is not None and remaining < leaf.remaining_min:
            return False
        return leaf.remaining_max is None or remaining <= leaf.remaining_max

    def _setting(self, leaf: SettingLeaf) -> bool:
        value = self._once(("setting", leaf.namespace, leaf.key), lambda: self.driver.shell(
            f"settings get {leaf.namespace} {shlex.quote(leaf.key)}").text.strip())
        return value == leaf.equals


class ScreenView:
    """A rendered screen known only by its visible text regions (world-model predictions)."""

    def __init__(self, texts: Iterable[str], labels: Iterable[str] = ()) -> None:
        self.texts = [t.strip() for t in texts if t and t.strip()]
        self.labels = [t.strip() for t in labels if t and t.strip()]

    @cached_property
    def lines(self) -> set[str]:
        return {line.strip() for t in self.texts for line in t.splitlines() if line.strip()} | set(self.texts)

    def screen(self, leaf: ScreenLeaf) -> bool:
        if not leaf.visual:
            raise ValueError("a rendered screen can only answer text / text_contains / content_desc")
        ok = True
        if leaf.text is not None:
            ok = ok and leaf.text in self.lines
        if leaf.text_contains is not None:
            ok = ok and any(leaf.text_contains in t for t in self.texts)
        if leaf.content_desc is not None:
            ok = ok and (leaf.content_desc in self.labels or leaf.content_desc in self.lines)
        return ok != leaf.absent

    def truth(self, check: Check) -> bool:
        raise ValueError(f"a rendered screen cannot answer a {check.kind} check")
