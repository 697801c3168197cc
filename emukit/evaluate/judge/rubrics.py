"""The judge's rubrics: what a vision-language judge is asked, and how its answer is read.

Three rubrics, written for emukit from the dimensions the seeds define (the prompts are ours; the papers'
own prompts are not reproduced):

* ``gui-cc-transition`` (GUI-CC, seeds 000/001 Section 3.7: transition fidelity and plausibility) scores one
  predicted transition on five dimensions, each 0-5: UI element alignment ``S_ele`` and layout integrity
  ``S_lay`` against the recorded next screen, action adherence ``S_ad``, action identifiability ``S_id`` and
  GUI state usability ``S_use``.
* ``gui-cc-rollout`` (GUI-CC contextual consistency) scores a chronological rollout on state and context
  persistence ``S_cp`` and action-controlled rollout dynamics ``S_rd``; each is the sum of five binary
  criteria, as GUI-CC's judge sums them, and the criteria are recorded.
* ``gui-score`` (GUI-GenBench, seed 003 Section 3.2) rates Goal Achievement, Interaction Logic, Content
  Consistency, UI Plausibility and Visual Quality on GUI-GenBench's 0-5 ordinal scale; GUI-Score is
  ``20 * rating`` averaged over dimensions and samples.

Every score is stored normalised to [0, 1] (``rating / 5``). A rubric has a version: change a prompt, bump
it; the version is part of every request (so of the cache key) and of ``results.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from emukit.errors import ConfigError
from emukit.plugins import Registry

SCALE_MAX = 5


@dataclass(frozen=True)
class Dimension:
    key: str  # the results key, e.g. "S_ad" or "GOAL"
    label: str
    question: str
    criteria: tuple[str, ...] = ()  # binary criteria whose sum is the rating (rollout rubric)


@dataclass(frozen=True)
class JudgeInput:
    """What one judgement sees: the task or instruction (when there is one), the actions in order, the
    frames in order (``frames[0]`` the screen before the first action; the last one the prediction), and
    the recorded next screen for the fidelity dimensions."""

    actions: tuple[str, ...]
    frames: tuple[bytes, ...]
    instruction: str = ""
    reference_next: bytes | None = None
    reference_current: bytes | None = None  # the recorded screen the action was taken on (gui-cc-rap)


ROLLOUT_MAX_FRAMES = 16  # a judged rollout: its first screen and at most the last 15 after it


def rollout_input(actions: list[str], frames: list[bytes], instruction: str = "",
                  max_frames: int = ROLLOUT_MAX_FRAMES) -> JudgeInput:
    """A rollout for the rollout rubrics: ``frames[0]`` the first screen, ``frames[i]`` the screen after
    ``actions[i - 1]``. A longer rollout keeps its first screen and the last ``max_frames - 1`` screens;
    the actions in between are replaced by one "(earlier actions omitted)" line."""
    if len(frames) > max_frames:
        keep = max_frames - 1
        frames = [frames[0], *frames[-keep:]]
        actions = ["(earlier actions omitted)", *actions[len(actions) - keep + 1:]] if keep > 1 else actions[-1:]
    return JudgeInput(actions=tuple(actions), frames=tuple(frames), instruction=instruction)


@dataclass(frozen=True)
class Rubric:
    name: str
    version: str
    title: str
    dimensions: tuple[Dimension, ...]
    preamble: str
    needs_reference: bool = False
    needs_reference_current: bool = False
    min_frames: int = 2

    @property
    def key(self) -> str:
        """The versioned name the registry knows it by: ``NAME@VERSION``."""
        return f"{self.name}@{self.version}"

    def system_prompt(self) -> str:
        lines = [self.preamble, "", f"Rate each dimension from 0 (absent or wrong) to {SCALE_MAX} (fully right)."]
        for d in self.dimensions:
            lines.append(f"- {d.key} ({d.label}): {d.question}")
            for i, c in enumerate(d.criteria, 1):
                lines.append(f"    {d.key}.C{i}: {c}")
        if any(d.criteria for d in self.dimensions):
            lines.append("For a dimension with criteria, give each criterion 0 or 1 (1 only with visible evidence); "
                         "its rating is their sum.")
        lines += ["Judge only what the images show. If an image is too broken to judge a dimension, rate it 0.",
                  "Answer with one JSON object and nothing else: "
                  + json.dumps(self.answer_template(), separators=(", ", ": "))]
        return "\n".join(lines)

    def answer_template(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in self.dimensions:
            if d.criteria:
                out[d.key] = {f"C{i}": "0|1" for i in range(1, len(d.criteria) + 1)}
            else:
                out[d.key] = f"0-{SCALE_MAX}"
        out["reason"] = "one short sentence of visual evidence"
        return out

    def user_text(self, item: JudgeInput) -> str:
        lines = [f"Rubric {self.name} v{self.version}."]
        if item.instruction:
            lines.append(f"Task: {item.instruction}")
        lines.append("Actions, in order:")
        lines += [f"  {i + 1}. {a}" for i, a in enumerate(item.actions)]
        lines.append(f"Frames follow in order: frame 0 is the screen before action 1; frame {len(item.frames) - 1} "
                     "(the last) is the world model's predicted screen after the last action.")
        if self.needs_reference_current and item.reference_current is not None:
            lines.append("After the frames come two more images: the real screen the action was taken on, then "
                         "the real screen after it (references for the task stage, not for pixel similarity).")
        elif self.needs_reference and item.reference_next is not None:
            lines.append("After the frames comes one more image: the real next screen recorded on the device "
                         "(the reference for S_ele and S_lay only).")
        return "\n".join(lines)

    def parse(self, text: str) -> tuple[dict[str, float], dict[str, Any]]:
        """Normalised scores per dimension and the extras (criteria, reason) from the judge's reply; raises
        ``ValueError`` naming what is wrong."""
        data = _json_object(text)
        scores: dict[str, float] = {}
        extras: dict[str, Any] = {"reason": str(data.get("reason", ""))[:500]}
        for d in self.dimensions:
            if d.key not in data:
                raise ValueError(f"the reply has no {d.key!r}")
            value = data[d.key]
            if d.criteria:
                if not isinstance(value, dict):
                    raise ValueError(f"{d.key}: expected the criteria object, got {value!r}")
                bits = []
                for i in range(1, len(d.criteria) + 1):
                    bit = value.get(f"C{i}")
                    if bit not in (0, 1, True, False, "0", "1"):
                        raise ValueError(f"{d.key}.C{i}: expected 0 or 1, got {bit!r}")
                    bits.append(int(bit))
                extras[f"{d.key}_criteria"] = bits
                rating = sum(bits)
            else:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
                    raise ValueError(f"{d.key}: expected an integer 0-{SCALE_MAX}, got {value!r}")
                rating = int(value)
                if not 0 <= rating <= SCALE_MAX:
                    raise ValueError(f"{d.key}: {rating} is outside 0-{SCALE_MAX}")
            scores[d.key] = rating / (len(d.criteria) if d.criteria else SCALE_MAX)
        return scores, extras


def _json_object(text: str) -> dict[str, Any]:
    start = text.find("{")
    if start < 0:
        raise ValueError("the reply holds no JSON object")
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            esc = not esc and ch == "\\"
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                try:
                    value = json.loads(text[start:i + 1])
                except ValueError as exc:
                    raise ValueError(f"the reply's JSON does not parse: {exc}") from None
                if not isinstance(value, dict):
                    raise ValueError("the reply's JSON is not an object")
                return value
    raise ValueError("the reply's JSON object is not closed")


GUI_CC_TRANSITION = Rubric(
    name="gui-cc-transition", version="1", title="GUI-CC transition fidelity and plausibility",
    needs_reference=True,
    preamble=("You grade one step of a GUI world model: given a phone screen and an action, the model drew the "
              "screen it expects next. You see the screen before, the action, the predicted screen, and the "
              "screen the real device showed."),
    dimensions=(
        Dimension("S_ele", "UI element alignment",
                  "Are the elements of the real next screen (texts, buttons, icons, fields, list rows) present in "
                  "the prediction, with the same content and roughly the same places?"),
        Dimension("S_lay", "layout integrity",
                  "Does the prediction keep the real next screen's layout: regions, hierarchy, alignment, "
                  "spacing, nothing collapsed, overlapping or cut off?"),
        Dimension("S_ad", "action adherence",
                  "Does the predicted screen show the effect the action should have from the screen before "
                  "(opened, typed, toggled, scrolled, navigated) and nothing contrary to it?"),
        Dimension("S_id", "action identifiability",
                  "Looking only at the screen before and the predicted screen, could one tell which action was "
                  "taken?"),
        Dimension("S_use", "GUI state usability",
                  "Is the predicted screen readable, coherent and usable for the next interaction (legible "
                  "text, recognisable controls, no broken rendering)?"),
    ),
)

GUI_CC_ROLLOUT = Rubric(
    name="gui-cc-rollout", version="1", title="GUI-CC contextual consistency", min_frames=2,
    preamble=("You grade a rollout of a GUI world model: a sequence of phone screens, each after one action of "
              "the list. Judge consistency across the sequence, not the beauty of any one screen, and do not "
              "reward a sequence that never changes."),
    dimensions=(
        Dimension("S_cp", "state and context persistence", "Do task state and context survive the steps?", (
            "consecutive screens continue each other (same app and page unless an action changes them)",
            "the entities the task is about (names, items, queries, files) stay the same where they should",
            "state set by an earlier action (typed text, a selection, a saved item, a toggle) is still shown "
            "later where it should be",
            "going back or returning to an earlier page restores what that page showed",
            "the last screen still reflects what happened earlier in the sequence, not a generic page",
        )),
        Dimension("S_rd", "action-controlled rollout dynamics", "Are the changes driven by the actions?", (
            "most actions produce a visible, appropriate response",
            "each change appears right after its action, not late, early or without one",
            "the screens progress in the order of the actions, without unexplained resets or jumps",
            "a local action changes a local part of the screen; whole-screen changes only for navigation",
            "the sequence does not freeze, loop or degrade (artifacts, blank areas, unreadable text)",
        )),
    ),
)

GUI_SCORE = Rubric(
    name="gui-score", version="1", title="GUI-Score (GUI-GenBench)",
    preamble=("You grade a generated phone screen as GUI-GenBench's GUI-Score does: the screen a generator "
              "produced after an action (or the last of several), given the screen(s) before it."),
    dimensions=(
        Dimension("GOAL", "Goal Achievement",
                  "Does the generated state carry out the requested action or objective, correctly and "
                  "completely?"),
        Dimension("LOGIC", "Interaction Logic",
                  "Are the changes what a valid action on this interface would cause, with plausible interface "
                  "behaviour?"),
        Dimension("CONS", "Content Consistency",
                  "Is content that should stay unchanged preserved, and are interface elements stable across "
                  "the frames?"),
        Dimension("UI", "UI Plausibility",
                  "Is the screen structurally coherent and conventional, with no invented or incompatible "
                  "controls?"),
        Dimension("QUAL", "Visual Quality",
                  "Is text readable, are icons clear, is the screen free of rendering artifacts?"),
    ),
)


GUI_CC_RAP = Rubric(
    name="gui-cc-rap", version="1", title="GUI-CC reference-action progress", needs_reference=True,
    needs_reference_current=True,
    preamble=("You check one step of a world model rolled out along a real trajectory: frame 0 is the model's "
              "screen the reference action is applied to, frame 1 the model's screen after it. The real screens "
              "of the same step show the task stage expected before and after; use them for app, page, target "
              "and state, not for exact layout or style. Do not infer success from the action text."),
    dimensions=(
        Dimension("S_rap", "reference-action support", "Does the rollout still support this reference step?", (
            "on frame 0 the app, page and state allow the reference action; its target is there",
            "frame 1 shows a plausible effect of that action taken on frame 0",
            "frame 1 allows the next reference action (for the last step: the task's final state is shown)",
        )),
    ),
)


#: every judge rubric by its versioned name ``NAME@VERSION`` (:attr:`Rubric.key`): the ones above, and those of
#: outside modules named by entry points in the ``emukit.judge_rubrics`` group (:mod:`emukit.plugins`); a
#: versioned name registered again with other content is refused
RUBRICS: Registry[Rubric] = Registry("judge rubric", "emukit.evaluate.judge", "emukit.judge_rubrics")


def register_rubric(rubric: Rubric) -> Rubric:
    """Register ``rubric`` under ``NAME@VERSION``; a new prompt is a new version (the version is part of every
    request, so of the cache key, and of ``results.json``)."""
    return RUBRICS.register(rubric.key)(rubric)


def get_rubric(name: str) -> Rubric:
    """The rubric ``NAME@VERSION``, or for a bare ``NAME`` its highest version; ConfigError naming the known
    rubrics otherwise."""
    if "@" in name:
        return RUBRICS.get(name)
    versions = [RUBRICS.get(key) for key in RUBRICS.names() if key.partition("@")[0] == name]
    if not versions:
        known = sorted({key.partition("@")[0] for key in RUBRICS.names()})
        raise ConfigError(f"unknown judge rubric {name!r}; known: {', '.join(known)}")
    return max(versions, key=lambda r: (int(r.version) if r.version.isdigit() else -1, r.version))


for _r in (GUI_CC_TRANSITION, GUI_CC_ROLLOUT, GUI_SCORE, GUI_CC_RAP):
    register_rubric(_r)

GUI_SCORE_KEYS = tuple(d.key for d in GUI_SCORE.dimensions)


def gui_score(scores: dict[str, float]) -> float | None:
    """GUI-Score of one sample, 0-100: ``20 * rating`` averaged over the five dimensions (None if any is
    missing)."""
    values = [scores.get(k) for k in GUI_SCORE_KEYS]
    if any(v is None for v in values):
        return None
    return 100.0 * sum(values) / len(values)  # type: ignore[arg-type]


