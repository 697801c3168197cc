"""Ordered Collection readout (seed 002 Appendix C.4): the sequence of primary rows, top to bottom.

1. *Anchors*: visible text nodes whose row label is a benchmark item (the expected items, the sibling
   branch's items and any other known items of the pair). A row label is the node's normalised text without
   a leading enumeration (``1.``, ``01``, ``#1``, ``(1)``) and without a trailing duration (``3:45``); it
   names an item when it equals the item or starts with it followed by a separator (`` - ``, `` — ``,
   `` · ``, `` | ``, ``, ``, `` by ``).
2. *Primary-row typography*: the most common (font size, left edge) among anchors (font size within 1 px,
   left edge within max(4 px, 2 % of the viewport width)); its dominant weight class (bold >= 600 or not).
3. *Primary rows*: every visible text node with that font size and alignment and either the dominant weight
   class or an item label (a highlighted current row stays in), ordered top to bottom. Rows whose label is
   not a benchmark item stay in the sequence under their own label, so an invented row breaks equality.

The outcome is ``{"ordered_items": [...]}``; the judge requires exact equality with the target sequence, so
missing, duplicated, foreign (sibling / distractor) items and a wrong order all fail, and containing the
right item set in another order does not help.

:class:`OrderedReader` also gives the estimator the tracked collection: the pair's playlist (its parameters or
the recorded state probe) and, when both branches' outcomes agree on it, the collection type.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from emukit.evaluate.parsers.base import (
    FamilyReader,
    ParsedOutcome,
    offline_check,
    register_reader,
    text_nodes,
)
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.visible import Evidence, EvidenceNode

if TYPE_CHECKING:
    from emukit.evaluate.pairs import TaskSource

ENUM = re.compile(r"^(?:#\s*\d{1,3}|\(\d{1,3}\)|\d{1,3}[.):]?)\s+")
TRAILING_DURATION = re.compile(r"\s*[·•|-]?\s*\d{1,2}:\d{2}(?::\d{2})?$")
SEPARATORS = (" - ", " — ", " – ", " · ", " • ", " | ", ", ", " by ")
BOLD = 600


def row_label(norm: str) -> str:
    """A normalised row text without its enumeration and trailing duration."""
    label = ENUM.sub("", norm, count=1)
    return TRAILING_DURATION.sub("", label).strip() or label


def _items(values: Any) -> list[str]:
    if not values:
        return []
    if isinstance(values, str):
        return [values]
    return [str(v) for v in values]


def parse_ordered(evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
    """``context = {"expected_items": [...], "sibling_items": [...], "known_items": [...] (optional)}``."""
    if "expected_items" not in context:
        raise KeyError("ordered parser needs expected_context['expected_items']")
    known: dict[str, str] = {}
    for item in _items(context.get("expected_items")) + _items(context.get("sibling_items")) + \
            _items(context.get("known_items")):
        known.setdefault(normalize_text(item), item)
    by_length = sorted(known, key=len, reverse=True)

    def item_of(n: EvidenceNode) -> str | None:
        for label in dict.fromkeys((n.norm, row_label(n.norm))):
            if label in known:
                return known[label]
            for k in by_length:
                if k and any(label.startswith(k + sep) for sep in SEPARATORS):
                    return known[k]
        return None

    nodes = [n for n in text_nodes(evidence) if n.kind != "value"]
    anchors = [(n, item) for n in nodes if (item := item_of(n)) is not None]
    checks = offline_check(evidence)
    if not anchors:
        return ParsedOutcome("ordered", {"ordered_items": []}, True, checks,
                             "no visible row shows a benchmark item", evidence.source, {"rows": []})
    if evidence.fallback:  # no geometry: the item-labelled nodes in source order
        seq = [item for _, item in anchors]
        return ParsedOutcome("ordered", {"ordered_items": seq}, True, checks,
                             f"{len(seq)} item rows in source order (fallback text, no layout)", evidence.source,
                             {"rows": seq})
    vw = evidence.viewport[0]
    tol_x = max(4.0, 0.02 * vw)

    def same(a: EvidenceNode, b: EvidenceNode) -> bool:
        return abs(a.font_size - b.font_size) <= 1.0 and abs(a.x - b.x) <= tol_x

    # The typography class shared by the most anchors (ties: the one covering more distinct items, then the
    # topmost).
    best: EvidenceNode | None = None
    best_key: tuple[int, int, float] | None = None
    for n, _ in anchors:
        members = [item for m, item in anchors if same(m, n)]
        key = (len(members), len(set(members)), -n.y)
        if best_key is None or key > best_key:
            best, best_key = n, key
    assert best is not None
    cls = [m for m, _ in anchors if same(m, best)]
    bold = Counter(m.font_weight >= BOLD for m in cls).most_common(1)[0][0]
    primary = [n for n in nodes if same(n, best) and ((n.font_weight >= BOLD) == bold or item_of(n) is not None)]
    primary.sort(key=lambda n: (round(n.y, 1), n.x))
    seq = [item_of(n) or row_label(n.norm) for n in primary]
    foreign = [s for n, s in zip(primary, seq, strict=True) if item_of(n) is None]
    details = {"rows": seq, "unlabelled_rows": foreign[:8],
               "typography": {"font_size": best.font_size, "left": round(best.x, 1), "bold": bold},
               "anchors_elsewhere": [item for n, item in anchors if n not in primary][:8]}
    return ParsedOutcome("ordered", {"ordered_items": seq}, True, checks,
                         f"{len(seq)} primary rows read top to bottom", evidence.source, details)


def same_sequence(parsed: Sequence[str], expected: Sequence[str]) -> bool:
    """Exact, order-sensitive equality after C.4 normalisation."""
    return [normalize_text(x) for x in parsed] == [normalize_text(x) for x in expected]


@register_reader
class OrderedReader(FamilyReader):
    """Ordered Collection: the primary rows of the playlist or queue, top to bottom."""

    family = "ordered"
    invalid_outcome: ClassVar = {"result": "invalid", "ordered_items": None}

    def estimator_task(self, pair: TaskSource) -> dict[str, Any]:
        from emukit.evaluate.pairs import state_probe_args

        task = super().estimator_task(pair)
        playlist = state_probe_args(pair).get("playlist")
        if "playlist" not in task and playlist:
            task["playlist"] = playlist
        kind = pair.shared_outcome().get("collection_type")
        if kind is not None:  # pair-shared: which collection the probe opens
            task.setdefault("collection_type", kind)
        return task

    def target(self, outcome: Mapping[str, Any]) -> list[str]:
        return list(super().target(outcome) or [])  # a copy; no items read as the empty sequence

    def expected_context(self, outcome: Mapping[str, Any], sibling_outcome: Mapping[str, Any],
                         state: Mapping[str, Any] | None, sibling_state: Mapping[str, Any] | None,
                         known_items: list[str] | None) -> dict[str, Any]:
        items: list[str] = []
        for source in (outcome, sibling_outcome, state or {}, sibling_state or {}):
            items.extend(str(i) for i in source.get("ordered_items") or [])
        items.extend(known_items or [])
        return {"expected_items": list(outcome.get("ordered_items") or []),
                "sibling_items": list(sibling_outcome.get("ordered_items") or []),
                "known_items": list(dict.fromkeys(items))}

    def parse(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        return parse_ordered(evidence, context)

    def semantics(self, got: Mapping[str, Any], expected_outcome: Mapping[str, Any]) -> tuple[bool, str]:
        want = self.target(expected_outcome)
        seq = got.get("ordered_items")
        sem = seq is not None and same_sequence(seq, want)
        return sem, "sequence matches" if sem else f"read {seq!r}, expected {want!r}"
