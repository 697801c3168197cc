"""Screen geometry, the Material-like colour palette and text sizes shared by system UI, widgets and apps.

The display is the device process's (:func:`emukit.vdevice.device.configure_screen`, default 1080x2400 at
420 dpi) and is read once, when this module loads. Lengths scale with its density as Android's do: ``dp(v)``
is ``v`` density-independent pixels (``v * dpi / 160`` px). The layout was drawn at the 420 dpi reference
density, so sizes written as pixels of that layout go through ``px(v)`` (``v`` reference pixels, i.e.
``dp(v / 2.625)``): on the reference display both are the identity on the numbers used, on another display
the same layout comes out at the same size in dp. Positions come from :data:`SCREEN_W` / :data:`SCREEN_H`
and these sizes, never from a fixed 1080x2400 screen.
"""

from __future__ import annotations

from emukit.vdevice.device import DENSITY, SCREEN_H, SCREEN_W
from emukit.vdevice.ui.view import Bounds, Color

__all__ = ["APP_FRAME", "DENSITY", "KEYBOARD_H", "NAV_H", "SCREEN_H", "SCREEN_W", "STATUS_H", "dp", "luminance",
           "mix", "on_color", "px"]

REFERENCE_DENSITY = 420  # the density the layout's pixel sizes were drawn at (Pixel 6)
_DP = DENSITY / 160  # px per dp on this display (2.625 at 420 dpi)
_PX = DENSITY / REFERENCE_DENSITY  # px per reference px (1.0 at 420 dpi)


def dp(value: float) -> int:
    """``value`` density-independent pixels in this display's pixels (``value * dpi / 160``, rounded)."""
    return round(value * _DP)


def px(value: float) -> int:
    """``value`` pixels of the 420 dpi reference layout in this display's pixels (``dp(value / 2.625)``)."""
    return round(value * _PX)


STATUS_H = px(96)
NAV_H = dp(48)  # three-button navigation bar
KEYBOARD_H = px(800)
APP_FRAME: Bounds = (0, STATUS_H, SCREEN_W, SCREEN_H - NAV_H)
KEYBOARD_TOP = SCREEN_H - NAV_H - KEYBOARD_H

# ------------------------------------------------------------------ palette (light, Material 3 flavoured)
BACKGROUND: Color = (254, 251, 255)
SURFACE: Color = (247, 242, 250)
SURFACE_VARIANT: Color = (236, 230, 240)
PRIMARY: Color = (26, 115, 232)
PRIMARY_CONTAINER: Color = (211, 227, 253)
ON_PRIMARY: Color = (255, 255, 255)
ON_PRIMARY_CONTAINER: Color = (4, 30, 73)
TEXT: Color = (29, 27, 32)
TEXT_SECONDARY: Color = (73, 69, 79)
TEXT_HINT: Color = (128, 124, 134)
DIVIDER: Color = (224, 220, 228)
OUTLINE: Color = (121, 116, 126)
ERROR: Color = (179, 38, 30)
SCRIM_ALPHA = 130  # 0..255 opacity of the black scrim behind dialogs
DARK_SURFACE: Color = (32, 33, 36)
DARK_CARD: Color = (48, 49, 54)
DARK_TEXT: Color = (232, 234, 237)
DARK_TEXT_SECONDARY: Color = (189, 193, 198)

# ------------------------------------------------------------------ type scale (px on this display)
TEXT_TITLE_L = px(58)
TEXT_TITLE = px(52)
TEXT_BODY_L = px(44)
TEXT_BODY = px(40)
TEXT_LABEL = px(36)
TEXT_SMALL = px(32)


def luminance(color: Color) -> float:
    """Perceived brightness 0..255."""
    r, g, b = color[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


def on_color(bg: Color | None) -> Color:
    """A legible foreground (dark or light) for content drawn on ``bg``."""
    if bg is None or luminance(bg) > 150:
        return TEXT
    return (255, 255, 255)


def mix(a: Color, b: Color, t: float) -> Color:
    """Linear blend: ``t=0`` gives ``a``, ``t=1`` gives ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))
