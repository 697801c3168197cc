"""Conversion between the boundary records (:mod:`emukit.records`) and the store's rows.

JSON columns hold ``model_dump(mode="json")`` of the records, so a pair read back equals the pair written
as long as its free-form dicts (params, state, outcome, evidence) hold JSON values (tuples come back as
lists, non-string keys as strings).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, computed_field

from emukit.actions import Action
from emukit.provenance import BuiltOn
from emukit.records import CRITERIA, BranchRecord, Observation, PairRecord, Rejection, Step, Validation, WarpRecord
from emukit.store.errors import StoreError
from emukit.store.models import BranchRow, PairRow, RejectionRow, StepRow

SCREENSHOT_EXT = "png"
#: the record fields kept together in ``pairs.provenance``
PROVENANCE = ("entity", "hidden_setup", "base_fingerprint", "roles", "padding")
HIERARCHY_EXT = "xml"


class StoredRejection(Rejection):
    """A rejection as stored: the record plus its work-key slot, run and time."""

    id: int
    slot: int
    run_id: int | None = None
    created_at: datetime


class RunInfo(BaseModel):
    """A stored run."""

    id: int
    command: str
    args: dict[str, Any]
    started_at: datetime
    finished_at: datetime | None
    status: str | None
    host: str
    emukit_version: str


class TemplateSummary(BaseModel):
    """Build progress of one template: accepted pairs, rejections by reason, attempts (their sum)."""

    template: str
    family: str
    accepted: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def attempted(self) -> int:
        return self.accepted + self.rejected


def observation_refs(record: PairRecord) -> set[tuple[str, str]]:
    """Every ``(sha, ext)`` artifact a pair refers to."""
    refs: set[tuple[str, str]] = set()

    def add(obs: Observation) -> None:
        refs.add((obs.screenshot, SCREENSHOT_EXT))
        refs.add((obs.hierarchy, HIERARCHY_EXT))

    for branch in record.branches.values():
        for step in branch.history:
            add(step.observation)
        add(branch.boundary_observation)
        add(branch.boundary_recaptured)
        add(branch.next_observation)
    return refs


def check_pair(record: PairRecord) -> None:
    """Refuse a record the store could not give back intact, or that is not an accepted strict pair."""
    if set(record.branches) != {"A", "B"}:
        raise StoreError(f"pair {record.pair_id} has branches {sorted(record.branches)}; a pair needs A and B")
    for key, branch in record.branches.items():
        if branch.name != key:
            raise StoreError(f"pair {record.pair_id}: branch stored under {key!r} is named {branch.name!r}")
    failed = record.validation.failed()
    if failed:
        raise StoreError(f"pair {record.pair_id} fails {', '.join(failed)}; store it as a rejection instead")


def _json(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")


def pair_to_row(record: PairRecord, *, slot: int, run_id: int | None) -> PairRow:
    """The pair row with its branch and step rows attached (not yet added to a session)."""
    validation = record.validation
    row = PairRow(
        pair_id=record.pair_id, family=record.family, template=record.template,
        template_hash=record.template_hash, params=_json_dict(record, "params"), seed=record.seed, slot=slot,
        base_snapshot=record.base_snapshot, shared_action=_json(record.shared_action),
        request_hashes=dict(record.request_hashes), validation=_json(validation),
        device=record.device, attempt=record.attempt, run_id=run_id,
        provenance=record.model_dump(mode="json", include=set(PROVENANCE)),
        device_kind=record.built_on.kind, built_on=_json(record.built_on),
        **{criterion: bool(getattr(validation, criterion)) for criterion in CRITERIA},
    )
    for name in ("A", "B"):
        row.branches.append(_branch_to_row(record.branches[name]))  # type: ignore[index]
    return row


def _json_dict(model: BaseModel, field: str) -> dict[str, Any]:
    return model.model_dump(mode="json", include={field})[field]


def _branch_to_row(branch: BranchRecord) -> BranchRow:
    dumped = branch.model_dump(mode="json", include={"state", "state_evidence", "outcome", "outcome_evidence",
                                                      "timings_ms"})
    row = BranchRow(
        name=branch.name, history_len=len(branch.history),
        boundary_screenshot=branch.boundary_observation.screenshot,
        boundary_hierarchy=branch.boundary_observation.hierarchy,
        recaptured_screenshot=branch.boundary_recaptured.screenshot,
        recaptured_hierarchy=branch.boundary_recaptured.hierarchy,
        state=dumped["state"], state_evidence=dumped["state_evidence"],
        shared_action=_json(branch.shared_action),
        next_screenshot=branch.next_observation.screenshot, next_hierarchy=branch.next_observation.hierarchy,
        outcome=dumped["outcome"], outcome_evidence=dumped["outcome_evidence"],
        warp=_json(branch.warp) if branch.warp is not None else None, timings=dumped["timings_ms"],
        shared_steps=[_json(a) for a in branch.shared_steps],
    )
    for index, step in enumerate(branch.history):
        row.steps.append(StepRow(index=index, screenshot=step.observation.screenshot,
                                 hierarchy=step.observation.hierarchy, action=_json(step.action)))
    return row


def row_to_pair(row: PairRow) -> PairRecord:
    """Rebuild the record from a pair row whose branches and steps are loaded."""
    branches = {b.name: _row_to_branch(b) for b in row.branches}
    return PairRecord(
        pair_id=row.pair_id, family=row.family, template=row.template,  # type: ignore[arg-type]
        template_hash=row.template_hash, params=row.params, seed=row.seed, base_snapshot=row.base_snapshot,
        shared_action=Action.model_validate(row.shared_action), request_hashes=row.request_hashes,
        branches=branches, validation=Validation.model_validate(row.validation),  # type: ignore[arg-type]
        device=row.device, attempt=row.attempt, **(row.provenance or {}),
        built_on=BuiltOn.model_validate(row.built_on) if row.built_on else BuiltOn.unknown(),
    )


def _row_to_branch(row: BranchRow) -> BranchRecord:
    return BranchRecord(
        name=row.name,  # type: ignore[arg-type]
        history=[Step(observation=Observation(screenshot=s.screenshot, hierarchy=s.hierarchy),
                      action=Action.model_validate(s.action)) for s in row.steps],
        boundary_observation=Observation(screenshot=row.boundary_screenshot, hierarchy=row.boundary_hierarchy),
        boundary_recaptured=Observation(screenshot=row.recaptured_screenshot,
                                        hierarchy=row.recaptured_hierarchy),
        state=row.state, state_evidence=row.state_evidence,
        shared_action=Action.model_validate(row.shared_action),
        next_observation=Observation(screenshot=row.next_screenshot, hierarchy=row.next_hierarchy),
        outcome=row.outcome, outcome_evidence=row.outcome_evidence,
        warp=WarpRecord.model_validate(row.warp) if row.warp is not None else None,
        timings_ms=row.timings, shared_steps=[Action.model_validate(a) for a in row.shared_steps or []],
    )


def rejection_to_row(rej: Rejection, *, slot: int, run_id: int | None) -> RejectionRow:
    return RejectionRow(family=rej.family, template=rej.template, params=_json_dict(rej, "params"),
                        seed=rej.seed, slot=slot, attempt=rej.attempt, reason=rej.reason, detail=rej.detail,
                        device=rej.device, run_id=run_id)


def row_to_rejection(row: RejectionRow) -> StoredRejection:
    return StoredRejection(id=row.id, family=row.family, template=row.template,  # type: ignore[arg-type]
                           params=row.params, seed=row.seed, attempt=row.attempt, reason=row.reason,
                           detail=row.detail, device=row.device, slot=row.slot, run_id=row.run_id,
                           created_at=row.created_at)
