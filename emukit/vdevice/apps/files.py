"""PLACEHOLDER: the virtual Files app; being written."""

from emukit.vdevice.apps.base import App
from emukit.vdevice.ui import widgets as w


class FilesApp(App):
    package = "com.google.android.documentsui"
    label = "Files"
    launcher_activity = "com.android.documentsui.files.FilesActivity"
    activities = ("com.android.documentsui.files.FilesActivity",)

    def build(self, device, act, frame):
        root = w.screen(frame)
        root.add(w.app_bar(frame, "Files"))
        return root
