"""PLACEHOLDER: the virtual Markor app; being written."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui import widgets as w


class NotesApp(App):
    package = "net.gsantner.markor"
    label = "Markor"
    launcher_activity = "net.gsantner.markor.activity.MainActivity"
    activities = ("net.gsantner.markor.activity.MainActivity",)

    def build(self, device, act, frame):
        root = w.screen(frame)
        root.add(w.app_bar(frame, "Markor"))
        return root
