"""PLACEHOLDER: the virtual Retro Music app; being written."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui import widgets as w


class MusicApp(App):
    package = "code.name.monkey.retromusic"
    label = "Retro Music"
    launcher_activity = "code.name.monkey.retromusic.activities.MainActivity"
    activities = ("code.name.monkey.retromusic.activities.MainActivity",)

    def build(self, device, act, frame):
        root = w.screen(frame)
        root.add(w.app_bar(frame, "Retro Music"))
        return root
