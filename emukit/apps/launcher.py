"""The home screen (Pixel Launcher): open an app by tapping its icon, as a person does."""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation

PACKAGE = "com.google.android.apps.nexuslauncher"


class LauncherProfile(AppProfile):
    package = PACKAGE
    name = "launcher"
    activity = None

    @operation
    def open_app(self, label: str) -> None:
        """Press HOME unless the home screen is already in front, then tap the app's icon (a running app comes
        back where it was left)."""
        if not self.driver.exists(resourceId=self.rid("icon"), text=label):
            self.driver.home()
        self.driver.tap(resourceId=self.rid("icon"), text=label)
        self.driver.wait_until(lambda: self.driver.current_app()[0] != self.package, f"{label} in front")
        self.driver.wait_stable()
