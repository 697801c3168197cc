"""``emukit audit stability`` (seed 002 Appendix C.8) on stored pairs, replayed on the test's virtual device."""

from __future__ import annotations

import json
import sqlite3

import pytest

from emukit.audit.stability import select_pairs
from emukit.store import Store
from tests.builder.audit_helpers import built, cli, copy_data


@pytest.fixture(scope="module")
def session(built_store, vdevice, tmp_path_factory):
    """The pairs of two templates at two seeds (cut from the session's built store) and the module's device."""
    return {"data": built(built_store, tmp_path_factory), "serial": vdevice.serial}


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")


def test_selection_is_deterministic(session):
    with Store(data_dir=session["data"]) as store:
        first = [p.pair_id for p in select_pairs(store)]
        again = [p.pair_id for p in select_pairs(store, family="persistent")]
        two = [p.pair_id for p in select_pairs(store, per_template=2)]
    assert first == again and len(first) == 2 and {p.rsplit("-", 2)[0] for p in first} == {"copy_direct", "delete_direct"}
    assert len(two) == 4 and set(first) <= set(two)


def test_stability_passes(session, capsys):
    rc = cli("audit", "stability", "--data-dir", str(session["data"]), "--device", session["serial"],
             "--template", "copy_direct", "--repeats", "2", "--quiet")
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "2/2 branches stable over 4 executions: PASS" in out


def test_stability_fails_when_the_stored_outcome_is_not_reproduced(session, tmp_path, capsys):
    copy = copy_data(session["data"], tmp_path / "data")
    with Store(data_dir=copy) as store:
        (chosen,) = select_pairs(store, templates=["delete_direct"])
    with sqlite3.connect(copy / "emukit.db") as db:
        (pk,) = db.execute("SELECT id FROM pairs WHERE pair_id = ?", (chosen.pair_id,)).fetchone()
        (outcome,) = db.execute("SELECT outcome FROM branches WHERE pair_pk = ? AND name = 'A'", (pk,)).fetchone()
        stored = json.loads(outcome)  # the opposite of what recorded A really shows (roles may be swapped)
        flipped = dict(stored, result="present" if stored["result"] == "absent" else "absent")
        db.execute("UPDATE branches SET outcome = ? WHERE pair_pk = ? AND name = 'A'", (json.dumps(flipped), pk))
    rc = cli("audit", "stability", "--data-dir", str(copy), "--device", session["serial"],
             "--template", "delete_direct", "--repeats", "1", "--quiet")
    out = capsys.readouterr().out
    assert rc == 1, out
    assert f"{chosen.pair_id} A replay 1" in out and "!= stored" in out
    assert "1/2 branches stable over 2 executions: FAIL" in out
