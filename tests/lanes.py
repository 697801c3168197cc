"""Test lanes: markers every test gets at collection from the fixtures it uses, never by hand.

| marker | a test gets it when it uses | what that means |
|---|---|---|
| ``device`` | ``adb_server`` (every device fixture depends on it) | a virtual device process or the adb server |
| ``chromium`` | ``chromium`` | renders in headless Chromium (Debian's ``chromium``) |
| ``postgres`` | ``pg_server`` (``pg_url`` depends on it) | a real PostgreSQL server |
| ``e2e`` | ``emukit_cli``, ``pair_builder`` or ``built_store`` | runs the ``emukit`` CLI as a subprocess or builds pairs |
| ``slow`` | (measured) | it, or a test of its module, took over :data:`SLOW_S` seconds in the last recorded run (``tests/durations.json``) |

``pytest --lane fast`` runs what is left without ``device``, ``e2e``, ``postgres`` and ``slow`` (the lane to
run while working); ``--lane all`` (the default) runs everything, as CI does. ``-m`` expressions over the
markers work as usual (``pytest -m "device and not slow"``).

A lane is only as good as its markers, so they are checked while the tests run: a test without ``device``
that starts an adb server or a virtual device process, and a test without ``chromium`` that starts
Chromium, and a test without ``e2e`` that runs ``python -m emukit`` as a subprocess (other than a virtual
device) or builds pairs (``emukit.builder.run.PreparedBuild.run``, what ``build_pairs`` and ``emukit build-pairs`` run), fails naming the fixture it should use. ``slow`` is
read from ``tests/durations.json``; ``python -m pytest --record-durations`` (any lane) writes the setup +
call time of every test it runs into that file, keeping the entries of the tests it did not run.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

SLOW_S = 20.0
#: the recorded durations (``EMUKIT_TEST_DURATIONS`` names another file, for the lanes' own tests)
DURATIONS = Path(os.environ.get("EMUKIT_TEST_DURATIONS") or Path(__file__).with_name("durations.json"))

LANE_FIXTURES: dict[str, frozenset[str]] = {
    "device": frozenset({"adb_server"}),
    "chromium": frozenset({"chromium"}),
    "postgres": frozenset({"pg_server"}),
    "e2e": frozenset({"emukit_cli", "pair_builder", "built_store"}),
}
LANE_DOC = {
    "device": "uses a virtual device process or the adb server (the adb_server fixture)",
    "chromium": "renders in headless Chromium (the chromium fixture)",
    "postgres": "uses a real PostgreSQL server (the pg_server fixture)",
    "e2e": "runs the emukit CLI as a subprocess or builds pairs (emukit_cli, pair_builder, built_store)",
    "slow": f"it or a test of its module took over {SLOW_S:.0f} s in the last recorded run (tests/durations.json)",
}
LANES = {
    "fast": "not device and not e2e and not postgres and not slow",
    "all": "",
}


class LaneError(AssertionError):
    """A test did something its markers say it does not (see the module docstring)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("emukit lanes")
    group.addoption("--lane", choices=sorted(LANES), default="all",
                    help="fast: no device, e2e, postgres or slow test (run it while working); all: everything "
                         "(default; what CI runs)")
    group.addoption("--record-durations", action="store_true",
                    help=f"write each test's setup + call time to {DURATIONS.name} (the slow marker's source)")


def pytest_configure(config: pytest.Config) -> None:
    for name, doc in LANE_DOC.items():
        config.addinivalue_line("markers", f"{name}: {doc}")
    lane = LANES[config.getoption("--lane")]
    if lane:
        given = config.getoption("markexpr")
        config.option.markexpr = f"({given}) and ({lane})" if given else lane
    _Guard.install()
    if config.getoption("--record-durations"):
        config.pluginmanager.register(_Recorder(), "emukit-durations")


def _recorded() -> dict[str, float]:
    try:
        return json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    durations = _recorded()
    # a module's tests share its fixtures: one test over the limit (a module-scoped setup is charged to the
    # first test that needs it) makes the whole module slow, or deselecting that test would only move the cost
    slow_modules = {nodeid.split("::")[0] for nodeid, seconds in durations.items() if seconds > SLOW_S}
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for marker, fixtures in LANE_FIXTURES.items():
            if used & fixtures:
                item.add_marker(marker)
        if item.nodeid.split("::")[0] in slow_modules:
            item.add_marker("slow")
    items[:] = heaviest_modules_first(items, durations)


def module_seconds(durations: dict[str, float]) -> dict[str, float]:
    """Recorded seconds per test module (setup + call of its tests)."""
    out: dict[str, float] = {}
    for nodeid, seconds in durations.items():
        module = nodeid.split("::")[0]
        out[module] = out.get(module, 0.0) + seconds
    return out


def heaviest_modules_first(items: list[pytest.Item], durations: dict[str, float]) -> list[pytest.Item]:
    """The modules in order of recorded seconds, heaviest first; a module's tests keep their order.

    The workers take whole modules (``--dist loadfile``) in collection order (``--no-loadscope-reorder``), so the
    longest modules start first and the short ones fill the workers' ends (longest processing time first):
    modules run in the order of their test counts instead left the heaviest, few-test modules (the nightly's)
    to the end of one worker while the others sat idle. A module with no recorded time goes last."""
    seconds = module_seconds(durations)
    first_seen: dict[str, int] = {}
    for item in items:
        first_seen.setdefault(item.nodeid.split("::")[0], len(first_seen))
    return sorted(items, key=lambda item: (-seconds.get(item.nodeid.split("::")[0], 0.0),
                                           first_seen[item.nodeid.split("::")[0]]))


# -- the guard: a test's markers must cover what it starts ------------------------------------------------------
class _Guard:
    """Wraps what starts an adb server, a virtual device or an emukit subprocess, and fails a test whose
    markers do not say it does that."""

    item: pytest.Item | None = None
    installed = False

    @classmethod
    def install(cls) -> None:
        if cls.installed:
            return
        cls.installed = True
        from emukit.builder.run import PreparedBuild
        from emukit.device.adbserver import AdbServer
        from emukit.device.virtual import VirtualDeviceProcess
        from emukit.evaluate.render import Renderer

        def guarded(method, marker: str, what: str):
            def wrapper(self, *args, **kwargs):
                cls.require(marker, what)
                return method(self, *args, **kwargs)
            wrapper.__wrapped__ = method  # type: ignore[attr-defined]
            wrapper.__doc__ = method.__doc__
            return wrapper

        AdbServer.start = guarded(AdbServer.start, "device", "starts an adb server")  # type: ignore[method-assign]
        VirtualDeviceProcess.start = guarded(VirtualDeviceProcess.start,  # type: ignore[method-assign]
                                             "device", "starts a virtual device process")
        Renderer.start = guarded(Renderer.start, "chromium", "starts Chromium")  # type: ignore[method-assign]
        PreparedBuild.run = guarded(PreparedBuild.run, "e2e", "builds pairs")  # type: ignore[method-assign]
        popen_init = subprocess.Popen.__init__

        def popen(self, args, *rest, **kwargs):
            argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else str(args).split()
            if argv[1:3] == ["-m", "emukit"] and argv[3:4] != ["vdevice"]:
                cls.require("e2e", "runs `python -m emukit` as a subprocess")
            return popen_init(self, args, *rest, **kwargs)

        subprocess.Popen.__init__ = popen  # type: ignore[method-assign]

    @classmethod
    def require(cls, marker: str, what: str) -> None:
        item = cls.item
        if item is None or item.get_closest_marker(marker) is not None:
            return
        fixtures = ", ".join(sorted(LANE_FIXTURES[marker]))
        raise LaneError(f"{item.nodeid} {what} but is not in the {marker!r} lane: use the fixture for it "
                        f"({fixtures}) so the marker is applied at collection")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _Guard.item = item


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    _Guard.item = item  # module- and session-scoped teardowns still run for this test


class _Recorder:
    """``--record-durations``: setup + call seconds per test, merged into :data:`DURATIONS` at the end."""

    def __init__(self) -> None:
        self.seen: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when in ("setup", "call"):
            self.seen[report.nodeid] = self.seen.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.seen or hasattr(session.config, "workerinput"):
            return  # under xdist the controller sees every worker's reports and writes the file once
        merged = {**_recorded(), **{k: round(v, 2) for k, v in self.seen.items()}}
        DURATIONS.write_text(json.dumps(dict(sorted(merged.items())), indent=0) + "\n")
