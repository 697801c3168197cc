"""Image-output world models: predictions files and OpenAI-compatible replies that carry images, scored by
fidelity (tiny randomly initialised DINOv2/SigLIP checkpoints built here) and the judge (a local test server;
only the judge model is mocked), never by the HTML-only family parsers; the report says which metrics apply."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from emukit.cli import main
from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.pairs import load_export
from emukit.evaluate.predictions import PredictionsFile
from tests.evaluate.test_adapters import Stub
from tests.evaluate.test_judge import JudgeServer

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"


def jpeg_bytes() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (36, 80), (200, 30, 30)).save(out, format="JPEG")
    return out.getvalue()


def test_predictions_file_images_are_read_as_png_and_bad_ones_are_kept_as_failures(tmp_path):
    (tmp_path / "a.jpg").write_bytes(jpeg_bytes())
    (tmp_path / "b.png").write_bytes(b"not an image at all")
    lines = [{"pair_id": "p", "branch": "A", "condition": "observation", "model": "m", "image": "a.jpg"},
             {"pair_id": "p", "branch": "B", "condition": "observation", "model": "m", "image": "b.png"}]
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    pf = PredictionsFile(path)
    a, b = pf.get("p", "A", "observation"), pf.get("p", "B", "observation")
    assert a.ok and a.html is None and a.image[:8] == b"\x89PNG\r\n\x1a\n"
    assert Image.open(io.BytesIO(a.image)).size == (36, 80)
    assert not b.ok and "malformed output" in b.error and "b.png" in b.error


@pytest.mark.parametrize("url, ok", [
    ("data:image/jpeg;base64," + base64.b64encode(jpeg_bytes()).decode(), True),
    ("https://example.com/next.png", False),  # never fetched: evaluation is offline
    ("data:image/png;base64," + base64.b64encode(b"garbage").decode(), False),
])
def test_an_openai_compatible_image_reply_is_an_image_prediction(url: str, ok: bool):
    content = [{"type": "text", "text": "Here is the next screen."}, {"type": "image_url", "image_url": {"url": url}}]
    server = Stub([(200, {"choices": [{"message": {"role": "assistant", "content": content}}]}, 0.0, {})])
    try:
        pred = create_adapter(f"openai:{server.url}#image-wm").predict({"model": "x", "messages": []})
    finally:
        server.close()
    assert pred.ok is ok, pred.error
    if ok:
        assert pred.html is None and pred.image[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert "malformed output" in pred.error


@pytest.mark.usefixtures("chromium")  # emukit evaluate renders with a Chromium of its own
def test_image_predictions_are_scored_by_fidelity_and_the_judge_only(tmp_path, capsys):
    from tests.evaluate.tiny_models import build_tiny_dinov2

    lines = []
    for pair in load_export(FIXTURE):
        if pair.family != "temporal":
            continue
        for name, branch in pair.branches.items():
            image = tmp_path / f"{pair.pair_id}_{name}.png"
            image.write_bytes(branch.next_observation.png())  # the true next screen as the "prediction"
            lines.append({"pair_id": pair.pair_id, "branch": name, "condition": "observation",
                          "model": "img-wm", "image": image.name})
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(x) for x in lines))
    judge = JudgeServer()
    out = tmp_path / "out"
    try:
        code = main(["evaluate", "--pairs", str(FIXTURE), "--predictions", str(preds), "--condition", "observation",
                     "--format", "gworld", "--out", str(out), "--family", "temporal", "--quiet",
                     "--fidelity-dinov2", str(build_tiny_dinov2(tmp_path / "dino")), "--judge", judge.spec])
    finally:
        judge.close()
    assert code == 0
    doc = json.loads((out / "results.json").read_text())
    m = doc["metrics"]
    assert m["counts"]["output_kinds"] == {"image": len(lines)}
    assert m["counts"]["status"] == {"image_only": len(lines)}
    assert m["branch_exact"]["temporal"] == 0.0  # the parsers read HTML only
    assert m["fidelity"]["dinov2"]["temporal"] == pytest.approx(1.0, abs=1e-4)  # identical to the next screen
    assert m["judge"]["GUI-Score"]["n"] == len(lines)
    printed = capsys.readouterr().out
    assert "read HTML only" in printed
    assert "read HTML only" in (out / "report.html").read_text()
