"""NotificationManager: what the shade shows, and what goes with a package."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.apps.base import Notification

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice


class NotificationManager:
    """The notifications of the installed apps (each app builds its own from its state)."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def active(self) -> list[Notification]:
        """What the shade shows: every app's notifications, none of a stopped package's (a force-stop
        cancels them, ``NotificationManagerService.cancelAllNotificationsInt``, and a stopped app posts none)."""
        device = self.device
        out: list[Notification] = []
        for pkg in sorted(device.apps):
            if not device.package_stopped(pkg):
                out.extend(device.apps[pkg].notifications(device))
        return out

    def cancel_all(self, package: str) -> None:
        """Drop the package's recorded notifications (``state.notifications``), as an uninstall does."""
        state = self.device.state
        state.notifications = [n for n in state.notifications if n.get("package") != package]
