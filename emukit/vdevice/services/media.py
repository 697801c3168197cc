"""MediaProvider: shared storage (``/storage/emulated/0``) with its standard folders, the media scan and the
MediaStore index it keeps (:mod:`emukit.vdevice.services.mediastore`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.services.mediastore import MediaStore

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SHARED_STORAGE = "/storage/emulated/0"
STANDARD_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications",
                    "Pictures", "Podcasts", "Ringtones")


class MediaProvider:
    """What the device's media provider does: the standard folders of shared storage on a fresh device, the
    MediaStore index (:attr:`store`) kept by the media scan and by the FUSE mount, and the media scan apps that
    index media listen to."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.store = MediaStore(device)

    def make_standard_folders(self) -> None:
        """The standard folders of shared storage (:data:`STANDARD_FOLDERS`), as a fresh device has them."""
        for name in STANDARD_FOLDERS:
            self.device.fs.makedirs(f"{SHARED_STORAGE}/{name}")

    def scan(self, path: str) -> None:
        """``am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE``: the MediaStore scans the path (a
        folder: its tree), then apps that index media (``on_media_scan(device, path)``) refresh their index."""
        device = self.device
        with device.lock:
            self.store.scan(path)
            for app in device.apps.values():
                hook = getattr(app, "on_media_scan", None)
                if hook is not None:
                    hook(device, path)

    # ------------------------------------------------------------------ the FUSE mount over shared storage
    # What the FUSE daemon asks of MediaProvider for the shell uid; root bypasses MediaProvider (its creates,
    # unlinks and renames reach the lower filesystem only: MediaProviderWrapper.cpp), so rows stay as they were.
    def fuse_created(self, path: str) -> None:
        """A file created under shared storage by the shell uid (``adb push``, a redirection, ``cp``)."""
        if not self.device.state.rooted and _shared(path):
            self.store.fuse_create(path)

    def fuse_unlinked(self, path: str, *, tree: bool = False) -> None:
        """A file (``tree``: a folder's files, ``rm -r``) unlinked under shared storage by the shell uid."""
        if not self.device.state.rooted and _shared(path):
            self.store.fuse_delete(path, tree=tree)

    def fuse_renamed(self, old: str, new: str) -> None:
        """A rename under shared storage by the shell uid."""
        if not self.device.state.rooted and (_shared(old) or _shared(new)):
            self.store.fuse_rename(old, new)


def _shared(path: str) -> bool:
    """An absolute device path that may lie in shared storage (``/sdcard...``, ``/storage...``, ``/mnt...``): a cheap
    test before the path is resolved."""
    return path.startswith(("/sdcard", "/storage", "/mnt"))
