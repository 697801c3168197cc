"""One request builder for every sample kind (``emukit.evaluate.request``): a pair's branch, a task's step and
an external trajectory's step are built by the same code and say what they are; a sample without a pair family
asks under its own contract, never under a family it does not have."""

from __future__ import annotations

import json

import pytest

from emukit.actions import Action
from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.request import SAMPLE_KINDS, TASK_CONTRACT, RequestBuilder
from emukit.wm import FORMATS, FormatError, contract_for, get_format
from tests.wm.test_formats import SCREEN, TAP, png_of, screen

WAIT = Action(type="wait", duration_ms=65_000)
ACTIONS = (TAP, WAIT, Action(type="type", text="Gate"), Action(type="key", key=4))


@pytest.fixture(scope="module")
def png() -> bytes:
    return png_of(screen())


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_kind_records_itself_and_only_pairs_carry_a_family(name, png):
    fmt = get_format(name)
    for kind in SAMPLE_KINDS:
        family = "temporal" if kind == "pair" else None
        builder = RequestBuilder(fmt, kind, family=family, contract=None if family else TASK_CONTRACT)
        body, ctx = builder.build(png, TAP, screen_size=SCREEN, observation_xml="<hierarchy/>")
        assert (ctx.sample, ctx.family, ctx.condition, ctx.format) == (kind, family, "observation", name)
        text = json.dumps(body)
        assert (contract_for("temporal") in text) == (kind == "pair") and (TASK_CONTRACT in text) == (kind != "pair")


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_step_without_a_family_serialises_a_wait_as_a_wait(name, png):
    """Only a family whose unit says so (temporal) turns a wait into "wait, then open the notification shade";
    a task's wait is a plain wait. The bodies are the ones the formats built for tasks before the builder,
    when tasks were asked under the persistent family (whose waits open nothing)."""
    fmt = get_format(name)
    task = RequestBuilder(fmt, "task", contract=TASK_CONTRACT)
    for action in ACTIONS:
        body, _ = task.build(png, action, screen_size=SCREEN)
        before = fmt.build_request(png, action, screen_size=SCREEN, family="persistent", contract=TASK_CONTRACT)
        assert body == before, action
    shade = json.dumps(fmt.build_request(png, WAIT, screen_size=SCREEN, family="temporal")).lower()
    plain = json.dumps(task.build(png, WAIT, screen_size=SCREEN)[0]).lower()
    assert "notification" in shade and "notification" not in plain


def test_a_sample_without_a_family_needs_a_contract(png):
    fmt = get_format("code2world")
    with pytest.raises(ValueError, match="task request without a pair family needs a transition contract"):
        RequestBuilder(fmt, "task")
    with pytest.raises(ValueError, match="unknown sample kind 'suite'"):
        RequestBuilder(fmt, "suite", contract=TASK_CONTRACT)  # type: ignore[arg-type]
    with pytest.raises(FormatError, match="without a pair family needs its own transition contract"):
        fmt.build_request(png, TAP, family=None)


def test_the_surface_model_draws_a_family_surface_only_for_a_family(png):
    """``ref:surface`` draws the pair family's surface; a task or trajectory step has none, so it predicts the
    current screen, exactly as ``ref:copy-current`` does."""
    fmt = get_format("code2world")
    surface, copy = create_adapter("ref:surface"), create_adapter("ref:copy-current")
    for kind in ("task", "trajectory"):
        body, ctx = RequestBuilder(fmt, kind, contract=TASK_CONTRACT).build(png, TAP, screen_size=SCREEN)
        assert surface.predict(body, ctx).html == copy.predict(body, ctx).html
    body, ctx = RequestBuilder(fmt, "pair", family="clipboard").build(png, TAP, screen_size=SCREEN)
    assert surface.predict(body, ctx).html != copy.predict(body, ctx).html
