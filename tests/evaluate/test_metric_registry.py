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
    pairs = [m.name for m in registered_metrics() if {"branch", "pair"} & set(m.kinds)]
    assert pairs == ["branch_exact", "pair_correct", "sem_correct", "surface_valid", "sem_pair_correct",
                     "state_exact", "fidelity", "judge"]
    assert [m.name for m in registered_metrics("task")] == ["milestone_progress", "action_progress", "mean_steps",
                                                            "judge"]
    assert [m.name for m in registered_metrics("trajectory")] == ["reference_action_progress", "judge"]
    assert [m.name for m in registered_metrics("unit")] == ["exact"]
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
    assert compute(registered_metrics()[:1], {"branch": [], "pair": []}) == {"branch_exact": {"macro": None}}
    assert compute(registered_metrics()[:1], {"task": []}) == {}  # a metric is reported only for what it reads


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
    assert compute(registered_metrics()[:1], {"branch": scores}, by="template") == {"branch_exact": by["branch_exact"]}


def test_keyed_metrics_fidelity_and_the_judge_are_reduced_per_key_by_the_same_reducer():
    """Fidelity (one figure per encoder) and the judge (one per dimension, GUI-Score when its five dimensions
    are there, ``n`` the branches judged) are registered keyed metrics: the reducer groups each key by family
    (and by template); a score that is not finite is left out; the report's rows come from the registry."""
    from emukit.evaluate.report import table_rows

    dims = {"GOAL": 0.8, "LOGIC": 0.6, "CONS": 1.0, "UI": 0.4, "QUAL": 0.2}
    scores = [BranchScore("p1", "ordered", "A", fidelity={"dinov2": 0.5}, judge=dims, template="t1"),
              BranchScore("p1", "ordered", "B", fidelity={"dinov2": float("nan")}, template="t1"),
              BranchScore("p2", "clipboard", "A", fidelity={"dinov2": 0.25, "siglip": 0.75},
                          judge={"S_ele": 0.6}, template="t2"),
              BranchScore("p2", "clipboard", "B", fidelity={"dinov2": 0.75}, template="t2")]
    m = compute_metrics(scores)
    assert m["fidelity"] == {"dinov2": {"clipboard": 0.5, "ordered": 0.5, "macro": 0.5},
                             "siglip": {"clipboard": 0.75, "macro": 0.75}}
    assert m["judge"]["GOAL"] == {"ordered": 0.8, "macro": 0.8, "n": 1}
    assert m["judge"]["GUI-Score"]["ordered"] == pytest.approx(60.0)
    assert m["judge"]["S_ele"] == {"clipboard": 0.6, "macro": 0.6, "n": 1}
    assert m["by_template"]["fidelity"]["dinov2"] == {"t1": 0.5, "t2": 0.5, "macro": 0.5}
    assert list(m)[:7] == ["branch_exact", "pair_correct", "sem_correct", "surface_valid", "sem_pair_correct",
                           "fidelity", "judge"]
    rows = {r.anchor: r for r in table_rows(m, rubric_of={"GOAL": "gui-score v1"})}
    assert rows["fidelity-siglip"].label == "siglip cosine" and rows["fidelity-siglip"].show("macro") == "0.7500"
    assert rows["judge-GUI-Score"].show("ordered") == "60.0" and rows["judge-GOAL"].show("ordered") == "0.800"
    assert "rubric gui-score v1" in rows["judge-GOAL"].definition and "rubric -" in rows["judge-S_ele"].definition
    assert rows["branch_exact"].show("clipboard") == "0.0"


def test_task_trajectory_and_table5_figures_come_from_the_registry(tmp_path):
    """The task track's means (per track, category and template), the trajectories' summary (and per source)
    and Table 5's Exact (per family and per stratum) are the registered metrics over their scored samples,
    by the one reducer; a task metric registered here reaches the summary, the groups and the Markdown
    report with its definition."""
    from emukit.estimator.evaluate import HeldOutExample, Outcome, table5
    from emukit.evaluate.metric import ScoredTask

    assert compute(registered_metrics("task"), {"task": [
        ScoredTask("a", "reference", "c1", "t", 0.5, 1.0, 3), ScoredTask("b", "reference", "c2", "t", 1.0, 0.5, 2),
        ScoredTask("c", "agent", "c1", "t", 0.0, None, 4, {"S_cp": 0.4})]}, by="track") == {
        "milestone_progress": {"agent": 0.0, "reference": 0.75, "macro": 0.375},
        "action_progress": {"reference": 0.75, "macro": 0.75},
        "mean_steps": {"agent": 4.0, "macro": 4.0},
        "judge": {"S_cp": {"agent": 0.4, "macro": 0.4, "n": 1}}}

    def example(unit, family, stratum, exact):
        ex = HeldOutExample(unit, family, [], "", {}, {"x": 1}, unit=unit, stratum=stratum)
        return Outcome(ex, {"x": 1} if exact else {"x": 0})

    outcomes = {"d-stress": [example("u1", "clipboard", "d=16", True), example("u2", "clipboard", "d=4", False),
                             example("u3", "ordered", "d=4", True), example("u4", "ordered", "d=16", True)]}
    t5 = table5("rules", outcomes)
    assert t5.cells["clipboard"]["d-stress"].value == 0.5 and t5.cells["ordered"]["d-stress"].value == 1.0
    assert t5.record()["by_stratum"] == {"d-stress": {"d=4": 0.5, "d=16": 1.0, "macro": 0.75}}


def test_a_name_taken_twice_and_a_bad_declaration_are_refused():
    with pytest.raises(ConfigError, match="metric 'branch_exact' is registered twice"):
        @metric("branch_exact", label="Mine", definition="mine", reads="branch")
        def mine(branch):
            return True
    with pytest.raises(ValueError, match="reads must be one of branch, pair, task, trajectory, unit"):
        Metric(name="x", label="X", definition="x", reads="episode", fn=lambda s: 1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reads must be one of"):
        Metric(name="x", label="X", definition="x", reads=("branch", "screen"),  # type: ignore[arg-type]
               fn=lambda s: 1)
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
