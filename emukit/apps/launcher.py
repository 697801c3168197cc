"""The home screen (Pixel Launcher): open an app from the All Apps drawer, as a person does.

A Pixel home screen holds Google's own apps only; Clock, Files, Markor, Retro Music and Settings are reached
through All Apps: a swipe up that starts on the hotseat opens the drawer (``apps_view`` > ``apps_list_view``),
whose icons (``icon`` TextViews, text = label) are sorted by label (Launcher3 AlphabeticalAppsList).
The swipe is computed from the hotseat's bounds and the screen size (``Driver.screen()``); the drawer is
scrolled by the grid's own bounds when an icon is below the fold.
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation, register_app

PACKAGE = "com.google.android.apps.nexuslauncher"
#: swipes tried to bring an icon into view in the drawer
MAX_SCROLLS = 8


@register_app
class LauncherProfile(AppProfile):
    package = PACKAGE
    name = "launcher"
    activity = None
    label_entry = None

    def _home_in_front(self) -> bool:
        """The home screen itself (its workspace) is in front, with no app or drawer over it."""
        return self.driver.current_app()[0] == self.package and self.driver.exists(**self.sel("workspace")) \
            and not self._drawer_open()

    def _drawer_open(self) -> bool:
        return self.driver.exists(**self.sel("all_apps"))

    @operation
    def open_all_apps(self) -> None:
        """From the home screen, swipe up from the hotseat to the upper quarter of the screen: All Apps opens."""
        hotseat = self.driver.element(**self.sel("hotseat"))
        _w, height, _dpi = self.driver.screen()
        left, top, right, bottom = hotseat.bounds
        x = (left + right) // 2
        self.driver.swipe(x, (top + bottom) // 2, x, height // 4, 300)
        self.driver.wait_until(self._drawer_open, "the All Apps drawer")

    def _show_icon(self, label: str) -> None:
        """Scroll the drawer's grid until the icon labelled ``label`` lies wholly inside it."""
        self.scroll_into_view("all_apps", lambda: self.driver.find(**self.sel("app_icon"), text=label), MAX_SCROLLS)

    @operation
    def open_app(self, label: str) -> None:
        """Open the app labelled ``label`` from All Apps: press HOME unless the home screen or the drawer is in
        front already, open the drawer, tap the icon (a running app comes back where it was left)."""
        if not (self._drawer_open() and self.driver.exists(**self.sel("app_icon"), text=label)):
            if not self._home_in_front():  # a person presses HOME only when the home screen is not showing
                self.driver.home()
                self.driver.wait_until(lambda: self.driver.exists(**self.sel("workspace")) or self._drawer_open(),
                                       "the home screen")
            if not self._drawer_open():
                self.open_all_apps()
        self._show_icon(label)
        self.driver.tap(**self.sel("app_icon"), text=label)
        self.driver.wait_until(lambda: self.driver.current_app()[0] != self.package, f"{label} in front")
        self.driver.wait_stable()
