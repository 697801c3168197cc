"""Execute template steps on a device: app-profile operations and raw actions (model-visible, recorded by
the driver's recorder) and setup steps (adb-side preparation, never shown to a model)."""

from __future__ import annotations

import shlex
from typing import Any

from emukit.apps.base import AppProfile
from emukit.apps.registry import profile_for
from emukit.device.actions import Action
from emukit.device.driver import Driver
from emukit.errors import ConfigError
from emukit.media import make_mp3
from emukit.records import WarpRecord
from emukit.timewarp import warp


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
            d.tap(**_xy_or_query(args))
        elif name == "long_press":
            d.long_press(**_xy_or_query(args))
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


def _xy_or_query(args: Any) -> dict[str, Any]:
    if isinstance(args, dict):
        return dict(args)
    raise ConfigError(f"expected a mapping with x/y or selector fields, got {args!r}")
