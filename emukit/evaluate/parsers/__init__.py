"""Deterministic family parsers (seed 002 Appendix C.4): viewport-visible evidence -> semantic outcome.

::

    from emukit.evaluate.parsers import parse, judge, expected_context

    ctx = expected_context("clipboard", outcome_a, sibling_outcome=outcome_b)   # what the scorer knows
    parsed = parse("clipboard", render_result.evidence, ctx)                    # \\hat Y (ParsedOutcome)
    verdict = judge("clipboard", parsed, outcome_a)                             # SemCorrect, SurfaceValid

``parse`` accepts an :class:`~emukit.evaluate.visible.Evidence`, a
:class:`~emukit.evaluate.render.RenderResult` or ``None`` (no evidence: a timed-out render, a failed
request); without evidence the outcome is invalid and the branch is scored incorrect (sample preserving).
No OCR and no language model: only normalised visible text, control labels and their rendered geometry.

Modules: :mod:`.persistent`, :mod:`.clipboard`, :mod:`.ordered`, :mod:`.temporal`, :mod:`.normalize`
(C.4 text normalisation), :mod:`.base` (types, keyboard detection).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from emukit.evaluate.parsers.base import ParsedOutcome, Verdict
from emukit.evaluate.parsers.clipboard import parse_clipboard
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.parsers.ordered import parse_ordered, same_sequence
from emukit.evaluate.parsers.persistent import parse_persistent
from emukit.evaluate.parsers.temporal import parse_temporal
from emukit.evaluate.visible import Evidence

#: Countdown tolerance of a running timer: the rendered remainder must lie in ``[r - 6, r]`` (clipped at 0).
COUNTDOWN_TOLERANCE_S = 6

PARSERS: dict[str, Callable[[Evidence, Mapping[str, Any]], ParsedOutcome]] = {
    "persistent": parse_persistent, "clipboard": parse_clipboard, "ordered": parse_ordered,
    "temporal": parse_temporal,
}

_INVALID = {"persistent": {"result": "invalid"}, "clipboard": {"pasted_text": None, "result": "invalid"},
            "ordered": {"result": "invalid", "ordered_items": None},
            "temporal": {"status": "invalid", "remaining_seconds": None}}


def invalid(family: str, reason: str, source: str = "none") -> ParsedOutcome:
    """The outcome of a prediction with no readable evidence (scored incorrect, kept in the denominator)."""
    if family not in PARSERS:
        raise ValueError(f"unknown family {family!r}; expected one of {', '.join(PARSERS)}")
    return ParsedOutcome(family, dict(_INVALID[family]), False, {"evidence": False}, reason, source)  # type: ignore[arg-type]


def parse(family: str, visible_evidence: Any, expected_context: Mapping[str, Any] | None = None) -> ParsedOutcome:
    """Read the family's semantic outcome from ``visible_evidence`` (Evidence, RenderResult or None).

    ``expected_context`` (see :func:`expected_context`): persistent ``{"target", "probe", "folder"}``;
    clipboard ``{"expected", "sibling"}``; ordered ``{"expected_items", "sibling_items", "known_items"}``;
    temporal: nothing needed. Raises ``ValueError`` for an unknown family and ``KeyError`` naming a missing
    context field.
    """
    if family not in PARSERS:
        raise ValueError(f"unknown family {family!r}; expected one of {', '.join(PARSERS)}")
    evidence = visible_evidence
    diagnostics: dict[str, Any] = {}
    if evidence is not None and not isinstance(evidence, Evidence):  # a RenderResult
        diagnostics = {"render_status": getattr(evidence, "status", None), "render_error": getattr(evidence, "error",
                                                                                                   None)}
        evidence = getattr(evidence, "evidence", None)
    if evidence is None:
        reason = diagnostics.get("render_error") or "no evidence (the prediction could not be rendered)"
        return invalid(family, f"invalid: {reason}")
    parsed = PARSERS[family](evidence, dict(expected_context or {}))
    if diagnostics.get("render_status") == "fallback":
        parsed.details["render_error"] = diagnostics.get("render_error")
    return parsed


def _remaining_ok(parsed: int | None, target: int | None) -> bool:
    if parsed is None or target is None:
        return False
    return max(0, int(target) - COUNTDOWN_TOLERANCE_S) <= int(parsed) <= int(target)


def judge(family: str, parsed: ParsedOutcome, expected_outcome: Mapping[str, Any]) -> Verdict:
    """Compare a parsed outcome with the branch's true outcome (pair-format ``outcome``).

    SemCorrect: persistent — same present/absent; clipboard — the parsed payload equals ``pasted_text``;
    ordered — the primary-row sequence equals ``ordered_items`` exactly; temporal — same status, and for
    ``running`` (and ``paused``) a countdown in ``[r-6, r]`` seconds, clipped at zero. SurfaceValid: every
    surface gate of the parsed outcome. BranchExact = both.
    """
    got = parsed.outcome
    if not parsed.valid and family != "persistent":
        sem, why = False, f"invalid prediction: {parsed.reason}"
    elif family == "persistent":
        want = expected_outcome.get("result")
        sem = got.get("result") == want and want in ("present", "absent")
        why = f"read {got.get('result')}, expected {want}"
    elif family == "clipboard":
        want = expected_outcome.get("pasted_text")
        sem = got.get("pasted_text") is not None and want is not None and \
            normalize_text(str(got["pasted_text"])) == normalize_text(str(want))
        why = f"read {got.get('result')} payload, expected {want!r}"
    elif family == "ordered":
        want = list(expected_outcome.get("ordered_items") or [])
        seq = got.get("ordered_items")
        sem = seq is not None and same_sequence(seq, want)
        why = "sequence matches" if sem else f"read {seq!r}, expected {want!r}"
    elif family == "temporal":
        want = expected_outcome.get("status")
        status = got.get("status")
        sem = status == want
        if sem and want in ("running", "paused"):
            sem = _remaining_ok(got.get("remaining_seconds"), expected_outcome.get("remaining_seconds"))
        why = (f"read {status} ({got.get('remaining_seconds')} s), expected {want} "
               f"({expected_outcome.get('remaining_seconds')} s)")
    else:
        raise ValueError(f"unknown family {family!r}")
    failed = [k for k, v in parsed.surface_checks.items() if not v]
    if failed:
        why += "; surface gates failed: " + ", ".join(failed)
    return Verdict(sem_correct=bool(sem), surface_valid=parsed.surface_valid, reason=why)


def expected_context(family: str, outcome: Mapping[str, Any], *, sibling_outcome: Mapping[str, Any] | None = None,
                     state: Mapping[str, Any] | None = None, sibling_state: Mapping[str, Any] | None = None,
                     known_items: list[str] | None = None) -> dict[str, Any]:
    """The ``expected_context`` of one branch, from its outcome and its sibling's (pair-format fields).

    Persistent: the probe fields (``target``, ``probe``, ``folder``); clipboard: this branch's and the
    sibling's ``pasted_text`` (falling back to the states' ``clipboard_text``); ordered: both orderings and
    every item either branch's outcome or state mentions; temporal: the expected status/remainder (only the
    judge uses them).
    """
    sib = sibling_outcome or {}
    if family == "persistent":
        return {k: outcome.get(k) for k in ("target", "probe", "folder", "scope") if outcome.get(k) is not None}
    if family == "clipboard":
        exp = outcome.get("pasted_text")
        if exp is None and state:
            exp = state.get("clipboard_text")
        other = sib.get("pasted_text")
        if other is None and sibling_state:
            other = sibling_state.get("clipboard_text")
        return {"expected": exp if exp is not None else "", "sibling": other or ""}
    if family == "ordered":
        items: list[str] = []
        for source in (outcome, sib, state or {}, sibling_state or {}):
            items.extend(str(i) for i in source.get("ordered_items") or [])
        items.extend(known_items or [])
        return {"expected_items": list(outcome.get("ordered_items") or []),
                "sibling_items": list(sib.get("ordered_items") or []), "known_items": list(dict.fromkeys(items))}
    if family == "temporal":
        return {"expected_status": outcome.get("status"), "expected_remaining": outcome.get("remaining_seconds")}
    raise ValueError(f"unknown family {family!r}")


__all__ = ["COUNTDOWN_TOLERANCE_S", "PARSERS", "ParsedOutcome", "Verdict", "expected_context", "invalid", "judge",
           "normalize_text", "parse"]
