"""``emukit estimator eval`` in seed 002's Table 5 layout: a suite row becomes the same example a held-out
branch does (the task context the pair path gives, from the template alone), the table's cells (Strict
PairCorrect, each suite's Exact), its macro and Average rows and "-" for what is absent, the JSON, the CLI
without a checkpoint, and clear errors for bad suite rows.

The suite rows are made here from the hand-built export ``tests/fixtures/pairs`` (real virtual-device
captures): each branch of a fixture pair is written as a suite trajectory of the pair's shipped template, in
the layout ``emukit build-pairs --suite`` writes (``suites/<suite>/<family>.jsonl``, artifact paths relative to
the suite folder), carrying only the template's own parameters, so its task context has to come from the
template (the fixture pair itself records it in its parameters and outcomes)."""

from __future__ import annotations

import io
import json
import shutil
from collections import defaultdict
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from emukit.errors import ConfigError
from emukit.estimator.evaluate import STRICT, compare, held_out, table_columns
from emukit.estimator.suites import load_suites, suite_example
from emukit.evaluate.estimator import BaselineEstimator
from emukit.evaluate.pairs import load_export
from emukit.evaluate.run import estimator_task
from emukit.families import FAMILIES, SUITES
from emukit.templates import load_templates

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
#: the hand-built fixture names its playlist ``playlist``; the shipped template's parameter is ``pl``
RENAMED = {"identical_prefix_hidden_suffix": {"pl": "playlist"}}


@pytest.fixture(scope="module")
def templates() -> dict[str, Any]:
    return {t.name: t for t in load_templates(variants=True)}


def fixture_pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURE / "pairs.jsonl").read_text().splitlines() if line.strip()]


def suite_row(pair: dict[str, Any], branch: str, suite: str, template: Any) -> dict[str, Any]:
    """One branch of a fixture pair as a suite trajectory of its template: the template's own parameters
    only (declared or derived), never the fixture's recorded paths, probe or outcomes."""
    own = set(template.params) | set(template.derived)
    params = {k: v for k, v in pair["params"].items() if k in own}
    params.update({name: pair["params"][key] for name, key in RENAMED.get(pair["template"], {}).items()})
    br = pair["branches"][branch]
    return {"trajectory_id": f"{suite}-{pair['pair_id']}-{branch}", "suite": suite, "family": pair["family"],
            "template": pair["template"], "params": params, "seed": 0, "slot": 0, "attempt": 0, "d": 4,
            "history": br["history"], "final_observation": br["boundary_observation"], "target": br["state"]}


def write_suites(data: Path, layout: dict[str, tuple[str, ...]], templates: dict[str, Any]) -> Path:
    """``data/suites/<suite>/<family>.jsonl`` for each suite and family of ``layout``: every branch of every
    fixture pair of the family, with the hierarchies it names copied beside."""
    for suite, families in layout.items():
        root = data / "suites" / suite
        rows: dict[str, list[str]] = defaultdict(list)
        for pair in fixture_pairs():
            if pair["family"] not in families:
                continue
            for branch in ("A", "B"):
                row = suite_row(pair, branch, suite, templates[pair["template"]])
                for obs in [*(s["observation"] for s in row["history"]), row["final_observation"]]:
                    dest = root / obs["hierarchy"]
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(FIXTURE / obs["hierarchy"], dest)
                rows[pair["family"]].append(json.dumps(row))
        for family, lines in rows.items():
            (root / f"{family}.jsonl").write_text("\n".join(lines) + "\n")
    return data


def test_a_suite_row_is_the_example_its_pair_branch_is(templates, tmp_path):
    """For every fixture pair and branch, the suite trajectory of the same template, parameters, history and
    boundary is the same example: the same history, final observation and truth, and the task context the
    pair path gives (persistent: the probe context from the template's state and outcome blocks; ordered:
    the playlist and the collection type), for every family."""
    write_suites(tmp_path, {"d-stress": tuple(FAMILIES)}, templates)
    pairs = {p.pair_id: p for p in load_export(FIXTURE)}
    branches = {e.example_id: e for e in held_out(FIXTURE)}
    root = tmp_path / "suites" / "d-stress"
    seen = set()
    for family in FAMILIES:
        for line in (root / f"{family}.jsonl").read_text().splitlines():
            row = json.loads(line)
            pair_id, branch = row["trajectory_id"].removeprefix("d-stress-").rsplit("-", 1)
            example = suite_example(row, root, templates, f"{family}.jsonl", suite="d-stress")
            expected = branches[f"{pair_id}/{branch}"]
            assert example.task == estimator_task(pairs[pair_id]) == expected.task, (pair_id, example.task)
            assert [(x, a) for x, a in example.history] == [(x, a) for x, a in expected.history]
            assert (example.final_xml, example.truth, example.family) == \
                (expected.final_xml, expected.truth, expected.family)
            assert example.unit == row["trajectory_id"] and example.example_id == f"d-stress/{row['trajectory_id']}"
            seen.add(family)
            if family == "persistent":
                assert set(example.task) >= {"source", "destination", "artifact", "probe"}
            if family == "ordered":
                assert example.task == {"playlist": "Road trip", "collection_type": "playlist"}
    assert seen == set(FAMILIES)


def _pair_correct(examples) -> dict[str, tuple[int, int]]:
    """Per family (right, n) of units whose every example the rule baseline gets exactly right."""
    est = BaselineEstimator()
    units: dict[tuple[str, str], bool] = {}
    for e in examples:
        ok = est.estimate(e.family, e.history, e.final_xml, task=e.task) == e.truth
        units[(e.family, e.unit)] = units.get((e.family, e.unit), True) and ok
    return {f: (sum(ok for (g, _), ok in units.items() if g == f), sum(1 for g, _ in units if g == f))
            for f in FAMILIES}


def test_the_table_has_strict_pair_correct_suite_exact_macro_and_average(templates, tmp_path):
    """Strict is PairCorrect over the held-out pairs (both branches exact), each suite column Exact over its
    trajectories; a suite or family with nothing to score is empty (None); macro is the mean over the families
    scored in the column, Average only for a column where every family is."""
    data = write_suites(tmp_path, {"d-stress": tuple(FAMILIES), "cross-app": ("ordered", "temporal")}, templates)
    result = compare(None, FIXTURE, suites=data)
    assert result["columns"] == list(table_columns()) == ["strict", "cross-app", "d-stress", "interference"]
    assert set(result["columns"]) == {STRICT, *SUITES}
    (row,) = result["rows"]
    assert row["estimator"] == "rule baseline"
    t5 = row["table5"]
    expected = {STRICT: _pair_correct(held_out(FIXTURE)),
                **{s: _pair_correct(exs) for s, exs in load_suites(data).items()}}
    assert set(expected) == {STRICT, "d-stress", "cross-app"}
    for family in FAMILIES:
        for column in result["columns"]:
            cell = t5["cells"][family][column]
            right, n = expected.get(column, {}).get(family, (0, 0))
            assert (cell["right"], cell["n"]) == (right, n), (family, column)
            assert cell["value"] == (right / n if n else None)
            assert result["units"][column][family] == n
    assert result["units"][STRICT] == {f: 2 for f in FAMILIES}  # two fixture pairs per family
    assert result["units"]["d-stress"] == {f: 4 for f in FAMILIES}  # four branches, one trajectory each
    assert result["units"]["cross-app"] == {"persistent": 0, "clipboard": 0, "ordered": 4, "temporal": 4}
    assert all(t5["cells"][f]["interference"]["value"] is None for f in FAMILIES)
    for column in result["columns"]:
        values = [t5["cells"][f][column]["value"] for f in FAMILIES]
        present = [v for v in values if v is not None]
        assert t5["macro"][column] == (pytest.approx(sum(present) / len(present)) if present else None)
        assert t5["average"][column] == (pytest.approx(sum(values) / 4) if len(present) == 4 else None)
    assert t5["macro"]["cross-app"] is not None and t5["average"]["cross-app"] is None
    # the branch-level state Exact is still reported beside it
    assert row["counts"] == {f: 4 for f in FAMILIES}


def test_the_cli_without_a_checkpoint_prints_table5(templates, tmp_path):
    """``emukit estimator eval --pairs HELDOUT --suites DATA_DIR --out FILE``: the rule baseline's Table 5,
    a line per suite with the trajectories scored per family, the JSON with every cell."""
    from emukit.cli import main

    data = write_suites(tmp_path / "data", {"interference": ("persistent", "clipboard")}, templates)
    out = tmp_path / "t5.json"
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(["estimator", "eval", "--pairs", str(FIXTURE), "--suites", str(data), "--out", str(out)])
    text = buf.getvalue()
    assert code == 0, text
    header = next(line for line in text.splitlines() if line.startswith("┃") and "Strict" in line)
    assert [h in header for h in ("family", "Strict", "Cross-app", "d-Stress", "Interf.")] == [True] * 5
    assert header.index("Strict") < header.index("Cross-app") < header.index("d-Stress") < header.index("Interf.")
    lines = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
             for line in text.splitlines() if line.startswith("│")}
    result = json.loads(out.read_text())
    t5 = result["rows"][0]["table5"]
    for family in FAMILIES:
        cells = lines[family]
        assert cells[1] == cells[2] == "-"  # no cross-app or d-stress suite
        value = t5["cells"][family]["interference"]["value"]
        assert cells[3] == ("-" if value is None else f"{100 * value:.1f}")
        assert cells[0] == f"{100 * t5['cells'][family]['strict']['value']:.1f}"
    assert lines["clipboard"][3] != "-" and lines["ordered"][3] == "-"
    assert "macro" in lines and lines["Average"][3] == "-" and lines["Average"][0] != "-"
    assert "interference: trajectories scored per family: persistent 4, clipboard 4, ordered 0, temporal 0" in text
    assert "cross-app: trajectories scored per family: none" in text
    assert "strict: pairs per family: persistent 2, clipboard 2, ordered 2, temporal 2" in text
    assert result["checkpoint"] is None and result["suites"] == str(data)
    # suites alone: no Strict column
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["estimator", "eval", "--suites", str(data)]) == 0
    assert "held-out branches" not in buf.getvalue()


def test_bad_suites_give_clear_errors(templates, tmp_path):
    """An unknown template, a missing field, a row in another family's file, a folder without suites, and
    nothing to evaluate on: each error names the file, line and field or value at fault."""
    data = write_suites(tmp_path, {"d-stress": ("temporal", "ordered")}, templates)
    path = data / "suites" / "d-stress" / "temporal.jsonl"
    good = path.read_text().splitlines()

    def broken(line: int, **change: Any) -> None:
        rows = [json.loads(x) for x in good]
        rows[line - 1].update(change)
        for key, value in change.items():
            if value is None:
                del rows[line - 1][key]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    broken(2, template="no_such_template")
    with pytest.raises(ConfigError, match=r"temporal.jsonl:2: template: unknown template 'no_such_template'"):
        load_suites(data)
    broken(3, final_observation=None)
    with pytest.raises(ConfigError, match=r"temporal.jsonl:3: missing field 'final_observation'"):
        load_suites(data)
    broken(1, family="ordered")
    with pytest.raises(ConfigError, match=r"temporal.jsonl:1: family: 'ordered' in the temporal file"):
        load_suites(data)
    rows = [json.loads(x) for x in good]
    rows[0]["history"][0]["action"] = {"type": "teleport"}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"temporal.jsonl:1: history\[0\]\.action"):
        load_suites(data)
    rows = [json.loads(x) for x in good]
    rows[0]["template"] = "identical_prefix_hidden_suffix"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ConfigError, match=r"temporal.jsonl:1: template 'identical_prefix_hidden_suffix' belongs "
                                          r"to family 'ordered', the row says 'temporal'"):
        load_suites(data)
    ordered = data / "suites" / "d-stress" / "ordered.jsonl"
    row = json.loads(ordered.read_text().splitlines()[0])
    del row["params"]["pl"]
    ordered.write_text(json.dumps(row) + "\n")
    path.write_text("\n".join(good) + "\n")
    with pytest.raises(ConfigError, match=r"ordered.jsonl:1: template identical_prefix_hidden_suffix: .*"
                                          r"unknown parameter \{pl\}"):
        load_suites(data)
    with pytest.raises(ConfigError, match="no suites/ folder"):
        load_suites(tmp_path / "empty")
    with pytest.raises(ConfigError, match="nothing to evaluate on"):
        compare(None, None)
