"""SystemClock (``device.system_clock``): the logical and the realtime clocks, what a move sets off, the
wall clock set by ``date`` with its TIME_SET broadcast, ``/proc/uptime`` and the clocks after a snapshot
load or a reboot."""

from __future__ import annotations

import time

import pytest

from emukit.vdevice.services.broadcasts import ACTION_TIME_SET
from emukit.vdevice.services.clock import SystemClock
from emukit.vdevice.state import DEFAULT_ELAPSED_MS, DEFAULT_WALL_MS
from tests.vdevice.services.conftest import RECEIVER


def test_the_logical_clock_moves_only_when_told(det):
    clock = det.system_clock
    assert isinstance(clock, SystemClock)
    assert (clock.wall_ms(), clock.elapsed_ms()) == (DEFAULT_WALL_MS, DEFAULT_ELAPSED_MS)
    time.sleep(0.01)
    assert (clock.wall_ms(), clock.elapsed_ms()) == (DEFAULT_WALL_MS, DEFAULT_ELAPSED_MS)
    clock.advance(1500)
    assert (det.state.clock.wall_ms, det.state.clock.elapsed_ms) == (DEFAULT_WALL_MS + 1500, DEFAULT_ELAPSED_MS + 1500)
    assert (det.wall_ms(), det.elapsed_ms()) == (clock.wall_ms(), clock.elapsed_ms())  # the device delegates
    with pytest.raises(ValueError, match="time only moves forward"):
        clock.advance(-1)


def test_every_move_reaches_the_apps(det, probe):
    det.system_clock.advance(250)
    det.advance(250)
    assert probe.seen("time") == [("time", DEFAULT_WALL_MS + 250, DEFAULT_ELAPSED_MS + 250),
                                  ("time", DEFAULT_WALL_MS + 500, DEFAULT_ELAPSED_MS + 500)]


def test_setting_the_wall_clock_leaves_elapsed_and_broadcasts_time_set(det, probe):
    det.system_clock.set_wall_ms(DEFAULT_WALL_MS - 3_600_000)  # back an hour
    assert det.state.clock.wall_ms == DEFAULT_WALL_MS - 3_600_000
    assert det.state.clock.elapsed_ms == DEFAULT_ELAPSED_MS
    # the apps see the new time first, then the broadcast reaches the manifest receivers
    kinds = [c[0] for c in probe.calls]
    assert kinds.index("time") < kinds.index("broadcast")
    assert probe.seen("broadcast") == [("broadcast", ".Receiver", ACTION_TIME_SET, {})]


def test_a_stopped_package_misses_time_set(det, probe):
    det.force_stop("org.emukit.probe")
    det.set_wall_ms(DEFAULT_WALL_MS + 60_000)
    assert probe.seen("broadcast") == []
    assert det.send_broadcast(ACTION_TIME_SET, include_stopped=True)[-1] == RECEIVER


def test_proc_uptime_is_elapsed_realtime(det):
    assert det.system_clock.proc_uptime() == b"60.00 102.00\n"
    det.advance(1234)
    assert det.fs.read_bytes("/proc/uptime") == b"61.23 104.10\n"  # the virtual file reads the service


def test_the_realtime_clock_follows_the_host(hw):
    clock = hw.system_clock
    assert hw.clock_mode == "realtime"
    wall, elapsed = clock.wall_ms(), clock.elapsed_ms()
    time.sleep(0.05)
    assert clock.elapsed_ms() - elapsed >= 40
    assert clock.wall_ms() - wall >= 40


def test_after_snapshot_load_only_hardware_keeps_the_wall_clock_with_the_host(det, hw):
    det.state.clock.wall_ms = 5
    det.system_clock.after_snapshot_load(DEFAULT_WALL_MS)
    assert det.state.clock.wall_ms == 5  # deterministic: the snapshot's clocks stand
    before = time.monotonic()
    hw.system_clock.after_snapshot_load(DEFAULT_WALL_MS + 7)
    assert hw.state.clock.wall_ms == DEFAULT_WALL_MS + 7
    assert hw.system_clock.host_anchor >= before


def test_boot_restarts_elapsed_realtime_only(det):
    det.advance(10_000)
    det.system_clock.boot()
    assert det.state.clock.elapsed_ms == DEFAULT_ELAPSED_MS
    assert det.state.clock.wall_ms == DEFAULT_WALL_MS + 10_000
