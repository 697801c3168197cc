"""One composition for every sample kind (emukit/evaluate/compose.py): the one loop's batches, renderer and
scored samples; the suites as the evaluator's fourth sample kind (``emukit evaluate --suites``), scored by the
registered ``exact`` metric Table 5 reads, per suite, family, stratum and template.

The suite rows are the fixture pairs' branches written in the layout ``emukit build-pairs --suite`` writes
(tests/estimator/test_table5.py ``write_suites``): real virtual-device captures, nothing mocked."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from emukit.estimator.evaluate import compare
from emukit.evaluate import compose
from emukit.evaluate.estimator import BaselineEstimator
from emukit.evaluate.suites import SuiteSolver, evaluate_suites, suite_samples
from emukit.families import FAMILIES
from emukit.templates import load_templates
from tests.estimator.test_table5 import write_suites


@pytest.fixture(scope="module")
def templates() -> dict[str, Any]:
    return {t.name: t for t in load_templates(variants=True)}


class Doubling:
    """A sample kind of its own: each batch's numbers doubled; an even result is a scored unit that is exact."""

    kind = "double"
    batch_size = 3
    render_pages = 0

    def __init__(self) -> None:
        self.batches: list[list[int]] = []

    def solve(self, batch: list[int], renderer: Any) -> list[int]:
        assert renderer is None  # a kind that renders nothing gets no renderer started
        self.batches.append(batch)
        return [2 * n for n in batch]

    def scored(self, run: int) -> dict[str, list[Any]]:
        from emukit.evaluate.metric import ScoredUnit

        return {"unit": [ScoredUnit(str(run), "clipboard" if run < 6 else "ordered", "mine", run % 4 == 0)]}


def test_the_one_loop_takes_batches_lazily_reports_each_run_and_keeps_the_scored_samples():
    pulled: list[int] = []

    def source():
        for n in range(1, 6):
            pulled.append(n)
            yield n

    seen: list[int] = []
    solver = Doubling()
    done = compose.run(source(), solver, on_run=lambda r: seen.append((r, len(pulled))))
    assert solver.batches == [[1, 2, 3], [4, 5]]
    assert done.runs == [2, 4, 6, 8, 10]
    assert [r for r, _ in seen] == done.runs and seen[0][1] == 3  # the first batch was run before the rest was read
    assert [u.unit_id for u in done.scored["unit"]] == ["2", "4", "6", "8", "10"]
    assert done.metrics()["exact"] == {"clipboard": 0.5, "ordered": 1 / 3, "macro": (0.5 + 1 / 3) / 2}
    assert done.seconds > 0


def test_suites_are_scored_by_the_estimator_as_table5_scores_them(templates, tmp_path):
    """``evaluate_suites`` with the rule baseline on two suites: Exact per suite and family equals Table 5's
    cells for the same rows (the same registered metric), the strata and templates are grouped by the same
    reducer, and every trajectory is kept with its estimate and target."""
    data = write_suites(tmp_path / "data", {"d-stress": ("clipboard", "temporal"),
                                            "interference": ("persistent", "ordered")}, templates)
    suites, samples = suite_samples(data)
    assert suites == ["d-stress", "interference"] and len(samples) == 16
    result = evaluate_suites(samples, estimator=BaselineEstimator(), suites=suites, data_dir=data)
    doc = result.to_json()
    assert doc["config"] == {"estimator": "baseline", "sample": "suite", "suites": suites, "data_dir": str(data)}
    table5 = compare(None, None, suites=data)["rows"][0]["table5"]
    for suite in suites:
        got = doc["by_suite"][suite]
        assert got["trajectories"] == 8
        for family in FAMILIES:
            assert got["metrics"]["exact"].get(family) == table5["cells"][family][suite]["value"], (suite, family)
        assert list(got["by_stratum"]["exact"]) == ["d=4", "macro"]  # the written rows are all d=4
        assert got["by_stratum"]["exact"] == table5["by_stratum"][suite]
        assert set(got["by_template"]["exact"]) - {"macro"} == {t["template"] for t in doc["trajectories"]
                                                                if t["suite"] == suite}
    records = doc["trajectories"]
    assert len(records) == 16 and {r["suite"] for r in records} == set(suites)
    assert all(r["exact"] == (r["estimated"] == r["target"]) for r in records)
    assert any(r["exact"] for r in records)


def test_a_failed_estimate_is_kept_and_counted_wrong(templates, tmp_path):
    data = write_suites(tmp_path / "data", {"d-stress": ("clipboard",)}, templates)
    _, samples = suite_samples(data)

    class Broken(BaselineEstimator):
        name = "broken"

        def estimate(self, family, steps, final_xml, task=None):
            raise RuntimeError("no state here")

    runs = SuiteSolver(Broken()).solve(samples[:1], None)
    assert runs[0].exact is False and runs[0].error == "estimator error: RuntimeError: no state here"
    result = evaluate_suites(samples, estimator=Broken(), suites=["d-stress"])
    assert result.to_json()["by_suite"]["d-stress"]["metrics"]["exact"] == {"clipboard": 0.0, "macro": 0.0}


def test_the_cli_scores_the_suites_and_refuses_the_pair_options(templates, tmp_path):
    """``emukit evaluate --suites DATA_DIR --out OUT``: suite-results.json, a table with a column per suite and
    the strata under it; ``--family`` keeps one family; ``--model`` (a world model) is refused with the reason;
    a folder without suites names itself."""
    from emukit.cli import main

    data = write_suites(tmp_path / "data", {"d-stress": ("clipboard", "ordered")}, templates)
    out = tmp_path / "out"
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["evaluate", "--suites", str(data), "--out", str(out), "--family", "ordered", "--quiet"])
    text = buf.getvalue()
    assert code == 0, text
    doc = json.loads((out / "suite-results.json").read_text())
    assert {r["family"] for r in doc["trajectories"]} == {"ordered"}
    assert "d-Stress" in text and "d-Stress per stratum: d=4" in text and "8 trajectories" not in text
    assert "4 trajectories in" in text
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["evaluate", "--suites", str(data), "--model", "ref:surface"]) == 2
    assert "scored by the state estimator" in buf.getvalue()
    empty = tmp_path / "empty"
    empty.mkdir()
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["evaluate", "--suites", str(empty), "--out", str(out)]) == 1
    assert f"{empty}: no suites/ folder" in buf.getvalue()


def test_every_evaluator_is_a_solver_of_the_one_loop():
    """The four sample kinds plug into :func:`compose.run` as solvers (what the metrics read from each)."""
    from emukit.evaluate.run import PairSolver
    from emukit.evaluate.tasks import TaskSolver
    from emukit.evaluate.trajectories import TrajectorySolver

    kinds = {cls.kind: cls for cls in (PairSolver, TaskSolver, TrajectorySolver, SuiteSolver)}
    assert set(kinds) == {"pair", "task", "trajectory", "suite"}
    assert kinds["pair"].render_pages == 4 and kinds["suite"].render_pages == 0
    for cls in kinds.values():
        assert callable(cls.solve) and callable(cls.scored)


def test_the_suite_sample_source_names_a_bad_folder(tmp_path):
    from emukit.errors import ConfigError

    with pytest.raises(ConfigError, match="no suites/ folder"):
        suite_samples(Path(tmp_path))
