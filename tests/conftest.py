"""Shared fixtures. Integration tests run a real adb server (the binary in the adbutils wheel) on a free
port with an isolated HOME, and virtual devices as real ``emukit vdevice serve`` processes behind it.

Lanes (markers given at collection from the fixtures a test uses): ``tests/lanes.py``. Devices:

- ``adb_server`` (session): the adb server; before handing it out, the session's **virtual-device template**
  (the clean and every base snapshot, built once per session and shared by all pytest-xdist workers) is made
  and ``EMUKIT_VDEVICE_TEMPLATE`` points at it, so every fresh device of the session (pool, factory, and the
  embedded devices the CLI tests' ``emukit`` commands start) holds its snapshots without building them;
- ``vdevice`` (module): a device leased from the session's pool (``tests/devicepool.py``), reset from its
  clean snapshot between modules;
- ``vdevice_factory`` (session): a process of the test's own, for the tests that need one on purpose;
- ``emukit_cli``: the command line of the ``emukit`` CLI as a subprocess.

Parallel workers (``pytest -n N``, pytest-xdist) each get their own ``HOME``/``EMUKIT_HOME``, adb server and
a block of :data:`PORT_BLOCK` ports for their devices (``EMUKIT_VDEVICE_PORTS`` for the embedded ones).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.lanes", "pytester"]

#: this process's pytest-xdist worker number (gw0 -> 0; 0 without xdist)
WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
#: adb ports per worker (a device takes an odd adb port and the console port below it): 150 devices each,
#: and ten workers' blocks end below 23001, where the first block's gRPC ports (adb port + 3000) begin
PORT_BLOCK = 300

# Isolate adb and emukit's per-user state before anything imports uiautomator2 (its module-level adb client
# reads the port at import); a worker's own, since workers inherit the controller's environment.
_SESSION_HOME = Path(tempfile.mkdtemp(prefix=f"emukit-test-home-{WORKER}-"))
os.environ["HOME"] = str(_SESSION_HOME)
os.environ["EMUKIT_HOME"] = str(_SESSION_HOME / ".emukit")
os.environ.pop("EMUKIT_VDEVICE_TEMPLATE", None)  # the adb_server fixture sets it once the template is built
if os.environ.get("PYTEST_XDIST_WORKER"):
    # One compute thread per worker for torch (OpenMP) and the BLAS libraries: with a thread per core in every
    # worker, the estimator's training fought the other worker's tests for the two cores (its setup took 190 s
    # under two workers against 38 s alone); set before anything imports torch or numpy.
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

from emukit.device.adbserver import AdbServer, free_port  # noqa: E402
from emukit.device.virtual import FIRST_PRIVATE_PORT, FIRST_TEST_PORT  # noqa: E402
from tests.postgres import PostgresServer, postgres_server  # noqa: E402

#: the first adb port of this worker's test devices; embedded devices of emukit commands get their own block
TEST_PORT_BASE = FIRST_TEST_PORT + PORT_BLOCK * WORKER
os.environ["EMUKIT_VDEVICE_PORTS"] = str(FIRST_PRIVATE_PORT + PORT_BLOCK * WORKER)

_ADB_PORT = free_port()
os.environ["ANDROID_ADB_SERVER_PORT"] = str(_ADB_PORT)


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this session sees (the base temp dir's parent under xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _once_per_session(tmp_path_factory: pytest.TempPathFactory, name: str, built: Callable[[Path], bool],
                      build: Callable[[Path], object]) -> Path:
    """``root/name`` in the folder all workers share, built by the first worker that needs it (``build``,
    unless ``built`` says it is there); a file lock makes the others wait, then they reuse it."""
    root = _shared_root(tmp_path_factory)
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not built(folder):  # not built yet, or left half-written by a killed session
                shutil.rmtree(folder, ignore_errors=True)
                build(folder)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def _template_built(folder: Path) -> bool:
    from emukit.device.virtual import read_template
    from emukit.errors import ConfigError

    try:
        read_template(folder)
    except ConfigError:
        return False
    return True


@pytest.fixture(scope="session")
def adb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AdbServer]:
    server = AdbServer(_ADB_PORT, home=_SESSION_HOME)
    server.start()
    from emukit.snapshots import build_template

    template = _once_per_session(tmp_path_factory, "vdevice-template", _template_built,
                                 lambda folder: build_template(folder, server))
    os.environ["EMUKIT_VDEVICE_TEMPLATE"] = str(template)
    server.env["EMUKIT_VDEVICE_TEMPLATE"] = str(template)
    yield server
    server.kill()
    shutil.rmtree(_SESSION_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def vdevice_template(adb_server: AdbServer) -> Path:
    """The session's virtual-device template folder (``emukit vdevice template``)."""
    return Path(adb_server.env["EMUKIT_VDEVICE_TEMPLATE"])


@pytest.fixture(scope="session")
def vdevice_factory(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory):
    """Start virtual devices on demand (``mode="hardware"`` for the hardware-like behaviour; ``template=False``
    for one that builds its own snapshots); every one is stopped at the end of the session."""
    from emukit.device.virtual import PortInUse, VirtualDeviceProcess, free_adb_ports

    started: list[VirtualDeviceProcess] = []
    root = tmp_path_factory.mktemp("vdevices")

    def start(*, wipe: bool = True, state_dir: Path | None = None, adb_port: int | None = None,
              clock: str = "logical", mode: str = "deterministic", template: Path | bool | None = None,
              env: dict[str, str] | None = None) -> VirtualDeviceProcess:
        for attempt in range(5):
            port = adb_port or free_adb_ports(1, start=TEST_PORT_BASE + 2 * (len(started) * 7 + attempt * 3))[0]
            proc = VirtualDeviceProcess(port, state_dir or root / f"dev{port}", adb_server, wipe=wipe,
                                        clock=clock, mode=mode, template=template, env=env)
            try:
                proc.start()
            except PortInUse:
                if adb_port is not None or attempt == 4:
                    raise
                continue  # another process took the port between the check and the bind
            started.append(proc)
            return proc
        raise AssertionError("unreachable")

    yield start
    for proc in started:
        proc.stop()


@pytest.fixture(scope="session")
def device_pool(vdevice_factory, vdevice_template: Path, adb_server: AdbServer):
    """The session's pool of deterministic virtual devices (``tests/devicepool.py``)."""
    from tests.devicepool import SessionDevices

    pool = SessionDevices(vdevice_factory, vdevice_template, adb_server)
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def vdevice(device_pool):
    """One virtual device for a test module, leased from the session's pool: in its clean state when the
    module starts, given back (and reset before its next lease) when the module ends."""
    proc = device_pool.lease()
    yield proc
    device_pool.give_back(proc)


@pytest.fixture
def pooled_device(device_pool):
    """A virtual device for one test alone, leased from the session's pool (clean when the test starts)."""
    proc = device_pool.lease()
    yield proc
    device_pool.give_back(proc)


@pytest.fixture(scope="module")
def adb_device(vdevice, adb_server):
    """An ``adbutils.AdbDevice`` for the module's virtual device."""
    import adbutils

    return adbutils.AdbClient(port=adb_server.port).device(vdevice.serial)


@pytest.fixture(scope="session")
def emukit_cli(vdevice_template: Path) -> list[str]:
    """The ``emukit`` command line as a subprocess (``[python, -m, emukit]``); a test that uses it is in the
    ``e2e`` lane. The session's template is built first, so every command's embedded devices start from it
    whichever test runs first."""
    return [sys.executable, "-m", "emukit"]


class BuiltStore:
    """The session's built store: ``data`` (a data dir: ``emukit.db`` and artifacts) and ``export`` (its
    ``emukit export``), holding one pair of every template at seed 0 (every family) and two more at seed 1
    (:data:`SEED1_TEMPLATES`). Read-only: a test that writes to it copies it first
    (``tests/builder/audit_helpers.copy_data``)."""

    SEED1_TEMPLATES = ("copy_direct", "delete_direct")

    def __init__(self, data: Path) -> None:
        self.data = data
        self.export = data / "export"


def _build_store(data: Path, device_pool, adb_server: AdbServer) -> None:
    from emukit.builder.run import BuildOptions, build_pairs
    from emukit.workers import DeviceRequest
    from emukit.export import export_pairs
    from emukit.families import FAMILIES
    from emukit.store import Store
    from emukit.templates import load_templates

    devices = [device_pool.lease(), device_pool.lease()]
    try:
        serials = [d.serial for d in devices]
        runs = [(load_templates(family=f), 0) for f in FAMILIES]
        runs.append((load_templates(names=list(BuiltStore.SEED1_TEMPLATES)), 1))
        for templates, seed in runs:
            runner = build_pairs(BuildOptions(templates=templates, count_per_family=len(templates), seed=seed,
                                              data_dir=data, devices=DeviceRequest(serials=tuple(serials)),
                                              adb_port=adb_server.port))
            assert runner.total_done == len(templates), runner.errors
    finally:
        for proc in devices:
            device_pool.give_back(proc)
    with Store(data_dir=data) as store:
        export_pairs(store, data / "export")


@pytest.fixture(scope="session")
def built_store(device_pool, adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory) -> BuiltStore:
    """The session's built store (:class:`BuiltStore`), built on two pooled devices by the first worker that
    needs it and shared with the others (a file lock makes them wait); a test that uses it is in the ``e2e``
    lane."""
    return BuiltStore(_once_per_session(tmp_path_factory, "session-store",
                                        lambda data: (data / "export" / "pairs.jsonl").exists(),
                                        lambda data: _build_store(data, device_pool, adb_server)))


@pytest.fixture(scope="session")
def pair_builder(adb_server: AdbServer):
    """``emukit.builder.run.build_pairs`` for a test that builds pairs itself (the ``e2e`` lane)."""
    from emukit.builder.run import build_pairs

    return build_pairs


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for this test session (see ``tests/postgres.py``)."""
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return pg_server.new_database()


@pytest.fixture(scope="session")
def chromium():
    """The session's warm Chromium renderer (``tests/evaluate/render_support.py``); a test that uses it is in
    the ``chromium`` lane."""
    from tests.evaluate.render_support import shared_renderer

    return shared_renderer()
