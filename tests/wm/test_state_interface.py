"""The deterministic state-conditioning interface (seed 002 Appendix E, Table 20)."""

from __future__ import annotations

import pytest

from emukit.actions import Action
from emukit.errors import ConfigError
from emukit.wm import StateValidationError, render_state, resolve_consequence

PASTE = Action(type="tap", x=540, y=1200)
SEARCH = {"probe": "search", "source": "/storage/emulated/0/Documents/report.pdf",
          "destination": "/storage/emulated/0/Download/report.pdf"}
FOLDER = {**SEARCH, "probe": "folder", "folder": "/storage/emulated/0/Documents"}


def wait(seconds: float) -> Action:
    return Action(type="wait", duration_ms=round(seconds * 1000))


def body(text: str) -> list[str]:
    lines = text.splitlines()
    assert lines[0].startswith('<authoritative_state family="') and lines[-2] == "</authoritative_state>"
    assert "authoritative" in lines[-1] and "never display" in lines[-1]
    return lines[1:-2]


# -- state alone ------------------------------------------------------------------------------------------------

def test_persistent_state():
    assert body(render_state("persistent", {"source_exists": True, "destination_exists": False})) == [
        "Tracked file at its source path: exists.", "Tracked file at its destination path: does not exist."]


def test_clipboard_state():
    assert body(render_state("clipboard", {"clipboard_type": "text", "clipboard_text": 'say "hi"'})) == [
        'Clipboard: holds the text "say \\"hi\\"".']
    assert body(render_state("clipboard", {"clipboard_type": "empty", "clipboard_text": ""})) == ["Clipboard: empty."]


def test_ordered_state_keeps_order_and_duplicates():
    lines = body(render_state("ordered", {"collection_type": "playlist", "ordered_items": ["Zeta", "Alpha", "Zeta"]}))
    assert lines == ["Playlist: 3 items, in this order:", '1. "Zeta"', '2. "Alpha"', '3. "Zeta"']
    queue = body(render_state("ordered", {"collection_type": "playing_queue", "ordered_items": []}))
    assert queue == ["Playing queue: empty (0 items)."]


def test_temporal_state():
    assert body(render_state("temporal", {"timer_active": True, "remaining_seconds": 300})) == [
        "Timer: running, 300 seconds (05:00) remaining."]
    assert body(render_state("temporal", {"timer_active": False, "remaining_seconds": 0})) == [
        "Timer: not active (no running countdown)."]
    assert body(render_state("temporal", {"timer_active": True, "remaining_seconds": 3725}))[0].endswith(
        "(1:02:05) remaining.")


def test_rendering_is_deterministic_and_key_order_free():
    a = render_state("ordered", {"collection_type": "playlist", "ordered_items": ["a", "b"]})
    b = render_state("ordered", {"ordered_items": ["a", "b"], "collection_type": "playlist"})
    assert a == b == render_state("ordered", {"collection_type": "playlist", "ordered_items": ["a", "b"]})


# -- action-resolved consequence (Table 20) ----------------------------------------------------------------------

@pytest.mark.parametrize("active, remaining, waited, outcome, line", [
    (False, 0, 360, "none", "shows no timer notification"),
    (False, 120, 60, "none", "shows no timer notification"),  # paused timers do not count down
    (True, 300, 360, "fired", "Clock -> Time's up -> Stop"),
    (True, 300, 300, "fired", "Clock -> Time's up -> Stop"),  # wait >= remaining fires
    (True, 300, 60, "running", "Clock -> 04:00 -> Timer -> Pause"),
    (True, 300, 59.5, "running", "Clock -> 04:01 -> Timer -> Pause"),
])
def test_temporal_rule(active, remaining, waited, outcome, line):
    state = {"timer_active": active, "remaining_seconds": remaining}
    assert resolve_consequence("temporal", state, wait(waited))["outcome"] == outcome
    text = render_state("temporal", state, action=wait(waited))
    assert line in text and "Required result of the action:" in text


def test_clipboard_payload_written_once():
    text = render_state("clipboard", {"clipboard_type": "text", "clipboard_text": "pay-42"}, action=PASTE)
    assert text.count("pay-42") == 1 and 'Pasting inserts exactly this text' in text
    empty = render_state("clipboard", {"clipboard_type": "empty", "clipboard_text": ""}, action=PASTE)
    assert "Pasting inserts nothing" in empty


def test_ordered_list_written_once_with_surface():
    items = ["Song C", "Song A", "Song B"]
    text = render_state("ordered", {"collection_type": "playing_queue", "ordered_items": items}, action=PASTE)
    assert all(text.count(f'"{i}"') == 1 for i in items)
    assert "compact playing-queue view with exactly 3 primary rows" in text
    assert text.index("Song C") < text.index("Song A") < text.index("Song B")
    playlist = render_state("ordered", {"collection_type": "playlist", "ordered_items": ["x"]}, action=PASTE)
    assert "playlist detail view with exactly 1 primary row," in playlist


def test_persistent_search_resolution_and_projection():
    present = render_state("persistent", {"source_exists": False, "destination_exists": True}, action=PASTE,
                           context=SEARCH)
    assert "Tracked file under Downloads: exists." in present
    assert '"report.pdf" (/storage/emulated/0/Download/report.pdf)' in present
    absent = render_state("persistent", {"source_exists": True, "destination_exists": False}, action=PASTE,
                          context=SEARCH)
    assert "No matches in Downloads" in absent and "no result row" in absent
    assert "report.pdf" not in absent and "Documents" not in absent  # absent branch omits the identity
    assert resolve_consequence("persistent", {"source_exists": True, "destination_exists": False}, PASTE,
                               SEARCH) == {"probe": "search", "scope": "Downloads", "present": False}


def test_persistent_folder_resolution():
    present = resolve_consequence("persistent", {"source_exists": True, "destination_exists": True}, PASTE, FOLDER)
    assert present == {"probe": "folder", "folder": "/storage/emulated/0/Documents", "present": True,
                       "artifact": "report.pdf", "path": "/storage/emulated/0/Documents/report.pdf"}
    absent = render_state("persistent", {"source_exists": False, "destination_exists": True}, action=PASTE,
                          context=FOLDER)
    assert "Tracked file in the opened folder: does not exist." in absent
    assert "no row for the tracked file" in absent and "report.pdf" not in absent
    named = render_state("persistent", {"source_exists": True, "destination_exists": False}, action=PASTE,
                         context={**FOLDER, "artifact": "report.pdf"})
    assert 'one row for "report.pdf"' in named


# -- bad input -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("family, state, field", [
    ("persistent", {"source_exists": "yes", "destination_exists": False}, "persistent.source_exists"),
    ("persistent", {"source_exists": True}, "persistent.destination_exists"),
    ("persistent", {"source_exists": True, "destination_exists": False, "size": 3}, "persistent.size"),
    ("clipboard", {"clipboard_type": "image", "clipboard_text": "x"}, "clipboard.clipboard_type"),
    ("clipboard", {"clipboard_type": "text", "clipboard_text": 5}, "clipboard.clipboard_text"),
    ("clipboard", {"clipboard_type": "empty", "clipboard_text": "left over"}, "clipboard.clipboard_text"),
    ("clipboard", {"clipboard_type": "text", "clipboard_text": ""}, "clipboard.clipboard_text"),
    ("ordered", {"collection_type": "album", "ordered_items": []}, "ordered.collection_type"),
    ("ordered", {"collection_type": "playlist", "ordered_items": ["a", 2]}, "ordered.ordered_items"),
    ("ordered", {"collection_type": "playlist", "ordered_items": "a,b"}, "ordered.ordered_items"),
    ("temporal", {"timer_active": 1, "remaining_seconds": 5}, "temporal.timer_active"),
    ("temporal", {"timer_active": True, "remaining_seconds": -1}, "temporal.remaining_seconds"),
    ("temporal", {"timer_active": True, "remaining_seconds": 5.5}, "temporal.remaining_seconds"),
    ("temporal", {"timer_active": True, "remaining_seconds": True}, "temporal.remaining_seconds"),
    ("temporal", ["timer_active", True], "temporal"),
    ("music", {}, "family"),
])
def test_bad_state_names_the_field(family, state, field):
    with pytest.raises(StateValidationError) as info:
        render_state(family, state)
    assert info.value.field == field and str(info.value).startswith(f"{field}:")
    assert isinstance(info.value, ConfigError) and isinstance(info.value, ValueError)


def test_bad_action_or_context_names_the_field():
    timer = {"timer_active": True, "remaining_seconds": 30}
    with pytest.raises(StateValidationError, match=r"^action\.duration_ms:"):
        render_state("temporal", timer, action=PASTE)
    with pytest.raises(StateValidationError, match=r"^action\.duration_ms:"):
        render_state("temporal", timer, action=Action(type="wait"))
    files = {"source_exists": True, "destination_exists": False}
    with pytest.raises(StateValidationError, match=r"^context:"):
        render_state("persistent", files, action=PASTE)
    with pytest.raises(StateValidationError, match=r"^context\.probe:"):
        render_state("persistent", files, action=PASTE, context={**SEARCH, "probe": "open"})
    with pytest.raises(StateValidationError, match=r"^context\.destination:"):
        render_state("persistent", files, action=PASTE, context={"probe": "search", "source": "/a/b"})
    with pytest.raises(StateValidationError, match=r"^context\.folder:"):
        render_state("persistent", files, action=PASTE, context={**FOLDER, "folder": "/storage/emulated/0/Music"})
