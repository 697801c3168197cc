"""Rendering: deterministic PNGs, the screenshot cache, hierarchy bounds and the text/shape primitives."""

from __future__ import annotations

import io
import statistics
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image, ImageDraw

from emukit.images import encode_png
from emukit.vdevice.device import SCREEN_H, SCREEN_W, VirtualDevice
from emukit.vdevice.ui import render, theme
from emukit.vdevice.ui.icons import ICONS, icon_mask
from emukit.vdevice.ui.view import Style, View


@pytest.fixture
def device(tmp_path) -> VirtualDevice:
    return VirtualDevice(tmp_path / "dev", wipe=True)


def _bounds(node: ET.Element) -> tuple[int, int, int, int]:
    left_top, right_bottom = node.get("bounds", "")[1:-1].split("][")
    left, top = map(int, left_top.split(","))
    right, bottom = map(int, right_bottom.split(","))
    return left, top, right, bottom


def test_png_is_full_screen_rgb(device: VirtualDevice) -> None:
    image = Image.open(io.BytesIO(device.screenshot_png()))
    assert image.format == "PNG"
    assert image.size == (SCREEN_W, SCREEN_H)
    assert image.mode == "RGB"


def test_same_state_gives_identical_bytes(tmp_path, device: VirtualDevice) -> None:
    first = device.screenshot_png()
    assert device.screenshot_png() == first
    device.wm.clear_caches()  # a fresh render and encode, not the cached bytes
    assert device.screenshot_png() == first
    other = VirtualDevice(tmp_path / "elsewhere" / "dev2", wipe=True)
    assert other.screenshot_png() == first
    device.start_activity("com.android.settings")
    other.start_activity("com.android.settings")
    assert device.screenshot_png() == other.screenshot_png() != first


def test_png_matches_screenshot_image(device: VirtualDevice) -> None:
    decoded = Image.open(io.BytesIO(device.screenshot_png())).convert("RGB")
    assert decoded.tobytes() == device.wm.screenshot_image().tobytes()


def test_screen_changes_with_the_clock(device: VirtualDevice) -> None:
    before = device.screenshot_png()
    device.advance(60_000)
    assert device.screenshot_png() != before
    assert 'text="09:01"' in device.hierarchy_xml()


def test_screenshot_image_is_a_copy(device: VirtualDevice) -> None:
    image = device.wm.screenshot_image()
    image.paste((255, 0, 0), (0, 0, 500, 500))
    assert device.wm.screenshot_image().getpixel((10, 10)) != (255, 0, 0)


def test_hierarchy_parses_and_bounds_are_on_screen(device: VirtualDevice) -> None:
    root = ET.fromstring(device.hierarchy_xml())
    assert root.tag == "hierarchy"
    nodes = list(root.iter("node"))
    assert nodes
    for node in nodes:
        left, top, right, bottom = _bounds(node)
        assert 0 <= left <= right <= SCREEN_W and 0 <= top <= bottom <= SCREEN_H, node.attrib
    packages = {n.get("package") for n in root.findall("node")}
    assert {"com.google.android.apps.nexuslauncher", "com.android.systemui"} <= packages
    back = next(n for n in nodes if n.get("resource-id") == "com.android.systemui:id/back")
    assert back.get("content-desc") == "Back" and back.get("clickable") == "true"
    assert _bounds(back)[1] >= SCREEN_H - theme.NAV_H
    # a Pixel home screen: workspace and hotseat; the apps are in the All Apps drawer, not on it
    ids = {n.get("resource-id") for n in nodes}
    assert {"com.google.android.apps.nexuslauncher:id/workspace", "com.google.android.apps.nexuslauncher:id/hotseat"} <= ids
    assert not any(n.get("text") == "Settings" for n in nodes)


def test_hierarchy_max_depth(device: VirtualDevice) -> None:
    shallow = ET.fromstring(device.hierarchy_xml(max_depth=1))
    assert all(len(list(window)) == 0 for window in shallow)


def test_bounds_match_pixels(device: VirtualDevice) -> None:
    """The home button's icon is drawn inside the home button's bounds."""
    home = device.wm.find_view(lambda v: v.resource_id == "com.android.systemui:id/home")
    assert home is not None
    pixels = np.asarray(device.wm.screenshot_image().crop(home.bounds)).astype(int)
    background = pixels[2, 2]
    assert (np.abs(pixels - background).sum(axis=2) > 100).sum() > 200  # the circle's stroke


def test_render_timing(device: VirtualDevice) -> None:
    device.start_activity("com.android.settings")
    uncached, cached = [], []
    for _ in range(5):
        device.wm.clear_caches()
        start = time.perf_counter()
        device.screenshot_png()
        uncached.append(time.perf_counter() - start)
        start = time.perf_counter()
        device.screenshot_png()
        cached.append(time.perf_counter() - start)
    # generous bounds for loaded CI machines; the design target is < 80 ms / < 10 ms
    assert statistics.median(uncached) < 0.5
    assert statistics.median(cached) < 0.05


def test_png_encoder_round_trip() -> None:
    rng = np.random.default_rng(7)
    arr = rng.integers(0, 256, size=(37, 53, 3), dtype=np.uint8)
    arr[:10] = 200  # some flat rows too
    decoded = Image.open(io.BytesIO(encode_png(Image.fromarray(arr, "RGB"))))
    assert np.array_equal(np.asarray(decoded.convert("RGB")), arr)


def test_unknown_icon_and_every_icon_render() -> None:
    assert icon_mask("no-such-icon", 48).getbbox() is not None
    for name in ICONS:
        mask = icon_mask(name, 48)
        assert mask.size == (48, 48) and mask.getbbox() is not None, name


def test_text_wrap_and_ellipsis() -> None:
    f = render.font(40)
    assert render.ellipsize("short", f, 1000) == "short"
    cut = render.ellipsize("a fairly long sentence that cannot fit", f, 300)
    assert cut.endswith("\u2026") and f.getlength(cut) <= 300
    lines = render.wrap("one two three four five six seven eight nine ten", f, 300, 2)
    assert len(lines) == 2 and lines[-1][1].endswith("\u2026")
    lines = render.wrap("first\nsecond", f, 1000, 5)
    assert [t for _, t in lines] == ["first", "second"] and lines[1][0] == 6


def test_views_draw_text_hint_checkbox_and_translucent_bg() -> None:
    white = (255, 255, 255)
    root = View(bounds=(0, 0, 600, 800), style=Style(bg=white), children=[
        View(bounds=(0, 0, 600, 100), text="Hello"),
        View(cls="android.widget.EditText", bounds=(0, 100, 600, 200), hint="Type here", editable=True),
        View(cls="android.widget.CheckBox", bounds=(0, 200, 600, 300), text="Check", checkable=True, checked=True),
        View(bounds=(0, 300, 600, 400), style=Style(bg=(0, 0, 0), bg_alpha=128)),
        View(bounds=(0, 400, 600, 500), visible=False, style=Style(bg=(255, 0, 0))),
        View(bounds=(0, 500, 600, 600), style=Style(bg=(0, 0, 255), radius=40, elevation=8)),
    ])
    image = render.render([root], size=(600, 800))
    arr = np.asarray(image).astype(int)
    assert (arr[0:100] != 255).any()  # text ink
    assert (arr[100:200] != 255).any()  # hint ink
    assert tuple(arr[250, 27]) == theme.PRIMARY  # the checked box
    assert abs(arr[350, 300, 0] - 127) <= 2  # 50% black over white
    assert (arr[400:500] == 255).all()  # invisible views draw nothing
    assert tuple(arr[550, 300]) == (0, 0, 255) and tuple(arr[501, 1]) != (0, 0, 255)  # rounded corner


def test_children_are_clipped_to_parents() -> None:
    root = View(bounds=(0, 0, 100, 100), style=Style(bg=(255, 255, 255)), children=[
        View(bounds=(0, 0, 100, 50), children=[View(bounds=(0, 0, 100, 100), style=Style(bg=(0, 0, 0)))])])
    arr = np.asarray(render.render([root], size=(100, 100)))
    assert (arr[:50] == 0).all() and (arr[50:] == 255).all()


def test_widgets_build_and_render() -> None:
    from emukit.vdevice.ui import widgets as w

    frame = theme.APP_FRAME
    root = w.screen(frame)
    root.add(w.app_bar(frame, "Title", on_back=lambda: None, subtitle="Sub",
                       actions=[w.Action("search", "Search", lambda: None)]))
    body = w.below_app_bar(frame)
    root.add(w.tabs(0, body[1], SCREEN_W, ["One", "Two"], 1, lambda i: None))
    rows = [(w.row_height(True), lambda top, i=i: w.list_row(body, top, f"Row {i}", "second line", icon="file",
                                                             checked=i % 2 == 0)) for i in range(40)]
    root.add(w.scroll_list(w.below_app_bar(body, w.TAB_H), rows, 10_000, lambda v: None))
    root.add(w.fab(frame, "plus", "Add", lambda: None, text="New"))
    root.add(w.empty_state(body, "folder", "Nothing here"))
    root.add(w.popup_menu(frame, (SCREEN_W, frame[1]), [("Sort", lambda: None)], lambda: None))
    root.add(w.floating_toolbar(540, 600, [("Copy", lambda: None)]))
    root.add(w.stepper_dialog(frame, "Pick", [("Hours", "01", lambda: None, lambda: None)], on_cancel=lambda: None,
                              on_ok=lambda: None))
    image = render.render([root])
    assert image.size == (SCREEN_W, SCREEN_H)
    ids = {v.resource_id for v in root.walk()}
    assert {"android:id/alertTitle", "android:id/button1", "android:id/button2"} <= ids
    up = root.find(lambda v: v.content_desc == "Navigate up")
    assert up is not None and up.clickable
    last = [v.text for v in root.walk() if v.text.startswith("Row ")]
    assert last[-1] == "Row 39"  # the scroll offset was clamped to the end of the list



@pytest.mark.parametrize("bg", [(255, 255, 255), "gradient", "translucent"])
def test_an_elevated_view_leaves_out_only_the_shadow_its_background_paints_over(bg) -> None:
    """The shadow is not blended where the view's own opaque background is painted right after; the screen
    is byte-identical to one whose shadow is drawn in full (random boxes, radii, elevations and clips)."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        x0, y0 = (int(v) for v in rng.integers(-40, 500, 2))
        box = (x0, y0, x0 + int(rng.integers(1, 600)), y0 + int(rng.integers(1, 400)))
        cx, cy = (int(v) for v in rng.integers(0, 300, 2))
        clip = (cx, cy, cx + int(rng.integers(50, 800)), cy + int(rng.integers(50, 800)))
        radius, elevation = int(rng.integers(0, 80)), int(rng.integers(1, 24))
        style = Style(bg=(200, 30, 60), radius=radius, elevation=elevation)
        if bg == "gradient":
            style = Style(bg=(200, 30, 60), bg2=(10, 90, 200), radius=radius, elevation=elevation)
        elif bg == "translucent":
            style = Style(bg=(200, 30, 60), bg_alpha=120, radius=radius, elevation=elevation)
        view = View(bounds=box, style=style)
        base = Image.new("RGB", (900, 900), (90, 160, 120))
        fast = base.copy()
        render.Renderer(fast).view(view, clip)
        full = base.copy()  # the shadow in full, then the background as the renderer paints it
        render._shadow(full, box, radius, elevation, clip)
        own = render._intersect(box, clip)
        if own is not None and bg == "gradient":
            grad = render._gradient(box[2] - box[0], box[3] - box[1], style.bg, style.bg2)
            full.paste(grad.crop((own[0] - box[0], own[1] - box[1], own[2] - box[0], own[3] - box[1])), own[:2])
        elif own is not None:
            render.rounded_rect(full, box, radius, style.bg, clip, alpha=style.bg_alpha)
        assert fast.tobytes() == full.tobytes(), (box, clip, radius, elevation)


def test_a_line_drawn_from_its_remembered_mask_is_pillows_text_byte_for_byte() -> None:
    """``render.draw_line`` (FreeType's mask remembered per font, line and ink) against ``ImageDraw.text``:
    every size and weight the theme uses, labels with accents, digits and symbols, several colours, positions
    at the edges (clipped) and drawn twice (the second from the cache)."""
    lines = ["Settings", "Kestrel43 \u2014 ticket_69.jpg", "\u00c9t\u00e9 \u00e0 Z\u00fcrich", "12:45 PM", "",
             "a", "W" * 40, "Paste", "\u2026"]
    colors = [theme.TEXT, theme.PRIMARY, (255, 255, 255), (0, 0, 0)]
    for size in (24, 31, 36, 42, 48, 57):
        for bold in (False, True):
            f = render.font(size, bold)
            for i, line in enumerate(lines):
                color = colors[i % len(colors)]
                for xy in ((10, 20), (-15, 5), (850, 870), (300, 400)):
                    want = Image.new("RGB", (900, 900), (240, 235, 250))
                    ImageDraw.Draw(want).text(xy, line, font=f, fill=color, anchor="la")
                    for _ in range(2):  # the mask made, then the mask remembered
                        got = Image.new("RGB", (900, 900), (240, 235, 250))
                        render.draw_line(ImageDraw.Draw(got), xy, line, f, color)
                        assert got.tobytes() == want.tobytes(), (size, bold, line, xy)
