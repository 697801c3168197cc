"""``emukit estimator data``: a training set of strict pairs and d-stress and interference trajectories, built on
seeds the evaluation rows were not built with, disjoint from them by the split audit, optionally renamed
within each row; and the renaming itself (the same shape, whole words, the same map every time).

The evaluation side is the hand-built export ``tests/fixtures/pairs`` (real virtual-device captures, seed 0);
the build runs an embedded virtual device of the command's own. Nothing is mocked."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from emukit.errors import ConfigError
from emukit.estimator.dataset import DataPlan, plan
from emukit.estimator.rename import apply, apply_values, pooled_words, rename_map, reserved_words
from emukit.templates import load_templates
from tests.estimator.test_estimator import FIXTURE


def test_the_plan_gives_each_suite_its_share_and_the_pairs_the_rest():
    p = plan(4000, 0.2)
    assert p == DataPlan(pairs_per_family=300, suite_per_family=200) and p.branches == 4000
    assert plan(4001, 0.2).branches >= 4001 and plan(100, 0.0).suite_per_family == 0
    with pytest.raises(ConfigError, match="--suite-share must be between 0 and 0.45"):
        plan(4000, 0.5)
    with pytest.raises(ConfigError, match="--branches must be at least 16"):
        plan(8, 0.2)


def test_a_row_is_renamed_word_by_word_into_fresh_words_of_the_same_shape():
    """The words a row drew from its template's string lists (not its integers), each to a fresh word of the
    same shape, the same map for the same row; whole words only; state values renamed, keys kept."""
    template = next(t for t in load_templates(family="persistent") if t.name == "copy_delete_destination")
    params = {"stem": "ticket", "ext": "jpg", "n": 69, "decoy_n": 217, "target": "ticket_69.jpg",
              "route": ["Pictures", "Documents", "Podcasts", "Movies"], "decoy_dir": "/x/Documents_217"}
    reserved = reserved_words(load_templates(variants=True))
    assert {"tap", "back", "running", "fired", "present", "absent"} <= reserved  # vocabulary, not names
    words = pooled_words(params, template.params, reserved)
    assert words == {"ticket", "jpg", "Pictures", "Documents", "Podcasts", "Movies"}  # not 69 or 217
    cancel = next(t for t in load_templates(family="clipboard") if t.name == "copy_cancel_control")
    assert "tap" not in pooled_words({"how": "tap"}, cancel.params, reserved)  # an action kind chosen
    timer = next(t for t in load_templates(family="temporal") if t.name == "duration_shift")
    assert not pooled_words({"statuses": ["running", "fired"]}, timer.params, reserved)  # outcomes chosen
    mapping = rename_map(words, "pair-1/A")
    assert mapping == rename_map(words, "pair-1/A") and mapping != rename_map(words, "pair-2/A")
    for old, new in mapping.items():
        assert new != old and new not in words and len(new) == len(old)
        assert [c.isupper() for c in new] == [c.isupper() for c in old]
    assert len(set(mapping.values())) == len(mapping)
    text = 'TASK {"artifact": "ticket_69.jpg"}\nO0: Documents | Tickets | ticketing | jpg.bak'
    renamed = apply(text, mapping)
    assert renamed == (f'TASK {{"artifact": "{mapping["ticket"]}_69.{mapping["jpg"]}"}}\nO0: '
                       f'{mapping["Documents"]} | Tickets | ticketing | {mapping["jpg"]}.bak')
    assert apply_values({"source_exists": True, "name": "ticket_69.jpg", "list": ["Movies"]}, mapping) == {
        "source_exists": True, "name": f"{mapping['ticket']}_69.{mapping['jpg']}", "list": [mapping["Movies"]]}


@pytest.mark.timeout(600)
def test_the_command_builds_pairs_and_both_suites_disjoint_from_the_evaluation_and_renamed(emukit_cli, adb_server,
                                                                                           tmp_path):
    """A small set (16 examples: 4 pairs, one trajectory per family of each suite) on one embedded device,
    renamed; the estimator reads it with the names replaced; an evaluation seed and an existing set are
    refused. The evaluation side holds one more row than the fixture: a pair whose id is that of the clipboard
    pair the build makes first, so both its branches share a split key with it and are dropped, and the
    command builds one more pair per family to make up for them. It starts a device of its own because
    building pairs and suite trajectories on one is what the command under test does; nothing smaller
    exercises the build, the conversion, the top-up and the audit together."""
    from emukit.estimator.data import load_examples

    evaluation = tmp_path / "eval"
    evaluation.mkdir()
    (evaluation / "artifacts").symlink_to(FIXTURE / "artifacts")
    lines = (FIXTURE / "pairs.jsonl").read_text().splitlines()
    clash = json.loads(next(line for line in lines if json.loads(line)["family"] == "clipboard"))
    clash["pair_id"] = "copy_cancel_control-100-0"  # the clipboard pair of seed 100, slot 0 (its first)
    (evaluation / "pairs.jsonl").write_text("\n".join([*lines, json.dumps(clash)]) + "\n")
    out = tmp_path / "train"
    base = [*emukit_cli, "estimator", "data", "--eval", str(evaluation), "--out", str(out)]
    refused = subprocess.run([*base, "--seed", "0"], env=adb_server.env, capture_output=True, text=True,
                             timeout=120, check=False)
    assert refused.returncode == 1 and "--seed 0 is a seed of the evaluation rows" in refused.stdout + refused.stderr
    run = subprocess.run([*base, "--branches", "16", "--suite-share", "0.25", "--rename", "--devices", "1"],
                         env=adb_server.env, capture_output=True, text=True, timeout=540, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "split audit against" in run.stdout and "passed" in run.stdout
    report = json.loads((out / "data.json").read_text())
    assert report["plan"] == {"pairs_per_family": 1, "suite_per_family": 1} and report["rename"] is True
    assert report["split_audit"]["ok"] is True and set(report["split_audit"]["shared"].values()) == {0}
    assert set(report["examples"]) == {"pairs", "d-stress", "interference"}
    assert report["dropped_for_overlap"] == {"pairs": 2}  # both branches of copy_cancel_control-100-0
    assert report["top_up_pairs_per_family"] == 2  # 14 left of 16: one more pair per family
    assert report["examples"]["pairs"] == {"clipboard": 2, "ordered": 4, "persistent": 4, "temporal": 4}
    for suite in ("d-stress", "interference"):
        assert sum(report["examples"][suite].values()) == 4
    assert {"pairs", "d-stress", "interference", "top_up", "export", "split_audit"} <= set(report["seconds"])
    rows = [json.loads(line) for name in ("state_train.jsonl", "state_val.jsonl")
            for line in (out / name).read_text().splitlines()]
    assert len(rows) == report["train"] + report["val"] == 22
    assert not [row for row in rows if row["pair_id"] == "copy_cancel_control-100-0"]
    assert all(row["seed"] == 100 and "rename" in row for row in rows)
    assert {row.get("suite") for row in rows} == {None, "d-stress", "interference"}
    train, val = load_examples(out)
    examples = {e.example_id: e for e in train + val}
    renamed = [row for row in rows if row["rename"]]
    assert renamed  # the templates draw names from lists
    for row in renamed:
        example = examples[row["example_id"]]
        body = example.input.partition("\n")[2]
        for old, new in row["rename"].items():
            assert not re.search(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])", body + example.target)
    again = subprocess.run([*base, "--branches", "16"], env=adb_server.env, capture_output=True, text=True,
                           timeout=120, check=False)
    assert again.returncode == 1 and "already holds a training set" in again.stdout + again.stderr
