"""The virtual Retro Music app; see :mod:`emukit.vdevice.apps.music.app`."""

from emukit.vdevice.apps.music.app import MusicApp

__all__ = ["MusicApp"]
