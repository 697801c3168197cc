"""Where the evaluated pairs were built, in results.json, on the terminal and in the report: read from the
``built_on`` of an export (pairs of the hand-built fixture export, given provenance here as two kinds of device
would record it) or a store; unknown for pairs exported before it was kept. No model runs: the results are
assembled from the loaded pairs, so nothing here renders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from emukit.evaluate.pairs import PairLoadError, load_export
from emukit.evaluate.report import _built_on_section, built_on_lines, result_json
from emukit.evaluate.run import BranchRun, EvalResult, PairRun
from emukit.provenance import AppBuild, BuiltOn, Display

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
VIRTUAL = BuiltOn(kind="virtual-deterministic", fingerprint="emukit/virtual/x86_64:14/UP1A/1:user/release-keys",
                  api_level=34, abi="x86_64", display=Display(width=1080, height=2400, density=420),
                  apps={"net.gsantner.markor": AppBuild(version_name="2.11.1-emukit-virtual", version_code=146)},
                  emukit_version="1.0")
AVD = VIRTUAL.model_copy(update={"kind": "emulator", "fingerprint": "google/sdk_gphone64_x86_64/emu64xa:14/x"})


def _export(tmp_path: Path, provenance: list[BuiltOn | None]) -> Path:
    """A copy of the fixture export whose i-th pair records ``provenance[i]`` (None: no field, as older exports)."""
    out = tmp_path / "export"
    shutil.copytree(FIXTURE, out)
    lines = (out / "pairs.jsonl").read_text().splitlines()
    rows = []
    for i, line in enumerate(lines):
        data = json.loads(line)
        data.pop("built_on", None)
        given = provenance[i % len(provenance)]
        if given is not None:
            data["built_on"] = given.model_dump(mode="json")
        rows.append(json.dumps(data))
    (out / "pairs.jsonl").write_text("\n".join(rows) + "\n")
    return out


def _result(pairs) -> EvalResult:
    runs = [PairRun(pair=p, branches={n: BranchRun(p.pair_id, p.family, n) for n in ("A", "B")}) for p in pairs]
    return EvalResult(pairs=runs, metrics={}, config={"model": "m", "format": "f", "condition": "c"}, seconds=0.0)


def test_results_group_the_pairs_by_where_they_were_built_and_warn_on_mixed_kinds(tmp_path):
    pairs = list(load_export(_export(tmp_path, [VIRTUAL, VIRTUAL, AVD])))
    assert [p.built_on.kind for p in pairs[:3]] == ["virtual-deterministic", "virtual-deterministic", "emulator"]
    result = _result(pairs)
    doc = result_json(result)
    n_virtual = sum(1 for p in pairs if p.built_on == VIRTUAL)
    assert doc["built_on"] == [{"built_on": VIRTUAL.model_dump(mode="json"), "pairs": n_virtual},
                               {"built_on": AVD.model_dump(mode="json"), "pairs": len(pairs) - n_virtual}]
    assert [r["device_kind"] for r in doc["pairs"][:3]] == ["virtual-deterministic", "virtual-deterministic",
                                                           "emulator"]
    lines = built_on_lines(result)
    assert lines[0] == f"built on: {n_virtual} pairs on {VIRTUAL.describe()}"
    assert lines[-1].startswith("warning: the pairs come from 2 kinds of device (emulator, virtual-deterministic)")
    page = _built_on_section(result)
    assert "id='built-on'" in page and "warning: the pairs come from 2 kinds" in page
    assert page.count("<tr><td>") == 2 and "net.gsantner.markor 2.11.1-emukit-virtual (146)" in page
    assert "1080x2400 @420" in page


def test_one_kind_gives_no_warning_and_older_exports_read_as_unknown(tmp_path):
    same = _result(list(load_export(_export(tmp_path / "one", [VIRTUAL]))))
    assert not [line for line in built_on_lines(same) if line.startswith("warning")]
    old = _result(list(load_export(_export(tmp_path / "old", [None]))))
    assert result_json(old)["built_on"] == [{"built_on": BuiltOn.unknown().model_dump(mode="json"),
                                             "pairs": len(old.pairs)}]
    assert built_on_lines(old) == [f"built on: {len(old.pairs)} pairs on unknown device (stored before provenance "
                                   f"was kept)"]


def test_a_bad_built_on_names_the_line_and_field(tmp_path):
    folder = _export(tmp_path, [VIRTUAL])
    lines = (folder / "pairs.jsonl").read_text().splitlines()
    data = json.loads(lines[1])
    data["built_on"]["kind"] = "toaster"
    lines[1] = json.dumps(data)
    (folder / "pairs.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(PairLoadError, match=r"pairs.jsonl:2 \(.*\)\.built_on\.kind: Input should be"):
        list(load_export(folder))
