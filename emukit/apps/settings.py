"""Settings (``com.android.settings``): the Date & time page, the neutral boundary screen of temporal pairs.

On API 34 Date & time is not on the Settings homepage: it is an entry of the System page
(``res/xml/top_level_settings.xml`` top_level_system, ``res/xml/system_dashboard_fragment.xml``
date_time_settings). The profile goes there the way a person does, homepage -> System -> Date & time, scrolling
each list by its own bounds until the entry shows. (``am start -a android.settings.DATE_SETTINGS`` would open
the page directly, but it is not what a user does and it leaves a different back stack; no step uses it.)
The page is recognised by its first switch, "Set time automatically" (``date_time_prefs.xml`` auto_time).
"""

from __future__ import annotations

from collections.abc import Callable

from emukit.actions import Element
from emukit.apps.base import AppProfile, operation, register_app
from emukit.apps.launcher import LauncherProfile
from emukit.errors import DeviceError

PACKAGE = "com.android.settings"
#: swipes tried to bring an entry into view
MAX_SCROLLS = 8
#: BACK presses tried to reach the homepage from a deeper page
MAX_BACKS = 4


@register_app
class SettingsProfile(AppProfile):
    package = PACKAGE
    name = "settings"
    activity = f"{PACKAGE}.Settings"
    label_entry = "launcher_label"

    def _scroll_until(self, find: Callable[[], Element | None]) -> None:
        """Scroll the preference list until ``find()`` gives an element wholly inside it."""
        self.scroll_into_view("list", find, MAX_SCROLLS)

    def scroll_to_system(self) -> None:
        """Bring the homepage's System entry into view."""
        self._scroll_until(lambda: self.driver.find(**self.sel("system")))

    def _on_date_time(self) -> bool:
        return self.driver.exists(**self.sel("auto_time"))

    @operation
    def open_date_time(self) -> None:
        """From wherever Settings is (homepage, System, a deeper page), open System -> "Date & time"; a
        no-op when the Date & time page is already in front."""
        if self._on_date_time():
            return
        if self.driver.current_app()[0] != PACKAGE:
            raise DeviceError(f"{self.driver.serial}: Settings is not in front")
        for _ in range(MAX_BACKS):
            if self.driver.exists(**self.sel("date_time")) or self.driver.exists(**self.sel("search_bar")):
                break
            self.driver.back()
        if not self.driver.exists(**self.sel("date_time")):
            self.scroll_to_system()
            self.driver.tap(**self.sel("system"))
            self.driver.element(**self.sel("page_title", title=self.table.text("system")))
        self._scroll_until(lambda: self.driver.find(**self.sel("date_time")))
        self.driver.tap(**self.sel("date_time"))
        self.driver.element(**self.sel("auto_time"))

    @operation
    def open_from_launcher(self) -> None:
        """From the home screen, open Settings from the All Apps drawer, then "Date & time" (Settings resumes
        where it was left; the page is opened only if it is not already in front)."""
        launcher = LauncherProfile(self.driver, table=self.other_table("launcher"), sdk=self.sdk)
        launcher.open_app(self.table.text("launcher_label"))
        self.driver.wait_until(lambda: self.driver.exists(**self.sel("search_bar")) or self._on_date_time()
                               or self.driver.exists(**self.sel("date_time")), "a Settings page")
        self.open_date_time()
