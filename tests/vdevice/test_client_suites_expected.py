"""The expected-failures list of ``tools/run_client_suites.py`` and the runner's bookkeeping, without
downloading or running the suites."""

from __future__ import annotations

import importlib.util
import sys
import types
from importlib import metadata
from pathlib import Path

import pytest
import yaml

TOOLS = Path(__file__).resolve().parents[2] / "tools"


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location("run_client_suites", TOOLS / "run_client_suites.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("run_client_suites", module)
    spec.loader.exec_module(module)
    return module


def test_expected_list_is_well_formed(runner):
    doc = runner.load_expected()
    entries = doc["expected_failures"]
    names = [e["test"] for e in entries]
    assert entries and len(names) == len(set(names))
    for entry in entries:
        assert entry["reason"].strip() and entry["reason"].strip()[-1] in ".)", entry["test"]
        assert doc["needs"][entry["needs"]].strip(), entry["needs"]
    assert set(doc["needs"]) == {e["needs"] for e in entries}  # no category without a test


def test_suites_are_the_pinned_versions(runner):
    suites = runner.load_expected()["suites"]
    assert {name: s["version"] for name, s in suites.items()} == {
        name: metadata.version(name) for name in suites}


def _write(tmp_path: Path, runner, change) -> Path:
    doc = yaml.safe_load(runner.EXPECTED.read_text())
    change(doc)
    path = tmp_path / "expected.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.mark.parametrize("change, message", [
    (lambda d: d["expected_failures"].append(dict(d["expected_failures"][0])), "listed twice"),
    (lambda d: d["expected_failures"][0].pop("reason"), "reason"),
    (lambda d: d["expected_failures"][0].update(reason="flaky"), "five words"),
    (lambda d: d["expected_failures"][0].update(modes=["emulator"]), "modes"),
    (lambda d: d["expected_failures"][0].update(test="nosuch::t.py::test_x"), "listed suite"),
    (lambda d: d["expected_failures"][0].update(needs="luck"), "needs"),
    (lambda d: d["expected_failures"][0].update(why="extra"), "keys"),
])
def test_load_expected_rejects_bad_entries(tmp_path, runner, change, message):
    with pytest.raises(ValueError, match=message):
        runner.load_expected(_write(tmp_path, runner, change))


def test_compare_reports_unexpected_and_now_passing(runner):
    expected = {"expected_failures": [
        {"test": "adbutils::a.py::t1", "modes": ["deterministic", "hardware"]},
        {"test": "adbutils::a.py::t2", "modes": ["deterministic"]},
        {"test": "uiautomator2::demo_tests/b.py::t3", "modes": ["hardware"]},
    ]}
    failed = {"adbutils::a.py::t1", "adbutils::a.py::t9"}
    passed = {"adbutils::a.py::t2", "adbutils::a.py::t5"}
    assert runner.compare(expected, "deterministic", {"adbutils"}, failed, passed) == (
        ["adbutils::a.py::t9"], ["adbutils::a.py::t2"])
    # in hardware mode t2 may pass; t3's suite did not run, so it is neither expected nor missing
    assert runner.compare(expected, "hardware", {"adbutils"}, failed, passed) == (["adbutils::a.py::t9"], [])
    assert runner.compare(expected, "hardware", {"adbutils"}, {"adbutils::a.py::t1"}, passed) == ([], [])


def test_plugin_points_module_clients_at_the_private_server(runner, monkeypatch):
    import adbutils

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "5999")
    module = types.ModuleType("test_fake")
    module.adb = adbutils.AdbClient("127.0.0.1", 5037)
    module.other = "untouched"
    item = types.SimpleNamespace(module=module)
    runner.pytest_collection_modifyitems(None, None, [item])
    assert module.adb.port == 5999 and module.other == "untouched"
