"""The metrics of seed 002: the strict-pair metrics (Section 4.1, Appendices C.4 and E.4.1) and the predictive
condition's state-recovery Exact, in the order every table shows them; next-observation fidelity (F.5); and Table
5's Exact over held-out pairs and suite trajectories (Appendix F)."""

from __future__ import annotations

import math

from emukit.evaluate.metric import ScoredPair, ScoredUnit, metric
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


@metric("fidelity", label="{key} cosine", reads="branch", order=900, keyed=True, shown="cosine", definition=(
    "Mean cosine similarity between the L2-normalised {key} embeddings of the rendered prediction and the recorded "
    "next screenshot, over branches with a predicted image; from -1 to 1, higher is closer (not a percentage)."))
def fidelity(branch: BranchScore) -> dict[str, float]:
    """Seed 002 F.5: one figure per encoder the evaluation ran (``--fidelity-dinov2``, ``--fidelity-siglip``);
    a score that is not a finite number is left out."""
    return {name: value for name, value in branch.fidelity.items() if value is not None and math.isfinite(value)}


@metric("exact", label="Exact", reads="unit", order=70, always=True, definition=(
    "Predictive-state recovery (Table 5): fraction of units whose estimated canonical state equals the ground "
    "truth; a unit is a held-out strict pair (both branches exact: PairCorrect) or a trajectory of a "
    "distribution-shift suite (its one final state)."))
def exact(unit: ScoredUnit) -> bool:
    return unit.exact
