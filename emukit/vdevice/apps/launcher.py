"""PLACEHOLDER launcher, to be replaced."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui.view import View


class LauncherApp(App):
    package = "com.google.android.apps.nexuslauncher"
    label = "Pixel Launcher"
    launcher_activity = ".NexusLauncherActivity"
    activities = (".NexusLauncherActivity",)
    show_in_launcher = False

    def build(self, device, act, frame):
        return View(bounds=frame, text="launcher")
