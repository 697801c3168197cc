"""Chrome's gallery: the first run, the New Tab Page, the omnibox being edited, a local page, a selected word."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.apps.chrome import data as D
from emukit.vdevice.apps.chrome.screens import FIRST_RUN, MAIN

if TYPE_CHECKING:
    from emukit.vdevice.apps.chrome import ChromeApp
    from emukit.vdevice.device import VirtualDevice

PAGE = "/data/local/tmp/gallery.html"
HTML = ("<html><head><title>Reading list</title></head><body><h1>Reading list</h1>"
        "<p>Quartz notes on the history of timekeeping.</p><p>Harbor schedules for the spring ferries.</p>"
        "<p><input type=\"text\" placeholder=\"Your name\"></p></body></html>")


def scenes(app: ChromeApp, device: VirtualDevice) -> Iterator[str]:
    device.start_activity(app.package, FIRST_RUN)
    yield "first run"
    device.finish_top()
    device.start_activity(app.package, MAIN)
    yield "new tab page"
    tabbed = device.top
    tabbed.state["editing"], tabbed.state["omnibox"] = True, "file:///data/local/tmp/gal"
    yield "omnibox"
    tabbed.state["editing"], tabbed.state["omnibox"] = False, ""
    device.fs.write_bytes(PAGE, HTML.encode())
    D.navigate(device, "file://" + PAGE)
    yield "local page"
    tabbed.state["sel"] = {"block": 1, "start": 0, "end": 6}
    yield "selected word"
