"""Execute template steps on a device: app-profile operations and raw actions (model-visible, recorded by
the driver's recorder) and setup steps (adb-side preparation, never shown to a model).

A raw gesture's coordinates (``x``/``y`` of a tap or long press, ``x1``/``y1``/``x2``/``y2`` of a swipe or
drag) are pixels or percentages of the screen: ``"50%"`` is half the width for an x and half the height for
a y, resolved with :meth:`Driver.screen` when the step runs, so a table of moves fits every screen size. The
recorded action holds the pixels.
"""

from __future__ import annotations

import shlex
from typing import Any

from emukit.actions import Action
from emukit.apps.base import AppProfile
from emukit.apps.registry import open_app, profile_for, resolve_query
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.media import make_mp3
from emukit.records import WarpRecord
from emukit.timewarp import warp

X_KEYS = ("x", "x1", "x2")
Y_KEYS = ("y", "y1", "y2")


def screen_fraction(value: Any) -> float | None:
    """``"62.5%"`` -> 0.625; None for a pixel coordinate (an int). ValueError for anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return None
    if isinstance(value, str) and value.endswith("%"):
        try:
            fraction = float(value[:-1]) / 100
        except ValueError:
            fraction = -1.0
        if 0.0 <= fraction <= 1.0:
            return fraction
    raise ValueError(f"a coordinate is pixels (an int) or a percentage of the screen (\"0%\"..\"100%\"), "
                     f"got {value!r}")


def has_fractions(args: Any) -> bool:
    """Whether a gesture's arguments give any coordinate as a percentage of the screen."""
    return isinstance(args, dict) and any(isinstance(args.get(k), str) for k in X_KEYS + Y_KEYS)


def on_screen(args: dict[str, Any], size: tuple[int, int]) -> dict[str, Any]:
    """A gesture's arguments with every percentage coordinate in pixels of a ``size`` (width, height) screen
    (clamped to the last pixel row and column)."""
    width, height = size
    out = dict(args)
    for keys, extent in ((X_KEYS, width), (Y_KEYS, height)):
        for key in keys:
            if key in out:
                fraction = screen_fraction(out[key])
                if fraction is not None:
                    out[key] = min(extent - 1, round(fraction * extent))
    return out


class StepRunner:
    """Runs the steps of one branch on one device; profiles are resolved once per device."""

    def __init__(self, driver: Driver, where: str) -> None:
        self.driver = driver
        self.where = where
        self._profiles: dict[str, AppProfile] = {}
        self.warps: list[WarpRecord] = []

    def profile(self, name: str) -> AppProfile:
        if name not in self._profiles:
            try:
                self._profiles[name] = profile_for(self.driver, name)
            except KeyError:
                raise ConfigError(f"{self.where}: unknown app profile {name!r}") from None
        return self._profiles[name]

    def run(self, steps: list[dict[str, Any]], *, setup: bool = False) -> None:
        for i, step in enumerate(steps):
            (name, args), = step.items()
            self.run_one(name, args, f"{self.where}[{i}] {name}", setup=setup)

    def run_one(self, name: str, args: Any, where: str, *, setup: bool) -> None:
        d = self.driver
        if "." in name:
            profile_name, op = name.split(".", 1)
            method = getattr(self.profile(profile_name), op, None)
            if method is None or op.startswith("_"):
                raise ConfigError(f"{where}: profile {profile_name!r} has no operation {op!r}")
            try:
                method(**(args or {}))
            except TypeError as exc:
                raise ConfigError(f"{where}: bad arguments {args!r}: {exc}") from None
            return
        if name in ("tap", "long_press", "swipe", "drag") and has_fractions(args):
            try:
                args = on_screen(args, d.screen()[:2])
            except ValueError as exc:
                raise ConfigError(f"{where}: {exc}") from None
        if name == "shell":
            d.shell(str(args), check=True)
        elif name == "launch":
            self.profile(str(args)).launch(fresh=True)
        elif name == "stop":
            d.stop_app(self.profile(str(args)).package)
        elif name == "push_mp3":
            sync = d.adbutils().sync
            for song in args:
                path = song.get("path") or f"/sdcard/Music/{song['title'].lower().replace(' ', '_')}.mp3"
                sync.push(make_mp3(song["title"], song.get("artist", "Unknown artist"), song.get("album", "")),
                          path)
        elif name == "broadcast_media":
            d.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE "
                    f"-d {shlex.quote('file://' + str(args))}")
        elif name == "tap":
            d.tap(**_xy_or_query(d, args))
        elif name == "long_press":
            d.long_press(**_xy_or_query(d, args))
        elif name == "swipe":
            d.swipe(args["x1"], args["y1"], args["x2"], args["y2"], args.get("duration_ms", 300))
        elif name == "drag":
            d.drag(args["x1"], args["y1"], args["x2"], args["y2"], args.get("duration_ms", 1000))
        elif name == "key":
            d.key(int(args))
        elif name == "back":
            d.back()
        elif name == "home":
            d.home()
        elif name == "open_app":  # GUI-CC's semantic open_app: one action, the app named by its launcher label
            open_app(d, str(args))
        elif name == "type":
            d.type_text(str(args))
        elif name == "wait":
            self.wait(float(args["seconds"] if isinstance(args, dict) else args))
        else:
            raise ConfigError(f"{where}: unknown step {name!r}")

    def wait(self, seconds: float) -> Action:
        """A model-visible wait: logical time passes through the warp (never slept)."""
        action = Action(type="wait", duration_ms=round(seconds * 1000))
        recorder = self.driver.recorder
        if recorder is not None:
            recorder.before(self.driver, action)
        self.warps.append(warp(self.driver, seconds))
        if recorder is not None:
            recorder.after(self.driver, action)
        return action


def _xy_or_query(driver: Driver, args: Any) -> dict[str, Any]:
    """Coordinates or selector fields of a tap / long press; ``sel: app:name`` names an entry of the app's
    selector table for the device's build (:func:`emukit.apps.registry.resolve_query`); ``at_dp: [x, y]`` presses
    that far (dp) from the element's top-left corner instead of its centre (a paragraph's first word)."""
    if isinstance(args, dict):
        query = dict(args)
        at = query.pop("at_dp", None)
        out = resolve_query(driver, query)
        if at is not None:  # [x_dp, y_dp] from the element's top-left corner instead of its centre
            out["at_dp"] = (float(at[0]), float(at[1]))
        return out
    raise ConfigError(f"expected a mapping with x/y or selector fields, got {args!r}")
