"""What more than one family's reading uses: where list rows start below the app bar, bounds containment."""

from __future__ import annotations

from emukit.actions import Element

STATUS_BAR = "com.android.systemui:id/status_bar"
# list rows start below the status bar and the top app bar: 300 px on a display whose status bar is 96 px
# (1080x2400 at 420 dpi), i.e. 3.125 status-bar heights on any display (both scale with the density)
BELOW_APP_BAR_PER_STATUS_BAR = 300 / 96


def below_app_bar(elements: list[Element]) -> int:
    """Where list rows start on this screen (px from the top), from the status bar's bounds; 0 without one."""
    bar = next((e.bounds for e in elements if e.resource_id == STATUS_BAR), None)
    return round((bar[3] - bar[1]) * BELOW_APP_BAR_PER_STATUS_BAR) if bar is not None else 0


def inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    """``inner`` lies within ``outer`` (edges included)."""
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]
