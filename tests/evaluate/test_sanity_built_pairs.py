"""The evaluator's sanity properties on pairs freshly built by `emukit build-pairs` (five pairs per family: every
clipboard and ordered template, five persistent and five temporal ones) on a real virtual device behind the real adb server, exported with `emukit export`, rendered in
the real headless Chromium: ref:surface reaches >= 95 % oracle-state PairCorrect per family, and a
deterministic model gets 0 % observation-only PairCorrect."""

from __future__ import annotations

import subprocess

import pytest

from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.pairs import load_export
from emukit.evaluate.run import evaluate

FAMILIES = ("persistent", "clipboard", "ordered", "temporal")


@pytest.fixture(scope="module")
def export_dir(emukit_cli, vdevice, adb_server, tmp_path_factory):
    data = tmp_path_factory.mktemp("built")
    out = data / "export"
    for cmd in (["build-pairs", "--family", "all", "--count", "5", "--device", vdevice.serial,
                 "--data-dir", str(data), "--quiet"],
                ["export", "--out", str(out), "--data-dir", str(data)]):
        proc = subprocess.run([*emukit_cli, *cmd], env=adb_server.env, capture_output=True,
                              text=True, timeout=900)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@pytest.fixture(scope="module")
def renderer():
    from emukit.evaluate.render import Renderer

    with Renderer() as r:
        yield r


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
