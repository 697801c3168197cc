"""Fixtures shared by the virtual-device tests."""

from __future__ import annotations

import pytest

from emukit.vdevice.device import VirtualDevice


@pytest.fixture
def hardware(tmp_path) -> VirtualDevice:
    """A fresh in-process device in hardware mode (first runs pending, real timing); a view callback that
    raises is drawn as the app's crash dialog rather than failing the draw."""
    dev = VirtualDevice(tmp_path / "hw", mode="hardware", wipe=True)
    dev.wm.crash_on_error = False
    return dev
