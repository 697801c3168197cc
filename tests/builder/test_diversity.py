"""``emukit audit diversity`` on hand-made pairs whose counts are known: distinct boundaries, requests,
shared actions and states, near-duplicate boundaries (a one-pixel change), each template's declared
``min_diversity`` and the family bound."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageDraw

from emukit.audit.diversity import audit_diversity, difference_hash
from emukit.cli import main
from emukit.errors import ConfigError
from emukit.records import Observation
from emukit.store import Store
from tests.store import make_pair, sha


def _png(i: int, *, tweak: bool = False) -> bytes:
    import random

    rng = random.Random(i)
    img = Image.new("RGB", (108, 240), "white")
    draw = ImageDraw.Draw(img)
    for row in range(8):  # a different pattern of light and dark cells per screen
        for col in range(9):
            shade = rng.choice((10, 240))
            draw.rectangle((12 * col, 30 * row, 12 * col + 11, 30 * row + 29), fill=(shade, shade, shade))
    if tweak:
        img.putpixel((100, 230), (250, 250, 250))  # invisible to the eye, a different sha256
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def _pairs(template: str, boundaries: list[bytes], family: str = "persistent"):
    records, blobs = [], {}
    for slot, png in enumerate(boundaries):
        record, artifacts = make_pair(slot, template=template, family=family)
        obs = Observation(screenshot=sha(png), hierarchy=record.branches["A"].boundary_observation.hierarchy)
        branches = {n: b.model_copy(update={"boundary_observation": obs, "boundary_recaptured": obs})
                    for n, b in record.branches.items()}
        records.append(record.model_copy(update={
            "branches": branches, "request_hashes": {"code2world": sha(png + b"|request")}}))
        blobs.update(artifacts)
        blobs[sha(png)] = (png, "png")
    return records, blobs


def test_counts_near_duplicates_and_thresholds():
    screens = [_png(i) for i in range(5)]
    records, blobs = _pairs("t1", screens + screens)  # 5 distinct boundaries over 10 pairs
    more, more_blobs = _pairs("t2", [_png(7), _png(7, tweak=True), _png(8), _png(9)])
    blobs.update(more_blobs)
    report = audit_diversity(records + more, lambda s: blobs[s][0])
    t1, t2 = report.templates[("persistent", "t1")].row(), report.templates[("persistent", "t2")].row()
    assert t1 == {"pairs": 10, "boundaries": 5, "requests": 5, "shared_actions": 10, "states": 10,
                  "near_duplicates": 0}
    assert t2["boundaries"] == 4 and t2["near_duplicates"] == 1  # the one-pixel change
    assert not report.template_ok("persistent", "t1") and report.template_ok("persistent", "t2")
    assert not report.family_ok("persistent")  # 9 of 14 boundaries: below 80 %
    declared = audit_diversity(records + more, lambda s: blobs[s][0], {"t1": 0.5})
    assert declared.template_ok("persistent", "t1") and not declared.ok  # the family bound still holds
    assert declared.to_json()["templates"]["persistent/t1"]["min_diversity"] == 0.5
    assert bin(difference_hash(_png(7)) ^ difference_hash(_png(7, tweak=True))).count("1") <= 4
    with pytest.raises(ConfigError, match="no pairs to audit"):
        audit_diversity([], lambda s: b"")


def test_cli_reads_the_store_and_the_templates_thresholds(tmp_path):
    records, blobs = _pairs("copy_direct", [_png(i) for i in range(6)])
    with Store(data_dir=tmp_path) as store:
        for slot, record in enumerate(records):
            assert store.add_pair(record, slot, blobs)
    out = tmp_path / "d.json"
    assert main(["audit", "diversity", "--data-dir", str(tmp_path), "--json", str(out)]) == 0
    saved = json.loads(out.read_text())
    assert saved["ok"] is True and saved["families"]["persistent"]["boundaries"] == 6
    records2, blobs2 = _pairs("playing_queue", [_png(1)] * 4, family="ordered")  # declares min_diversity 0.3
    with Store(data_dir=tmp_path) as store:
        for slot, record in enumerate(records2):
            assert store.add_pair(record, slot, blobs2)
    assert main(["audit", "diversity", "--data-dir", str(tmp_path), "--json", str(out)]) == 1
    saved = json.loads(out.read_text())
    assert saved["templates"]["ordered/playing_queue"]["min_diversity"] == 0.3
    assert saved["templates"]["ordered/playing_queue"]["ok"] is False  # 1 of 4 is below even 30 %
