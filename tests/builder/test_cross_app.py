"""The cross-application suite (seed 002 Appendix F.2) for the Ordered Collection and Temporal Deadline families:
the state is produced in Retro Music / the Clock, the final neutral observation is in another app. Built on the
virtual device behind the real adb server."""

from __future__ import annotations

import argparse
import io
from collections import Counter

from rich.console import Console

from emukit.apps.selectors import table
from emukit.builder.stress import (
    CROSS_APP_SINKS,
    SUITES,
    SuiteOptions,
    SuiteRunner,
    collection_type,
    plan,
    read_suite,
    suite_dir,
)
from emukit.commands.build import SUITES as SUITE_CHOICES
from emukit.commands.suite import run_suite
from emukit.nightly.config import SUITES as NIGHTLY_SUITES
from emukit.nightly.config import Suite as NightlySuite
from emukit.templates import load_templates

PACKAGES = {"tasks": "org.tasks", "joplin": "net.cozic.joplin", "calendar": "com.simplemobiletools.calendar.pro",
            "broccoli": "com.flauschcode.broccoli"}


def test_the_plan_follows_f2():
    """Per 200: ordered 80 playing-queue / 120 playlist trajectories, each of the four sinks 50 per family and an
    equal share of every template; persistent and clipboard templates and host variants are not taken."""
    templates = load_templates(variants=True)
    items = plan("cross-app", templates, 200)
    assert Counter(i.template.family for i in items) == {"ordered": 200, "temporal": 200}
    assert all(i.depth == 0 and i.level is None and i.template.variant is None for i in items)
    ordered = [i for i in items if i.template.family == "ordered"]
    assert Counter(collection_type(i.template) for i in ordered) == {"playing_queue": 80, "playlist": 120}
    for family in ("ordered", "temporal"):
        assert Counter(i.sink for i in items if i.template.family == family) == {s: 50 for s in CROSS_APP_SINKS}
    per_template = Counter((i.template.name, i.sink) for i in items)
    for name in {i.template.name for i in items}:
        shares = [per_template[(name, s)] for s in CROSS_APP_SINKS]
        assert max(shares) - min(shares) <= 1, (name, shares)
    small = plan("cross-app", templates, 5)  # largest remainder keeps the 2 : 3 split
    assert Counter(collection_type(i.template) for i in small if i.template.family == "ordered") == \
        {"playing_queue": 2, "playlist": 3}
    assert SUITE_CHOICES == SUITES and NIGHTLY_SUITES == SUITES
    assert NightlySuite(name="cross-app", count=40).name == "cross-app"  # a step of emukit nightly


def test_families_without_routes_are_reported(tmp_path):
    runner = SuiteRunner(SuiteOptions(suite="cross-app", templates=load_templates(variants=True),
                                      count_per_family=4, data_dir=tmp_path))
    assert runner.unsupported == ["clipboard", "ordered in vlc", "persistent", "persistent in gallery"]
    assert {i.template.family for i in runner.items} == {"ordered", "temporal"}


def test_trajectories_end_in_the_sink_and_keep_the_state(vdevice, adb_server, tmp_path):
    """Each trajectory: the template's setting steps in the producing app, HOME, the sink opened from All apps;
    validated on the device (the state at the boundary is the state after the setting steps and the expected one,
    the boundary is stable, the sink is in front); stored with its route; a second run resumes (builds nothing).
    It must build on a device: the validation, the route's builds and the sink's screen are read on one (the
    session's shared virtual device behind the real adb server; nothing is mocked)."""
    data = tmp_path / "data"
    args = argparse.Namespace(suite="cross-app", family="all", template=None, count=4, seed=0, data_dir=data,
                              db=None, devices=None, device=[vdevice.serial], max_attempts=2, quiet=True)
    console = Console(file=io.StringIO(), width=200)
    assert run_suite(args, console) == 0, console.file.getvalue()
    assert "clipboard is not built by this suite yet" in console.file.getvalue()
    rows = read_suite(data, "cross-app", "ordered") + read_suite(data, "cross-app", "temporal")
    assert len(rows) == 8
    assert Counter(r["route"]["sink"] for r in rows) == {s: 2 for s in CROSS_APP_SINKS}
    root = suite_dir(data, "cross-app")
    for row in rows:
        assert row["route"]["producer"] == {"ordered": "music", "temporal": "clock"}[row["family"]]
        # the builds the row was made with, read on the device: the sink's is the build its table pins
        sink_pkg = PACKAGES[row["route"]["sink"]]
        assert row["route"]["builds"][sink_pkg]["app"] == row["route"]["sink"]
        assert row["route"]["builds"][sink_pkg]["version_code"] == table(sink_pkg).build.version_code
        assert len(row["route"]["builds"]) == 2
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
