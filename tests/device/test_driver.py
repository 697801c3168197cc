"""The driver against a real virtual device process behind the real adb server (nothing mocked)."""

from __future__ import annotations

import pytest

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.hierarchy import parse_bounds

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"


@pytest.fixture(scope="module")
def driver(vdevice, adb_server):
    d = Driver(vdevice.serial, adb_server.port, default_timeout=5)
    yield d
    d.close()


def test_shell_exit_codes_and_streams(driver):
    r = driver.shell("echo out; echo err >&2; exit 4")
    assert (r.exit_code, r.stdout, r.stderr) == (4, b"out\n", b"err\n")
    with pytest.raises(DeviceError, match="exited 127"):
        driver.shell("no-such-command", check=True)


def test_observation_and_stability(driver):
    png, xml = driver.wait_stable()
    assert png.startswith(b"\x89PNG") and "<hierarchy" in xml
    assert driver.screenshot() == png  # deterministic device: unchanged screen, identical bytes


def test_actions_return_records(driver):
    driver.start_app(SETTINGS, stop_first=True)
    action = driver.tap(resourceId=f"{SETTINGS}:id/search_action_bar")  # the homepage's search bar
    assert action.type == "tap" and action.element is not None
    assert action.element.resource_id == f"{SETTINGS}:id/search_action_bar"
    left, top, right, bottom = action.element.bounds
    assert left <= action.x < right and top <= action.y < bottom
    assert action.elapsed_ms > 0
    assert driver.current_app()[0] == SETTINGS
    typed_at = driver.tap(resourceId="android:id/search_src_text")
    assert typed_at.element.resource_id.endswith("search_src_text")
    assert driver.type_text("date time").text == "date time"
    assert driver.element(resourceId="android:id/search_src_text").text == "date time"
    assert driver.back().key == 4
    driver.back()
    assert driver.current_app()[0] == SETTINGS or driver.current_app()[0] == LAUNCHER


def test_find_missing_and_waits_time_out(driver):
    assert driver.find(text="definitely not on screen") is None
    with pytest.raises(DeviceError, match="no element matches"):
        driver.element(timeout=0.2, text="definitely not on screen")
    with pytest.raises(DeviceError, match="waiting for never"):
        driver.wait_until(lambda: False, "never", timeout=0.2)


def test_start_and_stop_app(driver):
    driver.start_app(SETTINGS, f"{SETTINGS}.DateTimeSettings", stop_first=True)
    assert driver.exists(text="Set time automatically")
    driver.stop_app(SETTINGS)
    assert driver.current_app()[0] == LAUNCHER


def test_parse_bounds():
    assert parse_bounds("[0,84][1080,2274]") == (0, 84, 1080, 2274)
    with pytest.raises(ValueError):
        parse_bounds("0,0,1,1")
