"""Boundary models of a strict A/B pair: what the builder produces, the store keeps and export writes.

Observations refer to content-addressed artifacts by SHA-256 (the PNG screenshot and the hierarchy XML);
the bytes live in the artifact store, never in these records.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from emukit.actions import Action
from emukit.families import Family
from emukit.provenance import BuiltOn

BranchName = Literal["A", "B"]
CRITERIA = ("stable_boundary", "observation_match", "state_differs", "outcome_differs", "validator_pass")


class Observation(BaseModel):
    """One model-visible capture: hashes of the screenshot PNG and the hierarchy XML."""

    screenshot: str = Field(description="sha256 of the PNG")
    hierarchy: str = Field(description="sha256 of the XML")


class Step(BaseModel):
    """The observation an action was taken from, and the action."""

    observation: Observation
    action: Action


class WarpRecord(BaseModel):
    """Audit record of a logical-time warp (never shown to a model)."""

    seconds: float
    method: str
    details: dict[str, Any] = Field(default_factory=dict)


class BranchRecord(BaseModel):
    """One executed branch: history up to the boundary, the boundary, ground truth, the shared action's
    effect and its semantic outcome."""

    name: BranchName
    history: list[Step]
    boundary_observation: Observation
    boundary_recaptured: Observation  # the second capture; must equal the first
    state: dict[str, Any]  # canonical ground-truth JSON at the boundary
    state_evidence: dict[str, Any] = Field(default_factory=dict)
    shared_action: Action
    next_observation: Observation
    outcome: dict[str, Any]  # semantic outcome from environment-side evidence
    outcome_evidence: dict[str, Any] = Field(default_factory=dict)
    warp: WarpRecord | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)  # snapshot_load, actions, captures, probes
    #: what executing the shared action did on the device, in order: the action itself, and for a temporal
    #: ``wait`` the notification-shade pull that produces the next observation (empty in older records)
    shared_steps: list[Action] = Field(default_factory=list)


class Validation(BaseModel):
    """The five acceptance criteria of a strict pair (seed 002 Appendix C.1.2)."""

    stable_boundary: bool
    observation_match: bool
    state_differs: bool
    outcome_differs: bool
    validator_pass: bool

    @property
    def accepted(self) -> bool:
        return all(getattr(self, c) for c in CRITERIA)

    def failed(self) -> list[str]:
        return [c for c in CRITERIA if not getattr(self, c)]


class PairRecord(BaseModel):
    """A verified strict pair."""

    pair_id: str
    family: Family
    template: str
    template_hash: str
    params: dict[str, Any]
    seed: int
    base_snapshot: str
    shared_action: Action
    request_hashes: dict[str, str]  # world-model format name -> sha256 of the canonical request
    branches: dict[BranchName, BranchRecord]
    validation: Validation
    device: str = ""
    attempt: int = 0
    #: the tracked entity: the state probe's arguments (artifact paths, playlist, timer) and the outcome
    #: probe's spec, with the pair's parameters substituted (empty in records built before they were kept)
    entity: dict[str, Any] = Field(default_factory=dict)
    #: the template's setup steps as run before each branch (not model-visible), parameters substituted
    hidden_setup: list[dict[str, Any]] = Field(default_factory=list)
    #: the content part of the base snapshot's fingerprint when the pair was built (spec digest, files,
    #: file count, clipboard, foreground app: :func:`emukit.snapshots.content_fingerprint`)
    base_fingerprint: dict[str, Any] = Field(default_factory=dict)
    #: which of the template's branches each recorded branch ran: ``{"A": "B", "B": "A"}`` when the roles are
    #: swapped (half the pairs, seeded per pair: :func:`emukit.builder.pair.branch_roles`), so that "A" says
    #: nothing about the outcome; the identity in records built before roles were drawn
    roles: dict[BranchName, BranchName] = Field(default_factory=lambda: {"A": "A", "B": "B"})
    #: neutral moves (a tap on the status bar) at the start of each branch's history, padding the shorter
    #: branch to its sibling's length (empty in records built before padding)
    padding: dict[BranchName, int] = Field(default_factory=dict)
    #: the device the pair was built on and the builds of the apps its template touched, read on the device
    #: (:class:`emukit.provenance.BuiltOn`); kind "unknown" in records built before it was kept
    built_on: BuiltOn = Field(default_factory=BuiltOn.unknown)


class Rejection(BaseModel):
    """An attempt that did not become a pair, with the reason."""

    family: Family
    template: str
    params: dict[str, Any]
    seed: int
    attempt: int
    reason: str
    detail: str = ""
    device: str = ""
