"""Judge metrics (GUI-CC transition and rollout dimensions, GUI-Score) against a local OpenAI-compatible test
server on 127.0.0.1. Mocked: only the vision-language model itself (this machine has none); the server (the adapter tests' ``Stub``)
answers each rubric with fixed judgements, and can fail, stall or answer off-rubric on request. Everything
else is real: the HTTP transport with its retries and cache, the evaluator, Chromium rendering, results.json
and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from emukit.cli import main
from emukit.errors import ConfigError
from emukit.evaluate.judge import RUBRICS, JudgeInput, JudgeScorer, Rubric, get_rubric, gui_score, register_rubric
from tests.evaluate.render_support import needs_chromium
from tests.evaluate.test_adapters import Stub, completion

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00"
       b"\x00\x00\x0cIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

ANSWERS = {
    "gui-cc-transition": {"S_ele": 4, "S_lay": 5, "S_ad": 3, "S_id": 2, "S_use": 5, "reason": "fixed"},
    "gui-cc-rollout": {"S_cp": {"C1": 1, "C2": 1, "C3": 0, "C4": 1, "C5": 1},
                       "S_rd": {"C1": 1, "C2": 0, "C3": 0, "C4": 1, "C5": 0}, "reason": "fixed"},
    "gui-score": {"GOAL": 5, "LOGIC": 4, "CONS": 4, "UI": 3, "QUAL": 4, "reason": "fixed"},
    "gui-cc-rap": {"S_rap": {"C1": 1, "C2": 1, "C3": 1}, "reason": "fixed"},
}


class JudgeServer(Stub):
    """``/v1/chat/completions`` answering each rubric (named in the request's metadata) with ANSWERS, or with
    ``answer(body)`` when that returns something; ``fail_first`` requests get 503, ``off_rubric`` replies
    ignore the rubric, every reply waits ``delay_s``."""

    def __init__(self, *, fail_first: int = 0, off_rubric: bool = False, delay_s: float = 0.0, answer=None) -> None:
        def respond(body: dict, n: int):
            if n <= fail_first:
                return 503, b"busy", delay_s, {"Retry-After": "0"}
            reply = (answer(body) if answer else None) or ANSWERS[body["metadata"]["emukit_rubric"]]
            return 200, completion("I think it is fine." if off_rubric else f"```json\n{json.dumps(reply)}\n```"), \
                delay_s, {}

        super().__init__(respond=respond)
        self.spec = f"{self.url}#judge-vl-test"

    @property
    def bodies(self) -> list[dict]:
        return self.requests


@pytest.fixture
def server():
    s = JudgeServer()
    yield s
    s.close()


def transition_input() -> JudgeInput:
    return JudgeInput(actions=("tap 'Downloads'",), frames=(PNG, PNG), reference_next=PNG)


# ---------------------------------------------------------------------------------------------- rubrics
def test_rubric_replies_are_read_strictly():
    rubric = get_rubric("gui-score")
    scores, extras = rubric.parse('{"GOAL": 5, "LOGIC": 4, "CONS": 4, "UI": 3, "QUAL": 4, "reason": "ok"}')
    assert scores == {"GOAL": 1.0, "LOGIC": 0.8, "CONS": 0.8, "UI": 0.6, "QUAL": 0.8} and extras["reason"] == "ok"
    assert gui_score(scores) == pytest.approx(80.0)  # 20 x mean rating (seed 003 Section 3.2)
    for bad, why in [('{"GOAL": 6, "LOGIC": 4, "CONS": 4, "UI": 3, "QUAL": 4}', "outside"),
                     ('{"GOAL": 4.5, "LOGIC": 4, "CONS": 4, "UI": 3, "QUAL": 4}', "integer"),
                     ('{"LOGIC": 4, "CONS": 4, "UI": 3, "QUAL": 4}', "GOAL"),
                     ("no json here", "no JSON")]:
        with pytest.raises(ValueError, match=why):
            rubric.parse(bad)
    rollout = get_rubric("gui-cc-rollout")
    scores, extras = rollout.parse(json.dumps(ANSWERS["gui-cc-rollout"]))
    assert scores == {"S_cp": 0.8, "S_rd": 0.4} and extras["S_cp_criteria"] == [1, 1, 0, 1, 1]
    with pytest.raises(ValueError, match="S_rd.C2"):
        rollout.parse('{"S_cp": {"C1":1,"C2":1,"C3":1,"C4":1,"C5":1}, "S_rd": {"C1":1,"C2":2,"C3":0,"C4":0,"C5":0}}')


def test_every_rubric_prompt_names_its_dimensions_and_version():
    for name in ("gui-cc-transition", "gui-cc-rollout", "gui-score"):
        rubric = get_rubric(name)
        prompt = rubric.system_prompt()
        assert all(d.key in prompt for d in rubric.dimensions)
        assert f"v{rubric.version}" in rubric.user_text(transition_input())


def test_a_bad_judge_spec_or_rubric_is_refused():
    with pytest.raises(ConfigError, match="BASE_URL#MODEL"):
        JudgeScorer("judge-model")
    with pytest.raises(ConfigError, match="name the judge model"):
        JudgeScorer("http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="unknown judge rubric 'gui-cc-bogus'"):
        JudgeScorer("http://127.0.0.1:9/v1#m", rubrics=["gui-cc-bogus"])


# ---------------------------------------------------------------------------------------------- transport
def test_requests_are_deterministic_carry_the_images_and_are_cached(server, tmp_path):
    scorer = JudgeScorer(server.spec, cache_dir=tmp_path / "cache")
    verdicts = scorer.judge_many([transition_input()])[0]
    assert [v.rubric for v in verdicts] == ["gui-cc-transition", "gui-cc-rollout", "gui-score"]
    assert all(v.error is None and not v.cached for v in verdicts)
    assert verdicts[0].scores == {"S_ele": 0.8, "S_lay": 1.0, "S_ad": 0.6, "S_id": 0.4, "S_use": 1.0}
    by_rubric = {b["metadata"]["emukit_rubric"]: b for b in server.bodies}
    for body in by_rubric.values():
        assert body["temperature"] == 0.0 and body["model"] == "judge-vl-test"
    images = lambda b: sum(1 for part in b["messages"][1]["content"] if part["type"] == "image_url")  # noqa: E731
    assert images(by_rubric["gui-cc-transition"]) == 3  # before, predicted, recorded next
    assert images(by_rubric["gui-score"]) == 2
    again = JudgeScorer(server.spec, cache_dir=tmp_path / "cache")
    cached = again.judge_many([transition_input()])[0]
    assert again.http_calls == 0 and all(v.cached for v in cached)
    assert [v.scores for v in cached] == [v.scores for v in verdicts]


def test_busy_endpoints_are_retried_with_backoff(tmp_path):
    s = JudgeServer(fail_first=2)
    try:
        scorer = JudgeScorer(s.spec, rubrics=["gui-score"], backoff_s=0.01, concurrency=1)
        verdict = scorer.judge_many([transition_input()])[0][0]
        assert verdict.error is None and verdict.scores["GOAL"] == 1.0
        assert scorer.http_calls == 3
    finally:
        s.close()


def test_an_off_rubric_reply_is_asked_again_once_then_recorded_as_an_error():
    s = JudgeServer(off_rubric=True)
    try:
        scorer = JudgeScorer(s.spec, rubrics=["gui-score"], concurrency=1)
        verdict = scorer.judge_many([transition_input()])[0][0]
        assert verdict.scores == {} and "does not follow gui-score v1" in verdict.error
        assert scorer.http_calls == 2
    finally:
        s.close()


def test_concurrency_is_bounded():
    s = JudgeServer(delay_s=0.05)
    try:
        scorer = JudgeScorer(s.spec, concurrency=2)
        scorer.judge_many([transition_input() for _ in range(4)])
        assert len(s.bodies) == 12 and s.max_in_flight == 2
    finally:
        s.close()


# ---------------------------------------------------------------------------------------------- end to end
@needs_chromium
def test_evaluate_with_a_judge_records_every_dimension(server, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface", "--condition", "oracle-state",
                 "--format", "gworld", "--out", str(out), "--family", "temporal", "--judge", server.spec, "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "judge GUI-Score" in printed
    doc = json.loads((out / "results.json").read_text())
    judge = doc["metrics"]["judge"]
    assert judge["S_ad"]["temporal"] == pytest.approx(0.6) and judge["S_cp"]["temporal"] == pytest.approx(0.8)
    assert judge["GUI-Score"]["temporal"] == pytest.approx(80.0) and judge["GUI-Score"]["n"] == 4
    assert doc["config"]["judge"]["model"] == "judge-vl-test"
    assert doc["config"]["judge"]["rubrics"] == {"gui-cc-transition": "1", "gui-cc-rollout": "1", "gui-score": "1"}
    branch = doc["branches"][0]
    assert {j["rubric"] for j in branch["judge"]} == {"gui-cc-transition", "gui-cc-rollout", "gui-score"}
    assert len(server.bodies) == 12  # 2 pairs x 2 branches x 3 rubrics
    report = (out / "report.html").read_text()
    assert "judge GUI-Score" in report and "judge gui-cc-transition" in report


def test_rubrics_share_the_registry_by_versioned_name_and_a_taken_name_is_refused():
    """The project's Registry holds the rubrics under NAME@VERSION; a bare name is its highest version; another
    rubric under a name and version already registered is refused (change the prompt, bump the version)."""
    import dataclasses

    assert {"gui-cc-transition@1", "gui-cc-rollout@1", "gui-score@1", "gui-cc-rap@1"} <= set(RUBRICS.names())
    v1 = get_rubric("gui-score")
    assert v1 is get_rubric("gui-score@1") and v1.key == "gui-score@1"
    assert register_rubric(v1) is v1  # the same rubric again (a module imported twice): fine
    with pytest.raises(ConfigError, match="judge rubric 'gui-score@1' is registered twice"):
        register_rubric(dataclasses.replace(v1, preamble="another prompt, same version"))
    v2 = dataclasses.replace(v1, version="2", preamble="a new prompt")
    try:
        assert register_rubric(v2) is v2 and get_rubric("gui-score") is v2 and get_rubric("gui-score@1") is v1
    finally:
        RUBRICS._entries.pop("gui-score@2")  # the registry is the process's: leave it as the other tests see it
    with pytest.raises(ConfigError, match="unknown judge rubric 'nope'; known: gui-cc-rap, gui-cc-rollout"):
        get_rubric("nope")
    assert isinstance(v1, Rubric)
