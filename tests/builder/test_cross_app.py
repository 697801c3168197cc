"""The cross-application suite (seed 002 Appendix F.2) for the Persistent Artifact, Ordered Collection and Temporal
Deadline families: persistent histories realised in Markor and ending in Markor's query context; ordered / temporal
state produced in Retro Music / the Clock with the final neutral observation in another app. Built on the virtual
device behind the real adb server."""

from __future__ import annotations

import argparse
import io
import re
from collections import Counter

from rich.console import Console

from emukit.apps.selectors import table
from emukit.builder.stress import (
    CROSS_APP_CLIPBOARD_APPS,
    CROSS_APP_CLIPBOARD_ROUTES,
    CROSS_APP_SINKS,
    SUITES,
    SuiteOptions,
    SuiteRunner,
    collection_type,
    persistent_operation,
    plan,
    producer_app,
    read_suite,
    suite_dir,
)
from emukit.commands.build import SUITES as SUITE_CHOICES
from emukit.commands.suite import run_suite
from emukit.nightly.config import SUITES as NIGHTLY_SUITES
from emukit.nightly.config import Suite as NightlySuite
from emukit.templates import load_templates

PACKAGES_ALL = {"sms": "com.simplemobiletools.smsmessenger", "chrome": "com.android.chrome", "tasks": "org.tasks",
                "joplin": "net.cozic.joplin", "calendar": "com.simplemobiletools.calendar.pro",
                "broccoli": "com.flauschcode.broccoli"}
PACKAGES = {"tasks": "org.tasks", "joplin": "net.cozic.joplin", "calendar": "com.simplemobiletools.calendar.pro",
            "broccoli": "com.flauschcode.broccoli"}


def _cross_app_args(serial: str, data, family: str, count: int) -> argparse.Namespace:
    """``emukit build-pairs --suite cross-app --family F --count N --device SERIAL --data-dir DATA`` as parsed."""
    return argparse.Namespace(suite="cross-app", family=family, template=None, count=count, seed=0, data_dir=data,
                              db=None, devices=None, device=[serial], max_attempts=2, quiet=True)


def test_the_plan_follows_f2():
    """Per 200: persistent 67 Copy / 67 Move / 66 Delete trajectories in Markor (no other host), ordered 80
    playing-queue / 120 playlist trajectories, each of the four sinks 50 per ordered / temporal family and an
    equal share of every template; clipboard: F.2's 12 directed routes between six apps, 16 or 17 each; the other
    host variants and the primary clipboard templates (Markor) are not taken."""
    templates = load_templates(variants=True)
    items = plan("cross-app", templates, 200)
    assert Counter(i.template.family for i in items) == {"persistent": 200, "clipboard": 200, "ordered": 200,
                                                         "temporal": 200}
    assert all(i.depth == 0 and i.level is None for i in items)
    persistent = [i for i in items if i.template.family == "persistent"]
    assert all(i.template.variant is not None and i.template.variant.app == "notes" and i.sink == "notes"
               for i in persistent)
    assert Counter(persistent_operation(i.template) for i in persistent) == {"copy": 67, "move": 67, "delete": 66}
    assert all(i.template.variant is None for i in items if i.template.family in ("ordered", "temporal"))
    clipboard = [(producer_app(i.template), i.sink) for i in items if i.template.family == "clipboard"]
    routes = Counter(clipboard)
    assert set(routes) == set(CROSS_APP_CLIPBOARD_ROUTES) and len(routes) == 12
    assert sorted(routes.values()) == [16] * 4 + [17] * 8 and all(src != sink for src, sink in routes)
    for app in CROSS_APP_CLIPBOARD_APPS:  # each app the source of two routes and the sink of two
        assert sum(src == app for src, _ in routes) == 2 and sum(sink == app for _, sink in routes) == 2
    assert Counter(persistent_operation(i.template) for i in plan("cross-app", templates, 40)
                   if i.template.family == "persistent") == {"copy": 14, "move": 13, "delete": 13}
    ordered = [i for i in items if i.template.family == "ordered"]
    assert Counter(collection_type(i.template) for i in ordered) == {"playing_queue": 80, "playlist": 120}
    for family in ("ordered", "temporal"):
        assert Counter(i.sink for i in items if i.template.family == family) == {s: 50 for s in CROSS_APP_SINKS}
    per_template = Counter((i.template.name, i.sink) for i in items)
    for name in {i.template.name for i in items if i.template.family in ("ordered", "temporal")}:
        shares = [per_template[(name, s)] for s in CROSS_APP_SINKS]
        assert max(shares) - min(shares) <= 1, (name, shares)
    small = plan("cross-app", templates, 5)  # largest remainder keeps the 2 : 3 split
    assert Counter(collection_type(i.template) for i in small if i.template.family == "ordered") == \
        {"playing_queue": 2, "playlist": 3}
    assert SUITE_CHOICES == SUITES and NIGHTLY_SUITES == SUITES
    assert NightlySuite(name="cross-app", count=40).name == "cross-app"  # a step of emukit nightly


def test_every_family_has_its_routes(tmp_path):
    runner = SuiteRunner(SuiteOptions(suite="cross-app", templates=load_templates(variants=True),
                                      count_per_family=4, data_dir=tmp_path))
    assert runner.unsupported == []
    assert {i.template.family for i in runner.items} == {"persistent", "clipboard", "ordered", "temporal"}
    assert {i.template.variant.app for i in runner.items if i.template.variant} <= {"notes", *CROSS_APP_CLIPBOARD_APPS}


def test_trajectories_end_in_the_sink_and_keep_the_state(vdevice, adb_server, tmp_path):
    """Each trajectory: the template's setting steps in the producing app, HOME, the sink opened from All apps;
    validated on the device (the state at the boundary is the state after the setting steps and the expected one,
    the boundary is stable, the sink is in front); stored with its route; a second run resumes (builds nothing).
    It must build on a device: the validation, the route's builds and the sink's screen are read on one (the
    session's shared virtual device behind the real adb server; nothing is mocked)."""
    data = tmp_path / "data"
    args = _cross_app_args(vdevice.serial, data, "all", 4)
    console = Console(file=io.StringIO(), width=200)
    assert run_suite(args, console) == 0, console.file.getvalue()
    assert "not built by this suite" not in console.file.getvalue()
    rows = read_suite(data, "cross-app", "ordered") + read_suite(data, "cross-app", "temporal")
    assert len(rows) == 8
    assert Counter(r["route"]["sink"] for r in rows) == {s: 2 for s in CROSS_APP_SINKS}
    assert {r["template"] for r in read_suite(data, "cross-app", "persistent")} == {
        "markor_copy_twin", "markor_move_twin", "markor_delete_twin"}
    root = suite_dir(data, "cross-app")
    for row in rows:
        assert row["route"]["producer"] == {"ordered": "music", "temporal": "clock"}[row["family"]]
        # the builds the row was made with, read on the device: the sink's is the build its table pins
        sink_pkg = PACKAGES[row["route"]["sink"]]
        assert row["route"]["builds"][sink_pkg]["app"] == row["route"]["sink"]
        assert row["route"]["builds"][sink_pkg]["version_code"] == table(sink_pkg).build.version_code
        assert len(row["route"]["builds"]) == 2
        # where the row was built: the device's kind and build, and every app it touched (the route's two)
        built_on = row["built_on"]
        assert built_on["kind"] == "virtual-deterministic" and built_on["api_level"] == 34
        assert set(row["route"]["builds"]) <= set(built_on["apps"])
        assert built_on["apps"][sink_pkg]["version_code"] == row["route"]["builds"][sink_pkg]["version_code"]
        assert row["validation"]["sink_in_front"] and all(row["validation"].values())
        assert row["target"] == row["state_after_setting"] and row["d"] == 0 and row["segment"]["length"] == 0
        # the way out and in, as a person goes: HOME (KEYCODE_HOME), swipe up to All apps, tap the sink's icon
        actions = [s["action"] for s in row["history"]]
        assert actions[-3] == {"type": "key", "key": 3} and actions[-2]["type"] == "swipe", actions[-3:]
        assert actions[-1]["type"] == "tap" and actions[-1]["element"].startswith("TextView"), actions[-1]
        xml = (root / row["final_observation"]["hierarchy"]).read_text()
        assert f'package="{PACKAGES[row["route"]["sink"]]}"' in xml
    assert run_suite(args, Console(file=io.StringIO())) == 0
    assert len(read_suite(data, "cross-app", "ordered")) + len(read_suite(data, "cross-app", "temporal")) == 8
    assert len(read_suite(data, "cross-app", "clipboard")) == 4


def test_persistent_histories_run_in_markor_and_end_in_its_query_context(vdevice, adb_server, tmp_path):
    """F.2's persistent route: Copy, Move and Delete realised through Markor's selection mode, overflow and folder
    dialog (never the Files app), ending on Markor's notebook list, from which the tracked folder is opened; the
    state at the boundary is the expected one. On a device: the operations, the file-system probe and the
    boundary are read there (the session's shared virtual device; nothing is mocked)."""
    data = tmp_path / "data"
    args = _cross_app_args(vdevice.serial, data, "persistent", 3)
    console = Console(file=io.StringIO(), width=200)
    assert run_suite(args, console) == 0, console.file.getvalue()
    rows = read_suite(data, "cross-app", "persistent")
    assert sorted(r["template"] for r in rows) == ["markor_copy_twin", "markor_delete_twin", "markor_move_twin"]
    root = suite_dir(data, "cross-app")
    expected = {"markor_copy_twin": {"source_exists": True, "destination_exists": True},
                "markor_move_twin": {"source_exists": False, "destination_exists": True},
                "markor_delete_twin": {"source_exists": False, "destination_exists": False}}
    for row in rows:
        assert row["target"] == expected[row["template"]] and all(row["validation"].values())
        assert row["route"]["producer"] == row["route"]["sink"] == "notes"
        assert list(row["route"]["builds"]) == ["net.gsantner.markor"]
        packages = {p for s in row["history"]
                    for p in re.findall(r'package="([^"]+)"', (root / s["observation"]["hierarchy"]).read_text())}
        assert "com.google.android.documentsui" not in packages and "net.gsantner.markor" in packages
        xml = (root / row["final_observation"]["hierarchy"]).read_text()
        notes = table("net.gsantner.markor")
        assert notes.rid("fab_new") in xml and 'content-desc="Folder .. /storage/emulated/0/Documents"' in xml
        if row["template"] != "markor_delete_twin":  # Copy / Move went through the folder dialog
            assert any(notes.rid("folder_dialog_ok") in (root / s["observation"]["hierarchy"]).read_text()
                       for s in row["history"])


def test_clipboard_routes_copy_in_the_source_and_end_in_the_sinks_paste_context(vdevice, adb_server, tmp_path):
    """All 12 of F.2's clipboard routes once: the payload is copied in the route's source app (the clipboard did
    not hold it before, did right after, with the source in front), then HOME, the sink from All apps and the
    sink's own paste context (a text field with the toolbar's Paste); the target is the payload, read from the
    clipboard at the boundary. On a device: the copies, the clipboard (gRPC) and the screens are read there (the
    session's shared virtual device; nothing is mocked)."""
    data = tmp_path / "data"
    args = _cross_app_args(vdevice.serial, data, "clipboard", 12)
    console = Console(file=io.StringIO(), width=200)
    assert run_suite(args, console) == 0, console.file.getvalue()
    rows = read_suite(data, "cross-app", "clipboard")
    assert {(r["route"]["producer"], r["route"]["sink"]) for r in rows} == set(CROSS_APP_CLIPBOARD_ROUTES)
    root = suite_dir(data, "cross-app")
    for row in rows:
        src, sink = row["route"]["producer"], row["route"]["sink"]
        assert row["template"] == f"{src}_copy_source"
        assert row["validation"]["payload_via_source"] and row["validation"]["sink_query_context"]
        assert all(row["validation"].values())
        assert row["target"] == {"clipboard_type": "text", "clipboard_text": row["params"]["p"][0]}
        packages = {PACKAGES_ALL[src], PACKAGES_ALL[sink]}
        assert set(row["route"]["builds"]) == packages
        xml = (root / row["final_observation"]["hierarchy"]).read_text()
        assert f'package="{PACKAGES_ALL[sink]}"' in xml and 'text="Paste"' in xml
        actions = [s["action"] for s in row["history"]]
        assert {"type": "key", "key": 3} in actions and actions[-1]["type"] == "long_press"
