"""C.4 text normalisation, keyboard detection, countdown parsing and the parse/judge entry points (no
browser needed)."""

from __future__ import annotations

import pytest

from emukit.evaluate.parsers import PARSERS, invalid, judge, parse
from emukit.evaluate.parsers.base import has_keyboard, keyboard_rows
from emukit.evaluate.parsers.normalize import contains, durations, normalize_text, occurs
from emukit.evaluate.visible import Evidence, EvidenceNode


def test_normalisation_is_entity_decoding_case_folding_and_whitespace():
    assert normalize_text("  No&nbsp;Matches\n in   DOWNLOADS ") == "no matches in downloads"
    assert normalize_text("Time&#8217;s Up") == "time\u2019s up"
    assert normalize_text("Stra\u00dfe") == "strasse"  # case folding, not lower()
    assert normalize_text("x\u200by") == "xy"
    assert contains("Files in <b>Downloads</b>".replace("<b>", "").replace("</b>", ""), "files IN downloads")
    assert not contains("anything", "")
    assert occurs("the payload abc", "abc") and not occurs("abcd", "abc", excluding=("abcd",))


def test_countdowns():
    assert durations("timer 04:55") == [(295, "04:55", False)]
    assert durations("1:00:05 left") == [(3605, "1:00:05", False)]
    assert durations("-0:07") == [(0, "-0:07", False)]
    assert durations("7:00 am") == [(420, "7:00", True)]
    assert durations("gmt+05:30") == [] and durations("12:75") == []


def _key(ch: str, x: float, y: float) -> EvidenceNode:
    return EvidenceNode(text=ch, box=(x, y, 30.0, 40.0), in_viewport=1.0, unoccluded=1.0)


def _keyboard(rows: tuple[str, ...], top: float = 600.0) -> tuple[EvidenceNode, ...]:
    return tuple(_key(c, 10 + 34 * i, top + 50 * r) for r, row in enumerate(rows) for i, c in enumerate(row))


def test_keyboard_needs_three_qwerty_rows_in_order():
    full = Evidence(nodes=_keyboard(("qwertyuiop", "asdfghjkl", "zxcvbnm")), viewport=(360, 800))
    assert keyboard_rows(full) == ["qwertyuiop", "asdfghjkl", "zxcvbnm"] and has_keyboard(full)
    two = Evidence(nodes=_keyboard(("qwertyuiop", "asdfghjkl")), viewport=(360, 800))
    assert not has_keyboard(two) and len(keyboard_rows(two)) == 2
    upside_down = Evidence(nodes=_keyboard(("zxcvbnm", "asdfghjkl", "qwertyuiop")), viewport=(360, 800))
    assert not has_keyboard(upside_down)
    sparse = Evidence(nodes=_keyboard(("qwe", "asd", "zxc")), viewport=(360, 800))
    assert not has_keyboard(sparse)
    spaced = Evidence(nodes=tuple(EvidenceNode(text=" ".join(r), box=(10, 600 + 50 * i, 340, 40), in_viewport=1,
                                               unoccluded=1)
                                  for i, r in enumerate(("qwertyuiop", "asdfghjkl", "zxcvbnm"))), viewport=(360, 800))
    assert has_keyboard(spaced)
    hidden = Evidence(nodes=tuple(EvidenceNode(text=n.text, box=n.box, hidden="occluded") for n in full.nodes),
                      viewport=(360, 800))
    assert not has_keyboard(hidden)


@pytest.mark.parametrize("family", sorted(PARSERS))
def test_missing_evidence_is_invalid_for_every_family(family):
    parsed = parse(family, None, {})
    assert not parsed.valid and not parsed.surface_valid and parsed.source == "none"
    expected = {"persistent": {"result": "absent"}, "clipboard": {"pasted_text": "x"},
                "ordered": {"ordered_items": []}, "temporal": {"status": "none"}}[family]
    assert not judge(family, parsed, expected).correct
    assert invalid(family, "r").outcome == parsed.outcome


def test_parse_rejects_unknown_families_and_missing_context():
    with pytest.raises(ValueError):
        parse("weather", None, {})
    ev = Evidence(nodes=(), viewport=(360, 800))
    with pytest.raises(KeyError, match="target"):
        parse("persistent", ev, {})
    with pytest.raises(KeyError, match="expected"):
        parse("clipboard", ev, {})


def test_to_dict_is_json_ready():
    import json

    parsed = parse("temporal", Evidence(nodes=(EvidenceNode(text="Notifications", box=(0, 0, 10, 10),
                                                            in_viewport=1, unoccluded=1),), viewport=(360, 800)), {})
    json.dumps(parsed.to_dict())
    json.dumps(judge("temporal", parsed, {"status": "none"}).to_dict())
