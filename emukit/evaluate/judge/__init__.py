"""Judge-based metrics: GUI-CC's transition and rollout dimensions and GUI-GenBench's GUI-Score, scored by a
vision-language model behind any OpenAI-compatible endpoint.

A new rubric is one :class:`Rubric` registered with ``register_rubric(...)`` under its versioned name, in emukit or in
an outside module named by an ``emukit.judge_rubrics`` entry point (see :mod:`emukit.evaluate.judge.rubrics`).
"""

from emukit.evaluate.judge.rubrics import (
    GUI_SCORE_KEYS,
    RUBRICS,
    Dimension,
    JudgeInput,
    Rubric,
    get_rubric,
    gui_score,
    register_rubric,
    rollout_input,
)
from emukit.evaluate.judge.scorer import Judgement, JudgeScorer, flat_scores

__all__ = ["GUI_SCORE_KEYS", "RUBRICS", "Dimension", "JudgeInput", "JudgeScorer", "Judgement", "Rubric",
           "flat_scores", "get_rubric", "gui_score", "register_rubric", "rollout_input"]
