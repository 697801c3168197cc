"""PLACEHOLDER settings, to be replaced."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui.view import View


class SettingsApp(App):
    package = "com.android.settings"
    label = "Settings"
    launcher_activity = ".Settings"
    activities = (".Settings", ".DateTimeSettings")

    def build(self, device, act, frame):
        return View(bounds=frame, text="settings")
