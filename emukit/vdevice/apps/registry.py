"""The apps installed on every virtual device, in one list."""

from __future__ import annotations

from emukit.vdevice.apps.base import App


def default_apps() -> list[App]:
    """Fresh instances of every installed app (launcher and system apps first)."""
    from emukit.vdevice.apps.clock import ClockApp
    from emukit.vdevice.apps.files import FilesApp
    from emukit.vdevice.apps.launcher import LauncherApp
    from emukit.vdevice.apps.music import MusicApp
    from emukit.vdevice.apps.notes import NotesApp
    from emukit.vdevice.apps.settings import SettingsApp

    return [LauncherApp(), SettingsApp(), FilesApp(), NotesApp(), MusicApp(), ClockApp()]
