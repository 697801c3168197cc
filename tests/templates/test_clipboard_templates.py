"""The Clipboard templates: they load, sample deterministically, A and B always differ, the domain gives enough
distinct pairs, and every branch's expected payload is something the real Markor lets the branch copy: the
first word of a paragraph of the page as its view mode shows it. The setup's shell line is run by the
virtual device's shell interpreter and the page goes through the viewer's Markdown blocks (soft line breaks
join lines, a blank line separates paragraphs), so a page whose payloads ran together into one paragraph
fails here. No Android UI is driven (the templates are run end to end by ``tools/try_template.py``)."""

from __future__ import annotations

import re

import pytest

from emukit.snapshots import load_spec
from emukit.templates import load_templates
from emukit.templates.sampler import rng_for, sample_params, substitute
from emukit.vdevice.apps.notes import viewer
from emukit.vdevice.device import VirtualDevice
from emukit.vdevice.shell import run_shell

CLIPBOARD = ["original_strict", "copy_cancel_control", "same_page_partial_selection", "copy_then_mutate_source",
             "paste_non_consuming"]
SLOTS = 300
PAGES = 6  # samples per template whose setup is run through the shell


def _samples(name: str):
    (t,) = load_templates(names=[name])
    return t, [sample_params(t, rng_for(t.name, 0, slot, 0)) for slot in range(SLOTS)]


def _clip(t, params, branch: str) -> str:
    expect = substitute(t.expect[branch].model_dump(), params)
    assert expect["state"] == {"clipboard_type": "text", "clipboard_text": expect["outcome"]["pasted_text"]}
    return expect["outcome"]["pasted_text"]


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> VirtualDevice:
    return VirtualDevice(tmp_path_factory.mktemp("clipboard-pages") / "dev", wipe=True)


def _view_paragraphs(device: VirtualDevice, t, params) -> list[str]:
    """The paragraphs view mode shows for the page the template's setup writes."""
    shell = next(substitute(step["shell"], params) for step in t.setup if "{page}" in step.get("shell", ""))
    page = params["page"]
    err: list[bytes] = []
    device.fs.makedirs(page.rsplit("/", 1)[0])
    assert run_shell(device, shell, lambda _b: None, err.append) == 0, b"".join(err)
    source = device.fs.read_bytes(page).decode()
    return [b.text for b in viewer.blocks(source) if b.kind == "p"]


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
    assert all(7 <= len(p) <= 9 and re.fullmatch(r"[A-Z][a-z]+\d+", p) for p in pool)  # one word: letters, digits
    low = [p.lower() for p in pool]  # containment scoring must not confuse two payloads
    assert not any(a != b and a in b for a in low for b in low)


@pytest.mark.parametrize("name", CLIPBOARD)
def test_template_domain_and_contrast(name, device):
    t, samples = _samples(name)
    assert t.family == "clipboard" and t.base_snapshot == "notes_base" and t.outcome.kind == "paste"
    assert t.shared_action.type == "tap" and t.shared_action.target == {"sel": "notes:text_paste"}
    # the paste target is a blank note of a drawn name, created by setup, so its list row is not a constant
    assert t.converge[-2:] == [{"notes.open_document": {"name": "{draft}"}}, {"notes.paste_menu": {}}]
    pairs = set()
    for slot, params in enumerate(samples):
        a, b = _clip(t, params, "A"), _clip(t, params, "B")
        assert a and b and a != b
        pairs.add((a, b))
        assert re.fullmatch(r"[A-Z][a-z]+_\d{2}\.md", params["draft"]), params["draft"]
        assert any(params["draft"] in str(step) for step in substitute(t.setup, params))  # setup creates it
        for branch in "AB":  # every step substitutes cleanly
            substitute(t.branches[branch], params)
        substitute(t.setup, params)
        substitute(t.converge, params)
        if slot < PAGES:
            shown = _view_paragraphs(device, t, params)
            assert len(shown) == len(set(shown)) == 8, shown  # one paragraph per payload line
            firsts = [p.split(" ", 1)[0] for p in shown]
            assert a in firsts and b in firsts
            if name == "same_page_partial_selection":  # the copied word is a proper part of its paragraph
                assert all(" " in p for p in shown)
    assert len(pairs) >= 200
    assert samples[0] == sample_params(t, rng_for(t.name, 0, 0, 0))  # deterministic


def test_copies_go_through_paragraph_words():
    for t in load_templates(family="clipboard"):
        for branch in "AB":
            for step in t.branches[branch]:
                (op, args), = step.items()
                if op in ("notes.copy", "notes.select_then_cancel"):
                    assert set(args) <= {"word", "how"}, (t.name, step)
                if op == "notes.copy_each":
                    assert set(args) <= {"words", "count"}, (t.name, step)


def test_variants_are_all_sampled():
    for name, key, values in (("original_strict", "writes", {1, 2, 3}), ("copy_cancel_control", "how", {"back", "tap"}),
                              ("copy_then_mutate_source", "how", {"append", "replace"}),
                              ("paste_non_consuming", "how", {"text", "note"})):
        _, samples = _samples(name)
        assert {s[key] for s in samples} == values
    _, samples = _samples("copy_then_mutate_source")
    assert len({s["note"] for s in samples}) >= 40
