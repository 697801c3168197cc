"""The virtual Clock and shade have the real structure on every screen the Clock profile touches: each screen is
reached through the profile on a virtual device behind the real adb server, dumped with uiautomator and matched
against the fixture written from the real layouts (``tests/fixtures/real/hierarchy/{clock,systemui}``)."""

from __future__ import annotations

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from tests.hierarchy_match import FIXTURES, match_fixture

CLOCK = "com.google.android.deskclock"


def _matches(driver: Driver, fixture: str) -> list[str]:
    return match_fixture(driver.hierarchy(), FIXTURES / fixture)


def test_every_clock_screen_the_profile_touches(driver):
    driver.shell(f"pm clear {CLOCK}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    driver.tap(**clock.sel("timer_digit", digit=5))  # the keypad with an entry (Start shows)
    assert _matches(driver, "clock/timer_keypad.yaml") == []
    driver.tap(**clock.sel("timer_backspace"))
    assert not driver.exists(**clock.sel("timer_start"))  # nothing typed: no Start
    clock.start_timer(minutes=5)
    assert _matches(driver, "clock/timer_running.yaml") == []
    driver.shell("sleep 60")
    clock.pause()
    assert _matches(driver, "clock/timer_paused.yaml") == []
    clock.open_clock_tab()
    assert _matches(driver, "clock/clock_tab.yaml") == []


def test_the_shade_with_the_timer_notification(driver):
    driver.shell(f"pm clear {CLOCK}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_timers()
    clock.start_timer(minutes=5)
    driver.home()  # the Clock hides its running timer's notification while it is in front
    clock.open_shade()
    assert _matches(driver, "systemui/shade_timer.yaml") == []
    driver.back()
    assert not driver.exists(**clock.sel("systemui:notification_panel"))
    assert [a.type for a in clock.open_from_notification()] == ["swipe", "tap"]
    assert driver.current_app()[0] == CLOCK and driver.exists(**clock.sel("card_pause"))


def test_a_fixture_catches_a_wrong_structure(driver):
    """The same dump fails a fixture whose id the screen does not have (the matcher is not vacuous here)."""
    driver.shell(f"pm clear {CLOCK}", check=True)
    clock = profile_for(driver, "clock")
    clock.launch(fresh=True)
    clock.open_clock_tab()
    assert _matches(driver, "clock/timer_running.yaml") != []
