"""The virtual device's display is configurable (default 1080x2400 at 420 dpi; here also 720x1280 at 320 dpi):
every report of it follows (``wm``, ``getprop``, ``dumpsys display`` / ``window``, ``am stack``, uiautomator2's
device info and window size, screenshots, the hierarchy) and the system bars and the keyboard keep their dp
size. Each display runs in its own ``emukit vdevice serve`` process behind the real adb server."""

from __future__ import annotations

import io
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from emukit.device.driver import Driver
from emukit.device.virtual import PortInUse, VirtualDeviceProcess, free_adb_ports
from emukit.hierarchy import parse_bounds
from emukit.vdevice.device import (
    DEFAULT_SCREEN,
    check_screen,
    configure_screen,
    format_screen,
    parse_screen,
)
from tests.conftest import TEST_PORT_BASE  # this worker's block of test ports

SMALL = (720, 1280, 320)
SETTINGS = "com.android.settings"
IME = "com.android.inputmethod.latin"


def expected(screen: tuple[int, int, int]) -> dict[str, int]:
    """What a display of ``screen`` must show, computed here from the dp rule (px = dp * dpi / 160) and the
    420 dpi reference sizes (status bar 96 px, navigation bar 48 dp, keyboard 800 px)."""
    width, height, dpi = screen
    status, nav, keyboard = round(96 * dpi / 420), round(48 * dpi / 160), round(800 * dpi / 420)
    return {"w": width, "h": height, "dpi": dpi, "status": status, "nav": nav, "keyboard": keyboard,
            "dp_x": round(width * 160 / dpi), "dp_y": round(height * 160 / dpi)}


@pytest.fixture(scope="module")
def small_device(adb_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("small-screen")
    for attempt in range(5):
        port = free_adb_ports(1, start=TEST_PORT_BASE + 200 + 6 * attempt)[0]
        proc = VirtualDeviceProcess(port, root / f"dev{port}", adb_server, screen=SMALL)
        try:
            proc.start()
        except PortInUse:
            continue  # another process took the port between the check and the bind
        yield proc
        proc.stop()
        return
    raise AssertionError("no free port for the small-screen device")


@pytest.fixture(scope="module", params=["default", "small"])
def device(request, vdevice, small_device, adb_server):
    """(driver, screen) for the default display and for 720x1280 at 320 dpi."""
    proc, screen = (vdevice, DEFAULT_SCREEN) if request.param == "default" else (small_device, SMALL)
    driver = Driver(proc.serial, adb_server.port, default_timeout=5)
    yield driver, screen
    driver.close()


def _nodes(xml: str) -> list[ET.Element]:
    return list(ET.fromstring(xml).iter("node"))


def _windows(xml: str) -> list[ET.Element]:
    return list(ET.fromstring(xml))


def _content(xml: str) -> tuple[int, int, int, int]:
    """Bounds of the app window's ``android:id/content`` frame (the window itself spans the display, as a
    phone window's DecorView does)."""
    node = next(n for n in _windows(xml)[0].iter("node") if n.get("resource-id") == "android:id/content")
    return parse_bounds(node.get("bounds"))


# ------------------------------------------------------------------------------------------ the screen spec
def test_screen_spec_parses_checks_and_formats():
    assert parse_screen("720x1280@320") == (720, 1280, 320)
    assert parse_screen(" 1080X2400 @ 420dpi ") == DEFAULT_SCREEN
    assert format_screen(SMALL) == "720x1280@320"
    for bad in ("720x1280", "720*1280@320", "x@", "720x1280@-3"):
        with pytest.raises(ValueError, match="WIDTHxHEIGHT@DPI"):
            parse_screen(bad)
    with pytest.raises(ValueError, match="density 20 dpi"):
        parse_screen("720x1280@20")
    with pytest.raises(ValueError, match="at least 320 dp wide"):
        check_screen((480, 800, 320))  # 240 dp wide
    with pytest.raises(ValueError, match="taller than wide"):
        check_screen((1280, 720, 320))
    with pytest.raises(ValueError, match="at least 320 dp wide"):
        VirtualDeviceProcess(21001, "unused", None, screen=(100, 200, 320))  # type: ignore[arg-type]


def test_the_display_is_fixed_once_the_ui_has_loaded():
    from emukit.vdevice.ui import theme

    configure_screen((theme.SCREEN_W, theme.SCREEN_H, theme.DENSITY))  # the same display: nothing to do
    other = SMALL if (theme.SCREEN_W, theme.SCREEN_H, theme.DENSITY) != SMALL else DEFAULT_SCREEN
    with pytest.raises(RuntimeError, match="must be set before the UI modules load"):
        configure_screen(other)


def test_theme_lengths_follow_the_density_in_a_fresh_process():
    code = ("from emukit.vdevice.device import configure_screen; configure_screen((720, 1280, 320)); "
            "from emukit.vdevice.ui import theme, widgets; "
            "print(theme.SCREEN_W, theme.SCREEN_H, theme.dp(48), theme.px(96), theme.STATUS_H, theme.NAV_H, "
            "theme.KEYBOARD_H, theme.TEXT_BODY, widgets.ROW_H, widgets.APP_BAR_H, theme.APP_FRAME)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 10)
    # 48 dp = 96 px at 320 dpi; a 96 px (420 dpi) status bar is 73 px; 56 dp rows are 112 px
    assert out[:10] == ["720", "1280", "96", "73", "73", "96", "610", "30", "112", "128"]
    assert out[10].strip() == "(0, 73, 720, 1184)"


def test_serve_refuses_a_bad_screen_option():
    run = subprocess.run([sys.executable, "-m", "emukit", "vdevice", "serve", "--screen", "720x1280"],
                         check=False, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "WIDTHxHEIGHT@DPI" in run.stderr


# ------------------------------------------------------------------------------------------ what the device reports
def test_shell_reports_the_display(device):
    driver, screen = device
    e = expected(screen)
    assert driver.shell("wm size", check=True).text == f"Physical size: {e['w']}x{e['h']}\n"
    assert driver.shell("wm density", check=True).text == f"Physical density: {e['dpi']}\n"
    assert driver.shell("getprop ro.sf.lcd_density", check=True).text.strip() == str(e["dpi"])
    assert driver.screen() == screen
    display = driver.shell("dumpsys display", check=True).text
    assert f"deviceWidth={e['w']}, deviceHeight={e['h']}" in display
    assert f"real {e['w']} x {e['h']}" in display and f"density {e['dpi']} ({e['dpi']}.0 x {e['dpi']}.0) dpi" in display
    assert f"app {e['w']} x {e['h'] - e['nav']}," in display
    window = driver.shell("dumpsys window", check=True).text
    assert f"init={e['w']}x{e['h']} {e['dpi']}dpi cur={e['w']}x{e['h']} app={e['w']}x{e['h'] - e['nav']}" in window
    assert f"sw{min(e['w'], e['h']) * 160 // e['dpi']}dp w{e['w'] * 160 // e['dpi']}dp" in window
    assert f"mBounds=Rect(0, 0 - {e['w']}, {e['h']})" in window
    stack = driver.shell("am stack list", check=True).text
    bounds = re.findall(r"bounds=(\[\d+,\d+\]\[\d+,\d+\])", stack)
    assert bounds and set(bounds) == {f"[0,0][{e['w']},{e['h']}]"}
    assert f"{e['dpi']}dpi" in stack


def test_uiautomator2_reports_the_display(device):
    driver, screen = device
    e = expected(screen)
    info = driver.rpc("deviceInfo")
    assert (info["displayWidth"], info["displayHeight"]) == (e["w"], e["h"])
    assert (info["displaySizeDpX"], info["displaySizeDpY"]) == (e["dp_x"], e["dp_y"])
    assert tuple(driver.adbutils().window_size()) == (e["w"], e["h"])
    driver.ensure_ui()
    assert tuple(driver._u2.window_size()) == (e["w"], e["h"])


def test_screenshots_have_the_display_size(device):
    driver, screen = device
    e = expected(screen)
    with Image.open(io.BytesIO(driver.screenshot())) as png:
        assert png.size == (e["w"], e["h"])
    raw = driver.wire.exec_out("screencap")
    assert struct.unpack("<II", raw[:8]) == (e["w"], e["h"]) and len(raw) == 12 + e["w"] * e["h"] * 4
    driver.ensure_ui()
    assert driver._u2.screenshot().size == (e["w"], e["h"])


def test_hierarchy_spans_the_display_and_bars_keep_their_dp_size(device):
    driver, screen = device
    e = expected(screen)
    driver.home()
    xml = driver.hierarchy()
    tops = [parse_bounds(w.get("bounds")) for w in _windows(xml)]
    assert tops[:3] == [(0, 0, e["w"], e["h"]), (0, 0, e["w"], e["status"]),
                        (0, e["h"] - e["nav"], e["w"], e["h"])]  # app window, status bar, navigation bar
    assert _content(xml) == (0, e["status"], e["w"], e["h"] - e["nav"])  # between the bars
    assert (min(b[0] for b in tops), min(b[1] for b in tops), max(b[2] for b in tops), max(b[3] for b in tops)) == (
        0, 0, e["w"], e["h"])
    for node in _nodes(xml):
        left, top, right, bottom = parse_bounds(node.get("bounds"))
        assert 0 <= left <= right <= e["w"] and 0 <= top <= bottom <= e["h"], node.attrib
    nav = [n for n in _nodes(xml) if n.get("resource-id", "").startswith("com.android.systemui:id/")
           and n.get("content-desc") in ("Back", "Home")]
    assert {n.get("content-desc") for n in nav} >= {"Back", "Home"}


def test_keyboard_scales_with_the_display(device):
    driver, screen = device
    e = expected(screen)
    driver.start_app(SETTINGS, stop_first=True)
    if driver.exists(text="Search settings"):  # the search bar opens the search screen and its field
        driver.tap(text="Search settings")
    driver.tap(className="android.widget.EditText", packageName=SETTINGS)  # focus: the keyboard shows
    xml = driver.hierarchy()
    nodes = _nodes(xml)
    board = next(n for n in nodes if n.get("resource-id") == f"{IME}:id/keyboard_view")
    top = e["h"] - e["nav"] - e["keyboard"]
    assert parse_bounds(board.get("bounds")) == (0, top, e["w"], e["h"] - e["nav"])
    digits = [parse_bounds(n.get("bounds")) for n in nodes
              if n.get("package") == IME and n.get("content-desc") in tuple("1234567890")]
    assert len(digits) == 10
    assert all(0 <= b[0] and b[2] <= e["w"] and top < b[1] < b[3] <= e["h"] - e["nav"] for b in digits)
    key_w = e["w"] // 10
    assert {b[2] - b[0] for b in digits} == {key_w - round(10 * e["dpi"] / 420)}  # a tenth of the width, less the gap
    # adjustResize: the app's content sits between the status bar and the keyboard
    assert _content(xml) == (0, e["status"], e["w"], top)
    driver.back()
