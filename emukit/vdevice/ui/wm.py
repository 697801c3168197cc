"""PLACEHOLDER window manager, to be replaced by the real one (compose windows, render, dispatch input)."""

from __future__ import annotations

import io

from PIL import Image

from emukit.vdevice.ui.view import View, hierarchy_xml


class WindowManager:
    def __init__(self, device) -> None:
        self.device = device

    def windows(self) -> list[View]:
        top = self.device.top
        app = self.device.app(top.package)
        root = app.build(self.device, top, (0, 84, 1080, 2274))
        root.fill_package(top.package)
        return [root]

    def hierarchy_xml(self, max_depth: int | None = None) -> str:
        return hierarchy_xml(self.windows(), max_depth=max_depth)

    def screenshot_image(self) -> Image.Image:
        return Image.new("RGB", (1080, 2400), (255, 255, 255))

    def screenshot_png(self) -> bytes:
        buf = io.BytesIO()
        self.screenshot_image().save(buf, format="PNG", compress_level=1)
        return buf.getvalue()
