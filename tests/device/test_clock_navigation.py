"""The Clock / Settings navigation the Temporal Deadline templates use, against the virtual device: leave the
Clock for Settings' Date & time page, come back through the timer notification or the launcher, and
switch to the Clock tab, where the Clock hides its own timer notifications. Nothing mocked.

The timer notification is DeskClock's custom content (no title), so its status-bar icon reads "Clock
notification: " and the shade row shows the state line ("Timer", "Timer paused") under the chronometer."""

from __future__ import annotations

import pytest

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.probes import probe

CLOCK = "com.google.android.deskclock"


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()


def _status_icons(driver: Driver) -> list[str]:
    return [e.content_desc for e in driver.elements() if e.content_desc.startswith("Clock notification")]


def _shade_states(driver: Driver, clock) -> list[str]:
    """The Clock notifications' state lines, read in the shade (opened and closed again)."""
    clock.open_shade()
    states = [e.text for e in driver.elements() if e.resource_id == f"{CLOCK}:id/state"]
    driver.back()
    return states


def test_timer_round_trip_through_date_and_time(driver):
    driver.shell(f"pm clear {CLOCK}", check=True)
    settings, clock = profile_for(driver, "settings"), profile_for(driver, "clock")
    settings.launch(fresh=True)
    settings.open_date_time()
    clock.launch(fresh=True)
    clock.open_timers()
    actions = clock.start_timer(minutes=12)
    assert [a.type for a in actions] == ["tap"] * 5  # 1, 2, 0, 0, Start
    driver.back()  # the Clock was started over Date & time
    assert driver.exists(**settings.sel("auto_time"))
    assert _status_icons(driver) == ["Clock notification: "]
    assert _shade_states(driver, clock) == ["Timer"]
    assert [a.type for a in clock.open_from_notification()] == ["swipe", "tap"]
    assert [a.type for a in clock.pause()] == ["tap"]
    driver.back()
    assert driver.exists(**settings.sel("auto_time"))
    assert _shade_states(driver, clock) == ["Timer paused"]
    clock.open_from_notification()
    assert driver.exists(resourceId=f"{CLOCK}:id/play_pause", description="Start")  # no "Resume" in the app
    clock.open_clock_tab()
    assert _status_icons(driver) == []  # hidden while the Clock is in the foreground
    assert probe(driver, "temporal").canonical == {"timer_active": False, "remaining_seconds": 720}


def test_launcher_round_trip(driver):
    driver.shell(f"pm clear {CLOCK}", check=True)
    settings, clock = profile_for(driver, "settings"), profile_for(driver, "clock")
    driver.home()
    clock.open_from_launcher()
    clock.open_timers()
    clock.start_timer(seconds=90)
    driver.home()
    settings.open_from_launcher()
    assert driver.exists(**settings.sel("auto_time"))
    assert probe(driver, "temporal").canonical == {"timer_active": True, "remaining_seconds": 90}
