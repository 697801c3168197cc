"""``tools/capture_real_fixtures.py`` run against virtual devices (``emukit vdevice serve`` processes behind
the real adb server): what it writes for the first run on a real AVD.

The deterministic device captures every screen that has a structure fixture except the first-run ones (its
apps are always past their first run). ``--first-run`` runs on a hardware-like device set up with the
stand-in APKs as ``emukit avd setup`` sets up an AVD (tests/provision/test_setup_e2e.py), restricted with
``--screens`` to the first-run screens: the Clock's paused timer waits a real minute on that device. Together
the two captures hold every fixture's screen, each matching its fixture. Nothing is mocked."""

from __future__ import annotations

import importlib.util
import io
import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from emukit.apps.structure import match_fixture

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "real" / "hierarchy"
FIXTURE_NAMES = sorted(str(p.relative_to(FIXTURES).with_suffix("")) for p in FIXTURES.glob("*/*.yaml"))
MARKOR, RETRO = "net.gsantner.markor", "code.name.monkey.retromusic"


def load_tool():
    spec = importlib.util.spec_from_file_location("capture_real_fixtures", ROOT / "tools" / "capture_real_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = load_tool()


def run_tool(args: list[str]) -> tuple[int, dict, float]:
    started = time.monotonic()
    rc = TOOL.main(args)
    elapsed = time.monotonic() - started
    return rc, json.loads((Path(args[args.index("--out") + 1]) / "index.json").read_text()), elapsed


@pytest.fixture(scope="module")
def captured(vdevice, adb_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("capture")
    rc, index, elapsed = run_tool([vdevice.serial, "--out", str(out)])
    return rc, out, index, elapsed


@pytest.fixture(scope="module")
def prepared(vdevice_factory, adb_server, tmp_path_factory):
    """A hardware-like device after ``emukit avd setup`` with the stand-in APKs (its data folder alongside)."""
    from rich.console import Console

    from emukit.cli import main
    from emukit.device.driver import Driver
    from emukit.provision.setup import setup_device

    work = tmp_path_factory.mktemp("first-run")
    assert main(["avd", "standins", str(work / "apks")]) == 0
    proc = vdevice_factory(mode="hardware")
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    try:
        setup_device(d, work / "apks", work / "data", Console(file=io.StringIO(), width=200))
    finally:
        d.close()
    yield proc, work / "data"
    proc.stop()


@pytest.fixture(scope="module")
def first_run(prepared, adb_server, tmp_path_factory):
    proc, _data = prepared
    out = tmp_path_factory.mktemp("capture-first-run")
    rc, index, elapsed = run_tool([proc.serial, "--out", str(out), "--first-run", "--screens", *TOOL.FIRST_RUN])
    return rc, out, index, elapsed


def check_captures(out: Path, screens: list[str]) -> None:
    """Each capture is a uiautomator dump and a PNG, and the dump matches the screen's structure fixture."""
    for screen in screens:
        xml = (out / "hierarchy" / f"{screen}.capture.xml").read_text()
        assert ET.fromstring(xml).tag == "hierarchy"
        assert (out / "hierarchy" / f"{screen}.png").read_bytes().startswith(b"\x89PNG")
        assert match_fixture(xml, FIXTURES / f"{screen}.yaml") == [], screen


def test_the_tool_walks_to_every_fixture_screen_once() -> None:
    names = TOOL.SCREENS + TOOL.FIRST_RUN
    assert len(names) == len(set(names))
    assert sorted(names) == FIXTURE_NAMES
    assert not set(TOOL.SCREENS) & set(TOOL.FIRST_RUN)


def test_every_screen_but_the_first_run_ones_is_captured_and_matches_its_fixture(captured) -> None:
    rc, out, index, elapsed = captured
    assert index["failures"] == [] and rc == 0
    assert index["screens"] == TOOL.SCREENS
    assert sorted(index["screens"]) == sorted(set(FIXTURE_NAMES) - set(TOOL.FIRST_RUN))
    check_captures(out, index["screens"])
    assert index["first_run"] is False and index["onboarded"] == {}
    assert elapsed < 60, f"the capture took {elapsed:.1f} s"


def test_every_fixture_screen_is_captured_with_first_run(captured, first_run) -> None:
    rc, out, index, _elapsed = first_run
    assert sorted(index["screens"]) == sorted(TOOL.FIRST_RUN)
    check_captures(out, index["screens"])
    assert sorted(set(index["screens"]) | set(captured[2]["screens"])) == FIXTURE_NAMES
    assert index["failures"] == [] and rc == 0  # the profiles walked each first run without an error


def test_first_run_leaves_the_apps_onboarded(first_run, prepared, adb_server) -> None:
    from emukit.apps.registry import profile_for
    from emukit.device.driver import Driver
    from emukit.provision.apks import pinned
    from emukit.provision.onboard import missing_app_ops, missing_permissions

    _rc, _out, index, _elapsed = first_run
    assert set(index["onboarded"]) == {MARKOR, RETRO} and index["first_run"] is True
    proc, _data = prepared
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    try:
        for package in (MARKOR, RETRO):
            assert missing_permissions(d, pinned(package)) == [], package
            assert missing_app_ops(d, pinned(package)) == [], package
        notes = profile_for(d, "notes")
        notes.launch(fresh=True)
        assert notes.first_run_screen() == "notebook"
        music = profile_for(d, "music")
        music.launch(fresh=True)
        assert music.first_run_screen() == "library"
    finally:
        d.close()


def test_an_unreachable_screen_is_recorded_and_the_run_goes_on(pooled_device, adb_server, tmp_path) -> None:
    """The deterministic device's Retro Music is past its first run even after ``pm clear``: the first-run
    screen asked for is never shown, which the index records, and the rest of the capture is still written."""
    rc, index, _elapsed = run_tool([pooled_device.serial, "--out", str(tmp_path), "--first-run", "--screens",
                                    "music/permission"])
    assert rc == 1 and index["screens"] == []
    assert [f["what"] for f in index["failures"]] == ["hierarchy/music/permission"]
    assert "not shown" in index["failures"][0]["error"]
    assert set(index["onboarded"]) == {RETRO}  # onboarded again all the same
    assert "console/banner.txt" in index["files"] and "grpc/discovery.ini" in index["files"]


def test_help_says_first_run_clears_the_two_apps(capsys) -> None:
    with pytest.raises(SystemExit):
        TOOL.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--first-run" in text and "pm clear" in text and "Markor and Retro Music" in text
    assert "CLEARS THE DATA OF MARKOR AND RETRO MUSIC" in " ".join(TOOL.__doc__.split())


def test_device_files_dumps_console_and_grpc(captured, vdevice) -> None:
    _rc, out, index, _elapsed = captured
    files = set(index["files"])
    assert any(f.startswith("prefs/") and f.endswith(".xml") for f in files)
    schemas = [f for f in files if f.startswith("schemas/code.name.monkey.retromusic/")]
    assert schemas and all("CREATE TABLE" in (out / f).read_text() for f in schemas)
    assert "Current Notification Manager state" in (out / "dumpsys/notification.txt").read_text()
    for package in (MARKOR, RETRO):
        assert f"Package [{package}]" in (out / f"dumpsys/package-{package}.txt").read_text()
    assert "Android Console" in (out / "console/banner.txt").read_text()
    assert (out / "console/snapshot-list.txt").exists()
    discovery = (out / "grpc/discovery.ini").read_text()
    assert f"port.serial={vdevice.serial.rsplit('-', 1)[1]}" in discovery
    assert index["serial"] == vdevice.serial and index["virtual"] is True
