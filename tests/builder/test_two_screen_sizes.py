"""Every shipped template builds on a small display: one strict pair of each of the 25 templates and of each
host variant through
``build_pairs`` on embedded virtual devices of 720x1280 at 320 dpi (``DeviceRequest.embedded.screen``); the
default 1080x2400 at 420 dpi is what every other builder test runs on. The pairs record the device's real
size (screenshots, exported ``screen_size``, world-model requests, recorded coordinates), and the stress
suites' moves carry no pixel position of one screen.

A template that cannot be built gets at most two attempts here (one slot, ``max_attempts=2``; the slot bound
is narrowed through ``TemplateProgress.slot_limit``, a test hook), so a failure shows quickly with the
rejection of each attempt."""

from __future__ import annotations

import io
import json
from collections import defaultdict

import pytest
from PIL import Image

from emukit.builder import run as run_mod
from emukit.builder.run import BuildOptions
from emukit.builder.steps import on_screen, screen_fraction
from emukit.builder.stress import validate_table
from emukit.builder.stress_model import FamilyTable, Move
from emukit.builder.stress_tables import HOST_TABLES, STRESS_TABLES
from emukit.errors import ConfigError
from emukit.export import export_pairs
from emukit.families import FAMILIES
from emukit.store import Store
from emukit.templates import load_templates
from emukit.wm import get_format, request_hash
from emukit.workers import DeviceRequest, EmbeddedDevices

SMALL = (720, 1280, 320)
TEMPLATE_COUNT = 25  # seed 002 Table 6


@pytest.fixture(scope="module")
def small_build(pair_builder, adb_server, tmp_path_factory):
    """One pair of every template, built family by family on two fresh 720x1280@320 embedded devices."""
    data = tmp_path_factory.mktemp("small-build") / "data"
    templates = load_templates(variants=True)
    assert len([t for t in templates if not t.is_variant]) == TEMPLATE_COUNT
    errors: list[str] = []  # what the runs reported besides rejections (device pool, store)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_mod.TemplateProgress, "slot_limit", property(lambda self: self.wanted))
        for family in FAMILIES:
            group = [t for t in templates if t.family == family]
            runner = pair_builder(BuildOptions(templates=group, count_per_family=len(group), seed=0, data_dir=data,
                                              devices=DeviceRequest(count=2, embedded=EmbeddedDevices(screen=SMALL)),
                                              max_attempts=2, adb_port=adb_server.port))
            errors += [f"{family}: {e}" for e in runner.errors]
    store = Store(data_dir=data)
    yield store, templates, data, errors
    store.close()


def test_every_template_builds_a_pair_at_720x1280(small_build):
    store, templates, _, errors = small_build
    built = {p.template for p in store.pairs()}
    failures: dict[str, list[str]] = defaultdict(list)
    for rej in store.rejections():
        if rej.template not in built:
            failures[rej.template].append(f"{rej.reason}: {rej.detail[:400]}")
    missing = sorted({t.name for t in templates} - built)
    report = "\n".join(f"{name}: {' | '.join(failures.get(name, ['no attempt recorded']))}" for name in missing)
    assert not missing, (f"{len(missing)} of {len(templates)} templates built no pair at 720x1280@320:\n{report}"
                         + "".join(f"\n{e}" for e in errors))
    assert all(p.validation.accepted for p in store.pairs())


def test_pairs_record_the_small_screen(small_build):
    store, _, data, _ = small_build
    pairs = list(store.pairs())
    assert pairs
    for pair in pairs:
        for branch in pair.branches.values():
            observations = [s.observation for s in branch.history]
            observations += [branch.boundary_observation, branch.next_observation]
            for obs in observations:
                with Image.open(store.artifacts.path(obs.screenshot, "png")) as png:
                    assert png.size == SMALL[:2]
            for step in branch.history:
                action = step.action
                for x, y in ((action.x, action.y), (action.x2, action.y2)):
                    if x is not None:
                        assert 0 <= x < SMALL[0] and 0 <= y < SMALL[1], (pair.pair_id, action)
    # the requests a world model gets are built for the screen the pair was captured on
    pair = pairs[0]
    png = store.artifacts.get(pair.branches["A"].boundary_observation.screenshot, "png")
    for name, digest in pair.request_hashes.items():
        body = get_format(name).build_request(png, pair.shared_action, screen_size=SMALL[:2], family=pair.family)
        assert request_hash(body) == digest
    summary = export_pairs(store, data / "export")
    rows = [json.loads(line) for line in (data / "export" / "pairs.jsonl").read_text().splitlines()]
    assert summary.pairs == len(rows) == len(pairs)
    assert {tuple(r["screen_size"]) for r in rows} == {SMALL[:2]}


# ------------------------------------------------------------------------------------------ coordinates
def test_gesture_coordinates_resolve_against_the_screen():
    swipe = {"x1": "50%", "y1": "62.5%", "x2": "50%", "y2": "37.5%", "duration_ms": 300}
    assert on_screen(swipe, (1080, 2400)) == {"x1": 540, "y1": 1500, "x2": 540, "y2": 900, "duration_ms": 300}
    assert on_screen(swipe, (720, 1280)) == {"x1": 360, "y1": 800, "x2": 360, "y2": 480, "duration_ms": 300}
    assert on_screen({"x": "100%", "y": 7}, (720, 1280)) == {"x": 719, "y": 7}  # kept on the screen
    assert screen_fraction(12) is None and screen_fraction("0%") == 0.0
    for bad in ("50", "150%", "x%", 1.5, True):
        with pytest.raises(ValueError, match="percentage of the screen"):
            screen_fraction(bad)


def test_stress_moves_take_no_pixel_positions():
    for table in [*(STRESS_TABLES[f] for f in STRESS_TABLES), *HOST_TABLES.values()]:
        validate_table(table)
        for moves in (table.neutral, *table.levels.values()):
            for move in moves:
                for step in move.steps:
                    (_, args), = step.items()
                    for key in ("x", "y", "x1", "y1", "x2", "y2"):
                        if isinstance(args, dict) and key in args:
                            assert screen_fraction(args[key]) is not None, (table.family, move.name, step)
    fixed = FamilyTable(family="clipboard", neutral=(*STRESS_TABLES["clipboard"].neutral,
                                                    Move("scroll", ({"swipe": {"x1": 540, "y1": 1500, "x2": 540,
                                                                               "y2": 900}},))),
                        levels={})
    with pytest.raises(ConfigError, match="fixed pixel position"):
        validate_table(fixed)


def test_shared_wait_pulls_the_shade_on_any_screen():
    from emukit.builder.pair import SHADE_SWIPE

    assert on_screen(SHADE_SWIPE, (1080, 2400)) == {"x1": 540, "y1": 10, "x2": 540, "y2": 1400, "duration_ms": 300}
    small = on_screen(SHADE_SWIPE, SMALL[:2])
    assert small["y1"] < round(96 * 320 / 420) < small["y2"] < SMALL[1]  # from the status bar into the screen


def test_requests_default_to_the_screenshot_size():
    png = io.BytesIO()
    Image.new("RGB", SMALL[:2], (250, 250, 250)).save(png, format="PNG")
    from emukit.actions import Action

    tap = Action(type="tap", x=360, y=640)
    for name in ("code2world", "gworld"):
        fmt = get_format(name)
        assert fmt.build_request(png.getvalue(), tap, family="clipboard") == fmt.build_request(
            png.getvalue(), tap, screen_size=SMALL[:2], family="clipboard")
    gw = get_format("gworld").build_request(png.getvalue(), tap, family="clipboard")
    texts = " ".join(p["text"] for m in gw["messages"] for p in m["content"] if p["type"] == "text")
    assert '"coordinates": [500, 500]' in texts  # the middle of the 720x1280 screen, not of 1080x2400


def test_build_options_check_the_screen():
    import argparse

    from emukit.commands.options import device_request

    with pytest.raises(ConfigError, match="--vdevice-screen"):
        device_request(argparse.Namespace(vdevice_screen=(100, 100, 320)))
    with pytest.raises(ValueError, match="screen"):
        EmbeddedDevices(screen=(100, 100, 320))
