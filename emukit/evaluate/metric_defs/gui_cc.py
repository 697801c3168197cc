"""The online task track's metrics (GUI-CC Section 3.2; :mod:`emukit.evaluate.tasks`) and the offline
reference-action track's (external trajectories; :mod:`emukit.evaluate.trajectories`)."""

from __future__ import annotations

from emukit.evaluate.metric import ScoredTask, ScoredTrajectory, metric


@metric("milestone_progress", label="Milestone progress", reads="task", order=10, always=True, definition=(
    "Mean over tasks of the fraction of the task's milestones the rollout's generated screens reached, in order "
    "(the verifier's checks read from each predicted screen)."))
def milestone_progress(task: ScoredTask) -> float:
    return task.milestone_progress


@metric("action_progress", label="Action progress", reads="task", order=20, definition=(
    "Reference track: mean over tasks of the longest prefix of reference actions whose target was present and "
    "actionable on the model's own previous screen, over the number of reference actions."))
def action_progress(task: ScoredTask) -> float | None:
    return task.action_progress


@metric("mean_steps", label="Steps", reads="task", order=30, shown="count", definition=(
    "Agent track: mean number of steps the agent took on the model's screens before it stopped, stagnated or ran "
    "out of its budget (not a percentage)."))
def mean_steps(task: ScoredTask) -> float | None:
    return float(task.steps) if task.track == "agent" else None


@metric("reference_action_progress", label="Reference-action progress", reads="trajectory", order=10,
        always=True, definition=(
            "Mean over trajectories of the longest prefix of reference steps the judge passed (GUI-CC S_rap: "
            "precondition, effect and support for the next action all met) over the trajectory's length."))
def reference_action_progress(trajectory: ScoredTrajectory) -> float:
    return trajectory.progress
