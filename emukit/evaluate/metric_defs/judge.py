"""The vision-language judge's dimensions (:mod:`emukit.evaluate.judge`: GUI-CC's transition and rollout rubrics,
GUI-GenBench's GUI-Score) as one keyed metric over every kind of sample a judge scores."""

from __future__ import annotations

from typing import Any

from emukit.evaluate.judge.rubrics import gui_score
from emukit.evaluate.metric import metric


@metric("judge", label="judge {key}", reads=("branch", "task", "trajectory"), order=910, keyed=True, counted=True,
        shown="judge", definition=(
            "Judge dimension {key}: the mean over judged samples of the vision-language judge's 0-5 rating divided "
            "by 5 (rubric {rubric}; GUI-Score: 20 x rating averaged over GOAL, LOGIC, CONS, UI, QUAL, 0-100). "
            "Applies to samples with a predicted image (rendered HTML or an image output); a failed judgement is "
            "left out and counted in n."))
def judge(sample: Any) -> dict[str, float]:
    """A sample's judged dimensions (a branch: every rubric that scored it; a task or trajectory: each dimension's
    mean over its rollout), then its GUI-Score when the five GUI-Score dimensions are all there."""
    scores = dict(sample.judge)
    overall = gui_score(scores) if scores else None
    if overall is not None:
        scores["GUI-Score"] = overall
    return scores
