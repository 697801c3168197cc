"""Every virtual app, in one list: the image's apps (always installed) and the downloaded ones (``downloaded``:
installed in the deterministic mode from the start, in the hardware mode once their stand-in is installed)."""

from __future__ import annotations

from emukit.vdevice.apps.base import App


def default_apps() -> list[App]:
    """Fresh instances of every virtual app (launcher and system apps first)."""
    from emukit.vdevice.apps.clock import ClockApp
    from emukit.vdevice.apps.files import FilesApp
    from emukit.vdevice.apps.launcher import LauncherApp
    from emukit.vdevice.apps.music import MusicApp
    from emukit.vdevice.apps.notes import NotesApp
    from emukit.vdevice.apps.permissions import PermissionControllerApp
    from emukit.vdevice.apps.settings import SettingsApp

    return [LauncherApp(), SettingsApp(), FilesApp(), PermissionControllerApp(), NotesApp(), MusicApp(), ClockApp()]
