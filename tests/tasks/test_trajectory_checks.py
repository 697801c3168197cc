"""Trajectory-aware milestone checks: ``never`` / ``before`` over the recorded steps of a run and ``action``
leaves on the action that led to the current state. Unit tests on a tracker fed with a fake view, the
validators, and on a real virtual device a run of ``timer_paused_from_shade_01`` that reopens the Clock."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from emukit.actions import Action, Element
from emukit.errors import ConfigError
from emukit.tasks.checks import (
    ScreenView,
    Trace,
    action_matches,
    describe_check,
    evaluate,
    operand_key,
)
from emukit.tasks.files import load_task, load_tasks, task_yaml
from emukit.tasks.schema import (
    ActionLeaf,
    Check,
    Milestone,
    ScreenLeaf,
    Task,
    TaskTemplate,
)
from emukit.tasks.session import MilestoneTracker

CLOCK = "com.google.android.deskclock"
FILES = "com.google.android.documentsui"


# ------------------------------------------------------------------------------------------ a fake device
@dataclass
class FakeView:
    """One moment of a pretend device: the app in front, the visible texts and the timer state. Every read
    is counted, so a test can tell that the past is never read again."""

    app: str = ""
    texts: set[str] = field(default_factory=set)
    timer: str = "none"
    reads: list[str] = field(default_factory=list)

    def screen(self, leaf: ScreenLeaf) -> bool:
        self.reads.append("screen")
        return (leaf.text in self.texts) != leaf.absent

    def truth(self, check: Check) -> bool:
        self.reads.append(check.kind)
        if check.app is not None:
            return self.app == check.app.package
        if check.timer is not None:
            return self.timer == check.timer.state
        raise AssertionError(f"the fake view cannot answer {check.kind}")


def _check(data: dict) -> Check:
    return Check.model_validate(data)


def _milestone(mid: str, check: dict, screen_check: dict | None = None) -> Milestone:
    data = {"id": mid, "type": "configure", "assertion": f"milestone {mid} holds", "check": check}
    if screen_check is not None or not Check.model_validate(check).visual:
        data["screen_check"] = screen_check or {"screen": {"text": mid}}
    return Milestone.model_validate(data)


def _run(tracker: MilestoneTracker, views: list[FakeView], actions: list[Action | None] | None = None
         ) -> list[list[str]]:
    """Step 0 on ``views[0]``, then one update per further view; returns what each update reached."""
    tracker.initial(views[0])
    acts = actions or [None] * len(views)
    return [tracker.update(i, v, action=acts[i]) for i, v in enumerate(views) if i]


TIMER_TASK = [
    _milestone("running", {"timer": {"state": "running"}}),
    _milestone("away", {"app": {"package": FILES}}),
    _milestone("paused", {"all": [{"timer": {"state": "paused"}},
                                  {"never": {"since": "away", "check": {"app": {"package": CLOCK}}}}]}),
]


# ------------------------------------------------------------------------------------------ never
def test_never_since_a_milestone_ticks_when_the_operand_stayed_false() -> None:
    tracker = MilestoneTracker(TIMER_TASK)
    views = [FakeView(), FakeView(CLOCK, timer="running"), FakeView(FILES, timer="running"),
             FakeView(FILES, timer="paused")]
    assert _run(tracker, views) == [["running"], ["away"], ["paused"]]
    assert tracker.reached_at == [1, 2, 3]
    assert tracker.violations() == {}
    # the Clock was in front at step 1, before "away": strictly after its step only counts


def test_never_since_a_milestone_fails_for_good_once_the_operand_held() -> None:
    tracker = MilestoneTracker(TIMER_TASK)
    views = [FakeView(), FakeView(CLOCK, timer="running"), FakeView(FILES, timer="running"),
             FakeView(CLOCK, timer="running"), FakeView(FILES, timer="paused"), FakeView("other", timer="paused")]
    tracker.initial(views[0])
    reached, reads = [], [len(views[0].reads)]
    for i, view in enumerate(views[1:], 1):
        reached.append(tracker.update(i, view))
        reads.append(len(view.reads))
    assert reached == [["running"], ["away"], [], [], []]
    assert tracker.reached_at == [1, 2, None]
    assert tracker.violations() == {
        "paused": f"its never-check (app {CLOCK}) held at step 3, after milestone away (step 2)"}
    assert [len(v.reads) for v in views] == reads  # a view is read while current, never again afterwards


def test_never_since_is_false_while_the_milestone_is_not_reached() -> None:
    check = _check({"never": {"since": "away", "check": {"app": {"package": CLOCK}}}})
    trace = Trace()
    trace.record(0, None, FakeView(), [check.never.check])
    assert not evaluate(check, FakeView(), trace)  # "away" not reached: nothing was avoided since
    trace.reached["away"] = 0
    assert evaluate(check, FakeView(), trace)  # reached at the current step: no step after it yet
    trace.record(1, None, FakeView(CLOCK), [check.never.check])
    assert not evaluate(check, FakeView(CLOCK), trace)  # the current step counts ("up to now")


def test_never_without_since_covers_the_initial_state() -> None:
    ms = [_milestone("started", {"timer": {"state": "running"}}),
          _milestone("clean", {"all": [{"timer": {"state": "paused"}},
                                       {"never": {"check": {"app": {"package": CLOCK}}}}]})]
    tracker = MilestoneTracker(ms)
    assert _run(tracker, [FakeView(CLOCK), FakeView(FILES, timer="running"), FakeView(FILES, timer="paused")]) \
        == [["started"], []]
    assert tracker.violations() == {"clean": f"its never-check (app {CLOCK}) held at step 0"}

    tracker = MilestoneTracker(ms)
    assert _run(tracker, [FakeView(), FakeView(FILES, timer="running"), FakeView(FILES, timer="paused")]) \
        == [["started"], ["clean"]]


def test_a_never_under_any_is_no_violation() -> None:
    never = {"never": {"since": "a", "check": {"app": {"package": CLOCK}}}}
    ms = [_milestone("a", {"app": {"package": FILES}}),
          _milestone("b", {"all": [{"timer": {"state": "paused"}}, {"any": [{"screen": {"text": "Done"}}, never]}]})]
    tracker = MilestoneTracker(ms)
    assert _run(tracker, [FakeView(), FakeView(FILES), FakeView(CLOCK)]) == [["a"], []]
    assert tracker.violations() == {}  # its never-part is broken, but "Done" may still show
    assert tracker.update(3, FakeView(FILES, {"Done"}, timer="paused")) == ["b"]


def test_a_never_reached_at_the_same_step_as_its_since_holds() -> None:
    ms = [_milestone("a", {"app": {"package": FILES}}),
          _milestone("b", {"never": {"since": "a", "check": {"app": {"package": FILES}}}})]
    tracker = MilestoneTracker(ms)
    assert _run(tracker, [FakeView(), FakeView(FILES)]) == [["a", "b"]]  # no step after a's yet


# ------------------------------------------------------------------------------------------ before
def test_before_needs_the_first_occurrence_strictly_earlier() -> None:
    before = {"before": {"first": {"app": {"package": CLOCK}}, "then": {"app": {"package": FILES}}}}
    ms = [_milestone("start", {"timer": {"state": "running"}}), _milestone("order", before)]

    tracker = MilestoneTracker(ms)
    assert _run(tracker, [FakeView(), FakeView(CLOCK, timer="running"), FakeView(FILES, timer="running")]) \
        == [["start"], ["order"]]

    tracker = MilestoneTracker(ms)  # Files first, the Clock later, Files again: the first occurrences decide
    views = [FakeView(), FakeView(FILES, timer="running"), FakeView(CLOCK, timer="running"),
             FakeView(FILES, timer="running")]
    assert _run(tracker, views) == [["start"], [], []]

    check = _check(before)
    trace = Trace()
    trace.record(0, None, FakeView(), [check.before.first, check.before.then])
    trace.record(1, None, FakeView(CLOCK), [check.before.first, check.before.then])
    assert not evaluate(check, FakeView(CLOCK), trace)  # "then" has not happened yet
    both = _check({"before": {"first": {"timer": {"state": "none"}}, "then": {"timer": {"state": "none"}}}})
    trace = Trace()
    trace.record(0, None, FakeView(), [both.before.first])
    assert not evaluate(both, FakeView(), trace)  # at the same step is not strictly earlier


# ------------------------------------------------------------------------------------------ action leaves
PAUSE_TAP = Action(type="tap", x=229, y=927, element=Element(text="Pause", resource_id="android:id/action0",
                                                             cls="android.widget.Button"))


def test_action_leaves_match_the_action_that_led_to_the_state() -> None:
    assert action_matches(ActionLeaf(type="tap", text="Pause"), PAUSE_TAP)
    assert action_matches(ActionLeaf(resource_id="action0"), PAUSE_TAP)  # the bare id
    assert action_matches(ActionLeaf(resource_id="android:id/action0", text_contains="Pau"), PAUSE_TAP)
    assert not action_matches(ActionLeaf(resource_id="n0"), PAUSE_TAP)  # a suffix of the id is not enough
    assert not action_matches(ActionLeaf(type="long_press"), PAUSE_TAP)
    assert not action_matches(ActionLeaf(content_desc="Pause"), PAUSE_TAP)
    assert not action_matches(ActionLeaf(type="tap"), None)  # step 0: no action led there
    assert action_matches(ActionLeaf(type="key", key=4), Action(type="key", key=4))
    assert not action_matches(ActionLeaf(key=4), Action(type="key", key=3))
    typed = Action(type="type", text="eggs", element=Element(text="Shopping", resource_id="app:id/editor"))
    assert action_matches(ActionLeaf(type="type", text="eggs", resource_id="editor"), typed)
    assert not action_matches(ActionLeaf(text="Shopping"), typed)  # a typed text wins over the element's
    assert action_matches(ActionLeaf(type="open_app", text_contains="Mark"), Action(type="open_app", text="Markor"))
    assert not action_matches(ActionLeaf(resource_id="action0"), Action(type="tap", x=1, y=1))  # no element
    with pytest.raises(ValidationError, match="an action check needs at least one of"):
        ActionLeaf()


def test_action_leaves_decide_rendered_milestones() -> None:
    paused_by_tap = {"all": [{"screen": {"text": "Resume"}}, {"action": {"type": "tap", "text": "Pause"}}]}
    ms = [_milestone("seen", {"screen": {"text": "Timer"}}), _milestone("paused", paused_by_tap)]
    assert ms[1].check.visual and ms[1].screen_check == ms[1].check  # action leaves count as visual

    tracker = MilestoneTracker(ms, rendered=True)
    tracker.initial(ScreenView(["Timer"]))
    assert tracker.premature == ["seen"]
    assert tracker.update(1, ScreenView(["Timer"]), action=Action(type="key", key=3)) == ["seen"]
    assert tracker.update(2, ScreenView(["Resume"]), action=Action(type="wait", duration_ms=5)) == []
    assert tracker.update(3, ScreenView(["Resume"]), action=PAUSE_TAP) == ["paused"]
    key = operand_key(ms[1].check.all[1])  # the leaf's truth is recorded at every step
    assert [rec.values[key] for rec in tracker.trace.steps] == [False, False, False, True]
    assert tracker.trace.steps[3].action == PAUSE_TAP

    tracker = MilestoneTracker(ms, rendered=True)
    tracker.initial(ScreenView(["Resume"]))
    assert tracker.premature == []  # no action led to the initial state


def test_never_over_a_visual_operand_decides_rendered_predictions() -> None:
    ms = [_milestone("list", {"screen": {"text": "Downloads"}}),
          _milestone("done", {"timer": {"state": "paused"}},
                     screen_check={"all": [{"screen": {"text": "Resume"}},
                                           {"never": {"since": "list", "check": {"screen": {"text": "Stopwatch"}}}}]})]
    assert ms[1].screen_check.visual and not ms[1].check.visual
    tracker = MilestoneTracker(ms, rendered=True)
    tracker.initial(ScreenView(["Stopwatch"]))
    for i, texts in enumerate([["Downloads"], ["Stopwatch"], ["Resume"]], 1):
        tracker.update(i, ScreenView(texts))
    assert tracker.reached_at == [1, None]
    assert tracker.violations() == {
        "done": "its never-check (screen text='Stopwatch') held at step 2, after milestone list (step 1)"}


# ------------------------------------------------------------------------------------------ errors
def test_temporal_checks_need_a_trace() -> None:
    never = _check({"never": {"check": {"app": {"package": CLOCK}}}})
    with pytest.raises(ValueError, match="never check reads the run's recorded steps"):
        evaluate(never, FakeView())
    with pytest.raises(ValueError, match="an action check reads the run's recorded steps"):
        evaluate(_check({"action": {"type": "tap"}}), ScreenView(["x"]))
    trace = Trace()
    trace.record(0, None, FakeView(), [])  # the operand was never recorded
    with pytest.raises(ValueError, match=f"no value of app {CLOCK} at step 0"):
        evaluate(never, FakeView(), trace)
    tracker = MilestoneTracker(TIMER_TASK)
    with pytest.raises(ValueError, match=r"call initial\(view\)"):
        tracker.update(1, FakeView())
    plain = MilestoneTracker([_milestone("a", {"app": {"package": FILES}}), _milestone("b", {"timer": {}})])
    assert plain.update(1, FakeView(FILES)) == ["a"]  # without temporal checks step 0 is not needed
    with pytest.raises(ValueError, match="steps must increase"):
        plain.update(1, FakeView(FILES))


def test_nested_temporal_checks_are_refused() -> None:
    inner = {"never": {"check": {"app": {"package": CLOCK}}}}
    with pytest.raises(ValidationError, match="the check of never must not itself contain never or before"):
        _check({"never": {"check": {"all": [inner]}}})
    with pytest.raises(ValidationError, match="the then check of before must not itself contain never or before"):
        _check({"before": {"first": {"app": {"package": FILES}}, "then": {"not": inner}}})
    with pytest.raises(ValidationError, match="the first check of before must not"):
        _check({"before": {"first": {"before": {"first": inner["never"]["check"], "then": inner["never"]["check"]}},
                           "then": {"app": {"package": FILES}}}})
    with pytest.raises(ValidationError, match="exactly one of"):
        _check({"never": {"check": {"app": {"package": CLOCK}}}, "app": {"package": CLOCK}})
    with pytest.raises(ValidationError, match="Extra inputs"):
        _check({"never": {"check": {"app": {"package": CLOCK}}, "after": "x"}})
    assert _check({"all": [inner, {"before": {"first": {"screen": {"text": "a"}},
                                              "then": {"screen": {"text": "b"}}}}]}).temporal  # side by side is fine


SHADE = "timer_paused_from_shade_01"


def _task_data() -> dict:
    return yaml.safe_load(task_yaml(load_tasks(ids=[SHADE])[0]))


def test_since_must_name_an_earlier_milestone(tmp_path: Path) -> None:
    never = {"check": {"app": {"package": CLOCK}}}
    cases = [(2, "no_such", "milestone timer_paused: never.since names 'no_such', which is not a milestone of the "
                            "task"),
             (2, "timer_paused", "milestone timer_paused: never.since names 'timer_paused', which is the milestone "
                                 "itself"),
             (1, "timer_paused", "milestone downloads_seen: never.since names 'timer_paused', which is a later "
                                 "milestone")]
    for index, since, words in cases:
        data = _task_data()
        data["milestones"][index]["check"]["all"][0] = {"never": {**never, "since": since}}
        with pytest.raises(ValidationError, match=words):
            Task.model_validate(data)
        path = tmp_path / f"{SHADE}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False))
        with pytest.raises(ConfigError, match=words) as err:
            load_task(path)
        assert str(path) in str(err.value)

    template = yaml.safe_load((Path(__file__).resolve().parents[2] / "tasks" / "templates" /
                               "timer_paused_from_shade.yaml").read_text())
    template["milestones"][0]["check"] = {"never": {**never, "since": "downloads_seen"}}
    with pytest.raises(ValidationError, match="milestone timer_running: never.since names 'downloads_seen', "
                                              "which is a later milestone"):
        TaskTemplate.model_validate(template)


def test_shipped_tasks_use_the_temporal_checks() -> None:
    by_id = {t.id: t for t in load_tasks()}
    expect = {"timer_paused_from_shade": ("timer_paused", "downloads_seen", f"app {CLOCK}"),
              "timer_survives_note": ("timer_paused", "timer_running", "timer none")}
    for template, (mid, since, what) in expect.items():
        for i in (1, 2, 3):
            m = next(m for m in by_id[f"{template}_0{i}"].milestones if m.id == mid)
            nevers = [c for c in m.check.walk() if c.never is not None]
            assert [n.never.since for n in nevers] == [since]
            assert what in describe_check(nevers[0].never.check)


# ------------------------------------------------------------------------------------------ on a device
@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    from emukit.device.driver import Driver

    d = Driver(vdevice.serial, adb_server.port)
    yield d
    d.close()


HOME = Action(type="key", key=3)
DRAWER = Action(type="swipe", x=540, y=2127, x2=540, y2=600, duration_ms=300)
CLOCK_ICON = Action(type="tap", x=922, y=454)  # All Apps' first row: Broccoli, Calendar, Chrome, Clock
FILES_ICON = Action(type="tap", x=157, y=744)  # the second row: Files, Gallery, Joplin, Markor


def test_reopening_the_clock_breaks_timer_paused_on_a_device(driver, tmp_path_factory) -> None:
    """The reference ticks ``timer_paused`` at its recorded step; the same run with the Clock reopened from
    the launcher between ``downloads_seen`` and the pause (then Files again, then the shade) does not, even
    though the timer ends up paused with Files in front, and ``violations()`` says why."""
    from emukit.tasks.checks import DeviceView
    from emukit.tasks.session import TaskSession

    t0 = time.perf_counter()
    task = load_tasks(ids=[SHADE])[0]
    reference = task.provenance.reference
    seen_at = task.provenance.milestone_steps[1]  # downloads_seen
    from emukit.workers import DeviceContext

    device = DeviceContext(driver.serial, adb_port=driver.adb_port, data_dir=tmp_path_factory.mktemp("data"),
                           driver=driver)
    session = TaskSession(device, task, screenshots=False)

    session.reset()
    for action in reference:
        session.act(action)
    assert session.tracker.reached_at == task.provenance.milestone_steps
    assert session.tracker.violations() == {}

    session.reset()
    assert session.tracker.premature == []
    for action in reference[:seen_at]:
        session.act(action)
    assert session.tracker.reached_at[:2] == task.provenance.milestone_steps[:2]
    detour = [HOME, DRAWER, CLOCK_ICON, HOME, DRAWER, FILES_ICON]
    for action in detour:
        session.act(action)
    clock_step = seen_at + 3
    assert session.trajectory[clock_step - 1].element is not None
    assert session.trajectory[clock_step - 1].element.text == "Clock"
    for action in reference[seen_at + 2:]:  # the shade pulled down and Pause tapped, with Files in front
        session.act(action)
    timer = Check.model_validate({"all": [{"timer": {"state": "paused", "remaining_min": 1}},
                                          {"not": {"app": {"package": CLOCK}}}]})
    assert evaluate(timer, DeviceView(driver))  # what the old check asked for holds now...
    assert session.tracker.reached_at == [*task.provenance.milestone_steps[:2], None]  # ...yet it does not tick
    assert session.tracker.violations() == {
        "timer_paused": f"its never-check (app {CLOCK}) held at step {clock_step}, after milestone downloads_seen "
                        f"(step {seen_at})"}
    assert time.perf_counter() - t0 < 60
