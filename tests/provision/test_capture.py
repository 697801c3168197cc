"""``tools/capture_real_fixtures.py`` run against a virtual device (an ``emukit vdevice serve`` process behind
the real adb server): what it writes for the first run on a real AVD."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_tool():
    spec = importlib.util.spec_from_file_location("capture_real_fixtures", ROOT / "tools" / "capture_real_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def captured(vdevice, adb_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("capture")
    rc = load_tool().main([vdevice.serial, "--out", str(out)])
    return rc, out, json.loads((out / "index.json").read_text())


def test_every_screen_is_captured_with_dump_and_screenshot(captured) -> None:
    rc, out, index = captured
    assert index["failures"] == [] and rc == 0
    tool = load_tool()
    per_app = {"markor": 5, "music": 2, "clock": 2, "settings": 4, "launcher": 2}
    assert {a: sum(s.startswith(a + "/") for s in index["screens"]) for a in per_app} == per_app
    assert set(tool.SCREENS) == {s.split("/")[0] for s in index["screens"]}
    for screen in index["screens"]:
        xml = (out / "hierarchy" / f"{screen}.capture.xml").read_text()
        assert ET.fromstring(xml).tag == "hierarchy"
        assert (out / "hierarchy" / f"{screen}.png").read_bytes().startswith(b"\x89PNG")


def test_device_files_dumps_console_and_grpc(captured, vdevice) -> None:
    _rc, out, index = captured
    files = set(index["files"])
    assert any(f.startswith("prefs/") and f.endswith(".xml") for f in files)
    schemas = [f for f in files if f.startswith("schemas/code.name.monkey.retromusic/")]
    assert schemas and all("CREATE TABLE" in (out / f).read_text() for f in schemas)
    assert "Current Notification Manager state" in (out / "dumpsys/notification.txt").read_text()
    for package in ("net.gsantner.markor", "code.name.monkey.retromusic"):
        assert f"Package [{package}]" in (out / f"dumpsys/package-{package}.txt").read_text()
    assert "Android Console" in (out / "console/banner.txt").read_text()
    assert (out / "console/snapshot-list.txt").exists()
    discovery = (out / "grpc/discovery.ini").read_text()
    assert f"port.serial={vdevice.serial.rsplit('-', 1)[1]}" in discovery
    assert index["serial"] == vdevice.serial and index["virtual"] is True
