"""MediaProvider: shared storage (``/storage/emulated/0``) with its standard folders, and the media scan."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SHARED_STORAGE = "/storage/emulated/0"
STANDARD_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications",
                    "Pictures", "Podcasts", "Ringtones")


class MediaProvider:
    """What the device's media provider does: the standard folders of shared storage on a fresh device and
    the media scan apps that index media listen to."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device

    def make_standard_folders(self) -> None:
        """The standard folders of shared storage (:data:`STANDARD_FOLDERS`), as a fresh device has them."""
        for name in STANDARD_FOLDERS:
            self.device.fs.makedirs(f"{SHARED_STORAGE}/{name}")

    def scan(self, path: str) -> None:
        """``am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE``: apps that index media
        (``on_media_scan(device, path)``) refresh their index."""
        device = self.device
        with device.lock:
            for app in device.apps.values():
                hook = getattr(app, "on_media_scan", None)
                if hook is not None:
                    hook(device, path)
