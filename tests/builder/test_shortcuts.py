"""Label shortcuts (issue "Dataset quality", item 3): branch roles drawn per pair, and the guessers of
``emukit audit shortcuts`` on hand-made branches whose answer is known."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from emukit.audit.shortcuts import BranchView, audit_shortcuts, views_from_export
from emukit.builder.pair import branch_roles
from emukit.cli import main
from emukit.errors import ConfigError


def test_roles_are_swapped_in_exactly_one_slot_of_every_two_and_not_by_parity():
    for template in ("copy_direct", "duration_shift"):
        for seed in (0, 1, 7):
            swapped = [branch_roles(template, seed, slot)["A"] == "B" for slot in range(200)]
            assert all(swapped[2 * k] != swapped[2 * k + 1] for k in range(100))
            assert 30 < sum(swapped[0::2]) < 70  # which slot of the two is drawn, not always the even one
            assert branch_roles(template, seed, 5) == branch_roles(template, seed, 5)
    assert {tuple(sorted(branch_roles("t", 0, s).items())) for s in range(4)} == {
        (("A", "A"), ("B", "B")), (("A", "B"), ("B", "A"))}


def _pair(i: int, template: str, roles: dict[str, str], lengths: dict[str, int], family: str = "persistent",
          last: dict[str, str] | None = None) -> list[BranchView]:
    out = []
    for name in ("A", "B"):
        role = roles[name]
        out.append(BranchView(f"{template}-0-{i}", family, template, name, role, lengths[role],
                              lengths[roles["B" if name == "A" else "A"]], (last or {}).get(role, "tap"),
                              {"status": "fired" if role == "A" else "none"}))
    return out


SWAP, SAME = {"A": "B", "B": "A"}, {"A": "A", "B": "B"}


def drawn(template: str, i: int) -> dict[str, str]:
    return branch_roles(template, 0, i)


def test_a_role_that_history_length_gives_away_is_caught():
    views = [v for i in range(40) for v in _pair(i, "t", drawn("t", i), {"A": 18, "B": 12})]
    report = audit_shortcuts(views)
    acc = {g: s.accuracy for g, s in report.by_family["persistent"].items()}
    assert acc["history_length"] == 1.0 and acc["length_in_pair"] == 1.0
    assert acc["branch_name"] < 0.6  # balanced roles: the name says nothing
    assert not report.ok and not report.family_ok("persistent")


def test_unswapped_roles_are_caught_by_the_branch_name():
    views = [v for i in range(40) for v in _pair(i, "t", SAME, {"A": 9, "B": 9})]
    report = audit_shortcuts(views)
    acc = {g: s.accuracy for g, s in report.by_family["persistent"].items()}
    assert acc["branch_name"] == 1.0 and acc["history_length"] == 0.5 and not report.ok
    assert report.swapped["persistent"] == 0


def test_balanced_roles_and_equal_lengths_pass():
    views = [v for i in range(40) for v in _pair(i, "t", drawn("t", i), {"A": 9, "B": 9},
                                                 last={"A": "tap", "B": "tap"})]
    report = audit_shortcuts(views)
    acc = {g: s.accuracy for g, s in report.by_family["persistent"].items()}
    assert report.ok and acc["history_length"] == acc["length_in_pair"] == acc["last_action"] == 0.5
    assert acc["branch_name"] < 0.6
    assert report.swapped["persistent"] == 20
    assert report.to_json()["families"]["persistent"]["swapped_share"] == 0.5


def test_a_last_action_that_differs_by_role_is_caught_and_families_are_pooled():
    views = [v for i in range(20) for v in _pair(i, "t1", drawn("t1", i), {"A": 5, "B": 5},
                                                 family="temporal", last={"A": "pause", "B": "resume"})]
    views += [v for i in range(20) for v in _pair(i, "t2", drawn("t2", i), {"A": 5, "B": 5},
                                                  family="temporal")]
    report = audit_shortcuts(views)
    assert report.by_template[("temporal", "t1")]["last_action"].accuracy == 1.0
    assert report.by_template[("temporal", "t2")]["last_action"].accuracy == 0.5
    assert report.by_family["temporal"]["last_action"].accuracy == 0.75
    assert report.outcome_mix["temporal"] == Counter({"fired": 40, "none": 40})


def test_export_rows_and_bad_input(tmp_path):
    rows = []
    for i in range(8):
        roles = drawn("t", i)
        branches = {n: {"history": [{"action": {"type": "tap", "x": 1, "y": 2}}] * (3 if roles[n] == "A" else 5),
                        "outcome": {}} for n in ("A", "B")}
        rows.append({"pair_id": f"t-0-{i}", "family": "clipboard", "template": "t", "roles": roles,
                     "branches": branches})
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    views = views_from_export(tmp_path)
    assert len(views) == 16 and {v.length for v in views if v.role == "A"} == {3}
    assert main(["audit", "shortcuts", "--pairs", str(tmp_path), "--json", str(tmp_path / "r.json")]) == 1
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["families"]["clipboard"]["accuracy"]["history_length"] == 1.0 and saved["ok"] is False
    (tmp_path / "pairs.jsonl").write_text('{"pair_id": "x"}\n')
    with pytest.raises(ConfigError, match=r"pairs\.jsonl:1: not an exported pair \(KeyError"):
        views_from_export(tmp_path)
    with pytest.raises(ConfigError, match="no pairs.jsonl"):
        views_from_export(tmp_path / "nope")
    with pytest.raises(ConfigError, match="no pairs to audit"):
        audit_shortcuts([])
