"""Temporal Deadline readout (seed 002 Appendix C.4): what the notification shade says about the timer.

Evidence read from visible nodes (texts, control texts and icon-only control labels):

* fired-state text: ``Time's up`` (any apostrophe) or ``timer expired``; a zero countdown (``00:00``,
  ``0:00``, an overrun ``-0:12``) is the equivalent zero timer state;
* countdowns: ``MM:SS`` / ``H:MM:SS`` values. Wall-clock times are not countdowns: one followed by am/pm, or one
  in the top :data:`STATUS_BAND` (10 %) of the viewport (status bar / shade header clock);
* controls: ``Stop`` (``Stop all``, ``Stop timer``), ``Pause`` (``Pause timer``), ``Resume``;
  ``Timer paused`` / ``Paused`` text; alarm content (``alarm``, ``snooze``); the words ``timer(s)``;
* shade grounding: a ``Notifications`` / ``No notifications`` heading, the footer labels, or two or more
  quick-settings tile labels; footer: ``Manage`` / ``Clear all``.

Outcomes (``status``):

* ``fired``: fired-state evidence and exactly one visible Stop control, rejected (-> ``invalid``) when the same
  surface has a nonzero countdown, a Pause control, alarm content or a duplicated fired text / Stop control;
* ``running``: exactly one distinct nonzero countdown and exactly one Pause control, no fired-state or alarm
  evidence (-> ``invalid`` otherwise); ``remaining_seconds`` is the countdown (the judge accepts
  ``[r-6, r]`` clipped at zero);
* ``paused``: ``Timer paused``/``Resume`` with one nonzero countdown and no Pause/Stop/fired evidence (the
  builder records a paused timer's shade as ``paused``; the seed's three outcomes have no such case);
* ``none``: no timer-state evidence at all (no fired text, countdown, Stop/Pause/Resume, "timer" word);
* ``invalid``: anything else — partial evidence (Time's up without Stop, a countdown without Pause), or
  mutually contradictory evidence.

Surface gates: the surface is a recognisable notification shade; its footer is visibly complete (at least
one footer label visible and none present but clipped, occluded or outside the viewport); offline
self-containedness.

The judge: SemCorrect when the status is the branch's ``status`` and, for ``running`` (and ``paused``), the
countdown lies in ``[r - 6, r]`` seconds, clipped at zero (:data:`COUNTDOWN_TOLERANCE_S`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from emukit.evaluate.parsers.base import (
    FamilyReader,
    ParsedOutcome,
    describe,
    label_nodes,
    offline_check,
    register_reader,
)
from emukit.evaluate.parsers.normalize import durations
from emukit.evaluate.visible import Evidence, EvidenceNode

#: Countdown tolerance of a running timer: the rendered remainder must lie in ``[r - 6, r]`` (clipped at 0).
COUNTDOWN_TOLERANCE_S = 6
STATUS_BAND = 0.10
TIMES_UP = re.compile(r"\btime['’‘`´]?s up\b|\btimer expired\b")
STOP = re.compile(r"^(stop|stop all|stop timer|dismiss timer)$")
PAUSE = re.compile(r"^(pause|pause timer|pause all)$")
RESUME = re.compile(r"^(resume|resume timer|resume all)$")
PAUSED = re.compile(r"\b(timer paused|paused)\b")
ALARM = re.compile(r"\b(alarms?|snooze|snoozed)\b")
TIMER_WORD = re.compile(r"\btimers?\b")
SHADE_HEADINGS = frozenset({"notifications", "no notifications", "notification shade", "notification"})
FOOTER = frozenset({"manage", "clear all", "clear"})
QS_TILES = frozenset({"wi-fi", "wifi", "internet", "bluetooth", "flashlight", "torch", "do not disturb",
                      "airplane mode", "aeroplane mode", "battery saver", "auto-rotate", "auto rotate", "location",
                      "hotspot", "mobile data", "dark theme", "night light", "screen record", "cast", "nfc"})


def _countdowns(nodes: list[EvidenceNode], vh: float, fallback: bool) -> tuple[list[tuple[int, EvidenceNode]],
                                                                                 list[str]]:
    out, wall = [], []
    for n in nodes:
        for seconds, text, am_pm in durations(n.norm):
            if am_pm or (not fallback and n.y < STATUS_BAND * vh):
                wall.append(text)
            else:
                out.append((seconds, n))
    return out, wall


def parse_temporal(evidence: Evidence, context: Mapping[str, Any] | None = None) -> ParsedOutcome:
    """Read none/running/fired (or invalid) from a notification-shade prediction; ``context`` is unused
    (the countdown tolerance needs the target and is applied by the judge)."""
    ev = evidence
    nodes = label_nodes(ev)
    times_up = [n for n in nodes if TIMES_UP.search(n.norm)]
    stop = [n for n in nodes if STOP.match(n.norm)]
    pause = [n for n in nodes if PAUSE.match(n.norm)]
    resume = [n for n in nodes if RESUME.match(n.norm)]
    paused = [n for n in nodes if PAUSED.search(n.norm)]
    alarm = [n for n in nodes if ALARM.search(n.norm)]
    counts, wall = _countdowns([n for n in nodes if n.kind != "label"], ev.viewport[1], ev.fallback)
    zero = [n for s, n in counts if s == 0]
    positive = sorted({s for s, _ in counts if s > 0})
    timer_words = [n for n in nodes if TIMER_WORD.search(n.norm)]

    shade = [n for n in nodes if n.norm in SHADE_HEADINGS or n.norm in FOOTER or n.norm in QS_TILES]
    tiles = {n.norm for n in nodes if n.norm in QS_TILES}
    grounded = any(n.norm in SHADE_HEADINGS or n.norm in FOOTER for n in shade) or len(tiles) >= 2
    footer_vis = [n for n in nodes if n.norm in FOOTER]
    footer_cut = [n for n in ev.nodes if not n.visible and n.norm in FOOTER
                  and n.hidden in ("outside_viewport", "occluded")]
    checks = {"shade_grounded": grounded, "footer_complete": bool(footer_vis) and not footer_cut, **offline_check(ev)}
    details = {"times_up": describe(times_up), "stop": describe(stop), "pause": describe(pause),
               "resume": describe(resume), "countdowns": [s for s, _ in counts], "wall_clock": wall[:4],
               "alarm": describe(alarm), "footer": describe(footer_vis), "footer_cut": describe(footer_cut)}

    def result(status: str, reason: str, remaining: int | None = None, valid: bool = True) -> ParsedOutcome:
        return ParsedOutcome("temporal", {"status": status, "remaining_seconds": remaining}, valid, checks, reason,
                             ev.source, details)

    fired_ev = bool(times_up or zero)
    if fired_ev:
        problems = []
        if positive:
            problems.append("a nonzero countdown")
        if pause:
            problems.append("a Pause control")
        if alarm:
            problems.append("alarm content")
        if len(times_up) > 1:
            problems.append("a duplicated fired-state text")
        if len(stop) > 1:
            problems.append("duplicated Stop controls")
        if paused or resume:
            problems.append("paused-timer evidence")
        if problems:
            return result("invalid", "fired-state evidence contradicted by " + ", ".join(problems), valid=False)
        if len(stop) == 1:
            return result("fired", "fired-state evidence with one visible Stop control", 0)
        return result("invalid", "fired-state evidence without a visible Stop control", valid=False)
    if pause or (positive and not (paused or resume)):
        problems = []
        if alarm:
            problems.append("alarm content")
        if stop:
            problems.append("a Stop control")
        if len(positive) > 1:
            problems.append(f"{len(positive)} different countdowns")
        if len(pause) > 1:
            problems.append("duplicated Pause controls")
        if paused or resume:
            problems.append("paused-timer evidence")
        if problems:
            return result("invalid", "running-timer evidence contradicted by " + ", ".join(problems), valid=False)
        if positive and len(pause) == 1:
            return result("running", "a nonzero countdown with one visible Pause control", positive[0])
        missing = "a Pause control" if positive else "a nonzero countdown"
        return result("invalid", f"running-timer evidence without {missing}", valid=False)
    if paused or resume:
        if len(positive) == 1 and not (stop or alarm):
            return result("paused", "a paused timer with its retained countdown", positive[0])
        return result("invalid", "incomplete or contradictory paused-timer evidence", valid=False)
    if stop or timer_words:
        return result("invalid", "timer evidence without a readable timer state", valid=False)
    return result("none", "no timer-state evidence", None)


def remaining_ok(parsed: int | None, target: int | None) -> bool:
    """A read countdown within :data:`COUNTDOWN_TOLERANCE_S` below the target remainder (clipped at zero)."""
    if parsed is None or target is None:
        return False
    return max(0, int(target) - COUNTDOWN_TOLERANCE_S) <= int(parsed) <= int(target)


@register_reader
class TemporalReader(FamilyReader):
    """Temporal Deadline: the timer's status (and countdown) on the notification shade."""

    family = "temporal"
    invalid_outcome: ClassVar = {"status": "invalid", "remaining_seconds": None}

    def expected_context(self, outcome: Mapping[str, Any], sibling_outcome: Mapping[str, Any],
                         state: Mapping[str, Any] | None, sibling_state: Mapping[str, Any] | None,
                         known_items: list[str] | None) -> dict[str, Any]:
        return {"expected_status": outcome.get("status"), "expected_remaining": outcome.get("remaining_seconds")}

    def parse(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        return parse_temporal(evidence, context)

    def semantics(self, got: Mapping[str, Any], expected_outcome: Mapping[str, Any]) -> tuple[bool, str]:
        want = self.target(expected_outcome)
        status = got.get("status")
        sem = status == want
        if sem and want in ("running", "paused"):
            sem = remaining_ok(got.get("remaining_seconds"), expected_outcome.get("remaining_seconds"))
        return sem, (f"read {status} ({got.get('remaining_seconds')} s), expected {want} "
                     f"({expected_outcome.get('remaining_seconds')} s)")
