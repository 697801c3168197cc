"""Stress-suite move table of the Temporal Deadline family (seed 002 Appendix F.3/F.4).

The tracked state evolves with time, so the construction differs from the other families (F.3: "d controls
the length of the visible timer-interaction history"). A trajectory sets the timer state with the template's
branch A (its waits move the device's logical clock), then appends exactly ``d`` model-visible actions. None
of them is a wait and the logical clock moves only on waits, so the timer state is frozen during the segment:
the canonical state probed right after the setting steps (``timer_active``, ``remaining_seconds``) is the
state at the boundary, and the final timer-state stratum and prediction boundary (the template's
``converge`` steps and ``shared_action``) stay those of the template.

d-stress (d = 4, 8, 16, 32) fills the segment with neutral moves: the system-level round trips (Overview,
notification shade, which shows the timer's notification) that apply anywhere, and, where branch A leaves the
Clock's Timer tab on screen, visits to another tab and back -- the visible timer-interaction history grows
with d while the timer state stays put. Where branch A ends in another app, only the system moves apply.

Interference (F.4, d = 8) raises the semantic relevance of the competing interactions by level:

* ``low``: system navigation (the system-level round trips);
* ``medium``: Clock interactions unrelated to the tracked timer: other tabs, a cancelled alarm edit, a
  stopwatch started and reset (its stored state ends reset, as a stopwatch never used shows it);
* ``high``: interactions with timers themselves that leave the tracked one alone: a new timer's length
  typed on the keypad and cancelled, the timer's label dialog opened and cancelled.

Branch A ends either on the Clock's Timer tab (the timer list) or in another app with the Clock's timer
notification in the status bar (Settings' Date & time page). The medium/high moves therefore come in two
forms: on the Timer tab as they are, and elsewhere wrapped in "open the Clock from its timer notification
... BACK", which returns to the screen it started from. Every move ends on the screen it started from (the
Timer tab selected again, keypads and dialogs closed), so ``converge`` still works after it, and has an even
number of actions, so the 2-action system moves fill any even depth and what is left of any segment.
"""

from __future__ import annotations

from typing import Any

from emukit.builder.stress_model import (
    BACK,
    SHADE_DOWN,
    SYSTEM_NEUTRAL,
    FamilyTable,
    Move,
    Step,
)
from emukit.builder.stress_tables import register_table


def _sel(name: str, **fmt: Any) -> dict[str, Any]:
    """A selector from the Clock's table of the device's build (``app:name`` for another app's)."""
    ref = name if ":" in name else f"clock:{name}"
    return {"sel": ref, "fmt": fmt} if fmt else {"sel": ref}


def _tap(**selector: Any) -> Step:
    return {"tap": selector}


def _tab(name: str) -> Step:
    """Select a tab of the Clock's bottom navigation (``Alarm``, ``Clock``, ``Timer``, ``Stopwatch``)."""
    return _tap(**_sel(f"tab_{name.lower()}"))


def _digit(d: int) -> Step:
    return _tap(**_sel("timer_digit", digit=d))


TIMER_TAB = _tab("Timer")
# The Timer tab showing the timer list (not its keypad): where the in-Clock moves start and end.
ON_TIMER_LIST = (_sel("timer_text"), _sel("timer_add"))
# Another app in front with the Clock's timer notification icon in the status bar (the Clock hides its own
# notifications while it is open).
CLOCK_NOTIFICATION = _sel("status_icon")
OPEN_FROM_SHADE = (SHADE_DOWN, _tap(**_sel("notification_chronometer")))
ADD_TIMER = _tap(**_sel("timer_add"))
KEYPAD_CANCEL = _tap(**_sel("keypad_cancel"))
LABEL = _tap(**_sel("card_label"))
DIALOG_CANCEL = _tap(**_sel("dialog_cancel"))
STOPWATCH_FAB = _tap(**_sel("stopwatch_fab"))  # the Stopwatch tab's Start / Pause button
STOPWATCH_RESET = _tap(**_sel("stopwatch_reset"))


def _in_clock(name: str, *steps: Step) -> Move:
    """A move on the Timer tab's timer list that returns to it."""
    return Move(name, steps, ON_TIMER_LIST)


def _via_shade(name: str, *steps: Step) -> Move:
    """``steps`` on the Clock's Timer tab, reached from the timer notification and left with BACK (which
    returns to the app the notification was opened from)."""
    return Move(f"{name}_from_shade", (*OPEN_FROM_SHADE, *steps, BACK), (CLOCK_NOTIFICATION,))


# Neutral: visiting another tab and coming back (no tab shows or touches a timer).
_TAB_ROUND_TRIPS = (
    _in_clock("alarm_tab_round_trip", _tab("Alarm"), TIMER_TAB),
    _in_clock("clock_tab_round_trip", _tab("Clock"), TIMER_TAB),
    _in_clock("stopwatch_tab_round_trip", _tab("Stopwatch"), TIMER_TAB),
)

_MEDIUM = (
    *_TAB_ROUND_TRIPS,
    _in_clock("alarm_add_cancel", _tab("Alarm"), _tap(**_sel("alarm_add")), DIALOG_CANCEL, TIMER_TAB),
    _in_clock("stopwatch_start_reset", _tab("Stopwatch"), STOPWATCH_FAB, STOPWATCH_RESET, TIMER_TAB),
    # wrapped in 3 actions: an odd number of actions inside, to keep the length even
    _via_shade("tabs_tour", _tab("Alarm"), _tab("Stopwatch"), TIMER_TAB),
    _via_shade("alarm_add_cancel", _tab("Alarm"), _tap(**_sel("alarm_add")), DIALOG_CANCEL, _tab("Clock"),
               TIMER_TAB),
    _via_shade("stopwatch_start_pause_reset", _tab("Stopwatch"), STOPWATCH_FAB, STOPWATCH_FAB, STOPWATCH_RESET,
               TIMER_TAB),
)

_HIGH = (
    _in_clock("keypad_cancel", ADD_TIMER, KEYPAD_CANCEL),
    _in_clock("keypad_digits_cancel", ADD_TIMER, _digit(3), _digit(0), KEYPAD_CANCEL),
    _in_clock("keypad_digit_delete_cancel", ADD_TIMER, _digit(5), _tap(**_sel("timer_backspace")),
              KEYPAD_CANCEL),
    _in_clock("keypad_digits_back", ADD_TIMER, _digit(1), _digit(5), BACK),  # BACK closes the keypad
    _in_clock("label_cancel", LABEL, DIALOG_CANCEL),
    _via_shade("keypad_digit_cancel", ADD_TIMER, _digit(2), KEYPAD_CANCEL),
    _via_shade("keypad_digits_delete_cancel", ADD_TIMER, _digit(1), _digit(0),
               _tap(**_sel("timer_backspace")), KEYPAD_CANCEL),
    _via_shade("label_cancel", LABEL, _tap(**_sel("label_input")), DIALOG_CANCEL),
)

TEMPORAL_TABLE = register_table(FamilyTable(
    family="temporal",
    neutral=(*SYSTEM_NEUTRAL, *_TAB_ROUND_TRIPS),
    levels={"low": SYSTEM_NEUTRAL, "medium": _MEDIUM, "high": _HIGH},
))
