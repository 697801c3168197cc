"""The evaluator's per-family pieces (reader, baseline rules, reference surface): every registered family has
one of each, each found by the family's name, and an unknown family is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.errors import ConfigError
from emukit.evaluate.baseline import BASELINE_RULES
from emukit.evaluate.pairs import load_export
from emukit.evaluate.parsers import PARSERS, READERS, expected_context, invalid, judge, parse, reader
from emukit.evaluate.run import expected_value
from emukit.evaluate.surfaces import SURFACES
from emukit.evaluate.visible import Evidence
from emukit.families import FAMILIES, unit

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"


@pytest.mark.parametrize("pieces", [READERS, BASELINE_RULES, SURFACES], ids=lambda p: p.kind)
def test_every_family_has_each_evaluator_piece(pieces):
    assert pieces.missing() == []
    assert sorted(pieces) == sorted(FAMILIES)


def test_readers_are_the_parsers_and_know_their_family():
    assert PARSERS is READERS
    for family in FAMILIES:
        assert reader(family).family == family
        assert unit(family).target_key in reader(family).invalid_outcome


def test_unknown_families_are_named():
    for call in (lambda: reader("weather"), lambda: invalid("weather", "r"),
                 lambda: expected_context("weather", {})):
        with pytest.raises(ValueError, match="unknown family 'weather'; expected one of persistent, clipboard"):
            call()
    with pytest.raises(ConfigError, match="unknown family 'weather'"):
        BASELINE_RULES.get("weather")
    with pytest.raises(ConfigError, match="unknown family 'weather'"):
        SURFACES.get("weather")


def test_expected_value_is_the_outcome_target():
    seen = set()
    for pair in load_export(FIXTURE):
        for branch in pair.branches.values():
            value = expected_value(pair, branch)
            assert value == branch.outcome.get(unit(pair.family).target_key) or (
                value == [] and not branch.outcome.get("ordered_items"))
            if pair.family == "ordered":
                assert isinstance(value, list) and value is not branch.outcome.get("ordered_items")
            seen.add(pair.family)
    assert seen == set(FAMILIES)


def test_judge_reads_a_missing_list_target_as_empty():
    assert judge("ordered", invalid("ordered", "r"), {}).reason == \
        "invalid prediction: r; surface gates failed: evidence"
    nothing = parse("ordered", Evidence(nodes=(), viewport=(360, 800)), {"expected_items": []})
    assert nothing.outcome == {"ordered_items": []} and judge("ordered", nothing, {}).sem_correct
