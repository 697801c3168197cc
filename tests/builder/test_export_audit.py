"""``emukit export`` (jsonl, parquet, state-training), ``emukit audit release`` and ``emukit audit split`` on
pairs really built on a virtual device (two templates, two seeds, cut from the session's built store)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from emukit.audit.release import audit_release
from emukit.audit.split import audit_split
from emukit.export import SPLIT_CRITERIA, row_examples, state_examples
from emukit.store import Store
from tests.builder.audit_helpers import TEMPLATES, built, cli, copy_data


@pytest.fixture(scope="module")
def data(built_store, tmp_path_factory) -> Path:
    return built(built_store, tmp_path_factory)


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # rich wraps at 80 columns when not on a terminal


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def exports(data, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("exports")
    paths = {"eval": out / "eval", "parquet": out / "parquet", "train": out / "train", "all": out / "all"}
    assert cli("export", "--data-dir", str(data), "--out", str(paths["eval"]), "--seed", "0") == 0
    assert cli("export", "--data-dir", str(data), "--out", str(paths["parquet"]), "--format", "parquet") == 0
    assert cli("export", "--data-dir", str(data), "--out", str(paths["train"]), "--format", "state-training",
               "--eval-seed", "0") == 0
    assert cli("export", "--data-dir", str(data), "--out", str(paths["all"]), "--family", "persistent") == 0
    return paths


def test_export_jsonl_parquet_state_training(data, exports):
    import pyarrow.parquet as pq

    rows = _jsonl(exports["eval"] / "pairs.jsonl")
    assert sorted(r["template"] for r in rows) == sorted(TEMPLATES) and {r["seed"] for r in rows} == {0}
    for row in rows:  # every referenced artifact was written next to the file
        for br in row["branches"].values():
            for obs in [s["observation"] for s in br["history"]] + [br["boundary_observation"],
                                                                     br["next_observation"]]:
                assert (exports["eval"] / obs["screenshot"]).is_file()
                assert (exports["eval"] / obs["hierarchy"]).is_file()

    table = pq.read_table(exports["parquet"] / "pairs.parquet").to_pylist()
    assert len(table) == 2 * len(TEMPLATES)
    assert {json.loads(r["branches"])["A"]["state"]["source_exists"] is not None for r in table} == {True}

    train = _jsonl(exports["train"] / "state_train.jsonl") + _jsonl(exports["train"] / "state_val.jsonl")
    assert len(train) == 2 * len(TEMPLATES)  # both branches of every seed-1 pair, none of seed 0
    assert {r["seed"] for r in train} == {1} and all(r["pair_id"] and r["branch"] in "AB" for r in train)

    # the split keys recomputed from exported rows are the exporter's own keys
    with Store(data_dir=data) as store:
        from_store = {ex["example_id"]: ex["keys"] for ex in state_examples(store.pairs())}
    for row in _jsonl(exports["all"] / "pairs.jsonl") + train:
        for ex in row_examples(row):
            assert ex["keys"] == from_store[ex["example_id"]]
    for row in table:
        for ex in row_examples(row):
            assert ex["keys"] == from_store[ex["example_id"]]


def test_export_usage_errors(data, tmp_path):
    assert cli("export", "--data-dir", str(data), "--out", str(tmp_path), "--format", "state-training") == 2
    assert cli("export", "--data-dir", str(data), "--out", str(tmp_path), "--eval-seed", "0") == 2


def test_release_passes_and_reports_missing_templates(data, capsys):
    args = ["audit", "release", "--data-dir", str(data)]
    assert cli(*args, *[a for t in TEMPLATES for a in ("--template", t)]) == 0
    out = capsys.readouterr().out
    assert "4/4 pairs pass" in out and "PASS" in out

    assert cli(*args, "--family", "persistent") == 1  # 7 declared persistent templates have no pair
    out = capsys.readouterr().out
    assert "missing template move_direct (persistent): no stored pair" in out
    assert "4/4 pairs pass" in out

    with Store(data_dir=data) as store:
        report = audit_release(store, family="clipboard")  # declared, but no pair built here
    assert not report.ok and report.pairs == []
    assert {c.template for c in report.missing()} == {"original_strict", "copy_cancel_control",
                                                      "same_page_partial_selection", "copy_then_mutate_source",
                                                      "paste_non_consuming"}


def test_release_fails_on_a_corrupt_artifact(data, tmp_path, capsys):
    copy = copy_data(data, tmp_path / "data")
    with Store(data_dir=copy) as store:
        pair = next(p for p in store.pairs() if p.template == "copy_direct")
        sha = pair.branches["A"].next_observation.hierarchy
        path = store.artifacts.path(sha, "xml")
    path.write_bytes(path.read_bytes().replace(b"</hierarchy>", b"<node text='x'/></hierarchy>"))
    assert cli("audit", "release", "--data-dir", str(copy), "--template", "copy_direct",
               "--template", "delete_direct") == 1
    out = capsys.readouterr().out
    assert str(path) in out and "is corrupt" in out and pair.pair_id in out
    assert "3/4 pairs pass" in out

    path.unlink()  # missing altogether
    with Store(data_dir=copy) as store:
        report = audit_release(store, templates=["copy_direct"])
    bad = [p for p in report.pairs if not p.ok]
    assert [p.pair_id for p in bad] == [pair.pair_id]
    assert any(check == "artifacts" and "missing" in msg and str(path) in msg for check, msg in bad[0].problems)


def test_release_fails_on_a_tampered_outcome(data, tmp_path, capsys):
    copy = copy_data(data, tmp_path / "data")
    with sqlite3.connect(copy / "emukit.db") as db:
        pair_pk, pair_id = db.execute("SELECT id, pair_id FROM pairs WHERE template = 'delete_direct' "
                                      "ORDER BY id LIMIT 1").fetchone()
        (outcome,) = db.execute("SELECT outcome FROM branches WHERE pair_pk = ? AND name = 'B'",
                                (pair_pk,)).fetchone()
        tampered = json.loads(outcome)
        tampered["result"] = "absent" if tampered["result"] == "present" else "present"
        db.execute("UPDATE branches SET outcome = ? WHERE pair_pk = ? AND name = 'B'",
                   (json.dumps(tampered), pair_pk))
    assert cli("audit", "release", "--data-dir", str(copy), "--template", "delete_direct") == 1
    out = capsys.readouterr().out
    assert f"FAIL {pair_id}" in out and "outcome: branch B: stored outcome" in out
    with Store(data_dir=copy) as store:
        report = audit_release(store, templates=["delete_direct"])
    checks = {check for p in report.pairs for check, _ in p.problems}
    assert "outcome" in checks and "outcome_differs" not in checks  # the re-read outcomes still differ


def test_split_disjoint_passes(exports, capsys):
    assert cli("audit", "split", "--train", str(exports["train"]), "--eval", str(exports["eval"])) == 0
    out = capsys.readouterr().out
    assert "PASS: no intersection" in out
    report = audit_split(exports["train"], exports["eval"])
    assert report.ok and report.train.examples == 2 * len(TEMPLATES) - len(_jsonl(exports["train"] / "state_val.jsonl"))
    assert report.eval.examples == 2 * len(TEMPLATES)
    assert all(r.train > 0 and r.eval > 0 for r in report.results)


def test_split_overlap_fails_with_the_right_criteria(exports, tmp_path, capsys):
    eval_file = exports["eval"] / "pairs.jsonl"
    # the same export on both sides: every criterion overlaps
    assert cli("audit", "split", "--train", str(eval_file), "--eval", str(exports["parquet"])) == 1
    assert "FAIL: overlapping on " + ", ".join(SPLIT_CRITERIA) in capsys.readouterr().out

    train_rows = _jsonl(exports["train"] / "state_train.jsonl") + _jsonl(exports["train"] / "state_val.jsonl")
    eval_pair = _jsonl(eval_file)[0]
    branch = eval_pair["branches"]["A"]
    # (a) an evaluation branch re-labelled as another record: same content, target and trajectory
    copied = {"example_id": "renamed-9-9/A", "pair_id": "renamed-9-9", "branch": "A", "seed": 9,
              "family": eval_pair["family"], "template": eval_pair["template"], "params": eval_pair["params"],
              "history": branch["history"], "final_observation": branch["boundary_observation"],
              "target": branch["state"]}
    content_leak = tmp_path / "content_leak.jsonl"
    content_leak.write_text("".join(json.dumps(r) + "\n" for r in [*train_rows, copied]))
    report = audit_split(content_leak, eval_file)
    assert report.failed() == ["semantic_target", "content_fingerprint", "trajectory_signature"]
    assert cli("audit", "split", "--train", str(content_leak), "--eval", str(eval_file)) == 1
    assert "FAIL: overlapping on semantic_target, content_fingerprint, trajectory_signature" in capsys.readouterr().out

    # (b) a training row carrying an evaluation record's identity with different content
    other = dict(train_rows[0], example_id=f"{eval_pair['pair_id']}/B", pair_id=eval_pair["pair_id"], branch="B",
                 seed=eval_pair["seed"], template=eval_pair["template"])
    id_leak = tmp_path / "id_leak.jsonl"
    id_leak.write_text("".join(json.dumps(r) + "\n" for r in [*train_rows[1:], other]))
    assert audit_split(id_leak, eval_file).failed() == ["record_id", "trajectory_id"]


def test_release_reads_each_pair_with_the_tables_of_the_builds_it_recorded(built_store, tmp_path):
    """A pair that says it was built with a Markor build emukit has no selector table for cannot be re-read: the
    audit says which build, instead of reading it with the pinned build's table. The pairs of the session
    store recorded the build they were made with, and pass."""
    copy = copy_data(built_store.data, tmp_path / "data")
    template = "original_strict"  # a clipboard pair: its outcome is read from Markor's editor by selector
    with Store(data_dir=copy) as store:
        stored = [p for p in store.pairs() if p.template == template]
        assert stored and all(p.built_on.kind == "virtual-deterministic" for p in stored)
        assert list(stored[0].built_on.apps) == ["net.gsantner.markor"]
        assert all(p.ok for p in audit_release(store, templates=[template]).pairs)
    with sqlite3.connect(copy / "emukit.db") as db:
        pair_pk, pair_id, built_on = db.execute("SELECT id, pair_id, built_on FROM pairs WHERE template = ? "
                                                "ORDER BY id LIMIT 1", (template,)).fetchone()
        changed = json.loads(built_on)
        changed["apps"]["net.gsantner.markor"]["version_code"] = 1
        db.execute("UPDATE pairs SET built_on = ? WHERE id = ?", (json.dumps(changed), pair_pk))
    with Store(data_dir=copy) as store:
        report = audit_release(store, templates=[template])
    bad = {p.pair_id: p.problems for p in report.pairs if not p.ok}
    assert list(bad) == [pair_id]
    assert any(check == "outcome" and "no selector table for net.gsantner.markor versionCode 1 on API 34" in msg
               for check, msg in bad[pair_id])
