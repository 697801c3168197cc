"""The transparent baseline predictive-state estimator: hand-written histories per family, and the
fixture pairs (real virtual-device captures), read from actions and hierarchy text only."""

from __future__ import annotations

from pathlib import Path

import pytest

from emukit.actions import Action, Element
from emukit.errors import ConfigError
from emukit.evaluate.estimator import BaselineEstimator, StateEstimator, load_estimator
from emukit.evaluate.pairs import load_export
from emukit.evaluate.run import estimator_task

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pairs"
EST = BaselineEstimator()


def xml(*nodes: tuple[str, tuple[int, int, int, int]], rid: str = "") -> str:
    body = "".join(f'<node text="{t}" resource-id="{rid}" content-desc="" bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]"/>'
                   for t, b in nodes)
    return f'<?xml version="1.0"?><hierarchy rotation="0">{body}</hierarchy>'


def tap(text: str = "", desc: str = "", x: int = 10, y: int = 10, wait_ms: int | None = None) -> Action:
    return Action(type="tap", x=x, y=y, wait_ms=wait_ms, element=Element(text=text, content_desc=desc, cls="Button"))


TASK = {"source": "/storage/emulated/0/Documents/a.pdf", "destination": "/storage/emulated/0/Download/Receipts/a.pdf",
        "artifact": "a.pdf"}


def persistent(confirm: str, op: str = "Move to\u2026", target: str = "a.pdf", folder: str = "Receipts") -> dict:
    history = [(xml(("a.pdf", (0, 500, 1080, 600))), Action(type="long_press", x=500, y=550,
                                                            element=Element(text=target))),
               (xml(), tap(desc="More options")), (xml(), tap(op)),
               (xml((folder, (0, 100, 1080, 200))), tap(confirm))]
    return EST.estimate("persistent", history, xml(), task=TASK)


def test_persistent_rules():
    assert persistent("Move") == {"source_exists": False, "destination_exists": True}
    assert persistent("Copy", op="Copy to\u2026") == {"source_exists": True, "destination_exists": True}
    assert persistent("Cancel") == {"source_exists": True, "destination_exists": False}
    # a decoy file or another destination folder does not touch the tracked artifact
    assert persistent("Move", target="decoy.txt") == {"source_exists": True, "destination_exists": False}
    assert persistent("Move", folder="Travel") == {"source_exists": True, "destination_exists": False}
    delete = [(xml(("a.pdf", (0, 500, 1080, 600)), ("Files in Documents", (0, 300, 1080, 400))),
               Action(type="long_press", x=500, y=550, element=Element(text="a.pdf"))),
              (xml(("Files in Documents", (0, 300, 1080, 400))), tap(desc="Delete")),
              (xml(("Files in Documents", (0, 300, 1080, 400)), ("Delete &quot;a.pdf&quot;?", (0, 900, 1080, 1000))),
               tap("Delete"))]
    assert EST.estimate("persistent", delete, xml(), task=TASK) == {"source_exists": False, "destination_exists": False}
    elsewhere = delete[:-1] + [(delete[-1][0].replace("Files in Documents", "Files in Travel"), tap("OK"))]
    assert EST.estimate("persistent", elsewhere, xml(), task=TASK)["source_exists"] is True


def test_clipboard_rules():
    line = Action(type="long_press", x=100, y=300, element=Element(text="K7mP2291"))
    assert EST.estimate("clipboard", [(xml(), line), (xml(), tap("Copy"))], xml()) == {
        "clipboard_type": "text", "clipboard_text": "K7mP2291"}
    cancelled = [(xml(), line), (xml(), Action(type="key", key=4)), (xml(), tap("Copy"))]
    assert EST.estimate("clipboard", cancelled, xml()) == {"clipboard_type": "empty", "clipboard_text": ""}
    overwrite = [(xml(), line), (xml(), tap("Copy")),
                 (xml(), Action(type="long_press", x=1, y=1, element=Element(text="zeta1180"))), (xml(), tap("Copy"))]
    assert EST.estimate("clipboard", overwrite, xml())["clipboard_text"] == "zeta1180"
    typed = [(xml(), Action(type="type", text="hello there")), (xml(), Action(type="long_press", x=1, y=1,
                                                                              element=Element(cls="EditText"))),
             (xml(), tap("Select all")), (xml(), tap("Copy"))]
    assert EST.estimate("clipboard", typed, xml())["clipboard_text"] == "hello there"


def window(package: str) -> str:
    """A screen of ``package``: one full-screen node of that app's window."""
    return (f'<?xml version="1.0"?><hierarchy rotation="0"><node text="" resource-id="" content-desc="" '
            f'package="{package}" bounds="[0,0][1080,2400]"/></hierarchy>')


def test_clipboard_rules_read_the_tables_marks_not_the_label():
    """A "Copy" that copies a file (DocumentsUI's "Copy to…" and its picker's Copy button, marked
    ``clipboard: none`` in its table) is not a clipboard copy; the framework text toolbar's Copy in Markor
    (``clipboard: copy``) is. An unmarked app falls back on the label."""
    files, markor = window("com.google.android.documentsui"), window("net.gsantner.markor")
    row = Action(type="long_press", x=500, y=550, element=Element(text="a.pdf", bounds=(0, 500, 1080, 600)))
    copy_file = [(files, row), (files, tap(desc="More options")),
                 (files, Action(type="tap", x=500, y=700, element=Element(text="Copy to\u2026",
                                                                          bounds=(0, 650, 1080, 750)))),
                 (files, Action(type="tap", x=900, y=2200, element=Element(
                     text="Copy", resource_id="android:id/button1", cls="Button", bounds=(800, 2150, 1000, 2250))))]
    assert EST.estimate("clipboard", copy_file, files) == {"clipboard_type": "empty", "clipboard_text": ""}
    # the long press selected the file; "Copy to…" ended that selection, so a later label-only Copy has nothing
    assert EST.estimate("clipboard", copy_file[:3] + [(files, tap("Copy"))], files)["clipboard_text"] == ""
    word = Action(type="long_press", x=100, y=300, element=Element(text="K7mP2291", bounds=(0, 250, 400, 350)))
    toolbar_copy = Action(type="tap", x=200, y=200, element=Element(content_desc="Copy", bounds=(100, 150, 300, 250)))
    assert EST.estimate("clipboard", [(markor, word), (markor, toolbar_copy)], markor)["clipboard_text"] == "K7mP2291"
    other = window("org.example.unknown")
    assert EST.estimate("clipboard", [(other, word), (other, toolbar_copy)], other)["clipboard_text"] == "K7mP2291"
    # Tasks.org: a long press selects a task row, the action bar's "Copy" (copy_tasks) duplicates the task
    tasks = window("org.tasks")
    task_row = Action(type="long_press", x=500, y=400, element=Element(text="Buy milk", bounds=(0, 350, 1080, 450)))
    duplicate = Action(type="tap", x=800, y=100, element=Element(content_desc="Copy", resource_id="org.tasks:id/copy_tasks",
                                                                 bounds=(750, 50, 850, 150)))
    assert EST.estimate("clipboard", [(tasks, task_row), (tasks, duplicate)], tasks)["clipboard_type"] == "empty"
    # ... its text toolbar's Copy in the title field is a copy
    assert EST.estimate("clipboard", [(tasks, task_row), (tasks, toolbar_copy)], tasks)["clipboard_text"] == "Buy milk"
    # SMS Messenger: a bubble long-pressed, the selection bar's "Copy to clipboard" (a label no rule knew)
    sms = window("com.simplemobiletools.smsmessenger")
    bubble = Action(type="long_press", x=500, y=900, element=Element(text="Gate 14B", bounds=(0, 850, 1080, 950)))
    cab_copy = Action(type="tap", x=700, y=100, element=Element(
        content_desc="Copy to clipboard", resource_id="com.simplemobiletools.smsmessenger:id/cab_copy_to_clipboard",
        bounds=(650, 50, 750, 150)))
    assert EST.estimate("clipboard", [(sms, bubble), (sms, cab_copy)], sms)["clipboard_text"] == "Gate 14B"


def test_ordered_rules_keep_insertion_order_and_apply_drags():
    def add(song: str, y: int) -> list:
        rows = xml((song, (200, y - 40, 900, y + 40)))
        return [(rows, tap(desc="More options", x=1000, y=y)), (xml(), tap("Add to playlist")), (xml(), tap("Mix"))]

    history = add("Juniper", 600) + add("Daybreak", 800) + add("Copper Sky", 1000)
    assert EST.estimate("ordered", history, xml(), task={"playlist": "Mix"}) == {
        "collection_type": "playlist", "ordered_items": ["Juniper", "Daybreak", "Copper Sky"]}
    listing = xml(("Juniper", (200, 300, 900, 400)), ("Daybreak", (200, 500, 900, 600)),
                  ("Copper Sky", (200, 700, 900, 800)))
    drag = Action(type="drag", x=60, y=750, x2=60, y2=350)
    out = EST.estimate("ordered", history + [(listing, drag)], xml(), task={"playlist": "Mix"})
    assert out["ordered_items"] == ["Copper Sky", "Juniper", "Daybreak"]
    queue = [(xml(("Lowland", (200, 560, 900, 640))), tap(desc="More options", y=600)),
             (xml(), tap("Add to playing queue"))]
    assert EST.estimate("ordered", queue, xml(), task={"collection_type": "playing_queue"}) == {
        "collection_type": "playing_queue", "ordered_items": ["Lowland"]}


def test_temporal_rules_follow_logical_time():
    keypad = xml(("5", (0, 0, 10, 10)), rid="com.google.android.deskclock:id/timer_setup_digit_5")
    start = [(keypad, tap("5")), (keypad, tap("0")), (keypad, tap("0")), (keypad, tap(desc="Start"))]
    assert EST.estimate("temporal", start, xml()) == {"timer_active": True, "remaining_seconds": 300}
    waited = start + [(xml(), Action(type="wait", duration_ms=61_000)), (xml(), tap(desc="Pause", wait_ms=9_000))]
    assert EST.estimate("temporal", waited, xml()) == {"timer_active": False, "remaining_seconds": 230}
    resumed = waited + [(xml(), tap(desc="Resume", wait_ms=100_000)), (xml(), Action(type="wait", duration_ms=30_000))]
    assert EST.estimate("temporal", resumed, xml()) == {"timer_active": True, "remaining_seconds": 200}
    expired = start + [(xml(), Action(type="wait", duration_ms=400_000))]
    assert EST.estimate("temporal", expired, xml()) == {"timer_active": False, "remaining_seconds": 0}
    deleted = start + [(xml(), tap(desc="Delete"))]
    assert EST.estimate("temporal", deleted, xml()) == {"timer_active": False, "remaining_seconds": 0}
    assert EST.estimate("temporal", [], xml()) == {"timer_active": False, "remaining_seconds": 0}


def test_temporal_rules_leave_the_timer_alone_on_the_stopwatch_tab(tmp_path):
    """The Stopwatch tab's Start / Pause / Reset look like the timer's (same ids and content descriptions): read
    on the virtual Clock's real screens, a tap on the Stopwatch tab changes nothing of the timer, and the same
    tap on the Timer tab still does. (An in-process virtual device: only its hierarchies are needed.)"""
    from emukit.evaluate.baseline.temporal import on_stopwatch
    from emukit.vdevice.device import VirtualDevice

    device = VirtualDevice(tmp_path / "dev", wipe=True)
    screens = {}
    for name in device.apps["com.google.android.deskclock"].gallery_scenes(device):
        screens.setdefault(name, device.hierarchy_xml())
    stopwatch = screens["Stopwatch"]
    timer_screens = [x for n, x in screens.items() if "timer" in n.lower() or "keypad" in n.lower()]
    assert on_stopwatch(stopwatch) and timer_screens and not any(on_stopwatch(x) for x in timer_screens)
    keypad = xml(("5", (0, 0, 10, 10)), rid="com.google.android.deskclock:id/timer_setup_digit_5")
    start = [(keypad, tap("5")), (keypad, tap("0")), (keypad, tap("0")), (keypad, tap(desc="Start"))]
    on_watch = start + [(stopwatch, tap(desc="Pause", wait_ms=10_000)), (stopwatch, tap(desc="Reset")),
                        (stopwatch, tap(desc="Start"))]
    assert EST.estimate("temporal", on_watch, stopwatch) == {"timer_active": True, "remaining_seconds": 290}
    on_timer = start + [(timer_screens[0], tap(desc="Pause", wait_ms=10_000))]
    assert EST.estimate("temporal", on_timer, xml()) == {"timer_active": False, "remaining_seconds": 290}


def test_fixture_pairs_are_recovered_from_model_visible_history_only():
    pairs = list(load_export(FIXTURE))
    assert {p.family for p in pairs} == {"persistent", "clipboard", "ordered", "temporal"}
    for pair in pairs:
        for branch in pair.branches.values():
            history = [(obs.xml(), act) for obs, act in branch.history]
            got = EST.estimate(pair.family, history, branch.boundary.xml(), task=estimator_task(pair))
            assert got == branch.state, (pair.pair_id, branch.name)


def test_estimator_task_carries_no_branch_information():
    for pair in load_export(FIXTURE):
        task = estimator_task(pair)
        for branch in pair.branches.values():
            secret = branch.state.get("clipboard_text") or branch.state.get("ordered_items")
            if secret:  # the clipboard payload / the item order never leak into the task context
                assert str(secret) not in str(task)


class Constant(StateEstimator):
    name = "constant"

    def estimate(self, family, history, final_observation, *, task=None):
        return {"clipboard_type": "empty", "clipboard_text": ""}


def test_load_estimator_plugs_in_other_implementations():
    assert isinstance(load_estimator("baseline"), BaselineEstimator)
    assert isinstance(load_estimator("tests.evaluate.test_estimator:Constant"), Constant)
    with pytest.raises(ConfigError):
        load_estimator("not-a-spec")
    with pytest.raises(ConfigError):
        EST.estimate("weather", [], "")
