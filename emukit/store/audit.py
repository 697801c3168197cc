"""Integrity audit of a store: every pair complete, every referenced artifact present and sound."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from emukit.store.convert import HIERARCHY_EXT, SCREENSHOT_EXT
from emukit.store.errors import ArtifactError
from emukit.store.models import BranchRow, PairRow, StepRow

if TYPE_CHECKING:
    from emukit.store.db import Store

_BATCH = 200


def _branch_refs(branch: BranchRow) -> list[tuple[str, str]]:
    refs = [(branch.boundary_screenshot, SCREENSHOT_EXT), (branch.boundary_hierarchy, HIERARCHY_EXT),
            (branch.recaptured_screenshot, SCREENSHOT_EXT), (branch.recaptured_hierarchy, HIERARCHY_EXT),
            (branch.next_screenshot, SCREENSHOT_EXT), (branch.next_hierarchy, HIERARCHY_EXT)]
    for step in branch.steps:
        refs += [(step.screenshot, SCREENSHOT_EXT), (step.hierarchy, HIERARCHY_EXT)]
    return refs


def referenced_artifacts(store: Store) -> set[str]:
    """Hashes of every artifact a stored row refers to."""
    columns = [BranchRow.boundary_screenshot, BranchRow.boundary_hierarchy, BranchRow.recaptured_screenshot,
               BranchRow.recaptured_hierarchy, BranchRow.next_screenshot, BranchRow.next_hierarchy,
               StepRow.screenshot, StepRow.hierarchy]
    refs: set[str] = set()
    with store._session() as s:
        for column in columns:
            refs.update(s.scalars(select(column).distinct()))
    return refs


def audit_store(store: Store, *, verify_artifacts: bool = True) -> list[str]:
    """One line per problem, naming the pair, branch and artifact path; empty when the store is sound."""
    problems: list[str] = []
    checked: set[tuple[str, str]] = set()
    last = 0
    while True:
        query = (select(PairRow).where(PairRow.id > last).order_by(PairRow.id).limit(_BATCH)
                 .options(selectinload(PairRow.branches).selectinload(BranchRow.steps)))
        with store._session() as s:
            rows = list(s.scalars(query))
        if not rows:
            return problems
        last = rows[-1].id
        for pair in rows:
            names = [b.name for b in pair.branches]
            if sorted(names) != ["A", "B"]:
                problems.append(f"pair {pair.pair_id}: branches {names}, expected A and B")
            for branch in pair.branches:
                indices = [step.index for step in branch.steps]
                if indices != list(range(branch.history_len)):
                    problems.append(f"pair {pair.pair_id} branch {branch.name}: steps {indices}, expected "
                                    f"0..{branch.history_len - 1}")
                if not verify_artifacts:
                    continue
                for ref in _branch_refs(branch):
                    if ref in checked:
                        continue
                    checked.add(ref)
                    try:
                        store.artifacts.verify(*ref)
                    except ArtifactError as exc:
                        problems.append(f"pair {pair.pair_id} branch {branch.name}: {exc}")
