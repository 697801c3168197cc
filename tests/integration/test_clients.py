"""Unmodified adbutils and uiautomator2 drive the virtual device as they drive an emulator.

Real adb server, real `emukit vdevice serve` process; uiautomator2 pushes its jar and starts its server
through `app_process`, which the virtual device serves over `tcp:9008`.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

SETTINGS = "com.android.settings"
LAUNCHER = "com.google.android.apps.nexuslauncher"


@pytest.fixture(scope="module")
def u2(vdevice):
    import uiautomator2

    d = uiautomator2.connect(vdevice.serial)
    yield d
    d.stop_uiautomator()


def test_adbutils_screen_and_apps(adb_device):
    img = adb_device.screenshot()
    assert img.size == (1080, 2400)
    size = adb_device.window_size()
    assert (size.width, size.height) == (1080, 2400)
    adb_device.app_start(SETTINGS)
    assert adb_device.app_current().package == SETTINGS
    # tap the homepage's search bar, found in the hierarchy (bounds are consistent with pixels)
    xml = adb_device.dump_hierarchy()
    node = next(n for n in ET.fromstring(xml).iter("node") if n.get("resource-id") == f"{SETTINGS}:id/search_action_bar")
    left, top, right, bottom = map(int, node.get("bounds").replace("][", ",").strip("[]").split(","))
    adb_device.click((left + right) // 2, (top + bottom) // 2)
    assert any(n.get("resource-id") == "android:id/search_src_text"
               for n in ET.fromstring(adb_device.dump_hierarchy()).iter("node"))
    adb_device.keyevent(4)  # closes the keyboard
    adb_device.keyevent(4)  # leaves the search page
    adb_device.keyevent("KEYCODE_HOME")
    assert adb_device.app_current().package == LAUNCHER


def test_u2_info_and_hierarchy(u2):
    info = u2.info
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400
    u2.press("home")
    xml = u2.dump_hierarchy()
    root = ET.fromstring(xml)
    assert root.tag == "hierarchy"
    assert any(n.get("package") == "com.android.systemui" for n in root.iter("node"))
    shot = u2.screenshot()
    assert shot.size == (1080, 2400)


def test_u2_selectors(u2):
    u2.press("home")
    assert u2(description="Home").exists
    assert u2(resourceId="com.android.systemui:id/back").exists
    u2.app_start(SETTINGS, stop=True)
    assert u2(text="Network & internet").exists
    assert not u2(text="No such label anywhere").exists
    assert u2(text="Network & internet").get_text() == "Network & internet"
    u2(text="Network & internet").click()
    assert not u2(text="Network & internet", resourceId="android:id/title").exists
    u2(description="Back").click()
    assert u2(text="Network & internet").exists and u2.app_current()["package"] == SETTINGS
    u2(description="Home").click()
    assert u2.app_current()["package"] == LAUNCHER


def test_u2_date_time_page(u2, adb_device):
    adb_device.shell(f"am start -n {SETTINGS}/.DateTimeSettings")
    assert u2(text="Set time automatically").exists
    u2.press("back")
    u2.press("home")


def test_u2_clipboard(u2, adb_device):
    u2.clipboard = "copied from the host"
    assert u2.clipboard == "copied from the host"
    u2.set_clipboard("second", label="lbl")
    assert u2.clipboard == "second"


def test_u2_press_swipe_drag_and_shade(u2, adb_device):
    u2.press("home")
    u2.swipe(540, 10, 540, 1200, duration=0.2)
    xml = u2.dump_hierarchy()
    assert "notification" in xml.lower() or "shade" in xml.lower()
    u2.press("back")
    u2.drag(540, 1200, 540, 1400, duration=0.3)
    assert u2.app_current()["package"] == LAUNCHER
    adb_device.shell("cmd statusbar expand-notifications")
    assert "shade" in u2.dump_hierarchy().lower() or "notification" in u2.dump_hierarchy().lower()
    adb_device.shell("cmd statusbar collapse")


def test_screencap_png_decodes(adb_device):
    png = adb_device.shell("screencap -p", encoding=None)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert Image.open(io.BytesIO(png)).size == (1080, 2400)
