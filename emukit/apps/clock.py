"""Clock (``com.google.android.deskclock``): the Timer tab; the Temporal Deadline family's app.

Selects only through the Google Clock table (``tables/com.google.android.deskclock/api34.yaml``) and, for the
notification shade, the SystemUI table. Google Clock is closed source: the table's ids and strings come from
AOSP DeskClock where Google keeps them and from third-party automation code written against Google Clock;
the entries only such code supports say what a capture of the pinned build must confirm.

The screens: the keypad (``timer_setup_time``, digits, Start), the running timer (``timer_text``,
``play_pause`` saying Pause, Reset, Delete), the paused timer (``play_pause`` saying Start: Google Clock has no
"Resume" in the app, only in the notification), the Clock tab (``digital_clock``) and, in the shade, the timer
notification (an ``expandableNotificationRow`` holding the Clock's ``chronometer`` and ``state``).
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, DoctorCheck, operation, register_app
from emukit.probes.temporal import PREFS_CE, PREFS_USER_DE

PACKAGE = "com.google.android.deskclock"


@register_app
class ClockProfile(AppProfile):
    package = PACKAGE
    name = "clock"
    activity = "com.android.deskclock.DeskClock"
    label_entry = "app_label"

    def doctor_checks(self, *, rooted: bool) -> list[tuple[str, DoctorCheck]]:
        """``clock prefs``: the Clock keeps its preferences in device-protected storage, the copy the temporal
        probe reads (emukit/probes/temporal.py)."""
        return [("clock prefs", lambda: self._prefs_row(rooted))]

    def _prefs_copies(self) -> set[str]:
        out = self.driver.shell(f"[ -f {PREFS_USER_DE} ] && echo de; [ -f {PREFS_CE} ] && echo ce; true").text
        return set(out.split())

    def _prefs_row(self, rooted: bool) -> tuple[bool, str, str]:
        if not rooted:
            return False, "needs root to read the Clock's storage", "fix the root row first"
        where = self._prefs_copies()
        if not where:
            try:  # the Clock writes its selected tab on a switch
                self.launch(fresh=True)
                self.open_timers()
                self.open_clock_tab()
            finally:
                self.driver.home()
            where = self._prefs_copies()
        de, ce = "de" in where, "ce" in where
        if de and not ce:
            return True, f"{PREFS_USER_DE} (device-protected, the copy the app reads)", ""
        if ce and not de:
            return (False, f"only {PREFS_CE}: this Clock keeps its prefs in credential-protected storage",
                    "use the pinned system image's Clock (it reads device-protected storage, see the temporal probe)")
        if de and ce:
            return (False, "both copies exist; the app reads the device-protected one",
                    f"adb -s {self.driver.serial} shell rm {PREFS_CE}")
        return False, "the Clock wrote no preferences after a tab switch", "open the Clock once and switch tabs"

    def _on_timer_tab(self) -> bool:
        """The Timer tab shows its keypad or at least one timer."""
        return self.driver.exists(**self.sel("timer_setup_time")) or self.driver.exists(**self.sel("timer_text"))

    @operation
    def open_timers(self) -> None:
        """Select the Timer tab."""
        self.driver.tap(**self.sel("tab_timer"))
        self.driver.wait_until(self._on_timer_tab, "the Timer tab")

    @operation
    def open_clock_tab(self) -> None:
        """Select the Clock tab (the digital clock; a neutral screen that shows no timer)."""
        self.driver.tap(**self.sel("tab_clock"))
        self.driver.element(**self.sel("digital_clock"))

    @operation
    def open_shade(self) -> None:
        """Swipe the notification shade down: from inside the status bar (4 dp from the top edge; every status
        bar is taller) to two thirds of the screen's height, in the middle of its width."""
        width, height, _ = self.driver.screen()
        self.driver.swipe(width // 2, self.driver.dp(4), width // 2, height * 2 // 3, 300)
        self.driver.element(**self.sel("systemui:notification_panel"))

    @operation
    def pause_from_notification(self) -> None:
        """From any app: pull down the notification shade and press the running timer notification's Pause
        button (DeskClock's notification action; the Clock is not opened). The row then offers Resume."""
        self.open_shade()
        self.driver.element(**self.sel("systemui:notification_row"))
        self.driver.tap(**self.sel("action_pause"))
        self.driver.element(**self.sel("action_resume"))

    @operation
    def open_from_notification(self) -> None:
        """From any app: pull down the notification shade and tap the Clock's timer notification (its
        chronometer, inside the row, so the tap is the row's content intent), which opens the Clock on its
        Timer tab (needs a running, paused or expired timer)."""
        self.open_shade()
        self.driver.element(**self.sel("systemui:notification_row"))
        self.driver.tap(**self.sel("notification_chronometer"))
        self.driver.wait_until(self._on_timer_tab, "the Timer tab")

    @operation
    def open_from_launcher(self) -> None:
        """On the home screen, open the Clock by its launcher label (the Clock reopens on the tab it
        remembers)."""
        from emukit.apps.registry import profile_for

        profile_for(self.driver, "launcher").open_app(self.table.text("app_label"))
        self.driver.wait_until(lambda: self.driver.current_app()[0] == self.package, "the Clock in the foreground")
        self.driver.wait_stable()

    @operation
    def start_timer(self, seconds: int = 0, minutes: int = 0) -> None:
        """Type ``minutes * 60 + seconds`` (as HHMMSS digits) on the keypad and press Start, ending on the
        running timer (its ``timer_text``); opens the keypad with "Add timer" when timers exist already."""
        seconds = int(minutes) * 60 + int(seconds)
        if seconds <= 0:
            raise ValueError("a timer needs a positive length")
        if not self.driver.exists(**self.sel("timer_setup_time")):
            self.driver.tap(**self.sel("timer_add"))
            self.driver.element(**self.sel("timer_setup_time"))
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        digits = f"{hours:02d}{minutes:02d}{secs:02d}".lstrip("0")
        for digit in digits:
            self.driver.tap(**self.sel("timer_digit", digit=digit))
        self.driver.tap(**self.sel("timer_start"))
        self.driver.element(**self.sel("timer_text"))

    @operation
    def pause(self, index: int = 0) -> None:
        """Pause the ``index``-th running timer."""
        self.driver.tap(**self.sel("card_pause"), instance=index)
        self.driver.element(**self.sel("card_start"))

    @operation
    def resume(self, index: int = 0) -> None:
        """Start the ``index``-th paused timer again where it stopped (its button says Start)."""
        self.driver.tap(**self.sel("card_start"), instance=index)
        self.driver.element(**self.sel("card_pause"))

    @operation
    def reset(self, index: int = 0) -> None:
        """Reset the ``index``-th timer to its full length (it stays, not running)."""
        self.driver.tap(**self.sel("card_reset"), instance=index)
        self.driver.element(**self.sel("card_start"))

    @operation
    def restart(self, index: int = 0) -> None:
        """Start a reset timer again at its full duration."""
        self.driver.tap(**self.sel("card_start"), instance=index)
        self.driver.element(**self.sel("card_pause"))

    @operation
    def delete(self, index: int = 0) -> None:
        """Delete the ``index``-th timer (with none left, the keypad comes back)."""
        self.driver.tap(**self.sel("card_delete"), instance=index)

    @operation
    def add_minute(self, index: int = 0) -> None:
        """Add one minute to the ``index``-th timer."""
        self.driver.tap(**self.sel("card_add_minute"), instance=index)
