"""End to end on the hand-built export folder ``tests/fixtures/pairs`` (real virtual-device captures, two
pairs per family): requests built per format and condition, predictions from the reference models, an
OpenAI-compatible stub server on 127.0.0.1 (no network here), or a predictions file; rendering in the real
headless Chromium; scoring with the real family parsers; results.json, the table and the HTML report.

Includes the two sanity properties of the evaluator: with ``ref:surface``, oracle-state PairCorrect >= 95 %
on every family; a deterministic model gets 0 % observation-only PairCorrect.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from emukit.cli import main
from emukit.evaluate.adapters import create_adapter
from emukit.evaluate.pairs import load_export
from emukit.evaluate.predictions import PredictionsFile, PredictionsFileError
from emukit.evaluate.report import render_html, result_json
from emukit.evaluate.run import evaluate

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
FAMILIES = ("persistent", "clipboard", "ordered", "temporal")


@pytest.fixture(scope="module")
def renderer(chromium):
    """A renderer of this module's own (default pool size and timeout), in the chromium lane."""
    from emukit.evaluate.render import Renderer

    with Renderer() as r:
        yield r


def run(model: str, condition: str, renderer, fmt: str = "code2world", pairs=None, **kw):
    adapter = create_adapter(model, **kw.pop("adapter_options", {})) if model else None
    return evaluate(pairs if pairs is not None else load_export(FIXTURE), format_name=fmt, condition=condition,
                    adapter=adapter, renderer=renderer, **kw)


@pytest.mark.parametrize("fmt", ["code2world", "gworld"])
def test_sanity_surface_model_oracle_state_is_at_least_95_percent(renderer, fmt):
    result = run("ref:surface", "oracle-state", renderer, fmt)
    pc = result.metrics["pair_correct"]
    assert set(FAMILIES) <= set(pc)
    for family in FAMILIES:
        assert pc[family] >= 0.95, (family, result.branch_records())
    assert result.metrics["counts"]["refused_pairs"] == 0


@pytest.mark.parametrize("model", ["ref:surface", "ref:copy-current"])
def test_sanity_deterministic_models_get_zero_observation_pair_correct(renderer, model):
    result = run(model, "observation", renderer)
    assert result.config["deterministic_model"] is True
    assert result.metrics["counts"]["refused_pairs"] == 0  # every fixture pair has A/B-identical requests
    for family in FAMILIES:
        assert result.metrics["pair_correct"][family] == 0.0
    for pair in result.pairs:  # identical request -> identical prediction for A and B
        a, b = pair.branches["A"], pair.branches["B"]
        assert a.request_hash == b.request_hash and a.prediction.html == b.prediction.html


def test_predictive_state_uses_the_estimator_and_reports_state_exact(renderer):
    result = run("ref:surface", "predictive-state", renderer, "gworld")
    assert result.config["estimator"] == "baseline"
    assert result.metrics["state_exact"]["macro"] == 1.0
    assert result.metrics["pair_correct"]["macro"] >= 0.95
    record = result.branch_records()[0]
    assert record["estimated_state"] and record["state_exact"] is True


def test_requests_differ_per_condition(renderer):
    obs = run("ref:surface", "observation", renderer)
    hist = run("ref:surface", "raw-history", renderer)
    for o, h in zip(obs.pairs, hist.pairs):
        assert o.branches["A"].request_hash != h.branches["A"].request_hash
        assert h.branches["A"].request_hash != h.branches["B"].request_hash  # history is branch-dependent
    assert hist.metrics["pair_correct"]["macro"] == 0.0  # ref:surface ignores history: no state, no gain


def test_pair_with_different_observation_requests_is_refused(renderer, tmp_path):
    folder = tmp_path / "pairs"
    shutil.copytree(FIXTURE, folder)
    lines = (folder / "pairs.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    # B's boundary becomes another screen: the pair is no longer strict for this model
    first["branches"]["B"]["boundary_observation"] = first["branches"]["B"]["next_observation"]
    lines[0] = json.dumps(first)
    (folder / "pairs.jsonl").write_text("\n".join(lines) + "\n")
    result = run("ref:surface", "observation", renderer, pairs=list(load_export(folder))[:2])
    refused = [p for p in result.pairs if p.refused]
    assert [p.pair.pair_id for p in refused] == [first["pair_id"]]
    assert result.metrics["counts"]["refused_pairs"] == 1 and result.metrics["counts"]["pairs"] == 1
    record = result_json(result)["pairs"][0]
    assert record["status"] == "refused: requests differ" and record["refused"] is True


def test_openai_endpoint_end_to_end_with_cache(renderer, tmp_path):
    from tests.evaluate.test_adapters import Stub, completion

    page = ("<!DOCTYPE html><html><body style='margin:0'><div style='padding:200px 20px;font-size:40px'>"
            "<p>Notifications</p><p>Clock</p><p>Time's up</p><button>Stop</button>"
            "<p>Manage</p><p>Clear all</p></div></body></html>")
    # Each answer takes 0.5 s, so that A and B of a pair are surely both in flight before either is answered
    # (with instant answers a loaded machine could finish A before sending B, which then reads the cache).
    stub = Stub([(200, completion(page), 0.5, {}), ])
    try:
        options = {"cache_dir": tmp_path / "cache", "concurrency": 2}
        pairs = [p for p in load_export(FIXTURE) if p.family == "temporal"]
        first = run(f"openai:{stub.url}#wm", "observation", renderer, pairs=pairs, adapter_options=options)
        assert len(stub.requests) == 4  # A and B send identical requests; both are in flight at once
        assert first.metrics["pair_correct"]["temporal"] == 0.0
        assert first.metrics["branch_exact"]["temporal"] == 0.5  # the fired branch of each pair
        again = run(f"openai:{stub.url}#wm", "observation", renderer, pairs=pairs, adapter_options=options)
        assert len(stub.requests) == 4  # the rerun made no HTTP call
        assert all(b.prediction.cached for p in again.pairs for b in p.branches.values())
        assert again.metrics == first.metrics
    finally:
        stub.close()


def test_failed_requests_are_kept_and_scored_incorrect(renderer):
    pairs = [p for p in load_export(FIXTURE) if p.family == "clipboard"]
    result = run("openai:http://127.0.0.1:9/v1#down", "oracle-state", renderer, pairs=pairs,
                 adapter_options={"max_retries": 0, "timeout_s": 2})
    assert result.metrics["counts"]["branches"] == 4 and result.metrics["counts"]["failed_predictions"] == 4
    assert result.metrics["counts"]["status"] == {"request_failed": 4}
    assert result.metrics["branch_exact"]["clipboard"] == 0.0


def test_predictions_file(renderer, tmp_path):
    pairs = [p for p in load_export(FIXTURE) if p.family == "clipboard"]
    good = {}
    surface = run("ref:surface", "oracle-state", renderer, pairs=pairs)
    for p in surface.pairs:
        for name, b in p.branches.items():
            good[(p.pair.pair_id, name)] = b.prediction.html
    (tmp_path / "shot.png").write_bytes(pairs[0].branches["B"].next_observation.png())
    rows = [
        {"pair_id": pairs[0].pair_id, "branch": "A", "condition": "oracle-state", "model": "m",
         "html": good[(pairs[0].pair_id, "A")]},
        {"pair_id": pairs[0].pair_id, "branch": "B", "condition": "oracle-state", "model": "m", "image": "shot.png"},
        {"pair_id": pairs[1].pair_id, "branch": "A", "condition": "oracle-state", "model": "m", "html": "   "},
        {"pair_id": pairs[1].pair_id, "branch": "A", "condition": "observation", "model": "m", "html": "<p>x</p>"},
    ]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = evaluate(pairs, format_name="code2world", condition="oracle-state", predictions=PredictionsFile(path),
                      renderer=renderer)
    status = result.metrics["counts"]["status"]
    assert status == {"ok": 1, "image_only": 1, "empty": 1, "missing": 1}
    assert result.metrics["branch_exact"]["clipboard"] == 0.25 and result.metrics["pair_correct"]["clipboard"] == 0.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"pair_id": "x", "branch": "C", "condition": "observation", "model": "m"}) + "\n")
    with pytest.raises(PredictionsFileError, match="bad.jsonl:1: branch"):
        PredictionsFile(bad)


@pytest.mark.usefixtures("chromium")  # the command renders with a Chromium of its own
def test_cli_writes_results_table_and_self_contained_report(tmp_path, capsys):
    from tests.evaluate.tiny_models import build_tiny_dinov2, build_tiny_siglip

    dino = build_tiny_dinov2(tmp_path / "dinov2")
    sig = build_tiny_siglip(tmp_path / "siglip")
    out = tmp_path / "out"
    code = main(["evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface", "--condition", "oracle-state",
                 "--format", "gworld", "--out", str(out), "--family", "ordered", "--family", "temporal",
                 "--fidelity-dinov2", str(dino), "--fidelity-siglip", str(sig), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "PairCorrect" in printed and "ref:surface" in printed and "refused" in printed
    assert "built on: 4 pairs on unknown device" in printed  # the fixture export predates provenance
    doc = json.loads((out / "results.json").read_text())
    assert [g["pairs"] for g in doc["built_on"]] == [4] and doc["built_on"][0]["built_on"]["kind"] == "unknown"
    m = doc["metrics"]
    assert m["pair_correct"]["ordered"] == 1.0 and m["pair_correct"]["temporal"] == 1.0
    assert m["pair_correct"]["macro"] == 1.0 and set(m["branch_exact"]) == {"ordered", "temporal", "macro"}
    assert set(m["fidelity"]) == {"dinov2", "siglip"} and -1 <= m["fidelity"]["dinov2"]["macro"] <= 1
    assert len(doc["pairs"]) == 4 and len(doc["branches"]) == 8
    assert {"pair_id", "branch", "status", "correct", "sem_correct", "surface_valid", "expected", "parsed"} <= \
        set(doc["branches"][0])
    import re

    report = (out / "report.html").read_text()
    assert "data:image/png" not in report  # screenshots are inlined as WebP, each distinct one stored once
    urls = re.findall(r"url\((data:image/webp;base64,[^)]+)\)", report)
    assert urls and len(urls) == len(set(urls))
    for role, n in (("boundary", 4), ("prediction", 8), ("next", 8)):  # per pair: boundary, 2 predictions, 2 next
        assert report.count(f'data-role="{role}"') == n
    assert 'class="noimg"' not in report  # every one of them has its image
    assert "http://" not in report and "https://" not in report and "src=\"artifacts" not in report
    assert "shared action" in report and "correct" in report
    assert "<h2>Built on</h2>" in report


@pytest.mark.usefixtures("chromium")  # the command starts its renderer before it reads the pairs
def test_cli_usage_errors(tmp_path, capsys):
    assert main(["evaluate", "--pairs", str(FIXTURE), "--condition", "observation", "--out", str(tmp_path)]) == 2
    assert main(["evaluate", "--pairs", str(tmp_path / "nope"), "--model", "ref:surface", "--condition",
                 "observation", "--out", str(tmp_path)]) == 1
    assert "no pairs.jsonl" in capsys.readouterr().err


def test_report_renders_without_pngs(renderer):
    result = run("ref:surface", "observation", renderer, pairs=list(load_export(FIXTURE))[:1], keep_pngs=False)
    page = render_html(result)
    assert "prediction A" in page and "prediction B" in page
    assert page.count('class="noimg"') == 2  # the two predictions, whose PNGs were dropped; nothing crashed
    assert "data:image/webp;base64," in page  # the recorded screens are still shown


def test_pairs_from_a_store_url_match_the_export(tmp_path):
    from emukit.evaluate.pairs import load_pairs
    from emukit.records import BranchRecord, Observation, PairRecord, Step, Validation
    from emukit.store import Store
    from emukit.wm.canonical import sha256_hex

    from emukit.provenance import BuiltOn, Display

    exported = list(load_export(FIXTURE))[:2]
    artifacts: dict[str, tuple[bytes, str]] = {}
    built_on = BuiltOn(kind="virtual-deterministic", api_level=34, display=Display(width=1080, height=2400,
                                                                                   density=420))

    def obs(ref) -> Observation:
        png, xml = ref.png(), ref.xml().encode()
        artifacts[sha256_hex(png)] = (png, "png")
        artifacts[sha256_hex(xml)] = (xml, "xml")
        return Observation(screenshot=sha256_hex(png), hierarchy=sha256_hex(xml))

    with Store(data_dir=tmp_path) as store:
        for i, p in enumerate(exported):
            branches = {n: BranchRecord(name=n, history=[Step(observation=obs(o), action=a) for o, a in b.history],
                                        boundary_observation=obs(b.boundary), boundary_recaptured=obs(b.boundary),
                                        state=b.state, shared_action=p.shared_action,
                                        next_observation=obs(b.next_observation), outcome=b.outcome)
                        for n, b in p.branches.items()}
            record = PairRecord(pair_id=p.pair_id, family=p.family, template=p.template, template_hash="0" * 64,
                                params=p.params, seed=0, base_snapshot="base", shared_action=p.shared_action,
                                request_hashes={}, branches=branches, entity=p.entity or {}, built_on=built_on,
                                validation=Validation(stable_boundary=True, observation_match=True,
                                                      state_differs=True, outcome_differs=True,
                                                      validator_pass=True))
            assert store.add_pair(record, slot=i, artifacts=artifacts)
        url = store.url
    loaded = list(load_pairs(url))
    assert [p.pair_id for p in loaded] == [p.pair_id for p in exported]
    for got, want in zip(loaded, exported):
        assert got.size() == want.size() == (1080, 2400)
        assert got.entity == want.entity and got.entity is not None
        assert got.built_on == built_on  # the store's provenance reaches the results
        for n in ("A", "B"):
            g, w = got.branches[n], want.branches[n]
            assert g.boundary.png() == w.boundary.png() and g.next_observation.xml() == w.next_observation.xml()
            assert g.state == w.state and g.outcome == w.outcome and len(g.history) == len(w.history)
            assert [a for _, a in g.history] == [a for _, a in w.history]


def test_the_evaluator_never_reads_templates(renderer, monkeypatch):
    """Scoring takes everything from the export (the tracked entity included): with the template loader
    made to fail, the sanity result is unchanged."""
    import emukit.templates.loader as loader

    calls: list[tuple] = []

    def refuse(*args, **kwargs):
        calls.append((args, kwargs))
        raise AssertionError("the evaluator read templates/")

    monkeypatch.setattr(loader, "load_templates", refuse)
    monkeypatch.setenv("EMUKIT_TEMPLATES", "/nonexistent")
    result = run("ref:surface", "oracle-state", renderer)
    assert calls == []  # a call that something swallowed counts too
    assert all(result.metrics["pair_correct"][f] >= 0.95 for f in FAMILIES)


def test_an_export_without_entities_loads_with_a_warning(tmp_path):
    """An export written before pairs carried their tracked entity still loads; one warning names the file
    and says what is missing and what to do."""
    from emukit.evaluate.pairs import OldExportWarning

    old = tmp_path / "old"
    shutil.copytree(FIXTURE, old)
    rows = [json.loads(line) for line in (old / "pairs.jsonl").read_text().splitlines()]
    for row in rows:
        del row["entity"]
    (old / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(OldExportWarning, match=r"old/pairs\.jsonl: pairs without an 'entity' field.*re-export") as seen:
        pairs = list(load_export(old))
    assert len(seen) == 1 and len(pairs) == len(rows) and all(p.entity is None for p in pairs)
    bad = dict(rows[0], entity=["not", "an", "object"])
    (old / "pairs.jsonl").write_text(json.dumps(bad) + "\n")
    from emukit.evaluate.pairs import PairLoadError

    with pytest.raises(PairLoadError, match=r"pairs\.jsonl:1 \(.*\)\.entity: expected an object, got list"):
        list(load_export(old))
