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

Each family's reader (:class:`~emukit.evaluate.parsers.base.FamilyReader`: its parser, the judge's semantic
rule, the context its parser needs) is one module, :mod:`.persistent`, :mod:`.clipboard`, :mod:`.ordered`,
:mod:`.temporal`, registered with :data:`READERS` (also importable as ``PARSERS``); the functions below find it
by the family's name. :mod:`.normalize` is the C.4 text normalisation, :mod:`.base` the types and keyboard
detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emukit.errors import ConfigError
from emukit.evaluate.parsers.base import READERS, FamilyReader, ParsedOutcome, Verdict
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.parsers.temporal import COUNTDOWN_TOLERANCE_S
from emukit.evaluate.visible import Evidence
from emukit.families import check_family

#: the family parsers by name (the reader registry; ``sorted(PARSERS)``, ``family in PARSERS``)
PARSERS = READERS


def reader(family: str) -> FamilyReader:
    """The registered reader of ``family``; ``ValueError`` naming the known families for an unknown one."""
    try:
        check_family(family)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return READERS.get(family)


def invalid(family: str, reason: str, source: str = "none") -> ParsedOutcome:
    """The outcome of a prediction with no readable evidence (scored incorrect, kept in the denominator)."""
    return ParsedOutcome(family, dict(reader(family).invalid_outcome), False, {"evidence": False}, reason,
                         source)  # type: ignore[arg-type]


def parse(family: str, visible_evidence: Any, expected_context: Mapping[str, Any] | None = None) -> ParsedOutcome:
    """Read the family's semantic outcome from ``visible_evidence`` (Evidence, RenderResult or None).

    ``expected_context`` (see :func:`expected_context`): persistent ``{"target", "probe", "folder"}``;
    clipboard ``{"expected", "sibling"}``; ordered ``{"expected_items", "sibling_items", "known_items"}``;
    temporal: nothing needed. Raises ``ValueError`` for an unknown family and ``KeyError`` naming a missing
    context field.
    """
    family_reader = reader(family)
    evidence = visible_evidence
    diagnostics: dict[str, Any] = {}
    if evidence is not None and not isinstance(evidence, Evidence):  # a RenderResult
        diagnostics = {"render_status": getattr(evidence, "status", None), "render_error": getattr(evidence, "error",
                                                                                                   None)}
        evidence = getattr(evidence, "evidence", None)
    if evidence is None:
        reason = diagnostics.get("render_error") or "no evidence (the prediction could not be rendered)"
        return invalid(family, f"invalid: {reason}")
    parsed = family_reader.parse(evidence, dict(expected_context or {}))
    if diagnostics.get("render_status") == "fallback":
        parsed.details["render_error"] = diagnostics.get("render_error")
    return parsed


def judge(family: str, parsed: ParsedOutcome, expected_outcome: Mapping[str, Any]) -> Verdict:
    """Compare a parsed outcome with the branch's true outcome (pair-format ``outcome``).

    SemCorrect: persistent — same present/absent; clipboard — the parsed payload equals ``pasted_text``;
    ordered — the primary-row sequence equals ``ordered_items`` exactly; temporal — same status, and for
    ``running`` (and ``paused``) a countdown in ``[r-6, r]`` seconds, clipped at zero. SurfaceValid: every
    surface gate of the parsed outcome. BranchExact = both.
    """
    return reader(family).judge(parsed, expected_outcome)


def expected_context(family: str, outcome: Mapping[str, Any], *, sibling_outcome: Mapping[str, Any] | None = None,
                     state: Mapping[str, Any] | None = None, sibling_state: Mapping[str, Any] | None = None,
                     known_items: list[str] | None = None) -> dict[str, Any]:
    """The ``expected_context`` of one branch, from its outcome and its sibling's (pair-format fields).

    Persistent: the probe fields (``target``, ``probe``, ``folder``); clipboard: this branch's and the
    sibling's ``pasted_text`` (falling back to the states' ``clipboard_text``); ordered: both orderings and
    every item either branch's outcome or state mentions; temporal: the expected status/remainder (only the
    judge uses them).
    """
    return reader(family).expected_context(outcome, sibling_outcome or {}, state, sibling_state, known_items)


__all__ = ["COUNTDOWN_TOLERANCE_S", "PARSERS", "READERS", "FamilyReader", "ParsedOutcome", "Verdict",
           "expected_context", "invalid", "judge", "normalize_text", "parse", "reader"]
