"""The Ordered Collection templates: they load, sample deterministically, their precomputed drag / rebuild /
interleaving programs agree with what the steps do, and the domain gives enough distinct pairs. Offline:
no device (the templates are run on a device by ``tools/try_template.py``)."""

from __future__ import annotations

import itertools

import pytest

from emukit.errors import ConfigError
from emukit.snapshots import load_spec
from emukit.templates import load_templates
from emukit.templates.sampler import rng_for, sample_params, substitute

ORDERED = ["playing_queue", "queue_mixed_insertion", "identical_prefix_hidden_suffix", "reset_boundary",
           "multi_playlist_interleaved"]
SLOTS = 300


def test_sampler_indexes_by_another_parameter():
    values = {"songs": ["a", "b", "c", "d"], "order": [3, 1], "prog": [[2, 0], 1]}
    assert substitute("{songs[order]}", values) == ["d", "b"]
    assert substitute("{songs[prog[0]]}", values) == ["c", "a"]
    assert substitute("{songs[prog[1]]}", values) == "b"
    assert substitute("x {songs[order[0]]}", values) == "x d"
    assert substitute(["{songs[0]}", "{songs[2]}"], values) == ["a", "c"]  # unchanged behaviour
    with pytest.raises(ConfigError):
        substitute("{songs[prog[2]]}", values)


def _program(name: str):
    (t,) = load_templates(names=[name])
    return t, [sample_params(t, rng_for(t.name, 0, slot, 0)) for slot in range(SLOTS)]


def _expected(t, params, branch):
    return substitute(t.expect[branch].model_dump(), params)["state"]["ordered_items"]


@pytest.mark.parametrize("name", ORDERED)
def test_template_domain_and_contrast(name):
    t, samples = _program(name)
    assert t.family == "ordered" and t.base_snapshot == "music_base" and t.outcome.kind == "list"
    library = {s.title for s in load_spec("music_base").songs}
    pairs = set()
    for params in samples:
        a, b = _expected(t, params, "A"), _expected(t, params, "B")
        assert a != b and sorted(a) == sorted(b) and len(set(a)) == len(a)
        assert set(a) <= library
        pairs.add((tuple(a), tuple(b)))
        for branch in "AB":  # every step substitutes cleanly
            substitute(t.branches[branch], params)
        substitute(t.setup, params)
    assert len(pairs) >= 200
    assert samples[0] == sample_params(t, rng_for(t.name, 0, 0, 0))  # deterministic


def _moved(order, moves):
    q = list(order)
    for frm, to in moves:
        q.insert(to, q.pop(frm))
    return q


def test_playing_queue_keeps_anchor_and_up_next():
    t, samples = _program("playing_queue")
    for params in samples:
        a, b = _expected(t, params, "A"), _expected(t, params, "B")
        assert len(a) == 5 and a[:2] == b[:2]  # Now Playing shows the anchor and "Up next"


def test_queue_mixed_insertion_programs():
    t, samples = _program("queue_mixed_insertion")
    for params in samples:
        songs = params["songs"]
        for branch, (moves, final) in zip("AB", ((params["prog"][0], params["prog"][2]),
                                                 (params["prog"][1], params["prog"][3]))):
            assert len(moves) == 3 and {to for _, to in moves} in ({0, 2, 5}, {0, 3, 5})  # head, middle, tail
            assert _moved(songs, moves) == [songs[i] for i in final] == _expected(t, params, branch)
        a, b = _expected(t, params, "A"), _expected(t, params, "B")
        anchor = songs[0]
        succ = [o[o.index(anchor) + 1] if o.index(anchor) + 1 < len(o) else None for o in (a, b)]
        assert succ[0] == succ[1]  # same "Up next" on the Now Playing boundary


def test_reset_boundary_programs():
    t, samples = _program("reset_boundary")
    sizes, restored = set(), set()
    for params in samples:
        a, b = _expected(t, params, "A"), _expected(t, params, "B")
        assert sorted(a) == sorted(b) == sorted(params["before"])
        restored.add("A" if a == params["before"] else "B" if b == params["before"] else "neither")
        sizes.add(len(a))
    assert sizes == {4} and restored == {"A", "B", "neither"}  # four rows show whole on every supported display


def test_multi_playlist_interleaved_programs():
    t, samples = _program("multi_playlist_interleaved")
    sizes = set()
    for params in samples:
        target, distractor = params["target"], params["distractor"]
        assert target != distractor
        for branch in "AB":
            titles, lists = params[f"songs{branch}"], params[f"lists{branch}"]
            assert len(titles) == len(lists) == len(set(titles))
            assert [s for s, p in zip(titles, lists) if p == target] == _expected(t, params, branch)
            switches = sum(1 for x, y in itertools.pairwise(lists) if x != y)
            assert switches >= 2 and distractor in lists
        sizes.add(len(_expected(t, params, "A")))
    assert sizes == {3, 4}


def test_probed_lists_fit_the_pinned_screen():
    """The list outcome reads only rows shown in full and uncovered, so every probed list must fit on the
    pinned Pixel 6 right after the shared tap: under the playlist detail's collapsing header (64 dp toolbar
    padding, the cover or the 152 dp title column, 16 dp; fragment_playlist_detail_new.xml) rows of 65 dp
    (item_queue.xml) leave room for 9, and for 8 when the mini player (56 dp) covers the list's foot, so ten
    never fit; the queue screen (fragment_playing_queue.xml, toolbar only) holds more than the 6 a queue
    template uses."""
    for name in ORDERED:
        t, samples = _program(name)
        longest = max(len(_expected(t, p, branch)) for p in samples for branch in "AB")
        # and on the smaller supported display (720x1280 at 320 dpi) the playlist detail shows 4 rows whole
        assert longest <= (6 if name in ("playing_queue", "queue_mixed_insertion") else 4), name


def test_queue_boundaries_leave_the_songs_list_at_its_top():
    """Now playing covers the Songs list without removing it from the hierarchy, so a branch that left the list
    scrolled elsewhere would differ from the other there: the converge steps bring it to its top first."""
    (t,) = load_templates(names=["playing_queue"])
    steps = [next(iter(s)) for s in t.converge]
    assert steps.index("music.scroll_to_top") < steps.index("music.open_now_playing")
    for name in ("playing_queue", "queue_mixed_insertion"):
        (t,) = load_templates(names=[name])
        assert t.shared_action.target == {"sel": "music:now_playing_queue"}
    from emukit.apps.selectors import table

    assert table("code.name.monkey.retromusic").query("now_playing_queue") == {
        "resourceId": "code.name.monkey.retromusic:id/now_playing", "description": "Now playing queue"}
