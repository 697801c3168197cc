"""The Clipboard templates: they load, sample deterministically, every branch's expected clipboard payload
is on the source page the setup writes, A and B always differ, and the domain gives enough distinct pairs.
Offline: no device (the templates are run on a device by ``tools/try_template.py``)."""

from __future__ import annotations

import re

import pytest

from emukit.snapshots import load_spec
from emukit.templates import load_templates
from emukit.templates.sampler import rng_for, sample_params, substitute

CLIPBOARD = ["original_strict", "copy_cancel_control", "same_page_partial_selection", "copy_then_mutate_source",
             "paste_non_consuming"]
SLOTS = 300


def _samples(name: str):
    (t,) = load_templates(names=[name])
    return t, [sample_params(t, rng_for(t.name, 0, slot, 0)) for slot in range(SLOTS)]


def _clip(t, params, branch: str) -> str:
    expect = substitute(t.expect[branch].model_dump(), params)
    assert expect["state"] == {"clipboard_type": "text", "clipboard_text": expect["outcome"]["pasted_text"]}
    return expect["outcome"]["pasted_text"]


def _page_lines(t, params) -> list[str]:
    """The source page's lines as the setup's ``printf '%s\\n' ... | sort`` writes them."""
    shell = substitute(t.setup[0]["shell"], params)
    body = shell.split("printf '%s\\n' ", 1)[1].split(" | sort", 1)[0]
    return sorted(re.findall(r"'([^']*)'", body) or body.split())


def test_family_is_complete():
    names = [t.name for t in load_templates(family="clipboard")]
    assert sorted(names) == sorted(CLIPBOARD)
    spec = load_spec("notes_base")
    assert {n.name for n in spec.notes} >= {"Codes.md", "Draft.md", "Scratch.md"} and spec.start == "notes"
    assert next(n for n in spec.notes if n.name == "Draft.md").text == ""


def test_payload_pool():
    pools = {tuple(t.params["p"].sample) for t in load_templates(family="clipboard")}
    assert len(pools) == 1  # one pool for the family
    (pool,) = pools
    assert len(pool) >= 80 and len(set(pool)) == len(pool)
    assert all(7 <= len(p) <= 9 and re.fullmatch(r"[A-Z][a-z]+\d+", p) for p in pool)
    low = [p.lower() for p in pool]  # containment scoring must not confuse two payloads
    assert not any(a != b and a in b for a in low for b in low)


@pytest.mark.parametrize("name", CLIPBOARD)
def test_template_domain_and_contrast(name):
    t, samples = _samples(name)
    assert t.family == "clipboard" and t.base_snapshot == "notes_base" and t.outcome.kind == "paste"
    assert t.shared_action.type == "tap" and t.shared_action.target == {"text": "Paste"}
    assert t.converge[-2:] == [{"notes.open_document": {"name": "Draft.md"}}, {"notes.paste_menu": {}}]
    pairs = set()
    for params in samples:
        a, b = _clip(t, params, "A"), _clip(t, params, "B")
        assert a and b and a != b
        lines = _page_lines(t, params)
        assert a in lines and b in lines and len(set(lines)) == len(lines) == 8
        pairs.add((a, b))
        for branch in "AB":  # every step substitutes cleanly
            substitute(t.branches[branch], params)
        substitute(t.setup, params)
        substitute(t.converge, params)
    assert len(pairs) >= 200
    assert samples[0] == sample_params(t, rng_for(t.name, 0, 0, 0))  # deterministic


def test_variants_are_all_sampled():
    for name, key, values in (("original_strict", "writes", {1, 2, 3}), ("copy_cancel_control", "how", {"back", "tap"}),
                              ("copy_then_mutate_source", "how", {"append", "replace"}),
                              ("paste_non_consuming", "how", {"text", "note"})):
        _, samples = _samples(name)
        assert {s[key] for s in samples} == values
    _, samples = _samples("copy_then_mutate_source")
    assert len({s["note"] for s in samples}) >= 40
