"""AndroidControl and AndroidWorld episodes for the offline reference-action track, read from small fixtures
written here in each dataset's published layout: AndroidControl's GZIP TFRecords of tf.train.Example
records, AndroidWorld's ``<task>_<instance>.pkl.gz`` episode lists (pickled with stand-ins for its
dataclasses under their real module names, which are removed again before reading, so the reader is shown
not to need AndroidWorld installed). The judge model is mocked by a local test server; Chromium renders."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import pickle
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from emukit.cli import main
from emukit.evaluate.trajectories import TrajectoryError, read_trajectories
from emukit.evaluate.trajectories.androidworld import Opaque, load_episodes
from emukit.evaluate.trajectories.tfrecord import example_bytes, records, write_records
from tests.evaluate.render_support import needs_chromium
from tests.evaluate.test_judge import JudgeServer

W, H = 360, 800


def png(shade: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (W, H), (shade, 120, 200)).save(out, format="PNG")
    return out.getvalue()


# --- AndroidControl -------------------------------------------------------------------------------------

AC_ACTIONS = [{"action_type": "open_app", "app_name": "Clock"},
              {"action_type": "click", "x": 120, "y": 640},
              {"action_type": "scroll", "direction": "down"},
              {"action_type": "input_text", "text": "07:30"},
              {"action_type": "type", "x": 50, "y": 60, "text": "alarm"},
              {"action_type": "long_press", "x": 10, "y": 20},
              {"action_type": "navigate_back"},
              {"action_type": "wait"}]


def ac_episode(episode_id: int, steps: list[dict], **overrides) -> bytes:
    n = len(steps) + 1
    features = {"episode_id": [episode_id], "goal": [b"Set an alarm for 7:30 in Clock."],
                "screenshots": [png(20 * i % 255) for i in range(n)], "screenshot_widths": [W] * n,
                "screenshot_heights": [H] * n, "accessibility_trees": [b""] * n,
                "actions": [json.dumps(a).encode() for a in steps],
                "step_instructions": [b"step"] * len(steps)}
    features.update(overrides)
    return example_bytes({k: v for k, v in features.items() if v is not None})


def test_androidcontrol_records_are_read_from_gzip_tfrecords(tmp_path):
    write_records(tmp_path / "android_control-00000-of-00020", [ac_episode(7, AC_ACTIONS)])
    write_records(tmp_path / "android_control-00001-of-00020", [ac_episode(9, AC_ACTIONS[:2])], compress=False)
    (tmp_path / "splits.json").write_text("{}")  # the split file next to the records is not a record file
    first, second = read_trajectories(tmp_path, "androidcontrol")
    assert (first.id, second.id) == ("7", "9") and first.instruction == "Set an alarm for 7:30 in Clock."
    assert len(first.screens) == 9 and isinstance(first.screens[0], bytes) and first.screen_png(8)[:4] == b"\x89PNG"
    a = first.actions
    assert (a[0].type, a[0].text) == ("open_app", "Clock")
    assert (a[1].type, a[1].x, a[1].y) == ("tap", 120, 640)
    assert (a[2].type, a[2].x, a[2].y, a[2].x2, a[2].y2) == ("swipe", 180, 400, 180, 0)  # "down": the finger moves up
    assert (a[3].type, a[3].text, a[3].x) == ("type", "07:30", None)
    assert (a[4].type, a[4].text, a[4].x, a[4].y) == ("type", "alarm", 50, 60)
    assert (a[5].type, a[6].key, a[7].type) == ("long_press", 4, "wait")
    assert len(second.actions) == 2 and read_trajectories(tmp_path, "androidcontrol", limit=1)[0].id == "7"


def _corrupt_last_byte_of_record(path: Path) -> None:
    raw = bytearray(gzip.decompress(path.read_bytes()))
    raw[-5] ^= 0xFF  # inside the data, before its checksum
    path.write_bytes(gzip.compress(bytes(raw)))


@pytest.mark.parametrize("make, message", [
    (lambda p: _corrupt_last_byte_of_record(p), "record 0: the data checksum does not match"),
    (lambda p: p.write_bytes(b"this is a CSV file, not a TFRecord\n" * 3), "record 0: the length checksum"),
    (lambda p: p.write_bytes(gzip.decompress(p.read_bytes())[:40]), "record 0 is cut short"),
    (lambda p: write_records(p, [ac_episode(1, AC_ACTIONS, actions=None)]), "feature 'actions' is missing"),
    (lambda p: write_records(p, [ac_episode(1, AC_ACTIONS, screenshots=[png(1)] * 3)]),
     r"episode 1\): 3 screenshots need 2 actions, got 8"),
    (lambda p: write_records(p, [ac_episode(1, [{"action_type": "fly"}])]), "unknown action_type 'fly'"),
    (lambda p: write_records(p, [ac_episode(1, [{"action_type": "click", "x": "left"}])]),
     r"actions\[0\]: a click action needs a number 'x'"),
    (lambda p: write_records(p, [ac_episode(1, [{"action_type": "scroll", "direction": "sideways"}])]),
     "scroll direction must be up, down, left or right"),
    (lambda p: write_records(p, [b"\xff\xff\xff"]), "not a tf.train.Example"),
])
def test_a_broken_androidcontrol_file_gives_a_clear_error(tmp_path, make, message):
    path = tmp_path / "android_control-00000-of-00020"
    write_records(path, [ac_episode(1, AC_ACTIONS)])
    make(path)
    with pytest.raises(TrajectoryError, match=message) as info:
        read_trajectories(tmp_path, "androidcontrol")
    assert "android_control-00000-of-00020" in str(info.value)


def test_an_androidcontrol_folder_without_records_is_refused(tmp_path):
    with pytest.raises(TrajectoryError, match="no android_control\\* TFRecord file"):
        read_trajectories(tmp_path, "androidcontrol")


def test_tfrecord_framing_round_trips_many_records(tmp_path):
    items = [bytes([i]) * (i * 37) for i in range(40)]
    write_records(tmp_path / "r", items)
    assert list(records(tmp_path / "r")) == items


# --- AndroidWorld ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class JSONAction:  # the fields of android_world/env/json_action.py's JSONAction
    action_type: str | None = None
    index: int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    goal_status: str | None = None
    app_name: str | None = None
    keycode: str | None = None
    clear_text: bool | None = None


@dataclasses.dataclass
class BoundingBox:  # android_world/env/representation_utils.py
    x_min: float
    x_max: float
    y_min: float
    y_max: float


@dataclasses.dataclass
class UIElement:
    text: str | None = None
    class_name: str | None = None
    bbox_pixels: BoundingBox | None = None


def shot(shade: int) -> np.ndarray:
    return np.full((H, W, 3), shade, dtype=np.uint8)


def aw_pickle(path: Path, episodes: list[dict]) -> None:
    """Pickle ``episodes`` the way AndroidWorld's checkpointer does, with the stand-in classes registered under
    AndroidWorld's module names while pickling (and only then)."""
    modules = {"android_world": [], "android_world.env": [], "android_world.env.json_action": [JSONAction],
               "android_world.env.representation_utils": [BoundingBox, UIElement]}
    saved = {}
    try:
        for name, classes in modules.items():
            module = types.ModuleType(name)
            for cls in classes:
                setattr(module, cls.__name__, cls)
                saved[cls] = (cls.__module__, cls.__qualname__)
                cls.__module__ = name
            sys.modules[name] = module
        path.write_bytes(gzip.compress(pickle.dumps(episodes)))
    finally:
        for name in modules:
            sys.modules.pop(name, None)
        for cls, (module, qualname) in saved.items():
            cls.__module__, cls.__qualname__ = module, qualname


def m3a_episode(actions: list[JSONAction | None], goal: str = "Delete the alarm.") -> dict:
    n = len(actions)
    elements = [UIElement(text="Alarm", class_name="android.widget.TextView",
                          bbox_pixels=BoundingBox(x_min=100, x_max=300, y_min=200, y_max=260)),
                UIElement(text="List", bbox_pixels=BoundingBox(x_min=0, x_max=360, y_min=300, y_max=700))]
    return {"goal": goal, "task_template": "ClockDeleteAlarm", "instance_id": 0, "is_successful": 1.0,
            "episode_length": n, "run_time": 12.5, "agent_name": "m3a_gemini_gpt", "seed": 30,
            "exception_info": None,
            "episode_data": {"raw_screenshot": [shot(10 * t) for t in range(n)],
                             "before_screenshot_with_som": [shot(255) for _ in range(n)],
                             "after_screenshot_with_som": [shot(254) for _ in range(n)],
                             "before_ui_elements": [elements] * n,
                             "action_output": ["Reason: r\nAction: {}"] * n,
                             "action_output_json": actions,
                             "summary": ["s"] * n}}


def t3a_episode() -> dict:
    outputs = ['Reason: open it\nAction: {"action_type": "open_app", "app_name": "Clock"}',
               'Reason: go\nAction: {"action_type": "click", "index": 0}',
               'Reason: the list\nAction: {"action_type": "swipe", "direction": "up"}']
    elements = [UIElement(text="Alarm", bbox_pixels=BoundingBox(x_min=0, x_max=100, y_min=0, y_max=50))]
    return {"goal": "Open the alarms.", "task_template": "ClockOpen", "instance_id": 2, "is_successful": 0.0,
            "episode_data": {"before_screenshot": [shot(1), shot(2), shot(3)],
                             "after_screenshot": [shot(2), shot(3), shot(4)],
                             "before_element_list": [elements] * 3, "action_output": outputs}}


def test_androidworld_episodes_are_read_from_run_folders(tmp_path):
    aw_pickle(tmp_path / "ClockDeleteAlarm_0.pkl.gz", [m3a_episode([
        JSONAction(action_type="click", index=0), JSONAction(action_type="scroll", index=1, direction="up"),
        JSONAction(action_type="input_text", text="7", index=0), JSONAction(action_type="keyboard_enter"),
        JSONAction(action_type="navigate_home"), JSONAction(action_type="status", goal_status="complete")])])
    aw_pickle(tmp_path / "ClockOpen_2.pkl.gz", [t3a_episode()])
    assert "android_world.env.json_action" not in sys.modules
    m3a, t3a = read_trajectories(tmp_path, "androidworld-episodes")
    assert (m3a.id, m3a.instruction, m3a.source, m3a.truncated) == ("ClockDeleteAlarm_0", "Delete the alarm.",
                                                                   "androidworld-episodes", None)
    a = m3a.actions
    assert len(a) == 5 and len(m3a.screens) == 6  # status ends it: its screen is the last one
    assert (a[0].type, a[0].x, a[0].y) == ("tap", 200, 230)  # the centre of element 0's bbox_pixels
    assert (a[1].type, a[1].x, a[1].y, a[1].x2, a[1].y2) == ("swipe", 180, 500, 180, 700)  # "up" over element 1
    assert (a[2].type, a[2].text, a[2].x, a[2].y) == ("type", "7", 200, 230)
    assert (a[3].key, a[4].key) == (66, 3)
    first = Image.open(io.BytesIO(m3a.screen_png(0)))
    assert first.size == (W, H) and first.getpixel((5, 5)) == (0, 0, 0)
    assert Image.open(io.BytesIO(m3a.screen_png(5))).getpixel((5, 5)) == (50, 50, 50)  # raw, never the SoM one
    # T3A: actions parsed from its text output; the last raw after-screenshot closes the episode
    assert [x.type for x in t3a.actions] == ["open_app", "tap", "swipe"] and len(t3a.screens) == 4
    assert (t3a.actions[1].x, t3a.actions[1].y) == (50, 25) and t3a.actions[2].y == H and t3a.actions[2].y2 == 0
    assert Image.open(io.BytesIO(t3a.screen_png(3))).getpixel((0, 0)) == (4, 4, 4)


def test_androidworld_actions_without_an_equivalent_end_the_episode_and_say_so(tmp_path):
    aw_pickle(tmp_path / "a_0.pkl.gz", [
        m3a_episode([JSONAction(action_type="click", x=5, y=6), JSONAction(action_type="double_tap", x=1, y=1),
                     JSONAction(action_type="click", x=5, y=6)]),
        m3a_episode([JSONAction(action_type="click", x=5, y=6), JSONAction(action_type="navigate_back"),
                     JSONAction(action_type="click", x=1, y=2)]),  # ran out of steps
        m3a_episode([JSONAction(action_type="navigate_back"), None])])  # the agent's output did not parse
    cut, ran_out, invalid = read_trajectories(tmp_path, "androidworld-episodes")
    assert len(cut.actions) == 1 and len(cut.screens) == 2
    assert cut.truncated == "step 1: action_type 'double_tap' has no emukit equivalent"
    assert len(ran_out.actions) == 2 and len(ran_out.screens) == 3 and "last raw screen" in ran_out.truncated
    assert len(invalid.actions) == 1 and invalid.truncated == "step 1: the agent produced no valid action"


class _Hostile:
    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))

    def __init__(self, marker: Path) -> None:
        self.marker = marker


def test_a_hostile_pickle_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    doc = [{"goal": _Hostile(marker), "episode_data": {"raw_screenshot": [shot(1)], "action_output_json": [None]}}]
    path = tmp_path / "evil_0.pkl.gz"
    path.write_bytes(gzip.compress(pickle.dumps(doc)))
    loaded = load_episodes(path)
    assert not marker.exists()
    goal = loaded[0]["goal"]
    assert isinstance(goal, Opaque) and goal._qualname.endswith(".system") and goal._args == (f"touch {marker}",)
    evil = pickle.dumps([__import__("builtins").eval])  # a bare global is only named, never resolved
    path.write_bytes(gzip.compress(evil))
    assert isinstance(load_episodes(path)[0], type) and not marker.exists()


@pytest.mark.parametrize("content, message", [
    (b"not gzip at all", "not a GZIP file"),
    (gzip.compress(b"\x80\x05garbage"), "not a readable pickle"),
    (gzip.compress(pickle.dumps("a string")), "expected a list of episode dicts, got str"),
    (gzip.compress(pickle.dumps([{"goal": "g", "episode_data": {}, "exception_info": "adb died"}])),
     "episode_data .* is missing or empty .*adb died"),
    (gzip.compress(pickle.dumps([{"episode_data": {"summary": ["s"]}}])), "neither raw_screenshot"),
    (gzip.compress(pickle.dumps([{"episode_data": {"raw_screenshot": [shot(1), shot(2)], "action_output_json":
                                                   [{"action_type": "click", "index": 4}] * 2,
                                                   "before_ui_elements": [[], []]}}])),
     "step 0: index 4 names no element"),
], ids=["not-gzip", "not-a-pickle", "not-a-list", "no-episode-data", "no-screenshot", "unknown-index"])
def test_a_broken_androidworld_file_gives_a_clear_error(tmp_path, content, message):
    (tmp_path / "Task_0.pkl.gz").write_bytes(content)
    with pytest.raises(TrajectoryError, match=message) as info:
        read_trajectories(tmp_path, "androidworld-episodes")
    assert "Task_0.pkl.gz" in str(info.value)


def test_a_folder_without_episode_files_is_refused(tmp_path):
    (tmp_path / "results.csv").write_text("task,success\n")
    with pytest.raises(TrajectoryError, match="no \\*.pkl.gz episode file"):
        read_trajectories(tmp_path, "androidworld-episodes")


# --- end to end ------------------------------------------------------------------------------------------

@needs_chromium
def test_both_datasets_roll_out_and_score_through_the_cli(tmp_path, capsys):
    ac, aw = tmp_path / "ac", tmp_path / "aw"
    ac.mkdir()
    aw.mkdir()
    write_records(ac / "android_control-00000-of-00020", [ac_episode(3, AC_ACTIONS[:3])])
    aw_pickle(aw / "ClockOpen_2.pkl.gz", [t3a_episode()])

    def answer(body):  # the judge finds the tap unsupported
        if body["metadata"]["emukit_rubric"] == "gui-cc-rap" and "1. tap" in body["messages"][1]["content"][0]["text"]:
            return {"S_rap": {"C1": 1, "C2": 0, "C3": 1}, "reason": "nothing opened"}
        return None

    judge = JudgeServer(answer=answer)
    try:
        results = {}
        for folder, fmt, option in ((ac, "androidcontrol", "--format"),  # the layout may be named by --format
                                    (aw, "androidworld-episodes", "--trajectory-format")):
            out = tmp_path / f"out-{fmt}"
            code = main(["evaluate", "--trajectories", str(folder), option, fmt, "--model",
                         "ref:copy-current", "--judge", judge.spec, "--out", str(out), "--quiet"])
            assert code == 0, capsys.readouterr()
            results[fmt] = json.loads((out / "trajectory-results.json").read_text())
    finally:
        judge.close()
    (ep,) = results["androidcontrol"]["trajectories"]
    assert ep["source"] == "androidcontrol" and ep["reference_actions"] == 3 and ep["steps_run"] == 3
    assert ep["passed"] == [True, False, True] and ep["reference_action_progress"] == pytest.approx(1 / 3)
    assert results["androidcontrol"]["config"]["trajectory_formats"] == ["androidcontrol"]
    assert results["androidcontrol"]["config"]["format"] == "code2world"
    (ep,) = results["androidworld-episodes"]["trajectories"]
    assert ep["id"] == "ClockOpen_2" and ep["passed"] == [True, False, True] and ep["truncated"] is None
    rap = [b for b in judge.bodies if b["metadata"]["emukit_rubric"] == "gui-cc-rap"]
    assert any("open app 'Clock'" in b["messages"][1]["content"][0]["text"] for b in rap)


@pytest.mark.parametrize("args, message", [
    (["--format", "androidcontrol", "--pairs", "x", "--condition", "observation"],
     "--format androidcontrol is a dataset layout: give it with --trajectories DIR"),
    (["--trajectories", ".", "--format", "androidcontrol", "--trajectory-format", "guiodyssey"],
     "--format androidcontrol and --trajectory-format guiodyssey disagree"),
])
def test_a_dataset_layout_in_the_wrong_place_is_refused(args, message, capsys):
    assert main(["evaluate", "--model", "ref:copy-current", *args]) == 2
    assert message in capsys.readouterr().err
