"""Suite rows and held-out pairs are scored the same way, on pairs really built: every branch of the session's
built store (one pair of every shipped template of every family, built on virtual devices behind the real adb
server and exported; tests/conftest.py ``built_store``), written as a suite trajectory of its template (the
template's parameters, the branch's history and boundary, its state as the target), is the example the
branch is: the same history, final observation and truth, and the task context the pair path reads from the
pair's recorded entity and measured outcomes, here derived from the template alone."""

from __future__ import annotations

import json

from emukit.estimator.evaluate import held_out
from emukit.estimator.suites import suite_example
from emukit.families import FAMILIES
from emukit.jsonl import read_objects
from emukit.templates import load_templates


def test_every_built_branch_converts_like_a_suite_row(built_store):
    export = built_store.export
    templates = {t.name: t for t in load_templates(variants=True)}
    branches = {e.example_id: e for e in held_out(export)}
    seen: dict[str, set[str]] = {f: set() for f in FAMILIES}
    for where, pair in read_objects(export / "pairs.jsonl"):
        for name, br in sorted(pair["branches"].items()):
            row = {"trajectory_id": f"{pair['pair_id']}-{name}", "family": pair["family"],
                   "template": pair["template"], "template_hash": pair["template_hash"], "params": pair["params"],
                   "seed": pair["seed"], "history": br["history"], "final_observation": br["boundary_observation"],
                   "target": br["state"]}
            example = suite_example(json.loads(json.dumps(row)), export, templates, where)
            expected = branches[f"{pair['pair_id']}/{name}"]
            assert example.task == expected.task, (pair["template"], example.task, expected.task)
            assert example.history == expected.history and example.final_xml == expected.final_xml
            assert example.truth == expected.truth
        seen[pair["family"]].add(pair["template"])
    assert all(seen.values()), seen
    assert set().union(*seen.values()) == {t.name for t in load_templates()}
