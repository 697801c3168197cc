"""Clock (``com.google.android.deskclock``): the Timer tab; the Temporal Deadline family's app.

Verified against the virtual Clock; written from AOSP DeskClock's timer UI for real devices (same ids:
``timer_setup_digit_N``, ``fab``, ``timer_time_text``, ``play_pause``...), unverified there.
"""

from __future__ import annotations

from emukit.apps.base import AppProfile, operation

PACKAGE = "com.google.android.deskclock"


class ClockProfile(AppProfile):
    package = PACKAGE
    name = "clock"
    activity = "com.android.deskclock.DeskClock"

    @operation
    def open_timers(self) -> None:
        """Select the Timer tab."""
        self.driver.tap(description="Timer")
        self.driver.wait_until(lambda: self.driver.exists(resourceId=self.rid("timer_setup_time"))
                               or self.driver.exists(resourceId=self.rid("timer_list")), "the Timer tab")

    @operation
    def open_clock_tab(self) -> None:
        """Select the Clock tab (the digital clock; a neutral screen that shows no timer)."""
        self.driver.tap(description="Clock")
        self.driver.element(resourceId=self.rid("digital_clock"))

    @operation
    def open_from_notification(self) -> None:
        """From any app: pull down the notification shade and tap the Clock's timer notification, which
        opens the Clock on its Timer tab (needs a running, paused or expired timer)."""
        self.driver.swipe(540, 10, 540, 1400, 300)
        self.driver.tap(resourceId="com.android.systemui:id/notification_row",
                        descriptionStartsWith="Clock notification")
        self.driver.wait_until(lambda: self.driver.exists(resourceId=self.rid("timer_list"))
                               or self.driver.exists(resourceId=self.rid("timer_setup_time")), "the Timer tab")

    @operation
    def open_from_launcher(self) -> None:
        """On the home screen, tap the Clock icon (the Clock reopens on the tab it remembers)."""
        self.driver.tap(resourceId="com.google.android.apps.nexuslauncher:id/icon", text="Clock")
        self.driver.wait_until(lambda: self.driver.current_app()[0] == self.package, "the Clock in the foreground")
        self.driver.wait_stable()

    @operation
    def start_timer(self, seconds: int = 0, minutes: int = 0) -> None:
        """Type ``minutes * 60 + seconds`` (as HHMMSS digits) on the keypad and press Start; opens the keypad
        with "Add timer" when timers exist already."""
        seconds = int(minutes) * 60 + int(seconds)
        if seconds <= 0:
            raise ValueError("a timer needs a positive length")
        if not self.driver.exists(resourceId=self.rid("timer_setup_time")):
            self.driver.tap(description="Add timer")
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        digits = f"{hours:02d}{minutes:02d}{secs:02d}".lstrip("0")
        for digit in digits:
            self.driver.tap(resourceId=self.rid(f"timer_setup_digit_{digit}"))
        self.driver.tap(description="Start")
        self.driver.element(resourceId=self.rid("timer_list"))

    def _card_button(self, desc: str, index: int) -> None:
        self.driver.tap(resourceId=self.rid("play_pause"), description=desc, instance=index)

    @operation
    def pause(self, index: int = 0) -> None:
        """Pause the ``index``-th running timer card."""
        self._card_button("Pause", index)

    @operation
    def resume(self, index: int = 0) -> None:
        self._card_button("Resume", index)

    @operation
    def reset(self, index: int = 0) -> None:
        self.driver.tap(resourceId=self.rid("timer_reset"), instance=index)

    @operation
    def restart(self, index: int = 0) -> None:
        """Start a reset timer card again at its full duration."""
        self._card_button("Start", index)

    @operation
    def delete(self, index: int = 0) -> None:
        self.driver.tap(resourceId=self.rid("delete"), instance=index)

    @operation
    def add_minute(self, index: int = 0) -> None:
        self.driver.tap(resourceId=self.rid("timer_add_minute"), instance=index)
