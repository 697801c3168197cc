"""PLACEHOLDER: the virtual Clock app; being written."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui import widgets as w


class ClockApp(App):
    package = "com.google.android.deskclock"
    label = "Clock"
    launcher_activity = "com.android.deskclock.DeskClock"
    activities = ("com.android.deskclock.DeskClock",)

    def build(self, device, act, frame):
        root = w.screen(frame)
        root.add(w.app_bar(frame, "Clock"))
        return root
