"""The lanes plugin (tests/lanes.py) in a pytest run of its own (pytester, in a subprocess): markers come from
the fixtures a test uses and from the recorded durations, ``--lane fast`` leaves the marked tests out,
``--record-durations`` writes the file, and a test that starts an adb server, a virtual device process, a
build or an ``emukit`` subprocess without the fixture that marks it fails with a LaneError (it is stopped
before anything starts). The inner run's fixtures are stand-ins that start nothing: what is tested here is
the marking and the guard, not the devices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = '''
import pytest

pytest_plugins = ["tests.lanes"]


@pytest.fixture(scope="session")
def adb_server():
    return "stand-in"


@pytest.fixture
def pg_server():
    return "stand-in"


@pytest.fixture
def chromium():
    return "stand-in"


@pytest.fixture
def emukit_cli(adb_server):
    return ["python", "-m", "emukit"]


def pytest_collection_finish(session):
    import os

    if os.environ.get("LANES_PRINT_MARKS"):  # one collection reports every test's markers
        for item in session.items:
            print("MARKS", item.nodeid.split("::")[1], ",".join(sorted({m.name for m in item.iter_markers()})))
'''

TESTS = '''
import subprocess
import sys


def test_plain():
    pass


def test_device(adb_server):
    pass


def test_postgres(pg_server):
    pass


def test_chromium(chromium):
    pass


def test_cli(emukit_cli):
    pass


def test_starts_an_adb_server_unmarked():
    from emukit.device.adbserver import AdbServer, free_port

    AdbServer(free_port()).start()


def test_starts_a_device_unmarked(tmp_path):
    from emukit.device.virtual import VirtualDeviceProcess

    VirtualDeviceProcess(20001, tmp_path, server=None, template=False).start()


def test_runs_emukit_unmarked():
    subprocess.run([sys.executable, "-m", "emukit", "--version"], check=True)


def test_runs_emukit_marked(emukit_cli):
    subprocess.run([sys.executable, "-m", "emukit", "--version"], check=True, capture_output=True)
'''


@pytest.fixture
def inner(pytester: pytest.Pytester, tmp_path: Path, monkeypatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_inner=TESTS, test_heavy="def test_recorded_slow():\n    pass\n\n\ndef test_beside_it():\n    pass\n")
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({"test_heavy.py::test_recorded_slow": 25.0, "test_inner.py::test_plain": 0.1}))
    monkeypatch.setenv("EMUKIT_TEST_DURATIONS", str(durations))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    return pytester


def _selected(inner: pytest.Pytester, *args: str) -> set[str]:
    result = inner.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0", *args)
    return {line.split("::")[1] for line in result.outlines if line.startswith(("test_inner.py::", "test_heavy.py::"))}


def _marked(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> dict[str, set[str]]:
    """Every test's markers after the lanes plugin marked it, from one collection."""
    monkeypatch.setenv("LANES_PRINT_MARKS", "1")
    result = inner.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider", "-n", "0", "-s")
    monkeypatch.delenv("LANES_PRINT_MARKS")
    marks: dict[str, set[str]] = {}
    for line in result.outlines:
        if line.startswith("MARKS "):
            _, name, *names = line.split(" ")
            marks[name] = set(",".join(names).split(",")) - {""}
    return marks


def test_markers_come_from_fixtures_and_recorded_durations(inner, monkeypatch):
    marks = _marked(inner, monkeypatch)

    def having(marker: str) -> set[str]:
        return {name for name, got in marks.items() if marker in got}

    assert having("device") == {"test_device", "test_cli", "test_runs_emukit_marked"}
    assert having("e2e") == {"test_cli", "test_runs_emukit_marked"}
    assert having("postgres") == {"test_postgres"}
    assert having("chromium") == {"test_chromium"}
    assert having("slow") == {"test_recorded_slow", "test_beside_it"}  # its module is slow
    assert _selected(inner, "-m", "device") == having("device")  # pytest's own -m reads the same markers
    fast = _selected(inner, "--lane", "fast")
    assert "test_plain" in fast and "test_chromium" in fast
    assert not fast & {"test_device", "test_cli", "test_postgres", "test_recorded_slow", "test_beside_it",
                       "test_runs_emukit_marked"}


def test_the_guard_fails_what_the_markers_do_not_cover(inner):
    result = inner.runpytest_subprocess("-p", "no:cacheprovider", "-n", "0", "-k",
                                        "unmarked or test_runs_emukit_marked")
    result.assert_outcomes(passed=1, failed=3)
    text = result.stdout.str()
    assert "test_starts_an_adb_server_unmarked starts an adb server but is not in the 'device' lane" in text
    assert "test_starts_a_device_unmarked starts a virtual device process but is not in the 'device' lane" in text
    assert "test_runs_emukit_unmarked runs `python -m emukit` as a subprocess but is not in the 'e2e' lane" in text


def test_record_durations_merges_into_the_file(inner, tmp_path):
    result = inner.runpytest_subprocess("-p", "no:cacheprovider", "-n", "0", "--record-durations", "-k",
                                        "test_plain or test_device")
    result.assert_outcomes(passed=2)
    recorded = json.loads((tmp_path / "durations.json").read_text())
    assert recorded["test_heavy.py::test_recorded_slow"] == 25.0  # kept: not run this time
    assert recorded["test_inner.py::test_plain"] < 5 and "test_inner.py::test_device" in recorded


def test_heaviest_modules_go_out_first_and_keep_their_tests_in_order():
    """Longest processing time first: the workers take whole modules in this order (tests/lanes.py)."""
    from types import SimpleNamespace

    from tests.lanes import heaviest_modules_first

    nodeids = ["a.py::one", "a.py::two", "b.py::one", "c.py::one", "b.py::two", "new.py::one"]
    items = [SimpleNamespace(nodeid=n) for n in nodeids]
    durations = {"a.py::one": 1.0, "a.py::two": 2.0, "b.py::one": 10.0, "c.py::one": 3.5, "gone.py::x": 99.0}
    ordered = [i.nodeid for i in heaviest_modules_first(items, durations)]
    assert ordered == ["b.py::one", "b.py::two", "c.py::one", "a.py::one", "a.py::two", "new.py::one"]
