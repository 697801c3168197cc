"""``emukit export --format hf`` and ``--format episodes`` round trips: written from an export's rows and
artifacts, read back with ``datasets.load_from_disk`` and as plain JSON/PNG files, and compared with the
``pairs.jsonl`` they came from, byte for byte where bytes are kept."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from emukit.exporters import split_rows, writer
from emukit.exporters.episodes import json_action
from emukit.templates import load_templates
from tests.builder.audit_helpers import copy_data

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
# the action types AndroidWorld's JSONAction accepts (google-research/android_world,
# android_world/env/json_action.py at 21c0bc036c7ec2cae988e7b10cebf54870d93606, _ACTION_TYPES)
ANDROID_WORLD_TYPES = {"click", "double_tap", "scroll", "swipe", "input_text", "navigate_home", "navigate_back",
                       "keyboard_enter", "open_app", "status", "wait", "long_press", "answer", "unknown"}


@pytest.fixture()
def export(tmp_path) -> tuple[Path, list[dict]]:
    out = tmp_path / "export"
    shutil.copytree(FIXTURE, out, ignore=shutil.ignore_patterns("*.py"))
    rows = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
    return out, rows


def test_hf_datasets_load_from_disk_and_match_the_export(export):
    from datasets import load_from_disk

    out, rows = export
    written = writer("hf")(out, rows)
    assert written["splits"] == {"test": len(rows)}
    pairs = load_from_disk(str(out / "hf" / "pairs"))["test"]
    branches = load_from_disk(str(out / "hf" / "branches"))["test"]
    assert len(pairs) == len(rows) and len(branches) == 2 * len(rows)
    raw = pairs.cast_column("boundary", type(pairs.features["boundary"])(decode=False))
    for i, row in enumerate(rows):
        a = row["branches"]["A"]
        assert raw[i]["boundary"]["bytes"] == (out / a["boundary_observation"]["screenshot"]).read_bytes()
        got = pairs[i]
        assert got["pair_id"] == row["pair_id"] and got["family"] == row["family"]
        assert isinstance(got["boundary"], Image.Image) and list(got["boundary"].size) == row["screen_size"]
        for name in ("A", "B"):
            b = row["branches"][name]
            assert json.loads(got[f"{name}_state"]) == b["state"]
            assert json.loads(got[f"{name}_outcome"]) == b["outcome"]
            assert [json.loads(x) for x in got[f"{name}_history_actions"]] == [s["action"] for s in b["history"]]
            assert len(got[f"{name}_history_screenshots"]) == len(b["history"])
            want = Image.open(io.BytesIO((out / b["next_observation"]["screenshot"]).read_bytes()))
            assert got[f"{name}_next_observation"].tobytes() == want.convert(got[f"{name}_next_observation"].mode).tobytes()
            assert got[f"{name}_next_hierarchy"] == (out / b["next_observation"]["hierarchy"]).read_text()
    by_branch = {(r["pair_id"], r["branch"]): r for r in branches}
    for row in rows:
        for name in ("A", "B"):
            got = by_branch[(row["pair_id"], name)]
            assert got["role"] == name  # the fixture predates roles: unswapped
            assert json.loads(got["state"]) == row["branches"][name]["state"]


def test_split_by_eval_seed_drops_overlaps(export):
    _out, rows = export
    other = [dict(r, seed=1, pair_id=r["pair_id"] + "-s1") for r in rows]
    splits, dropped = split_rows(rows + other, eval_seed=0)
    # the seed-1 copies share every content fingerprint with the seed-0 pairs: all dropped from train
    assert len(splits["test"]) == len(rows) and splits["train"] == [] and dropped == len(other)
    assert split_rows(rows, None) == ({"test": rows}, 0)


def test_episodes_are_androidworld_style_and_match_the_export(export):
    out, rows = export
    written = writer("episodes")(out, rows)
    assert written["episodes"] == 2 * len(rows)
    index = [json.loads(line) for line in (out / "episodes" / "index.jsonl").read_text().splitlines()]
    assert len(index) == 2 * len(rows) and {i["split"] for i in index} == {"test"}
    for row in rows:
        for name in ("A", "B"):
            folder = out / "episodes" / row["pair_id"] / name
            ep = json.loads((folder / "episode.json").read_text())
            b = row["branches"][name]
            assert ep["episode_length"] == len(b["history"]) == len(ep["step_data"]["screenshot"])
            assert ep["step_data"]["emukit_action"] == [s["action"] for s in b["history"]]
            for i, step in enumerate(b["history"]):
                assert (folder / ep["step_data"]["screenshot"][i]).read_bytes() == \
                    (out / step["observation"]["screenshot"]).read_bytes()
                assert (folder / ep["step_data"]["hierarchy"][i]).read_bytes() == \
                    (out / step["observation"]["hierarchy"]).read_bytes()
            assert {a["action_type"] for a in ep["step_data"]["action_output_json"]} <= ANDROID_WORLD_TYPES
            assert (folder / "next.png").read_bytes() == (out / b["next_observation"]["screenshot"]).read_bytes()
            assert ep["pair"]["state"] == b["state"] and ep["shared_action"]["emukit_action"] == row["shared_action"]


def test_json_actions():
    assert json_action({"type": "tap", "x": 5, "y": 6, "element": "Button"}) == {"action_type": "click", "x": 5, "y": 6}
    assert json_action({"type": "swipe", "x": 540, "y": 2000, "x2": 540, "y2": 400}) == \
        {"action_type": "swipe", "direction": "up"}
    assert json_action({"type": "drag", "x": 10, "y": 10, "x2": 300, "y2": 40})["direction"] == "right"
    assert json_action({"type": "key", "key": 4}) == {"action_type": "navigate_back"}
    assert json_action({"type": "key", "key": 67}) == {"action_type": "unknown", "keycode": "KEYCODE_DEL"}
    assert json_action({"type": "type", "text": "Gate"}) == {"action_type": "input_text", "text": "Gate"}
    assert json_action({"type": "wait", "duration_ms": 240000}) == {"action_type": "wait"}


def test_export_cli_formats_from_a_store(emukit_cli, built_store, adb_server, tmp_path):
    """From a real build (the session's built store, one pair of every template at seed 0): ``--format hf
    --eval-seed`` and ``--format episodes`` of its temporal pairs through the CLI."""
    from datasets import load_from_disk

    data = copy_data(built_store.data, tmp_path / "data")  # the session's store stays as it was built
    temporal = len(load_templates(family="temporal"))
    for fmt in ("hf", "episodes"):
        proc = subprocess.run([*emukit_cli, "export", "--data-dir", str(data), "--out", str(tmp_path / fmt),
                               "--family", "temporal", "--format", fmt, "--eval-seed", "0"], env=adb_server.env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    pairs = load_from_disk(str(tmp_path / "hf" / "hf" / "pairs"))
    assert set(pairs) == {"test"} and len(pairs["test"]) == temporal  # every pair is seed 0: no train split
    (row,) = [r for r in pairs["test"] if r["template"] == "duration_shift"]
    prov = json.loads(row["provenance"])
    assert prov["entity"]["outcome_probe"]["kind"] == "shade" and len(prov["template_hash"]) == 64
    branch = json.loads(row["A_branch_provenance"])
    assert [s["type"] for s in branch["shared_steps"]] == ["wait", "swipe"] and branch["warp"]["seconds"] > 0
    ep = json.loads((tmp_path / "episodes" / "episodes" / row["pair_id"] / "A" / "episode.json").read_text())
    assert [s["action_output_json"]["action_type"] for s in ep["shared_steps"]] == ["wait", "swipe"]
    assert ep["shared_steps"][1]["action_output_json"]["direction"] == "down"  # the shade pull
    proc = subprocess.run([*emukit_cli, "export", "--data-dir", str(data), "--out",
                           str(tmp_path / "j"), "--eval-seed", "0"], env=adb_server.env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "--eval-seed only applies" in proc.stdout + proc.stderr
