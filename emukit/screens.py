"""Display sizes of phones, as ``(width px, height px, density dpi)``, and their ``WIDTHxHEIGHT@DPI`` spelling:
what ``--vdevice-screen`` reads, what a virtual device is started with, and the bounds of a usable portrait
phone display. The pipeline and the virtual device share these; neither owns the other's code."""

from __future__ import annotations

import re

Screen = tuple[int, int, int]  # (width px, height px, density dpi)
#: a virtual device's display unless it is given another (a Pixel 6)
DEFAULT_SCREEN: Screen = (1080, 2400, 420)


def parse_screen(spec: str) -> Screen:
    """``"720x1280@320"`` -> ``(720, 1280, 320)``: width x height in pixels @ density in dpi."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*@\s*(\d+)\s*(?:dpi)?\s*", spec)
    if m is None:
        raise ValueError(f"screen {spec!r} is not WIDTHxHEIGHT@DPI (for example 720x1280@320)")
    screen = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
    check_screen(screen)
    return screen


def format_screen(screen: Screen) -> str:
    """``(720, 1280, 320)`` -> ``"720x1280@320"`` (what :func:`parse_screen` reads)."""
    return f"{screen[0]}x{screen[1]}@{screen[2]}"


def check_screen(screen: Screen) -> None:
    """Raise ValueError unless ``screen`` is a usable portrait phone display."""
    width, height, dpi = screen
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in screen):
        raise ValueError(f"screen {screen!r}: width, height and density must be integers")
    if not 120 <= dpi <= 640:
        raise ValueError(f"screen {format_screen(screen)}: density {dpi} dpi is outside 120-640")
    if width < 320 * dpi // 160 or height < width:
        raise ValueError(f"screen {format_screen(screen)}: a portrait phone display is at least 320 dp wide "
                         "and taller than wide")
