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
