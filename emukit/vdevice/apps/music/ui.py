"""The per-build context of Retro Music's single activity: its navigation stack, its sliding panel and its
overlays.

Retro Music is one activity (MainActivity) with a navigation host: every screen lives in
``act.state["nav"]`` (a stack of ``{"s": screen, ...}`` entries, the library at the bottom, whose ``tab`` is the
bottom navigation's destination) and BACK pops it. Now playing is not a destination but the bottom sheet
(``slidingPanel``) expanded over the current screen: ``act.state["panel"] == "expanded"``
(AbsSlidingMusicPanelActivity.expandPanel / collapsePanel). One overlay at a time sits on top:
``act.state["menu"]`` (a popup menu) or ``act.state["dialog"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emukit.vdevice.state import Activity
from emukit.vdevice.ui.view import Bounds

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


@dataclass
class Ui:
    """Device, activity and frame of one build, with the navigation and overlay operations."""

    device: VirtualDevice
    act: Activity
    frame: Bounds

    @property
    def state(self) -> dict[str, Any]:
        """The activity's JSON state."""
        return self.act.state

    @property
    def nav(self) -> list[dict[str, Any]]:
        """The navigation stack (the library at the bottom)."""
        nav = self.state.get("nav")
        if not nav:
            nav = self.state["nav"] = [{"s": "library"}]
        return nav

    @property
    def top(self) -> dict[str, Any]:
        """The visible destination's entry."""
        return self.nav[-1]

    @property
    def expanded(self) -> bool:
        """Whether the sliding panel (Now playing) covers the screen."""
        return self.state.get("panel") == "expanded"

    def expand(self) -> None:
        """expandPanel: Now playing slides up over the current screen."""
        self.close_overlays()
        self.state["panel"] = "expanded"

    def collapse(self) -> None:
        """collapsePanel: back to the mini player."""
        self.close_overlays()
        self.state.pop("panel", None)

    def push(self, screen: str, **data: Any) -> None:
        """Navigate to a destination (closing any menu or dialog)."""
        self.close_overlays()
        self.nav.append({"s": screen, **data})

    def pop(self) -> dict[str, Any] | None:
        """Remove the top destination (the library stays); returns the removed entry."""
        self.close_overlays()
        return self.nav.pop() if len(self.nav) > 1 else None

    def toast(self, text: str) -> None:
        """Show a toast."""
        if text:
            self.device.state.ui.toast = text

    def open_menu(self, kind: str, x: int, y: int, **ref: Any) -> None:
        """Open a popup menu of ``kind`` anchored at the view whose top-right corner is at (x, y)."""
        self.state.pop("dialog", None)
        self.state["menu"] = {"kind": kind, "x": x, "y": y, **ref}

    def open_dialog(self, kind: str, **data: Any) -> None:
        """Open a dialog of ``kind`` (closing a menu and the keyboard)."""
        self.state.pop("menu", None)
        self.device.state.ui.focused_id = None
        self.state["dialog"] = {"kind": kind, **data}

    def close_overlays(self) -> None:
        """Close the open menu or dialog."""
        self.state.pop("menu", None)
        if self.state.pop("dialog", None) is not None:
            self.device.state.ui.focused_id = None

    def scroll(self, entry: dict[str, Any], key: str = "scroll") -> int:
        """The scroll offset kept in a screen entry."""
        return int(entry.get(key, 0))

    def scroll_setter(self, entry: dict[str, Any], key: str = "scroll") -> Callable[[int], None]:
        """A callback storing a new scroll offset in a screen entry."""
        def set_scroll(value: int) -> None:
            entry[key] = value
        return set_scroll
