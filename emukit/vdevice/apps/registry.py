"""The apps installed on every virtual device, in one list."""

from __future__ import annotations

from emukit.vdevice.apps.base import App


def default_apps() -> list[App]:
    """Fresh instances of every installed app (launcher and system apps first)."""
    from emukit.vdevice.apps.launcher import LauncherApp
    from emukit.vdevice.apps.settings import SettingsApp

    return [LauncherApp(), SettingsApp()]
