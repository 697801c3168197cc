"""Shared fixtures. Integration tests run a real adb server (the binary in the adbutils wheel) on a free
port with an isolated HOME, and virtual devices as real ``emukit vdevice serve`` processes behind it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Isolate adb before anything imports uiautomator2 (its module-level adb client reads the port at import).
_SESSION_HOME = Path(tempfile.mkdtemp(prefix="emukit-test-home-"))
os.environ["HOME"] = str(_SESSION_HOME)
os.environ.setdefault("EMUKIT_HOME", str(_SESSION_HOME / ".emukit"))

from emukit.device.adbserver import AdbServer, free_port  # noqa: E402
from tests.postgres import PostgresServer, postgres_server  # noqa: E402

_ADB_PORT = free_port()
os.environ["ANDROID_ADB_SERVER_PORT"] = str(_ADB_PORT)


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbServer]:
    server = AdbServer(_ADB_PORT, home=_SESSION_HOME)
    server.start()
    yield server
    server.kill()
    shutil.rmtree(_SESSION_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def vdevice_factory(adb_server: AdbServer, tmp_path_factory: pytest.TempPathFactory):
    """Start virtual devices on demand (``mode="hardware"`` for the hardware-like behaviour); every one is
    stopped at the end of the session."""
    from emukit.device.virtual import PortInUse, VirtualDeviceProcess, free_adb_ports

    started: list[VirtualDeviceProcess] = []
    root = tmp_path_factory.mktemp("vdevices")

    def start(*, wipe: bool = True, state_dir: Path | None = None, adb_port: int | None = None,
              clock: str = "logical", mode: str = "deterministic") -> VirtualDeviceProcess:
        for attempt in range(5):
            port = adb_port or free_adb_ports(1, start=20001 + 2 * (len(started) * 7 + attempt * 3))[0]
            proc = VirtualDeviceProcess(port, state_dir or root / f"dev{port}", adb_server, wipe=wipe,
                                        clock=clock, mode=mode)
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


@pytest.fixture(scope="module")
def vdevice(vdevice_factory):
    """One virtual device shared by a test module."""
    proc = vdevice_factory()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def adb_device(vdevice, adb_server):
    """An ``adbutils.AdbDevice`` for the module's virtual device."""
    import adbutils

    return adbutils.AdbClient(port=adb_server.port).device(vdevice.serial)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for this test session (see ``tests/postgres.py``)."""
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server."""
    return pg_server.new_database()
