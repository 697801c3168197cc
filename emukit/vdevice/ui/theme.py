"""Screen geometry, the Material-like colour palette and text sizes shared by system UI, widgets and apps.

Sizes are pixels of the 1080x2400, 420 dpi virtual screen (1 dp = 2.625 px).
"""

from __future__ import annotations

from emukit.vdevice.device import SCREEN_H, SCREEN_W
from emukit.vdevice.ui.view import Bounds, Color

__all__ = ["SCREEN_W", "SCREEN_H", "STATUS_H", "NAV_H", "KEYBOARD_H", "APP_FRAME", "dp", "luminance",
           "on_color", "mix"]

STATUS_H = 96
NAV_H = 126
KEYBOARD_H = 800
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

# ------------------------------------------------------------------ type scale (px)
TEXT_TITLE_L = 58
TEXT_TITLE = 52
TEXT_BODY_L = 44
TEXT_BODY = 40
TEXT_LABEL = 36
TEXT_SMALL = 32


def dp(value: float) -> int:
    """Density-independent pixels to screen pixels (420 dpi)."""
    return round(value * 2.625)


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
