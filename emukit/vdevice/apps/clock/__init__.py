"""The virtual Clock app (``com.google.android.deskclock``); see :mod:`.app` and the tab modules."""

from emukit.vdevice.apps.clock.app import ClockApp

__all__ = ["ClockApp"]
