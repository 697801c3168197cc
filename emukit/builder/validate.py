"""Family-specific validators (criterion 5 of seed 002 Appendix C.1.2): the semantic outcome must agree
with the independently probed state, and both must match the template's expected contrast."""

from __future__ import annotations

from typing import Any


def _subset(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    return all(actual.get(k) == v for k, v in expected.items())


def validate_branch(family: str, state: dict[str, Any], outcome: dict[str, Any], outcome_evidence: dict[str, Any],
                    spec: dict[str, Any], expected: dict[str, Any], wait_seconds: float = 0.0) -> list[str]:
    """Problems with one branch (empty = valid)."""
    problems: list[str] = []
    if not _subset(expected.get("state", {}), state):
        problems.append(f"state {state} does not match the expected {expected.get('state')}")
    if not _subset(expected.get("outcome", {}), outcome):
        problems.append(f"outcome {outcome} does not match the expected {expected.get('outcome')}")
    if family == "persistent":
        field = spec.get("state_field") or "destination_exists"
        if (outcome.get("result") == "present") != bool(state.get(field)):
            problems.append(f"surface says {outcome.get('result')} but {field}={state.get(field)}")
        if not outcome_evidence.get("consistent", True):
            problems.append("search shows neither the target nor an explicit empty state")
    elif family == "clipboard":
        if outcome.get("pasted_text") != state.get("clipboard_text"):
            problems.append(f"pasted {outcome.get('pasted_text')!r} but the clipboard held "
                            f"{state.get('clipboard_text')!r}")
    elif family == "ordered":
        if outcome.get("ordered_items") != state.get("ordered_items"):
            problems.append(f"screen order {outcome.get('ordered_items')} differs from the stored order "
                            f"{state.get('ordered_items')}")
        if outcome.get("ordered_items") != outcome_evidence.get("database_order"):
            problems.append("screen order differs from the database after the action")
    elif family == "temporal":
        remaining = int(state.get("remaining_seconds", 0))
        status = outcome.get("status")
        # Real time that passed on the device between the state probe and the outcome read (measured on its
        # elapsed-realtime clock, see run_branch): 0 on a device whose clock moves only when told; on a
        # ticking device a timer due within that window may show either way, and the countdown read at any
        # moment of it.
        drift = max(0.0, float(outcome_evidence.get("elapsed_drift_ms", 0)) / 1000)
        if state.get("timer_active"):
            want = ({"fired"} if remaining <= wait_seconds else {"running"} if remaining > wait_seconds + drift
                    else {"fired", "running"})
            if status not in want:
                problems.append(f"timer with {remaining}s left and a {wait_seconds}s wait (+{drift:.1f}s measured "
                                f"on the device) shows {status}, expected {' or '.join(sorted(want))}")
            shown = int(outcome.get("remaining_seconds", 0))
            if status == "running" and not remaining - wait_seconds - drift - 1 <= shown <= remaining - wait_seconds + 1:
                problems.append(f"countdown after the wait shows {shown}s; the probed {remaining}s less the "
                                f"{wait_seconds}s wait (and up to {drift:.1f}s measured on the device) is "
                                f"{remaining - wait_seconds - drift:.0f}-{remaining - wait_seconds:.0f}s")
        elif remaining > 0:
            # a paused timer: its notification with the kept remainder (the probe rounds it up, the shade's
            # countdown down), or no timer notification at all when the Clock is in the foreground (it hides
            # its running/paused notifications there); it neither runs nor fires
            if status == "paused":
                if abs(int(outcome.get("remaining_seconds", 0)) - remaining) > 1:
                    problems.append(f"paused timer ({remaining}s) shows {outcome.get('remaining_seconds')}s")
            elif status != "none":
                problems.append(f"paused timer ({remaining}s) shows {status}")
        elif status not in ("none",):
            problems.append(f"no active timer but the shade shows {status}")
    return problems


def states_differ(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a != b


def outcomes_differ(family: str, a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = {"persistent": ("result",), "clipboard": ("pasted_text",), "ordered": ("ordered_items",),
            "temporal": ("status", "remaining_seconds")}[family]
    return any(a.get(k) != b.get(k) for k in keys)
