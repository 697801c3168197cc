"""Metrics: BranchExact / PairCorrect per family and macro, the SemCorrect / SurfaceValid decomposition,
state-recovery Exact, refused pairs, counts, and DINOv2 / SigLIP fidelity with tiny random local models."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from emukit.errors import ConfigError
from emukit.evaluate.metrics import BranchScore, FidelityScorer, compute_metrics


def s(pair: str, fam: str, br: str, correct: bool, sem: bool | None = None, surf: bool | None = None,
      status: str = "ok", state: bool | None = None) -> BranchScore:
    return BranchScore(pair, fam, br, correct=correct, sem_correct=correct if sem is None else sem,
                       surface_valid=correct if surf is None else surf, status=status, state_exact=state)


def test_branch_exact_pair_correct_and_macro():
    scores = [s("p1", "clipboard", "A", True), s("p1", "clipboard", "B", True),
              s("p2", "clipboard", "A", True), s("p2", "clipboard", "B", False),
              s("p3", "temporal", "A", False, status="request_failed"), s("p3", "temporal", "B", False, status="empty")]
    m = compute_metrics(scores)
    assert m["branch_exact"] == {"clipboard": 0.75, "temporal": 0.0, "macro": 0.375}
    assert m["pair_correct"] == {"clipboard": 0.5, "temporal": 0.0, "macro": 0.25}
    assert list(m["branch_exact"]) == ["clipboard", "temporal", "macro"]  # family order, macro last
    c = m["counts"]
    assert c["pairs"] == 3 and c["branches"] == 6 and c["failed_predictions"] == 2  # kept in the denominators
    assert c["status"] == {"ok": 4, "request_failed": 1, "empty": 1}
    assert "state_exact" not in m and "fidelity" not in m


def test_sem_surface_decomposition():
    scores = [s("p1", "persistent", "A", False, sem=True, surf=False), s("p1", "persistent", "B", True),
              s("p2", "persistent", "A", False, sem=False, surf=True), s("p2", "persistent", "B", True)]
    m = compute_metrics(scores)
    assert m["sem_correct"]["persistent"] == 0.75 and m["surface_valid"]["persistent"] == 0.75
    assert m["branch_exact"]["persistent"] == 0.5
    assert m["sem_pair_correct"]["persistent"] == 0.5 and m["pair_correct"]["persistent"] == 0.0


def test_state_exact_and_refused_pairs():
    scores = [s("p1", "ordered", "A", True, state=True), s("p1", "ordered", "B", False, state=False),
              s("p2", "ordered", "A", True, state=True), s("p2", "ordered", "B", True, state=True),
              s("p3", "ordered", "A", False, status="refused"), s("p3", "ordered", "B", False, status="refused")]
    m = compute_metrics(scores, refused=[("p3", "ordered")])
    assert m["state_exact"]["ordered"] == 0.75
    assert m["pair_correct"]["ordered"] == 0.5  # the refused pair is not in the denominator ...
    assert m["counts"]["refused_pairs"] == 1 and m["counts"]["refused_by_family"] == {"ordered": 1}  # ... but counted
    assert m["counts"]["pairs"] == 2


def test_empty_input_gives_none_not_zero():
    m = compute_metrics([])
    assert m["branch_exact"] == {"macro": None} and m["counts"]["pairs"] == 0


def _png(color: tuple[int, int, int], box: bool = False) -> bytes:
    img = Image.new("RGB", (1080, 2400), color)
    if box:
        ImageDraw.Draw(img).rectangle((100, 300, 900, 1500), fill=(20, 20, 200))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def encoders(tmp_path_factory) -> tuple[Path, Path]:
    from tests.evaluate.tiny_models import build_tiny_dinov2, build_tiny_siglip

    root = tmp_path_factory.mktemp("encoders")
    return build_tiny_dinov2(root / "dinov2"), build_tiny_siglip(root / "siglip")


def test_fidelity_cosine_with_tiny_local_models(encoders):
    dino, sig = encoders
    scorer = FidelityScorer(dinov2=dino, siglip=sig)
    white, other = _png((250, 250, 250)), _png((250, 250, 250), box=True)
    same = scorer.score(white, white)
    diff = scorer.score(white, other)
    assert set(same) == {"dinov2", "siglip"}
    assert same["dinov2"] == pytest.approx(1.0, abs=1e-5) and same["siglip"] == pytest.approx(1.0, abs=1e-5)
    assert -1.0 <= diff["dinov2"] < same["dinov2"] and -1.0 <= diff["siglip"] < same["siglip"]
    assert scorer.score(other, white) == pytest.approx(diff)  # symmetric


def test_fidelity_means_per_family():
    a = s("p1", "temporal", "A", True)
    a.fidelity = {"dinov2": 0.5}
    b = s("p1", "temporal", "B", True)
    b.fidelity = {"dinov2": 0.7}
    m = compute_metrics([a, b])
    assert m["fidelity"]["dinov2"]["temporal"] == pytest.approx(0.6)
    assert m["fidelity"]["dinov2"]["macro"] == pytest.approx(0.6)


def test_fidelity_needs_local_folders():
    with pytest.raises(ConfigError, match="not a local checkpoint"):
        FidelityScorer(dinov2="/nonexistent/dinov2")
