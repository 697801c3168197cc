"""Settings (``com.android.settings``): the Date & time page, the neutral boundary screen of temporal pairs.

Verified against the virtual Settings; the real Settings app exposes the same page through
``am start -n com.android.settings/.Settings$DateTimeSettingsActivity`` (unverified here).
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation

PACKAGE = "com.android.settings"


class SettingsProfile(AppProfile):
    package = PACKAGE
    name = "settings"
    activity = f"{PACKAGE}.Settings"

    @operation
    def open_date_time(self) -> None:
        """From the main Settings list, open "Date & time" (scrolling it into view)."""
        for _ in range(4):
            if self.driver.exists(text="Date & time"):
                break
            self.driver.swipe(540, 1800, 540, 900, 300)
        self.driver.tap(text="Date & time")
        self.driver.element(text="Use network-provided time")

    @operation
    def open_from_launcher(self) -> None:
        """On the home screen, tap the Settings icon, then open "Date & time" from the main list."""
        self.driver.tap(resourceId="com.google.android.apps.nexuslauncher:id/icon", text="Settings")
        self.driver.wait_until(lambda: self.driver.exists(resourceId=self.rid("search_src_text")), "the Settings list")
        self.open_date_time()
