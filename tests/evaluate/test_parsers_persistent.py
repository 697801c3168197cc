"""Persistent Artifact readout (seed 002 C.4) on hand-written HTML rendered in real Chromium: search probes
(query echo, "No matches", hidden / below-the-fold / occluded results, Downloads scope, keyboard) and folder
probes (scope and parent agreement, duplicated rows, contradictory keyboard, occluding dialog)."""

from __future__ import annotations

import pytest

from emukit.evaluate.parsers import judge, parse
from emukit.evaluate.parsers.persistent import aliases
from emukit.evaluate.fallback import fallback_evidence
from tests.evaluate.render_support import fixture_html, needs_chromium, render_many_fixtures, rendered

SEARCH = {"target": "ledger_84.pdf", "probe": "search", "scope": "Downloads"}
FOLDER = {"target": "report_q3.pdf", "probe": "folder", "folder": "/storage/emulated/0/Documents/Reports"}
ALL_GATES = {"downloads_scope": True, "keyboard": True, "offline_self_contained": True}
FOLDER_GATES = {"folder_scope": True, "parent_scope": True, "unique_listing": True, "no_keyboard": True,
                "offline_self_contained": True}

SEARCH_CASES = [
    ("search_present.html", "present", {}),
    ("search_no_matches.html", "absent", {}),
    ("search_echo_only.html", "absent", {}),            # the query echo in the field is not a result
    ("search_echo_text_field.html", "absent", {}),      # ... also when the field is drawn as plain text
    ("search_text_field_present.html", "present", {}),  # a separate result node below the heading counts
    ("search_hidden_result.html", "absent", {}),        # display:none / visibility:hidden rows
    ("search_below_fold.html", "absent", {}),
    ("search_under_keyboard.html", "absent", {}),       # occluded by the keyboard panel
    ("search_no_keyboard.html", "present", {"keyboard": False}),
    ("search_no_scope.html", "present", {"downloads_scope": False}),
]
FOLDER_CASES = [
    ("folder_present.html", FOLDER, "present", {}),
    ("folder_absent.html", FOLDER, "absent", {}),
    ("folder_duplicate_rows.html", FOLDER, "present", {"unique_listing": False}),
    ("folder_wrong_folder.html", FOLDER, "present", {"folder_scope": False}),
    ("folder_wrong_parent.html", FOLDER, "present", {"parent_scope": False}),
    ("folder_with_keyboard.html", FOLDER, "present", {"no_keyboard": False}),
    ("folder_dialog_over_row.html", FOLDER, "absent", {"folder_scope": False, "parent_scope": False}),
    ("folder_downloads_root.html", {**FOLDER, "folder": "/storage/emulated/0/Download"}, "present", {}),
]

pytestmark = needs_chromium


@pytest.fixture(scope="module", autouse=True)
def _warm():
    render_many_fixtures([f"persistent/{name}" for name, *_ in SEARCH_CASES + FOLDER_CASES])


@pytest.mark.parametrize("name, result, failed", SEARCH_CASES)
def test_search_probe(name, result, failed):
    parsed = parse("persistent", rendered(f"persistent/{name}"), SEARCH)
    assert parsed.valid and parsed.outcome == {"result": result, "probe": "search", "target": "ledger_84.pdf"}
    assert parsed.surface_checks == {**ALL_GATES, **failed}, parsed.details
    assert parsed.reason


@pytest.mark.parametrize("name, context, result, failed", FOLDER_CASES)
def test_folder_probe(name, context, result, failed):
    parsed = parse("persistent", rendered(f"persistent/{name}"), context)
    assert parsed.outcome["result"] == result, parsed.details
    assert parsed.surface_checks == {**FOLDER_GATES, **failed}, parsed.details


def test_branch_exact_is_semantics_and_surface():
    ok = judge("persistent", parse("persistent", rendered("persistent/search_present.html"), SEARCH),
               {"result": "present", "probe": "search", "target": "ledger_84.pdf"})
    assert ok.correct and ok.sem_correct and ok.surface_valid
    wrong = judge("persistent", parse("persistent", rendered("persistent/search_present.html"), SEARCH),
                  {"result": "absent"})
    assert not wrong.correct and not wrong.sem_correct and wrong.surface_valid
    no_kb = judge("persistent", parse("persistent", rendered("persistent/search_no_keyboard.html"), SEARCH),
                  {"result": "present"})
    assert no_kb.sem_correct and not no_kb.surface_valid and not no_kb.correct
    assert "keyboard" in no_kb.reason


def test_no_evidence_is_invalid_and_incorrect():
    parsed = parse("persistent", None, SEARCH)
    assert not parsed.valid and parsed.outcome["result"] == "invalid" and not parsed.surface_valid
    assert not judge("persistent", parsed, {"result": "absent"}).correct


def test_fallback_text_without_geometry():
    ev = fallback_evidence(fixture_html("persistent/search_present.html"), (360, 800))
    parsed = parse("persistent", ev, SEARCH)
    assert parsed.source == "fallback"
    assert parsed.outcome["result"] == "present" and parsed.surface_valid
    ev = fallback_evidence(fixture_html("persistent/search_echo_only.html"), (360, 800))
    assert parse("persistent", ev, SEARCH).outcome["result"] == "absent"


def test_folder_aliases():
    assert aliases("/storage/emulated/0/Download") == {"download", "downloads"}
    assert "internal storage" in aliases("/storage/emulated/0")
    assert aliases("/storage/emulated/0/Music/Road Trip/") == {"road trip"}
