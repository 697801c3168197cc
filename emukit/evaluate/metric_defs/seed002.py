"""The strict-pair metrics of seed 002 (Section 4.1, Appendices C.4 and E.4.1) and the predictive condition's
state-recovery Exact, in the order every table shows them."""

from __future__ import annotations

from emukit.evaluate.metric import ScoredPair, metric
from emukit.evaluate.metrics import BranchScore


@metric("branch_exact", label="BranchExact", reads="branch", order=10, always=True, definition=(
    "Fraction of scored branches judged correct: the outcome the family parser read from the rendered prediction "
    "equals the branch's validated outcome (SemCorrect) and every surface gate passes (SurfaceValid)."))
def branch_exact(branch: BranchScore) -> bool:
    return branch.correct


@metric("pair_correct", label="PairCorrect", reads="pair", order=20, always=True, definition=(
    "Fraction of scored pairs whose two branches, A and B, are both correct in the BranchExact sense."))
def pair_correct(pair: ScoredPair) -> bool:
    return pair.both("correct")


@metric("sem_correct", label="SemCorrect (branch)", reads="branch", order=30, always=True, definition=(
    "Fraction of scored branches whose read outcome equals the validated outcome, whatever the surface gates "
    "say."))
def sem_correct(branch: BranchScore) -> bool:
    return branch.sem_correct


@metric("surface_valid", label="SurfaceValid (branch)", reads="branch", order=40, always=True, definition=(
    "Fraction of scored branches that pass every non-outcome surface gate of their family (Downloads scope, "
    "keyboard, folder grounding, unique listing, shade grounding, footer, offline self-containedness), whatever "
    "the outcome."))
def surface_valid(branch: BranchScore) -> bool:
    return branch.surface_valid


@metric("sem_pair_correct", label="SemCorrect (pair)", reads="pair", order=50, always=True, definition=(
    "Fraction of scored pairs whose two branches, A and B, are both SemCorrect."))
def sem_pair_correct(pair: ScoredPair) -> bool:
    return pair.both("sem_correct")


@metric("state_exact", label="State Exact", reads="branch", order=60, definition=(
    "Predictive-state condition: fraction of branches whose estimated canonical state equals the ground-truth "
    "state exactly."))
def state_exact(branch: BranchScore) -> bool | None:
    return branch.state_exact
