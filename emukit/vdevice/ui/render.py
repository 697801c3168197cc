"""Draws composed windows (view trees) into an RGB image of the display's size.

Every visible view is drawn in document order (parents before children, later siblings on top): shadow,
background (rounded, optionally translucent or a vertical gradient), border, check mark / switch, icon and
text. Children are clipped to their parent's bounds, which is also what hit-testing does. Everything is
deterministic: shapes are antialiased through cached supersampled masks and text uses the shipped DejaVu
fonts only.
"""

from __future__ import annotations

import io
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from emukit.lru import image_bytes, sized_cache
from emukit.vdevice.ui import theme
from emukit.vdevice.ui.icons import icon_mask
from emukit.vdevice.ui.theme import px
from emukit.vdevice.ui.view import Bounds, Color, View

Box = tuple[int, int, int, int]
ELLIPSIS = "\u2026"
_SS = 4  # supersampling of corner masks


@lru_cache(maxsize=2)
def _font_bytes(name: str) -> bytes:
    return resources.files("emukit.vdevice").joinpath("assets", "fonts", name).read_bytes()


def _font_source(name: str) -> str | io.BytesIO:
    """The shipped font file's path, which FreeType maps once for every size; where the package is not on a
    filesystem (a zip), its bytes, which Pillow then copies for each size (0.7 MB each)."""
    ref = resources.files("emukit.vdevice").joinpath("assets", "fonts", name)
    if isinstance(ref, Path) and ref.is_file():
        return str(ref)
    return io.BytesIO(_font_bytes(name))


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu Sans (bold) at ``size`` px (loaded from package data, never from the host)."""
    source = _font_source("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return ImageFont.truetype(source, max(6, size), layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=8192)
def text_length(f: ImageFont.FreeTypeFont, text: str) -> float:
    """``f.getlength(text)``, remembered: layout measures the same labels on every frame."""
    return f.getlength(text)


def _mask_bytes(glyphs: tuple[object, tuple[int, int]]) -> int:
    width, height = glyphs[0].size  # type: ignore[attr-defined]
    return width * height


# 4 MB: full after ~30 pairs of a build; at 16 MB it was still filling at 200 (3.1 MB after 20 pairs), and its
# hit rate over 300 pairs was 96.8% against 92.0% at 4 MB (a mask costs FreeType tens of microseconds)
@sized_cache(4096, 4 * 2**20, _mask_bytes)
def _line_mask(f: ImageFont.FreeTypeFont, line: str, ink: int) -> tuple[object, tuple[int, int]]:
    """The coverage mask and offset of one line of text at a whole-pixel position with anchor ``la``: what
    Pillow's ``ImageDraw.text`` asks FreeType for (pillow is pinned), remembered across frames."""
    return f.getmask2(line, "L", None, None, None, 0, "la", ink, (0.0, 0.0), stroke_filled=True)


def draw_line(draw: ImageDraw.ImageDraw, xy: tuple[int, int], line: str, f: ImageFont.FreeTypeFont,
              color: Color) -> None:
    """``draw.text(xy, line, font=f, fill=color, anchor="la")`` for one line at a whole-pixel ``xy`` on an RGB
    image, byte for byte, with the line's mask remembered (``tests/vdevice/test_ui_render.py`` compares)."""
    ink = draw._getink(color)[0]
    mask, (dx, dy) = _line_mask(f, line, ink)
    draw.draw.draw_bitmap((xy[0] + dx, xy[1] + dy), mask, ink)


def line_height(f: ImageFont.FreeTypeFont) -> int:
    ascent, descent = f.getmetrics()
    return ascent + descent


# ------------------------------------------------------------------ text layout
def ellipsize(text: str, f: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut to ``width`` px with a trailing ellipsis when it does not fit."""
    if text_length(f, text) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if text_length(f, text[:mid].rstrip() + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS


def wrap(text: str, f: ImageFont.FreeTypeFont, width: float, max_lines: int) -> list[tuple[int, str]]:
    """Greedy word wrap into at most ``max_lines`` lines of (start offset in ``text``, line text).

    Explicit newlines break lines; words wider than a line are broken by characters; an overflowing last
    line ends with an ellipsis.
    """
    lines: list[tuple[int, str]] = []
    offset = 0
    for para in text.split("\n"):
        start, end = 0, len(para)
        while True:
            if text_length(f, para[start:]) <= width or max_lines == 1:
                lines.append((offset + start, para[start:]))
                break
            cut = start
            for i in range(start + 1, end + 1):  # last space (or char) keeping the line within width
                if i == end or para[i] == " ":
                    if text_length(f, para[start:i]) > width:
                        break
                    cut = i
            if cut == start:  # a single long word: break by characters
                cut = start + 1
                while cut < end and text_length(f, para[start:cut + 1]) <= width:
                    cut += 1
            lines.append((offset + start, para[start:cut]))
            start = cut + 1 if cut < end and para[cut] == " " else cut
            if len(lines) > max_lines:
                break
        offset += len(para) + 1
        if len(lines) > max_lines:
            break
    if len(lines) > max_lines or (max_lines >= 1 and lines and text_length(f, lines[-1][1]) > width):
        overflow = len(lines) > max_lines
        lines = lines[:max_lines]
        start, last = lines[-1]
        lines[-1] = (start, ellipsize(last + (ELLIPSIS if overflow else ""), f, width))
    return lines


# ------------------------------------------------------------------ shapes
def _intersect(a: Box, b: Box) -> Box | None:
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[0] < box[2] and box[1] < box[3] else None


@sized_cache(256, 2 * 2**20, image_bytes)
def _corner(radius: int, inner: int, alpha: int) -> Image.Image:
    """Top-left quarter of an antialiased disc (or ring when ``inner`` > 0), scaled to ``alpha``."""
    big = radius * _SS
    img = Image.new("L", (big * 2, big * 2), 0)
    draw = ImageDraw.Draw(img)
    draw.ellipse((0, 0, big * 2 - 1, big * 2 - 1), fill=alpha)
    if inner > 0:
        off = (radius - inner) * _SS
        draw.ellipse((off, off, big * 2 - 1 - off, big * 2 - 1 - off), fill=0)
    return img.crop((0, 0, big, big)).reduce(_SS)


@sized_cache(64, 8 * 2**20, image_bytes)
def _solid_mask(width: int, height: int, alpha: int) -> Image.Image:
    return Image.new("L", (width, height), alpha)


def _subtract(box: Box, hole: Box) -> list[Box]:
    """``box`` less ``hole``: at most four rectangles (the bands above and below the hole, then the parts left
    and right of it)."""
    cut = _intersect(box, hole)
    if cut is None:
        return [box]
    x0, y0, x1, y1 = box
    parts = [(x0, y0, x1, cut[1]), (x0, cut[3], x1, y1), (x0, cut[1], cut[0], cut[3]), (cut[2], cut[1], x1, cut[3])]
    return [b for b in parts if b[0] < b[2] and b[1] < b[3]]


def _fill(img: Image.Image, box: Box, color: Color, alpha: int, clip: Box, holes: tuple[Box, ...] = ()) -> None:
    """Fill ``box`` (clipped) with ``color`` at ``alpha``, except inside ``holes``: areas painted over opaquely
    right after, where this fill could not show (the bytes are those of filling them too)."""
    part = _intersect(box, clip)
    if part is None:
        return
    parts = [part]
    for hole in holes:
        parts = [piece for p in parts for piece in _subtract(p, hole)]
    for piece in parts:
        if alpha >= 255:
            img.paste(color, piece)
        else:
            img.paste(color, piece, _solid_mask(piece[2] - piece[0], piece[3] - piece[1], alpha))


def _paste_mask(img: Image.Image, color: Color, x: int, y: int, mask: Image.Image, clip: Box) -> None:
    box = (x, y, x + mask.width, y + mask.height)
    part = _intersect(box, clip)
    if part is None:
        return
    if part != box:
        mask = mask.crop((part[0] - x, part[1] - y, part[2] - x, part[3] - y))
    img.paste(color, part[:2], mask)


def _radius(box: Box, radius: int) -> int:
    """The corner radius a rounded rectangle over ``box`` is drawn with (at most half its width and height)."""
    x0, y0, x1, y1 = box
    return max(0, min(radius, (x1 - x0) // 2, (y1 - y0) // 2))


def opaque_part(box: Box, radius: int) -> tuple[Box, ...]:
    """The rectangles an opaque filled :func:`rounded_rect` over ``box`` paints solid: all of it but the four
    antialiased corners (as a horizontal and a vertical band)."""
    x0, y0, x1, y1 = box
    r = _radius(box, radius)
    return ((x0, y0 + r, x1, y1 - r), (x0 + r, y0, x1 - r, y1)) if r else (box,)


def rounded_rect(img: Image.Image, box: Box, radius: int, color: Color, clip: Box, alpha: int = 255,
                 border: int = 0, holes: tuple[Box, ...] = ()) -> None:
    """Fill (``border`` = 0) or stroke an antialiased rounded rectangle, clipped to ``clip``; a fill leaves out
    ``holes`` (areas painted over opaquely right after: :func:`_fill`) but for its corners."""
    x0, y0, x1, y1 = box
    r = _radius(box, radius)
    if border <= 0:
        if r == 0:
            _fill(img, box, color, alpha, clip, holes)
            return
        _fill(img, (x0 + r, y0, x1 - r, y1), color, alpha, clip, holes)
        _fill(img, (x0, y0 + r, x0 + r, y1 - r), color, alpha, clip, holes)
        _fill(img, (x1 - r, y0 + r, x1, y1 - r), color, alpha, clip, holes)
        inner = 0
    else:
        _fill(img, (x0 + r, y0, x1 - r, y0 + border), color, alpha, clip)
        _fill(img, (x0 + r, y1 - border, x1 - r, y1), color, alpha, clip)
        _fill(img, (x0, y0 + r, x0 + border, y1 - r), color, alpha, clip)
        _fill(img, (x1 - border, y0 + r, x1, y1 - r), color, alpha, clip)
        if r == 0:
            return
        inner = max(0, r - border)
    quarter = _corner(r, inner, alpha)
    _paste_mask(img, color, x0, y0, quarter, clip)
    _paste_mask(img, color, x1 - r, y0, quarter.transpose(Image.Transpose.FLIP_LEFT_RIGHT), clip)
    _paste_mask(img, color, x0, y1 - r, quarter.transpose(Image.Transpose.FLIP_TOP_BOTTOM), clip)
    _paste_mask(img, color, x1 - r, y1 - r, quarter.transpose(Image.Transpose.ROTATE_180), clip)


@sized_cache(8, 24 * 2**20, image_bytes)
def _gradient(width: int, height: int, top: Color, bottom: Color) -> Image.Image:
    t = np.linspace(0.0, 1.0, max(1, height), dtype=np.float32)[:, None]
    rows = np.asarray(top, np.float32) * (1 - t) + np.asarray(bottom, np.float32) * t
    arr = np.repeat(np.rint(rows).astype(np.uint8)[:, None, :], max(1, width), axis=1)
    return Image.fromarray(arr, "RGB")


def _shadow(img: Image.Image, box: Box, radius: int, elevation: int, clip: Box,
            covered: tuple[Box, ...] = ()) -> None:
    """The two translucent layers of an elevated view's shadow; ``covered``: what the view's own opaque
    background paints over next (left out: the shadow cannot show there)."""
    x0, y0, x1, y1 = box
    spread, drop = max(1, elevation // 3), max(1, elevation // 2)
    rounded_rect(img, (x0 - spread, y0 - spread + drop, x1 + spread, y1 + spread + drop), radius + spread,
                 (0, 0, 0), clip, alpha=18, holes=covered)
    rounded_rect(img, (x0 - 1, y0 + drop // 2, x1 + 1, y1 + drop // 2 + 1), radius + 1, (0, 0, 0), clip,
                 alpha=34, holes=covered)


# ------------------------------------------------------------------ widgets drawn by the renderer
def _switch(img: Image.Image, box: Box, on: bool, enabled: bool, clip: Box) -> None:
    x0, y0, x1, y1 = box
    track = theme.PRIMARY if on else theme.SURFACE_VARIANT
    if not enabled:
        track = theme.mix(track, (255, 255, 255), 0.5)
    rounded_rect(img, box, (y1 - y0) // 2, track, clip)
    if not on:
        rounded_rect(img, box, (y1 - y0) // 2, theme.OUTLINE, clip, border=max(1, px(4)))
    h = y1 - y0
    knob = h - px(16) if on else h - px(28)
    cx = x1 - h // 2 if on else x0 + h // 2
    cy = (y0 + y1) // 2
    knob_box = (cx - knob // 2, cy - knob // 2, cx - knob // 2 + knob, cy - knob // 2 + knob)
    rounded_rect(img, knob_box, knob // 2, (255, 255, 255) if on else theme.OUTLINE, clip)


def _checkbox(img: Image.Image, box: Box, on: bool, clip: Box, radio: bool = False) -> None:
    size = box[2] - box[0]
    radius = size // 2 if radio else px(8)
    if on and not radio:
        rounded_rect(img, box, radius, theme.PRIMARY, clip)
        inset = px(4)
        _paste_mask(img, (255, 255, 255), box[0] + inset, box[1] + inset, icon_mask("check", size - 2 * inset), clip)
        return
    rounded_rect(img, box, radius, theme.PRIMARY if on else theme.OUTLINE, clip, border=max(1, px(5)))
    if on:
        inset = size // 4
        rounded_rect(img, (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset), size, theme.PRIMARY,
                     clip)


# ------------------------------------------------------------------ views
class Renderer:
    """Draws view trees; ``cursor`` is the caret offset in the focused editable (``None`` = end)."""

    def __init__(self, image: Image.Image, cursor: int | None = None) -> None:
        self.img = image
        self.draw = ImageDraw.Draw(image)
        self.cursor = cursor

    def view(self, v: View, clip: Box) -> None:
        if not v.visible:
            return
        box: Bounds = v.bounds
        own = _intersect(box, clip)
        s = v.style
        if s.elevation > 0 and own is not None:
            if s.bg is not None and s.bg2 is not None:
                covered: tuple[Box, ...] = (own,)  # the gradient is pasted over all of it
            elif s.bg is not None and s.bg_alpha >= 255:
                covered = opaque_part(box, s.radius)
            else:
                covered = ()
            _shadow(self.img, box, s.radius, s.elevation, clip, covered)
        if own is not None:
            if s.bg is not None and s.bg2 is not None:
                grad = _gradient(box[2] - box[0], box[3] - box[1], s.bg, s.bg2)
                self.img.paste(grad.crop((own[0] - box[0], own[1] - box[1], own[2] - box[0], own[3] - box[1])),
                               own[:2])
            elif s.bg is not None:
                rounded_rect(self.img, box, s.radius, s.bg, clip, alpha=s.bg_alpha)
            border = s.border
            if v.editable and v.focused and border is not None:
                border = theme.PRIMARY
            if border is not None and s.border_width > 0:
                width = s.border_width + (1 if v.editable and v.focused else 0)
                rounded_rect(self.img, box, s.radius, border, clip, border=width)
            self._content(v, box, clip)
        inner = own if own is not None else (0, 0, 0, 0)
        for child in v.children:
            if own is not None:
                self.view(child, inner)

    def _content(self, v: View, box: Box, clip: Box) -> None:
        s = v.style
        pad = s.padding
        x0, y0, x1, y1 = box[0] + pad, box[1] + pad, box[2] - pad, box[3] - pad
        fg = s.fg if v.enabled else theme.mix(s.fg, (255, 255, 255), 0.55)
        if v.checkable:
            if v.cls.endswith("Switch"):
                w, h = px(124), px(72)
                cy = (y0 + y1) // 2
                _switch(self.img, (x1 - w, cy - h // 2, x1, cy + h // 2), v.checked, v.enabled, clip)
                x1 -= w + px(24)
            elif v.cls.endswith("CheckBox") or v.cls.endswith("RadioButton"):
                size = px(54)
                cy = (y0 + y1) // 2
                _checkbox(self.img, (x0, cy - size // 2, x0 + size, cy + size // 2), v.checked, clip,
                          radio=v.cls.endswith("RadioButton"))
                x0 += size + px(28)
        text, color, is_hint = v.text, fg, False
        if v.password and text:
            text = "\u2022" * len(text)
        if not text and v.editable and v.hint:
            text, color, is_hint = v.hint, theme.TEXT_HINT, True
        elif not text and s.show_desc:
            text = v.content_desc
        if s.icon:
            x0, y0, x1, y1 = self._icon(v, (x0, y0, x1, y1), bool(text), clip)
        caret = v.editable and v.focused
        if text or caret:
            field_text = "" if is_hint else text
            self._text(v, text, color, (x0, y0, x1, y1), clip, field_text if caret else None)

    def _icon(self, v: View, box: Box, has_text: bool, clip: Box) -> Box:
        """Draw the icon; returns the box left for the text."""
        s = v.style
        x0, y0, x1, y1 = box
        size = s.icon_size or max(8, int(min(x1 - x0, y1 - y0) * (0.45 if not has_text else 0.6)))
        color = s.icon_color or s.fg
        if not v.enabled:
            color = theme.mix(color, (255, 255, 255), 0.55)
        pos = s.icon_pos if has_text else "center"
        pad = size // 3 if s.icon_bg is not None else 0
        if pos == "top":
            ix, iy = (x0 + x1 - size) // 2, y0 + pad
        elif pos == "right":
            ix, iy = x1 - size - pad, (y0 + y1 - size) // 2
        elif pos == "left":
            ix, iy = x0 + pad, (y0 + y1 - size) // 2
        else:
            ix, iy = (x0 + x1 - size) // 2, (y0 + y1 - size) // 2
        if s.icon_bg is not None:
            rounded_rect(self.img, (ix - pad, iy - pad, ix + size + pad, iy + size + pad), size, s.icon_bg, clip)
        _paste_mask(self.img, color, ix, iy, icon_mask(s.icon or "app", size), clip)
        gap = max(px(16), size // 2)
        if pos == "top":
            return x0, iy + size + pad + gap // 2, x1, y1
        if pos == "right":
            return x0, y0, ix - pad - gap, y1
        if pos == "left":
            return ix + size + pad + gap, y0, x1, y1
        return box

    def _text(self, v: View, text: str, color: Color, box: Box, clip: Box, caret_text: str | None) -> None:
        """Draw ``text`` in ``box``; ``caret_text`` (the field's real text) is given when a caret is shown."""
        s = v.style
        f = font(s.font_size, s.bold)
        lh = line_height(f)
        x0, y0, x1, y1 = box
        width = max(1, x1 - x0)
        shift = 0
        if caret_text and s.max_lines == 1 and text_length(f, text) > width:  # keep the caret end in view
            while shift < len(text) and text_length(f, text[shift:]) > width:
                shift += 1
            lines = [(0, text[shift:])]
        else:
            lines = wrap(text, f, width, max(1, s.max_lines)) if text else [(0, "")]
        block = lh * len(lines)
        if s.valign == "top":
            top = y0
        elif s.valign == "bottom":
            top = y1 - block
        else:
            top = (y0 + y1 - block) // 2
        for i, (_, line) in enumerate(lines):
            ly = top + i * lh
            if not line or ly < clip[1] - lh // 3 or ly + lh > clip[3] + lh // 3:
                continue
            lw = text_length(f, line)
            lx = x0 if s.align == "left" else (x1 - lw if s.align == "right" else (x0 + x1 - lw) / 2)
            draw_line(self.draw, (round(lx), ly), line, f, color)
        if caret_text is not None and getattr(s, "caret_visible", True):  # blink phase: editing.mark_caret
            self._caret(v, f, lines if caret_text else [(0, "")], caret_text, shift, (x0, top, x1, lh), clip)

    def _caret(self, v: View, f: ImageFont.FreeTypeFont, lines: list[tuple[int, str]], text: str, shift: int,
               geom: tuple[int, int, int, int], clip: Box) -> None:
        x0, top, x1, lh = geom
        pos = len(text) if self.cursor is None else max(0, min(self.cursor, len(text)))
        pos -= shift
        row, col_text = 0, ""
        if text:
            for i, (start, line) in enumerate(lines):
                if pos >= start:
                    row, col_text = i, line[:max(0, pos - start)]
        line = lines[row][1] if text else ""
        lw = text_length(f, line) if text else 0
        s = v.style
        lx = x0 if s.align == "left" else (x1 - lw if s.align == "right" else (x0 + x1 - lw) / 2)
        cx = round(lx + text_length(f, col_text))
        cy = top + row * lh
        _fill(self.img, (cx, cy + px(2), cx + max(1, px(4)), cy + lh - px(2)), theme.PRIMARY, 255, clip)


def render(windows: list[View], cursor: int | None = None,
           size: tuple[int, int] = (theme.SCREEN_W, theme.SCREEN_H)) -> Image.Image:
    """Draw the composed windows (bottom first) into a new RGB image."""
    img = Image.new("RGB", size, (0, 0, 0))
    renderer = Renderer(img, cursor)
    screen = (0, 0, size[0], size[1])
    for window in windows:
        renderer.view(window, screen)
    return img
