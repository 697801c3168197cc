"""ClipboardService: the primary clip (``ClipboardManager.setPrimaryClip`` / ``getPrimaryClip``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.state import ClipState

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


class ClipboardService:
    """The device's one primary clip, kept in the state model (``state.clip``, so a snapshot keeps it)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def set(self, text: str, label: str = "") -> None:
        with self.device.lock:
            self.device.state.clip = ClipState(label=label, text=text)

    def get(self) -> ClipState | None:
        return self.device.state.clip
