"""The deterministic state-conditioning interface (seed 002 Appendix E, Table 20 rules).

A canonical family state (oracle or recovered — the interface cannot tell and does not care) is validated and
rendered into one conditioning text block. Given the candidate action (and, for Persistent Artifact, the
prediction-time context of what the action inspects), the interface also resolves the action's deterministic
consequence ``D = g_f(Z, A, c)`` and the surface it must appear on:

* Persistent Artifact — search: present iff a tracked path inside the Downloads scope exists (surface: Files
  search "Files in Downloads", one result row or "No matches in Downloads"); folder: present iff the tracked
  path inside the opened folder exists. Absent results omit the file's identity.
* Clipboard — PASTE inserts the payload verbatim; the payload is written once.
* Ordered Collection — the list is kept exactly (no sorting or deduplication) and written once, numbered.
* Temporal Deadline — inactive -> none; active and wait >= remaining -> fired (Clock / Time's up / Stop);
  active and wait < remaining -> running with the remainder (Clock / MM:SS / Timer / Pause: the order of the
  real timer notification, DeskClock's chronometer above its state line).

Each family's schema, consequence and lines are its unit's (``emukit/families/<family>.py``); this module
validates, dispatches by name and frames the block. Nothing here reads a future observation, a label or benchmark bookkeeping; the output is a pure function of
``(family, state, action, context)`` with a fixed line order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emukit.actions import Action
from emukit.families import FAMILIES, FAMILY_UNITS, StateValidationError, unit
from emukit.families.persistent import DOWNLOADS_DIRS
from emukit.families.temporal import clock

__all__ = ["DOWNLOADS_DIRS", "StateValidationError", "clock", "render_state", "resolve_consequence",
           "validate_state"]


def validate_state(family: str, state: Any) -> dict[str, Any]:
    """Check ``state`` against the family's canonical schema (seed 002 Table 10); return a plain copy."""
    if family not in FAMILY_UNITS:
        raise StateValidationError("family", f"unknown family {family!r}; expected one of {', '.join(FAMILIES)}")
    return unit(family).validate_state(state)


def resolve_consequence(family: str, state: Mapping[str, Any], action: Action,
                        context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``D_t^f``: the deterministic result of ``action`` on ``state`` (Table 20), as a small dict."""
    z = validate_state(family, state)
    return unit(family).consequence(z, action, context)


def render_state(family: str, canonical_state: Mapping[str, Any], *, action: Action | None = None,
                 context: Mapping[str, Any] | None = None) -> str:
    """The conditioning text for ``canonical_state``.

    Without ``action``: the validated state alone. With ``action``: the state plus its resolved consequence
    and target surface (for Persistent Artifact, ``context`` = ``{"probe": "search"|"folder", "source",
    "destination", "folder" (folder probe), "artifact" (optional display name)}``; in this mode the file's
    source/destination existence is stated through the inspected result only, so an absent branch carries
    neither the file's name nor its paths). Raises :class:`StateValidationError` naming the bad field.
    """
    z = validate_state(family, canonical_state)
    fam = unit(family)
    body: list[str]
    if action is None:
        body = fam.state_lines(z, with_action=False)
    else:
        d = resolve_consequence(family, z, action, context)
        body = [*fam.action_state_lines(z, d), "Required result of the action:", *fam.result_lines(d)]
    note = ("This block is the current hidden state, which the screenshot does not show"
            + (", and the result it forces on the action" if action is not None else "")
            + ". It is authoritative: make the next screen agree with it exactly, and never display the block, "
              "its wording or its field names.")
    return "\n".join([f'<authoritative_state family="{family}">', *body, "</authoritative_state>", note])
