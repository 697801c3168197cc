"""The offline reference-action track on external trajectories: GUIOdyssey's published layout (small
fixtures written here in that layout), the autoregressive rollout in real Chromium, reference-action
progress from the judge's gui-cc-rap verdicts (judge model mocked by a local test server), and clear errors
for a missing file or an unknown layout."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from emukit.cli import main
from emukit.evaluate.trajectories import TrajectoryError, read_trajectories
from tests.evaluate.render_support import needs_chromium
from tests.evaluate.test_judge import JudgeServer


def png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (360, 800), color).save(out, format="PNG")
    return out.getvalue()


def write_episode(root: Path, episode: str, steps: list[tuple[str, object]]) -> None:
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    (root / "screenshots").mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (action, info) in enumerate(steps):
        name = f"{episode}_{i}.png"
        (root / "screenshots" / name).write_bytes(png((30 * i % 255, 120, 200)))
        rows.append({"step": i, "screenshot": name, "action": action, "info": info, "ps": ""})
    doc = {"episode_id": episode, "device_info": {"product": "sdk_gphone64", "release_version": "14",
                                                  "sdk_version": "34", "w": 1080, "h": 2400,
                                                  "device_name": "Medium Phone"},
           "task_info": {"category": "General_Tool", "app": ["Settings"], "meta_task": "Open {}.",
                         "task": "Open Wi-Fi.", "instruction": "Open the Wi-Fi settings in Settings."},
           "step_length": len(rows), "steps": rows}
    (root / "annotations" / f"{episode}.json").write_text(json.dumps(doc))


STEPS = [("CLICK", [[500, 250]]), ("TYPE", "wifi"), ("SCROLL", [[500, 800], [500, 200]]), ("CLICK", "BACK"),
         ("COMPLETE", "")]


def test_guiodyssey_episodes_are_read_in_their_published_layout(tmp_path):
    write_episode(tmp_path / "data", "ep_b", STEPS)
    write_episode(tmp_path / "data", "ep_a", [("LONG_PRESS", [[100, 100]]), ("HOME", ""), ("IMPOSSIBLE", "")])
    trajs = read_trajectories(tmp_path, "guiodyssey")
    assert [t.id for t in trajs] == ["ep_a", "ep_b"]
    a, b = trajs
    assert a.instruction == "Open the Wi-Fi settings in Settings." and len(a.screens) == 3
    assert [x.type for x in a.actions] == ["long_press", "key"] and a.actions[1].key == 3
    assert (b.actions[0].x, b.actions[0].y) == (540, 600)  # [0, 1000] of the 1080x2400 screen
    assert b.actions[1].text == "wifi" and b.actions[2].type == "swipe" and (b.actions[2].y, b.actions[2].y2) == (1920, 480)
    assert b.actions[3].key == 4 and len(b.screens) == len(b.actions) + 1
    assert read_trajectories(tmp_path, "guiodyssey", limit=1)[0].id == "ep_a"


@pytest.mark.parametrize("mutate, message", [
    (lambda root: (root / "screenshots" / "ep_1.png").unlink(), "ep_1.png does not exist"),
    (lambda root: (root / "annotations" / "ep.json").write_text("{"), "not readable JSON"),
    (lambda root: (root / "annotations" / "ep.json").write_text(json.dumps({"steps": []})), "device_info.w"),
    (lambda root: (root / "annotations" / "ep.json").write_text(json.dumps(
        {"device_info": {"w": 1, "h": 1}, "steps": [{"step": 0, "screenshot": "ep_0.png", "action": "FLY"},
                                                    {"step": 1, "screenshot": "ep_1.png", "action": "COMPLETE"}]})),
     "unknown action 'FLY'"),
    (lambda root: __import__("shutil").rmtree(root / "screenshots"), "screenshots: missing"),
])
def test_a_broken_dataset_gives_a_clear_error(tmp_path, mutate, message):
    write_episode(tmp_path, "ep", STEPS)
    mutate(tmp_path)
    with pytest.raises(TrajectoryError, match=message):
        read_trajectories(tmp_path, "guiodyssey")


def test_an_unknown_format_or_folder_is_refused(tmp_path):
    with pytest.raises(TrajectoryError, match="unknown trajectory format 'rico'; known: androidcontrol, "
                                              "androidworld-episodes, guiodyssey"):
        read_trajectories(tmp_path, "rico")
    with pytest.raises(TrajectoryError, match="not a folder"):
        read_trajectories(tmp_path / "nothing", "guiodyssey")


@needs_chromium
def test_reference_action_progress_is_the_longest_supported_prefix(tmp_path, capsys):
    write_episode(tmp_path, "ep", STEPS)

    def answer(body):  # the judge finds step 3 (the scroll) unsupported
        if body["metadata"]["emukit_rubric"] == "gui-cc-rap" and "1. swipe" in body["messages"][1]["content"][0]["text"]:
            return {"S_rap": {"C1": 1, "C2": 0, "C3": 1}, "reason": "no scroll effect"}
        return None

    judge = JudgeServer(answer=answer)
    out = tmp_path / "out"
    try:
        code = main(["evaluate", "--trajectories", str(tmp_path), "--trajectory-format", "guiodyssey",
                     "--model", "ref:copy-current", "--judge", judge.spec, "--out", str(out), "--quiet"])
    finally:
        judge.close()
    assert code == 0, capsys.readouterr()
    doc = json.loads((out / "trajectory-results.json").read_text())
    (ep,) = doc["trajectories"]
    assert ep["reference_actions"] == 4 and ep["steps_run"] == 4
    assert ep["passed"] == [True, True, False, True] and ep["prefix"] == 2
    assert ep["reference_action_progress"] == 0.5 and doc["summary"]["reference_action_progress"] == 0.5
    assert ep["judge"]["S_cp"] == pytest.approx(0.8) and ep["judge"]["S_ad"] == pytest.approx(0.6)
    assert doc["summary"]["judge"]["S_cp"] == pytest.approx(0.8)  # the registered judge metric, one trajectory
    assert list(doc["by_source"]) == ["guiodyssey"]  # the same reducer per source
    assert doc["by_source"]["guiodyssey"] == doc["summary"]
    rap = next(b for b in judge.bodies if b["metadata"]["emukit_rubric"] == "gui-cc-rap")
    assert sum(1 for part in rap["messages"][1]["content"] if part["type"] == "image_url") == 4
    assert doc["config"]["judge"]["model"] == "judge-vl-test"
    assert "reference-action progress 50.0% (3/4 steps supported)" in capsys.readouterr().out


def test_the_trajectory_track_needs_a_judge(tmp_path, capsys):
    write_episode(tmp_path, "ep", STEPS)
    code = main(["evaluate", "--trajectories", str(tmp_path), "--model", "ref:copy-current", "--out",
                 str(tmp_path / "out")])
    assert code == 2 and "give --judge" in capsys.readouterr().out
