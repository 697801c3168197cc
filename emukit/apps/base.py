"""App profiles (page objects): semantic operations on one app, executed as low-level driver actions.

A profile method such as ``files.copy_to(path, dest, confirm=True)`` drives the UI the way a person would
and returns the list of :class:`~emukit.device.actions.Action` records it executed (type, coordinates, text,
element description). Profiles are chosen by installed package and versionName (:mod:`emukit.apps.registry`);
``verified`` says whether a profile has been exercised against the app it targets in this project's tests.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar, ParamSpec, TypeVar

from emukit.device.actions import Action
from emukit.device.driver import Driver
from emukit.errors import DeviceError

P = ParamSpec("P")
R = TypeVar("R")


class _Collect:
    """A recorder that keeps the actions of one operation, chained to the driver's own recorder."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.actions: list[Action] = []

    def before(self, driver: Driver, action: Action) -> None:
        if self.inner is not None:
            self.inner.before(driver, action)

    def after(self, driver: Driver, action: Action) -> None:
        self.actions.append(action)
        if self.inner is not None:
            self.inner.after(driver, action)


def operation(fn: Callable[P, Any]) -> Callable[P, list[Action]]:
    """Decorate a profile method: it returns the actions it executed (nested operations included once)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> list[Action]:
        profile: AppProfile = args[0]  # type: ignore[assignment]
        driver = profile.driver
        collect = _Collect(driver.recorder)
        driver.recorder = collect
        try:
            fn(*args, **kwargs)
        except DeviceError as exc:
            raise DeviceError(f"{profile.name}.{fn.__name__}: {exc}") from exc
        finally:
            driver.recorder = collect.inner
        return collect.actions

    return run


class AppProfile:
    """Base class: ``package``, ``name`` and ``matches(version_name)`` pick the profile for a device."""

    package: ClassVar[str] = ""
    name: ClassVar[str] = ""
    activity: ClassVar[str | None] = None
    #: versionName suffixes of the builds this profile has been exercised against in emukit's own tests
    verified_builds: ClassVar[tuple[str, ...]] = ("-emukit-virtual",)

    def __init__(self, driver: Driver, version: str = "") -> None:
        self.driver = driver
        self.version = version

    @property
    def verified(self) -> bool:
        """True when the installed build is one this profile was tested against; real apps: False."""
        return any(self.version.endswith(suffix) for suffix in self.verified_builds)

    @classmethod
    def matches(cls, version_name: str) -> bool:
        """Whether this profile drives the installed build with ``version_name``."""
        return True

    def rid(self, name: str) -> str:
        return f"{self.package}:id/{name}"

    @operation
    def launch(self, *, fresh: bool = False) -> None:
        """Bring the app to the foreground (``fresh``: force-stop first)."""
        self.driver.start_app(self.package, self.activity, stop_first=fresh)
        self.driver.wait_stable()
