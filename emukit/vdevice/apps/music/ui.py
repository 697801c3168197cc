"""The per-build context of Retro Music's single activity: its fragment stack, overlays and helpers.

Retro Music is one activity with fragments, so every screen lives in ``act.state["nav"]`` (a stack of
``{"s": screen, ...}`` entries, the library at the bottom) and BACK pops it. One overlay at a time sits on top
of the top screen: ``act.state["menu"]`` (a popup menu) or ``act.state["dialog"]``.
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
        """The fragment stack (the library at the bottom)."""
        nav = self.state.get("nav")
        if not nav:
            nav = self.state["nav"] = [{"s": "library"}]
        return nav

    @property
    def top(self) -> dict[str, Any]:
        """The visible screen's entry."""
        return self.nav[-1]

    def push(self, screen: str, **data: Any) -> None:
        """Open a screen on top (closing any menu or dialog)."""
        self.close_overlays()
        self.nav.append({"s": screen, **data})

    def pop(self) -> None:
        """Close the top screen (the library stays)."""
        self.close_overlays()
        if len(self.nav) > 1:
            self.nav.pop()

    def toast(self, text: str) -> None:
        """Show a toast."""
        if text:
            self.device.state.ui.toast = text

    def open_menu(self, kind: str, x: int, y: int, **ref: Any) -> None:
        """Open a popup menu of ``kind`` whose top-right corner is at (x, y)."""
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
