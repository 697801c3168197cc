"""Metrics as registered functions (emukit/evaluate/metric.py): one reducer for all of them, a name taken twice
refused, and a metric from an outside package (a module named by an entry point, in a distribution on the
PYTHONPATH of a real ``emukit evaluate`` run on the fixture export) reaching results.json, the terminal table
and the HTML report with its definition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from emukit.errors import ConfigError
from emukit.evaluate.metric import METRICS, Metric, ScoredPair, compute, grouped_mean, metric, registered_metrics
from emukit.evaluate.metrics import BranchScore, compute_metrics

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"

OUTSIDE = '''
"""An outside package's one file: a metric."""
from emukit.evaluate.metric import metric


@metric("parsed_any", label="Parsed (branch)", reads="branch",
        definition="Fraction of scored branches whose prediction the family parser could read at all.")
def parsed_any(branch):
    return branch.parsed is not None
'''


def test_the_shipped_metrics_in_table_order():
    assert [m.name for m in registered_metrics()][:6] == ["branch_exact", "pair_correct", "sem_correct",
                                                          "surface_valid", "sem_pair_correct", "state_exact"]
    assert all(isinstance(METRICS.get(n), Metric) for n in METRICS.names())


def test_one_reducer_groups_by_family_in_the_families_order_and_takes_the_unweighted_macro():
    got = grouped_mean([("temporal", 1.0), ("clipboard", 0.0), ("clipboard", 1.0), ("zzz", 1.0)])
    assert list(got) == ["clipboard", "temporal", "zzz", "macro"]
    assert got == {"clipboard": 0.5, "temporal": 1.0, "zzz": 1.0, "macro": 2.5 / 3}
    assert grouped_mean([]) == {"macro": None}


def test_pair_metrics_read_both_branches_and_a_missing_branch_is_wrong():
    a = BranchScore("p", "clipboard", "A", correct=True, sem_correct=True, surface_valid=True)
    b = BranchScore("p", "clipboard", "B", correct=False, sem_correct=True, surface_valid=False)
    assert ScoredPair("p", "clipboard", {"A": a, "B": b}).both("sem_correct")
    assert not ScoredPair("p", "clipboard", {"A": a, "B": b}).both("correct")
    assert not ScoredPair("p", "clipboard", {"A": a}).both("sem_correct")
    metrics = compute_metrics([a, b])
    assert metrics["pair_correct"] == {"clipboard": 0.0, "macro": 0.0}
    assert metrics["sem_pair_correct"] == {"clipboard": 1.0, "macro": 1.0}
    assert metrics["branch_exact"] == {"clipboard": 0.5, "macro": 0.5}
    assert "state_exact" not in metrics  # no branch was estimated
    assert compute(registered_metrics()[:1], [], []) == {"branch_exact": {"macro": None}}


def test_the_same_reducer_groups_by_template():
    """``metrics.by_template``: each registered metric per template by the reducer the family figures use (a
    pair metric by its pair's template); the family figures are unchanged by it; a pair naming no template
    (an older export) is grouped as ``(no template)``."""
    def pair(pid, family, template, a_ok, b_ok):
        return [BranchScore(pid, family, name, correct=ok, sem_correct=ok, surface_valid=True, template=template)
                for name, ok in (("A", a_ok), ("B", b_ok))]

    scores = [*pair("p1", "clipboard", "copy_direct", True, True), *pair("p2", "clipboard", "copy_direct", True, False),
              *pair("p3", "clipboard", "paste_twice", False, False), *pair("p4", "ordered", "", True, True)]
    metrics = compute_metrics(scores)
    by = metrics["by_template"]
    assert list(by["branch_exact"]) == ["(no template)", "copy_direct", "paste_twice", "macro"]
    assert by["branch_exact"] == {"(no template)": 1.0, "copy_direct": 0.75, "paste_twice": 0.0, "macro": 1.75 / 3}
    assert by["pair_correct"] == {"(no template)": 1.0, "copy_direct": 0.5, "paste_twice": 0.0, "macro": 0.5}
    assert metrics["pair_correct"] == {"clipboard": 1 / 3, "ordered": 1.0, "macro": 2 / 3}
    assert metrics["counts"]["pairs_by_template"] == {"(no template)": 1, "copy_direct": 2, "paste_twice": 1}
    assert compute(registered_metrics()[:1], scores, [], by="template") == {"branch_exact": by["branch_exact"]}


def test_a_name_taken_twice_and_a_bad_declaration_are_refused():
    with pytest.raises(ConfigError, match="metric 'branch_exact' is registered twice"):
        @metric("branch_exact", label="Mine", definition="mine", reads="branch")
        def mine(branch):
            return True
    with pytest.raises(ValueError, match="reads must be one of branch, pair"):
        Metric(name="x", label="X", definition="x", reads="trajectory", fn=lambda s: 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="give a label and a one-line definition"):
        Metric(name="x", label="X", definition="", reads="branch", fn=lambda s: 1)


def _outside(root: Path) -> dict[str, str]:
    root.mkdir()
    (root / "parsedmetric.py").write_text(OUTSIDE)
    info = root / "parsedmetric-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: parsedmetric\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [emukit.metrics]
        parsed_any = parsedmetric
        """))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *sys.path])}


@pytest.mark.usefixtures("chromium")  # the command renders the reference model's predictions
def test_a_metric_from_an_outside_package_reaches_the_results_the_table_and_the_report(emukit_cli, tmp_path):
    env = _outside(tmp_path / "site")
    out = tmp_path / "out"
    proc = subprocess.run([*emukit_cli, "evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface",
                           "--condition", "oracle-state", "--family", "clipboard", "--family", "ordered",
                           "--out", str(out), "--quiet"], env={**env, "COLUMNS": "200"}, capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads((out / "results.json").read_text())
    assert doc["metrics"]["parsed_any"] == {"clipboard": 1.0, "ordered": 1.0, "macro": 1.0}
    assert list(doc["metrics"])[:6] == ["branch_exact", "pair_correct", "sem_correct", "surface_valid",
                                        "sem_pair_correct", "parsed_any"]
    templates = {p["template"] for p in map(json.loads, (FIXTURE / "pairs.jsonl").read_text().splitlines())
                 if p["family"] in ("clipboard", "ordered")}
    assert set(doc["metrics"]["by_template"]["parsed_any"]) == templates | {"macro"}  # the reducer over templates
    assert "Parsed (branch)" in proc.stdout  # a row of the terminal table
    page = (out / "report.html").read_text()
    assert "<a href='#def-parsed_any'>Parsed (branch)</a>" in page
    assert ("<dt id='def-parsed_any'>Parsed (branch)</dt><dd>Fraction of scored branches whose prediction the "
            "family parser could read at all.</dd>") in page
    table = page[page.index("<details id='by-template'>"):]
    assert "<th><a href='#def-parsed_any'>Parsed (branch)</a></th>" in table[:table.index("</details>")]
