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
    def start_timer(self, seconds: int) -> None:
        """Type ``seconds`` (as HHMMSS digits) on the keypad and press Start; opens the keypad with
        "Add timer" when timers exist already."""
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
