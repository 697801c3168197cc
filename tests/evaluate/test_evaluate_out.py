"""``emukit evaluate`` without ``--out`` writes under the data dir (never the current directory), one folder
per model/format/condition, and prints where the report is. Real CLI, real Chromium rendering of the fixture
pairs; nothing is mocked."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"


@pytest.mark.usefixtures("chromium")
def test_default_out_is_under_the_data_dir(tmp_path: Path, monkeypatch, capsys) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    data = tmp_path / "data"
    monkeypatch.setenv("EMUKIT_DATA", str(data))
    code = main(["evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface", "--condition", "observation",
                 "--family", "temporal", "--quiet"])
    assert code == 0
    out = data / "evaluations" / "ref-surface_code2world_observation"
    assert (out / "results.json").is_file() and (out / "report.html").is_file()
    printed = capsys.readouterr().out
    assert f"report:  {out / 'report.html'}" in printed
    assert list(cwd.iterdir()) == []  # nothing in the current directory
    code = main(["evaluate", "--pairs", str(FIXTURE), "--model", "ref:surface", "--condition", "oracle-state",
                 "--family", "temporal", "--format", "gworld", "--data-dir", str(tmp_path / "other"), "--quiet"])
    assert code == 0
    assert (tmp_path / "other" / "evaluations" / "ref-surface_gworld_oracle-state" / "report.html").is_file()
