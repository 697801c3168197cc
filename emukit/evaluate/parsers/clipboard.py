"""Clipboard readout (seed 002 Appendix C.4): which payload did the shared PASTE put into the editor?

The expected payload ``v_b`` must occur (normalised containment) in visible *editor-body* evidence: a visible
text, control text or field value whose top edge is at or below 6.5 % of the viewport height
(:data:`TITLE_BOUNDARY`), which excludes the top application/title region. The sibling branch's payload must
at the same time be absent from every visible node (title region included). Occurrences of one payload
inside the other (when one contains the other) are not counted for the shorter one.

Outcomes (``result``): ``expected`` (``pasted_text = v_b``), ``sibling`` (the sibling payload in the body and
the expected one absent: ``pasted_text = v_sibling``), ``both`` (invalid: both visible), ``none``
(``pasted_text = None``: neither in the editor body, e.g. the payload only in the title bar). Fallback
evidence has no geometry: every text node counts as editor body.

The judge: SemCorrect when the parsed payload equals the branch's ``pasted_text`` after C.4 normalisation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.evaluate.parsers.base import (
    FamilyReader,
    ParsedOutcome,
    describe,
    offline_check,
    register_reader,
    text_nodes,
)
from emukit.evaluate.parsers.normalize import normalize_text, occurs
from emukit.evaluate.visible import Evidence

TITLE_BOUNDARY = 0.065


def parse_clipboard(evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
    """``context = {"expected": v_b, "sibling": v_sibling}`` (the sibling may be empty or missing)."""
    if "expected" not in context or context["expected"] is None:
        raise KeyError("clipboard parser needs expected_context['expected']")
    expected, sibling = str(context["expected"]), str(context.get("sibling") or "")
    if normalize_text(sibling) == normalize_text(expected):
        sibling = ""
    nodes = text_nodes(evidence)
    boundary = TITLE_BOUNDARY * evidence.viewport[1]
    body = nodes if evidence.fallback else [n for n in nodes if n.y >= boundary]
    exp_body = [n for n in body if occurs(n.text, expected, excluding=(sibling,))]
    exp_any = [n for n in nodes if occurs(n.text, expected, excluding=(sibling,))]
    sib_body = [n for n in body if sibling and occurs(n.text, sibling, excluding=(expected,))]
    sib_any = [n for n in nodes if sibling and occurs(n.text, sibling, excluding=(expected,))]
    checks = offline_check(evidence)
    details = {"boundary_px": round(boundary, 2), "expected_in_body": describe(exp_body),
               "expected_elsewhere": describe([n for n in exp_any if n not in exp_body]),
               "sibling_visible": describe(sib_any)}
    if not normalize_text(expected):
        ok = not sib_any
        return ParsedOutcome("clipboard", {"pasted_text": expected if ok else None,
                                           "result": "expected" if ok else "sibling"}, True, checks,
                             "empty expected payload; sibling " + ("absent" if ok else "visible"),
                             evidence.source, details)
    if exp_body and sib_any:
        return ParsedOutcome("clipboard", {"pasted_text": None, "result": "both"}, False, checks,
                             "both the expected and the sibling payload are visible", evidence.source, details)
    if exp_body:
        return ParsedOutcome("clipboard", {"pasted_text": expected, "result": "expected"}, True, checks,
                             "the expected payload is visible in the editor body and the sibling's is absent",
                             evidence.source, details)
    if sib_body and not exp_any:
        return ParsedOutcome("clipboard", {"pasted_text": sibling, "result": "sibling"}, True, checks,
                             "the sibling payload is visible in the editor body", evidence.source, details)
    if exp_any:
        reason = "the expected payload appears only above the editor body (title region)"
    elif sib_any:
        reason = "the sibling payload appears only above the editor body"
    else:
        reason = "no payload is visible in the editor body"
    return ParsedOutcome("clipboard", {"pasted_text": None, "result": "none"}, True, checks, reason, evidence.source,
                         details)


@register_reader
class ClipboardReader(FamilyReader):
    """Clipboard: which of the two branches' payloads the editor body shows."""

    family = "clipboard"
    invalid_outcome: ClassVar = {"pasted_text": None, "result": "invalid"}

    def expected_context(self, outcome: Mapping[str, Any], sibling_outcome: Mapping[str, Any],
                         state: Mapping[str, Any] | None, sibling_state: Mapping[str, Any] | None,
                         known_items: list[str] | None) -> dict[str, Any]:
        exp = outcome.get("pasted_text")
        if exp is None and state:
            exp = state.get("clipboard_text")
        other = sibling_outcome.get("pasted_text")
        if other is None and sibling_state:
            other = sibling_state.get("clipboard_text")
        return {"expected": exp if exp is not None else "", "sibling": other or ""}

    def parse(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        return parse_clipboard(evidence, context)

    def semantics(self, got: Mapping[str, Any], expected_outcome: Mapping[str, Any]) -> tuple[bool, str]:
        want = self.target(expected_outcome)
        sem = got.get("pasted_text") is not None and want is not None and \
            normalize_text(str(got["pasted_text"])) == normalize_text(str(want))
        return sem, f"read {got.get('result')} payload, expected {want!r}"
