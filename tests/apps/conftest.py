"""A driver on the module's virtual device (tests/conftest.py's ``vdevice``), for the structure tests."""

from __future__ import annotations

import pytest

from emukit.device.driver import Driver


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()
