"""Task-based world-model evaluation (``emukit evaluate --tasks``) on the shipped task ``code_to_new_note_01``.

The real initial screen comes from a real virtual device (the task reset behind the real adb server) and is
cached; predictions are rendered in the real headless Chromium. The bundled reference models give hand-derived
scores: the initial screen is the launcher's home screen, reference action 1 swipes up to All Apps and action 2
taps Markor's icon there, which no copy of the home screen shows, so the reference-action progress is 1 over the
number of reference actions; the copied screen
never changes, so the agent loop stagnates after K steps and no milestone is reached. A test-only adapter that shows known pages drives milestone progress to 1.0
and exercises the ordering rule.
"""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from emukit.actions import Action, Element
from emukit.cli import main
from emukit.errors import ConfigError
from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.adapters.base import ModelAdapter, Prediction
from emukit.evaluate.agents import (
    INVALID_OUTPUT,
    OpenAIAgent,
    ScriptedAgent,
    Terminate,
    create_agent,
    parse_agent_output,
)
from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.tasks import (
    TASK_CONTRACT,
    InitialCache,
    StepModel,
    agent_track,
    evaluate_tasks,
    initial_observations,
    reference_track,
    screen_from_device,
    target_verdict,
)
from emukit.workers import DeviceRequest
from emukit.tasks.files import load_tasks
from emukit.wm import get_format
from tests.evaluate.test_adapters import Stub, completion

TASK_ID = "code_to_new_note_01"


@pytest.fixture(scope="module")
def task():
    return load_tasks(ids=[TASK_ID])[0]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("task-eval")


@pytest.fixture(scope="module")
def initial(vdevice, task, out_dir, tmp_path_factory):
    """The task's initial screen, captured once on the module's virtual device into ``out_dir/initial``."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("EMUKIT_DATA", str(tmp_path_factory.mktemp("data")))
        return initial_observations([task], InitialCache(out_dir / "initial"), devices=DeviceRequest(serials=(vdevice.serial,)))


@pytest.fixture(scope="module")
def renderer(chromium):
    return chromium


def step_model(model: str | ModelAdapter, renderer, initial, fmt: str = "code2world") -> StepModel:
    adapter = create_adapter(model) if isinstance(model, str) else model
    png = initial[TASK_ID][0]
    return StepModel(get_format(fmt), adapter, renderer, Image.open(io.BytesIO(png)).size)


def first_screen(initial):
    return screen_from_device(*initial[TASK_ID])


def target(action: Action) -> str:
    """A reference action's target text: its element's text, else its content description."""
    return (action.element.text or action.element.content_desc) if action.element else ""


def milestone_text(m) -> str:
    """The text a milestone's single-leaf screen check looks for."""
    leaf = m.screen_check.screen
    assert leaf is not None and not leaf.absent, m.id
    return leaf.text or leaf.text_contains or leaf.content_desc


# -- a test-only world model ------------------------------------------------------------------------------

def page(*body: str, bg: str = "#ffffff") -> str:
    """A 1080x2400 Code2World page holding ``body`` (HTML fragments, one block each)."""
    blocks = "".join(f'<div style="margin:40px">{b}</div>' for b in body)
    return (f'<!DOCTYPE html><html><head><style>body{{margin:0}}#render-target{{width:1080px;height:2400px;'
            f'background:{bg};font:48px sans-serif}}button{{font:inherit;min-width:200px;min-height:90px}}'
            f'</style></head><body><div id="render-target">{blocks}</div></body></html>')


class PagesAdapter(ModelAdapter):
    """Answers the n-th request with the n-th page (the last one repeats); ``None`` is a failed prediction."""

    name = "test:pages"

    def __init__(self, pages: list[str | None]) -> None:
        self.pages = pages
        self.requests: list[tuple[dict, object]] = []

    def predict(self, request, context=None) -> Prediction:
        self.requests.append((request, context))
        html = self.pages[min(len(self.requests), len(self.pages)) - 1]
        return Prediction(error="generation failed: scripted") if html is None else Prediction(html=html, raw=html)


# -- initial observation ----------------------------------------------------------------------------------

def test_initial_screen_is_captured_from_the_device_and_cached(initial, task, out_dir):
    png, xml = initial[TASK_ID]
    assert Image.open(io.BytesIO(png)).size == (1080, 2400)
    screen = first_screen(initial)
    labels = {n.text: n for n in screen.nodes}
    # a Pixel home screen: Markor and Settings are in the All Apps drawer, not on it
    assert not {"Markor", "Settings"} & set(labels)
    assert any(n.control for n in screen.nodes) and not all(n.control for n in screen.nodes)
    cache = InitialCache(out_dir / "initial")
    assert all(p.is_file() for p in cache.paths(task))
    # a rerun needs no device: a serial that is not attached is never contacted
    again = initial_observations([task], cache, devices=DeviceRequest(serials=("no-such-serial",)))
    assert again[TASK_ID] == (png, xml)
    with pytest.raises(ConfigError, match="no-such-serial"):
        initial_observations([task], InitialCache(out_dir / "empty-cache"), devices=DeviceRequest(serials=("no-such-serial",)))


# -- the bundled reference models -------------------------------------------------------------------------

def test_copy_current_reference_and_agent_tracks(initial, task, renderer):
    reference = task.provenance.reference
    launcher = {normalize_text(n.text) for n in first_screen(initial).nodes}
    assert normalize_text(target(reference[1])) not in launcher  # action 2 taps Codes.md in Markor: not on the home screen
    result = evaluate_tasks([task], initial, adapter=create_adapter("ref:copy-current"), format_name="code2world",
                            tracks=("reference", "agent"), agent=ScriptedAgent(reference), renderer=renderer)
    ref, agent = result.runs
    # reference track: every action rolled, the screen never changes
    assert ref.track == "reference" and len(ref.steps) == len(reference) and ref.stop_reason == "reference finished"
    assert all(s.prediction_status == "ok" and s.render_status == "ok" for s in ref.steps)
    assert len({s.screen.digest for s in ref.steps}) == 1
    shown = set(ref.steps[0].screen.texts)
    assert shown and shown <= launcher  # a copy of the launcher: nothing new appears
    for step, action in zip(ref.steps[1:], reference[1:], strict=True):
        v = step.verdict
        if action.type in ("key", "swipe", "drag", "wait", "open_app"):
            assert v.how == "always"
        elif action.type == "type" or not target(action):  # text fields and typing: the launcher has none
            assert v.how == "absent", (step.step, v)
        else:
            assert v.present == (normalize_text(target(action)) in shown), (step.step, v)
    assert ref.steps[0].verdict.how == "initial" and ref.steps[1].verdict.how == "absent"
    assert ref.prefix == 1 and ref.action_progress == pytest.approx(1 / len(reference))
    assert ref.milestones.reached == 0 and ref.milestones.reached_at == [None] * len(task.milestones)
    # agent track: the copied screen repeats, so the loop stagnates after K = 3 steps
    assert agent.track == "agent" and len(agent.steps) == 3
    assert agent.stop_reason == "stagnated (3 identical screens)"
    assert reference[0].type == "open_app"  # GUI-CC's open_app: applies on any screen
    assert agent.steps[0].verdict.how == "always"
    assert agent.milestones.progress == 0.0
    doc = result.to_json()
    assert doc["summary"]["reference"]["action_progress"] == pytest.approx(1 / len(reference))
    assert doc["summary"]["agent"]["milestone_progress"] == 0.0
    step = doc["tasks"][0]["reference"]["steps"][1]
    assert step["action"]["element"]["text"] == reference[1].element.text and step["target"]["present"] is False
    assert step["prediction"]["status"] == "ok" and step["render"]["status"] == "ok"


def test_surface_model_on_a_task_predicts_the_current_screen(initial, task, renderer):
    """A task has no pair family, so ``ref:surface`` has no family surface to draw: it predicts the current
    screen, as ``ref:copy-current`` does (before, tasks were asked under the persistent family and it drew an
    empty Files search)."""
    surface = reference_track(task, first_screen(initial), step_model("ref:surface", renderer, initial, fmt="gworld"),
                              max_steps=3)
    copy = reference_track(task, first_screen(initial), step_model("ref:copy-current", renderer, initial,
                                                                   fmt="gworld"), max_steps=3)
    assert len(surface.steps) == 3 and surface.stop_reason == "step limit 3"
    assert [s.screen.texts for s in surface.steps] == [s.screen.texts for s in copy.steps]
    assert "no items" not in surface.steps[0].screen.texts
    assert surface.prefix == copy.prefix == 1
    assert surface.action_progress == pytest.approx(1 / len(task.provenance.reference))
    run = agent_track(task, first_screen(initial), step_model("ref:surface", renderer, initial, fmt="gworld"),
                      ScriptedAgent(task.provenance.reference), stagnation_k=2)
    assert len(run.steps) == 2 and run.stop_reason == "stagnated (2 identical screens)"
    assert run.milestones.reached == 0


# -- a test-only world model with known screens -----------------------------------------------------------

def test_milestones_in_order_and_reference_progress(initial, task, renderer):
    m1, m2, m3, m4 = (milestone_text(m) for m in task.milestones)
    reference = task.provenance.reference
    t2, t3, t4, t5 = (target(a) for a in reference[1:5])
    assert t4 == m1  # the code, long-pressed in view mode: it is milestone 1's text too
    assert reference[5].type == "open_app"  # action 6: GUI-CC's open_app, actionable on any screen
    pages = [
        page(m2, t2),  # milestone 2's text before milestone 1: no tick
        page(f'<button aria-label="{t3}"></button>'),
        page(f"<button>{t4}</button>"),  # milestone 1
        page(m2, t5),  # milestone 2
        page(m3, m4),  # milestones 3 and 4 on the same prediction
        page("Nothing here"),
    ]
    adapter = PagesAdapter(pages)
    run = reference_track(task, first_screen(initial), step_model(adapter, renderer, initial), max_steps=6)
    assert [s.verdict.how for s in run.steps] == ["initial", "text", "control", "control", "text", "always"]
    assert [s.verdict.matched for s in run.steps[1:5]] == [t2, t3, t4, t5]
    assert run.prefix == 6 and run.action_progress == pytest.approx(6 / len(reference))
    assert run.milestones.reached_at == [3, 4, 5, 5] and run.milestones.progress == 1.0
    assert [s.milestones for s in run.steps] == [[], [], [task.milestones[0].id], [task.milestones[1].id],
                                                 [task.milestones[2].id, task.milestones[3].id], []]
    # step 1 sees the real screen; every later step the model's own previous prediction, rendered
    (body, ctx1), (_, ctx2) = adapter.requests[0], adapter.requests[1]
    assert ctx1.observation_png == initial[TASK_ID][0]
    assert ctx2.observation_png == run.steps[0].screen.png and t2 in ctx2.observation_xml
    assert TASK_CONTRACT in json.dumps(body)
    assert (ctx1.sample, ctx1.family, ctx1.condition) == ("task", None, "observation")  # no pair family pretended


def test_failed_prediction_is_kept_and_ends_the_rollout(initial, task, renderer):
    run = reference_track(task, first_screen(initial), step_model(PagesAdapter([None]), renderer, initial))
    assert run.stop_reason == "world model output unusable" and len(run.steps) == 2
    assert run.steps[0].prediction_status == "failed" and run.steps[0].render_status == "not_run"
    assert run.steps[1].verdict.how == "unusable" and run.prefix == 1
    assert run.record()["steps"][0]["prediction"]["error"] == "generation failed: scripted"
    # the agent loop: stagnation by visible text (the PNGs differ), then an unusable prediction
    same_text = [page(milestone_text(task.milestones[0]), bg=bg) for bg in ("#fff", "#eee", "#ddd")]
    agent = ScriptedAgent(task.provenance.reference)
    run = agent_track(task, first_screen(initial), step_model(PagesAdapter(same_text), renderer, initial), agent)
    assert len(run.steps) == 3 and run.stop_reason == "stagnated (3 identical screens)"
    assert len({s.screen.digest for s in run.steps}) == 3 and run.milestones.reached_at[0] == 1
    run = agent_track(task, first_screen(initial), step_model(PagesAdapter([same_text[0], None]), renderer, initial),
                      agent)
    assert run.stop_reason == "world model output unusable" and len(run.steps) == 2
    run = agent_track(task, first_screen(initial), step_model(PagesAdapter(same_text), renderer, initial),
                      ScriptedAgent([]))
    assert run.steps == [] and run.stop_reason == "agent terminated: script finished"


def test_target_verdicts_on_a_rendered_screen(initial, renderer):
    from emukit.evaluate.tasks import screen_from_render

    fmt = get_format("code2world")
    res = renderer.render(page("Hello", '<input placeholder="Name">', '<button aria-label="More options"></button>',
                               '<span style="display:none">Ghost</span>'), (1080, 2400), 1.0)
    screen = screen_from_render(res, fmt, (1080, 2400))
    hello = next(n for n in screen.nodes if n.text == "Hello")

    def tap(**element) -> Action:
        return Action(type="tap", x=1, y=1, element=Element(**element))

    assert target_verdict(tap(text="hello"), screen).how == "text"  # normalised match
    assert target_verdict(tap(content_desc="More options"), screen).how == "control"
    assert not target_verdict(tap(text="Ghost"), screen).present  # hidden text is no evidence
    assert target_verdict(tap(cls="android.widget.EditText"), screen).how == "editable"
    assert target_verdict(tap(cls="android.widget.ImageView"), screen).how == "unidentified"
    assert target_verdict(Action(type="type", text="x"), screen).how == "editable"
    assert target_verdict(Action(type="key", key=4), screen).how == "always"
    x, y = (hello.box[0] + hello.box[2]) // 2, (hello.box[1] + hello.box[3]) // 2
    assert target_verdict(Action(type="tap", x=x, y=y), screen).matched == "Hello"
    assert not target_verdict(Action(type="tap", x=5, y=2395), screen).present
    synth = screen_from_device(res.png, screen.xml)  # the synthesised hierarchy reads back the same texts
    assert {"Hello", "Name", "More options"} <= {n.text for n in synth.nodes}


# -- agents -----------------------------------------------------------------------------------------------

def test_agent_output_parsing():
    assert parse_agent_output('```json\n{"action": "tap", "x": 10, "y": 20}\n```') == Action(type="tap", x=10, y=20)
    assert parse_agent_output('I press back: {"action": "key", "key": "back"}') == Action(type="key", key=4)
    assert parse_agent_output('{"action": "type", "text": "Badge"}') == Action(type="type", text="Badge")
    assert parse_agent_output('{"action": "terminate", "reason": "done"}') == Terminate("done")
    # GUI-CC's semantic actions: open_app by the icon's name, answer, navigate_home / navigate_back
    assert parse_agent_output('{"action": "open_app", "app_name": "Markor"}') == Action(type="open_app", text="Markor")
    assert parse_agent_output('{"action": "answer", "text": "18:15"}') == Terminate("answered: 18:15")
    assert parse_agent_output('{"action": "navigate_home"}') == Action(type="key", key=3)
    assert parse_agent_output('{"action": "navigate_back"}') == Action(type="key", key=4)
    for bad in ("", "tap the icon", '{"action": "tap"}', '{"action": "fly", "x": 1}', "[1, 2]",
                '{"action": "open_app"}'):
        assert parse_agent_output(bad) == Terminate(INVALID_OUTPUT), bad


def test_openai_agent_against_a_local_endpoint():
    stub = Stub([(200, completion('{"action": "long_press", "x": 80, "y": 524}'), 0, {})])
    try:
        agent = create_agent(f"openai:{stub.url}#agent-model")
        assert isinstance(agent, OpenAIAgent)
        buf = io.BytesIO()
        Image.new("RGB", (4, 8)).save(buf, "PNG")
        png = buf.getvalue()
        got = agent.act("Copy the code", png, 2, [Action(type="tap", x=1, y=2)])
        assert got == Action(type="long_press", x=80, y=524, duration_ms=800)
        body = stub.requests[0]
        assert body["model"] == "agent-model"
        parts = body["messages"][1]["content"]
        assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
        assert "Copy the code" in parts[1]["text"] and '"x": 1' in parts[1]["text"]
        stub.script = [(200, completion("Sure! I will tap it."), 0, {})]
        assert agent.act("Copy the code", png, 3, []) == Terminate(INVALID_OUTPUT)
    finally:
        stub.close()
    down = OpenAIAgent("http://127.0.0.1:9/v1#x", timeout_s=2)
    assert down.act("t", b"", 1, []).reason.startswith("agent request failed")


# -- the command line -------------------------------------------------------------------------------------

@pytest.mark.usefixtures("chromium")  # emukit evaluate renders with a Chromium of its own
def test_cli_task_mode(initial, out_dir, capsys):
    code = main(["evaluate", "--tasks", TASK_ID, "--model", "ref:copy-current", "--track", "both",
                 "--max-steps", "3", "--out", str(out_dir), "--device", "no-such-serial", "--quiet"])
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "mean (1 tasks)" in printed and "stagnated" in printed
    doc = json.loads((out_dir / "task-results.json").read_text())
    entry = doc["tasks"][0]
    assert entry["task_id"] == TASK_ID and doc["config"]["tracks"] == ["reference", "agent"]
    assert entry["reference"]["action_progress"] == pytest.approx(1 / entry["reference"]["reference_actions"])
    assert entry["reference"]["stop_reason"] == "step limit 3" and len(entry["reference"]["steps"]) == 3
    assert entry["agent"]["stop_reason"] == "stagnated (3 identical screens)"
    assert doc["config"]["agent"] == "scripted"
    assert "## code_to_new_note_01 - reference" in (out_dir / "task-report.md").read_text()
    # usage errors
    assert main(["evaluate", "--tasks", TASK_ID, "--model", "ref:surface", "--condition", "observation"]) == 2
    assert main(["evaluate", "--tasks", TASK_ID]) == 2
    assert main(["evaluate", "--tasks", "no_such_task", "--model", "ref:surface", "--out", str(out_dir)]) == 1
    assert main(["evaluate", "--model", "ref:surface", "--out", str(out_dir)]) == 2  # pair mode needs --pairs


def test_the_judge_scores_each_generated_rollout(initial, task, renderer):
    """The judge's rollout rubrics on the reference track (judge model mocked by a local test server)."""
    from emukit.evaluate.judge import JudgeScorer
    from emukit.evaluate.tasks import markdown_report
    from tests.evaluate.test_judge import JudgeServer

    server = JudgeServer()
    try:
        scorer = JudgeScorer(server.spec)
        result = evaluate_tasks([task], initial, adapter=create_adapter("ref:copy-current"), format_name="code2world",
                                renderer=renderer, max_steps=3, judge_scorer=scorer)
    finally:
        server.close()
    (run,) = result.runs
    assert [j.rubric for j in run.judgements] == ["gui-cc-rollout", "gui-score"]  # no recorded next screens
    assert run.judgements[0].scores == {"S_cp": 0.8, "S_rd": 0.4}
    body = next(b for b in server.bodies if b["metadata"]["emukit_rubric"] == "gui-cc-rollout")
    frames = [p for p in body["messages"][1]["content"] if p["type"] == "image_url"]
    assert len(frames) == 1 + len(run.steps)  # the real initial screen and each generated one
    assert task.instruction in body["messages"][1]["content"][0]["text"]
    summary = result.to_json()["summary"]["reference"]["judge"]
    assert summary["GOAL"] == pytest.approx(1.0) and summary["n"] == 1
    assert result.config["judge"]["rubrics"]["gui-cc-rollout"] == "1"
    assert "Judge gui-cc-rollout v1: S_cp 4/5, S_rd 2/5." in markdown_report(result)


def test_results_group_by_category_and_template(initial, task, renderer):
    """The report's groups: the same means per GUI-CC category and per template, in the JSON, the Markdown and
    the terminal tables. The means are the registered task metrics: one registered here (reading the scored
    task) reaches the summary, every group, both tables and the Markdown report with its definition."""
    from emukit.evaluate.metric import METRICS, metric
    from emukit.evaluate.tasks import group_table, markdown_report

    other = task.model_copy(update={"id": "second_task", "template": "another_template", "category": "finance"})
    initial2 = {**initial, "second_task": initial[TASK_ID]}
    result = evaluate_tasks([task, other], initial2, adapter=create_adapter("ref:copy-current"),
                            format_name="code2world", tracks=("reference",), renderer=renderer)

    @metric("ran_four", label="Ran four", reads="task", definition="Fraction of tasks that ran four steps or more.")
    def ran_four(scored):
        return scored.steps >= 4

    try:
        doc = result.to_json()
        md = markdown_report(result)
    finally:
        METRICS._entries.pop("ran_four")  # the registry is the process's: leave it as the other tests see it
    expected = sum(len(r.steps) >= 4 for r in result.runs) / 2
    assert doc["summary"]["reference"]["ran_four"] == expected
    assert {part["ran_four"] for part in doc["by_template"]["reference"].values()} <= {0.0, 1.0}
    assert "ran four |" in md and "- **Ran four**: Fraction of tasks that ran four steps or more." in md
    assert set(doc["by_category"]["reference"]) == {"finance", task.category}
    assert set(doc["by_template"]["reference"]) == {"another_template", task.template}
    assert doc["by_template"]["reference"][task.template]["tasks"] == 1
    assert doc["tasks"][0]["category"] == task.category and doc["tasks"][1]["template"] == "another_template"
    for part in doc["by_category"]["reference"].values():
        assert part["action_progress"] == pytest.approx(doc["summary"]["reference"]["action_progress"])
    md = markdown_report(result)
    assert "## By category" in md and "| Finance | reference | 1 |" in md and "## By template" in md
    from rich.console import Console

    console = Console(record=True, width=200)
    console.print(group_table(result, "category"))
    text = console.export_text()  # export clears the record
    assert "Finance" in text and "System & utility" in text
