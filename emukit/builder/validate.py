"""Family-specific validators (criterion 5 of seed 002 Appendix C.1.2): the semantic outcome must agree
with the independently probed state, and both must match the template's expected contrast."""

from __future__ import annotations

from typing import Any

from emukit.families import unit
from emukit.families.base import subset as _subset


def validate_branch(family: str, state: dict[str, Any], outcome: dict[str, Any], outcome_evidence: dict[str, Any],
                    spec: dict[str, Any], expected: dict[str, Any], wait_seconds: float = 0.0) -> list[str]:
    """Problems with one branch (empty = valid)."""
    problems: list[str] = []
    if not _subset(expected.get("state", {}), state):
        problems.append(f"state {state} does not match the expected {expected.get('state')}")
    if not _subset(expected.get("outcome", {}), outcome):
        problems.append(f"outcome {outcome} does not match the expected {expected.get('outcome')}")
    problems.extend(unit(family).check_branch(state, outcome, outcome_evidence, spec, wait_seconds))
    return problems


def states_differ(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a != b


def outcomes_differ(family: str, a: dict[str, Any], b: dict[str, Any]) -> bool:
    return any(a.get(k) != b.get(k) for k in unit(family).outcome_keys)
