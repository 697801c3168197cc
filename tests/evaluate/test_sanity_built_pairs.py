"""The evaluator's sanity properties on pairs really built (the session's built store: one pair of every
template of every family at seed 0, plus two at seed 1, built on virtual devices behind the real adb server
and exported; tests/conftest.py ``built_store``), rendered in the real headless Chromium: ref:surface reaches
>= 95 % oracle-state PairCorrect per family, and a deterministic model gets 0 % observation-only PairCorrect."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.pairs import load_export
from emukit.evaluate.run import evaluate
from emukit.templates import load_templates

FAMILIES = ("persistent", "clipboard", "ordered", "temporal")


@pytest.fixture(scope="module")
def export_dir(built_store) -> Path:
    return built_store.export


@pytest.fixture(scope="module")
def renderer(chromium):
    from emukit.evaluate.render import Renderer

    with Renderer() as r:
        yield r


def test_every_template_has_a_built_pair(export_dir):
    assert {p.template for p in load_export(export_dir)} == {t.name for t in load_templates()}


def test_surface_model_oracle_state_on_built_pairs(export_dir, renderer):
    pairs = list(load_export(export_dir))
    assert {p.family for p in pairs} == set(FAMILIES)
    result = evaluate(pairs, format_name="gworld", condition="oracle-state", adapter=create_adapter("ref:surface"),
                      renderer=renderer)
    for family in FAMILIES:
        assert result.metrics["pair_correct"][family] >= 0.95, (family, result.branch_records())


def test_deterministic_model_observation_only_on_built_pairs(export_dir, renderer):
    result = evaluate(list(load_export(export_dir)), format_name="code2world", condition="observation",
                      adapter=create_adapter("ref:copy-current"), renderer=renderer)
    assert result.metrics["counts"]["refused_pairs"] == 0  # the builder's A/B requests are identical
    for family in FAMILIES:
        assert result.metrics["pair_correct"][family] == 0.0
