"""Action overlays drawn on a screenshot with Pillow (the Code2World visual hint).

Code2World is trained on screenshots that carry the action as a red mark: a translucent red disc with an
opaque red rim where a tap or long press lands, and a thick red arrow from the start to the end of a swipe
(the arrow points the way the finger moves). Typing, key presses and waits draw nothing. The geometry below
follows the upstream visualiser's parameters (disc radius 40 px, rim 5 px, fill alpha 100; arrow shaft 15 px,
head 50 px long at +-30 degrees), expressed on the 1080x2400 canvas and scaled with the image.

Drawing is deterministic: a transparent RGBA layer is drawn and alpha-composited onto the RGB image, so the
same image and action always give the same pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from emukit.actions import Action

Point = tuple[float, float]

#: Action types drawn as a disc, and as an arrow.
POINT_ACTIONS = frozenset({"tap", "long_press"})
PATH_ACTIONS = frozenset({"swipe", "drag"})


@dataclass(frozen=True)
class OverlayStyle:
    """Colours and sizes of the visual hint, in pixels of a 1080-px-wide image (scaled with the width)."""

    fill: tuple[int, int, int, int] = (255, 0, 0, 100)
    outline: tuple[int, int, int, int] = (255, 0, 0, 255)
    radius: float = 40.0
    rim: float = 5.0
    shaft: float = 15.0
    head_length: float = 50.0
    head_angle: float = math.pi / 6
    reference_width: int = 1080

    def scaled(self, width: int) -> OverlayStyle:
        """The same style for an image ``width`` pixels wide."""
        k = width / self.reference_width
        if k == 1:
            return self
        return OverlayStyle(self.fill, self.outline, self.radius * k, max(1.0, self.rim * k),
                            max(1.0, self.shaft * k), self.head_length * k, self.head_angle, width)


DEFAULT_STYLE = OverlayStyle()


def draw_disc(draw: ImageDraw.ImageDraw, center: Point, style: OverlayStyle) -> None:
    """A translucent disc with an opaque rim centred on ``center``."""
    cx, cy = center
    r = style.radius
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=style.fill, outline=style.outline,
                 width=round(style.rim))


def draw_arrow(draw: ImageDraw.ImageDraw, start: Point, end: Point, style: OverlayStyle) -> None:
    """A thick line from ``start`` to ``end`` with a filled triangular head at ``end``."""
    draw.line([start, end], fill=style.outline, width=round(style.shaft))
    (x1, y1), (x2, y2) = start, end
    if (x1, y1) == (x2, y2):
        return
    angle = math.atan2(y2 - y1, x2 - x1)
    wings = [(x2 - style.head_length * math.cos(angle + s * style.head_angle),
              y2 - style.head_length * math.sin(angle + s * style.head_angle)) for s in (-1, 1)]
    draw.polygon([(x2, y2), wings[0], wings[1]], fill=style.outline)


def action_geometry(action: Action) -> tuple[Point, Point | None] | None:
    """``(point, None)`` for a disc, ``(start, end)`` for an arrow, or None when nothing is drawn."""
    if action.type in POINT_ACTIONS and action.x is not None and action.y is not None:
        return (float(action.x), float(action.y)), None
    if action.type in PATH_ACTIONS and None not in (action.x, action.y, action.x2, action.y2):
        return (float(action.x), float(action.y)), (float(action.x2), float(action.y2))  # type: ignore[arg-type]
    return None


def draw_action(image: Image.Image, action: Action, *, to_image: tuple[float, float, float, float] = (1, 1, 0, 0),
                style: OverlayStyle = DEFAULT_STYLE) -> Image.Image:
    """Return an RGB copy of ``image`` with ``action`` drawn on it (an unchanged RGB copy when the action has
    no visual hint).

    ``to_image`` = ``(sx, sy, ox, oy)`` maps action (screen) coordinates to image pixels:
    ``(x * sx + ox, y * sy + oy)`` — used when the screenshot was cropped or resized before drawing.
    """
    base = image.convert("RGB") if image.mode != "RGB" else image.copy()
    geometry = action_geometry(action)
    if geometry is None:
        return base
    sx, sy, ox, oy = to_image

    def m(p: Point) -> Point:
        return p[0] * sx + ox, p[1] * sy + oy

    layer = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    scaled = style.scaled(base.width)
    first, second = geometry
    if second is None:
        draw_disc(draw, m(first), scaled)
    else:
        draw_arrow(draw, m(first), m(second), scaled)
    box = layer.getbbox()  # composite only where the overlay has ink: elsewhere alpha_composite copies the
    if box is None:       # destination unchanged, and RGB -> RGBA -> RGB is lossless, so the bytes are the same
        return base
    region = Image.alpha_composite(base.crop(box).convert("RGBA"), layer.crop(box)).convert("RGB")
    base.paste(region, box[:2])
    return base
