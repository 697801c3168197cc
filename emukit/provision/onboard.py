"""One app's onboarding on a device: its runtime permissions, its app-ops and its first-run screens, each left
alone when it is done already. Run by ``emukit avd setup`` after the install, and by
:func:`emukit.snapshots.build_snapshot` after ``pm clear`` (which on a real device revokes the permissions and
wipes the preferences that say the first run is over).

What the device reports, as Android 14 prints it:

* ``dumpsys package PKG`` lists each runtime permission under ``runtime permissions:`` as
  ``<name>: granted=<true|false>, flags=[ ... ]`` (frameworks/base
  services/core/java/com/android/server/pm/Settings.java, dumpRuntimePermissionsLPr);
* ``appops get --uid PKG OP`` prints ``Uid mode: OP: <mode>`` for a uid mode, ``OP: <mode>`` for a package
  mode, ``No operations.`` for none (aosp-mirror/platform_frameworks_base b0fe1b673d51
  services/core/java/com/android/server/appop/AppOpsService.java, the shell's ``get`` command).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from pydantic import BaseModel, Field

from emukit.device.driver import Driver
from emukit.errors import DeviceError
from emukit.provision.apks import AppPin, pinned

_GRANTED_RE = re.compile(r"^\s*([\w.]+): granted=(true|false)", re.MULTILINE)


class OnboardResult(BaseModel):
    """What :func:`onboard` changed (empty lists and ``first_run_actions == 0``: everything was done)."""

    package: str
    granted: list[str] = Field(default_factory=list)
    app_ops: list[str] = Field(default_factory=list)
    first_run_actions: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.granted or self.app_ops or self.first_run_actions)


def runtime_permissions(driver: Driver, package: str) -> dict[str, bool]:
    """Runtime permission -> granted, from the ``runtime permissions:`` block(s) of ``dumpsys package``."""
    out = driver.shell(f"dumpsys package {shlex.quote(package)}").text
    found: dict[str, bool] = {}
    in_block = False
    for line in out.splitlines():
        stripped = line.strip()
        if stripped.endswith("permissions:"):
            in_block = stripped == "runtime permissions:"
            continue
        if in_block:
            m = _GRANTED_RE.match(line)
            if m:
                found[m.group(1)] = m.group(2) == "true"
            elif stripped and ":" not in stripped:
                in_block = False
    return found


def app_op_mode(driver: Driver, package: str, op: str) -> str | None:
    """The uid mode of app-op ``op`` for ``package`` (``allow``, ``default``, ...), None when it has none."""
    out = driver.shell(f"appops get --uid {shlex.quote(package)} {shlex.quote(op)}").text
    m = re.search(rf"^(?:Uid mode: )?{re.escape(op)}: (\w+)", out, re.MULTILINE)
    return m.group(1) if m else None


def missing_permissions(driver: Driver, pin: AppPin) -> list[str]:
    granted = runtime_permissions(driver, pin.package)
    return [p for p in pin.permissions if not granted.get(p, False)]


def missing_app_ops(driver: Driver, pin: AppPin) -> list[str]:
    return [op for op in pin.app_ops if app_op_mode(driver, pin.package, op) != "allow"]


def _apply(driver: Driver, pin: AppPin, missing: Callable[[Driver, AppPin], list[str]], command: str,
           what: str) -> list[str]:
    """Run ``command`` (formatted with the quoted ``pkg`` and ``item``) for each of ``missing``'s items, then
    check none is missing any more; returns the items applied now."""
    todo = missing(driver, pin)
    for item in todo:
        driver.shell(command.format(pkg=shlex.quote(pin.package), item=shlex.quote(item)), check=True)
    still = missing(driver, pin) if todo else []
    if still:
        raise DeviceError(f"{driver.serial}: {pin.package}: {what} {', '.join(still)} after "
                          f"{command.split(' {')[0]}")
    return todo


def grant_permissions(driver: Driver, pin: AppPin) -> list[str]:
    """``pm grant`` each pinned runtime permission not granted yet; returns those granted now."""
    return _apply(driver, pin, missing_permissions, "pm grant {pkg} {item}", "still lacks")


def allow_app_ops(driver: Driver, pin: AppPin) -> list[str]:
    """``appops set --uid PKG OP allow`` for each pinned app-op not allowed yet; returns those set now."""
    return _apply(driver, pin, missing_app_ops, "appops set --uid {pkg} {item} allow", "app-op not 'allow':")


def walk_first_run(driver: Driver, pin: AppPin) -> int:
    """Launch the app through its profile and walk its first-run screens (``complete_first_run``); returns
    how many actions that took (0: it opened straight on its main screen). Leaves the home screen in front."""
    from emukit.apps.registry import profile_for

    profile = profile_for(driver, pin.profile)
    walk = getattr(profile, "complete_first_run", None)
    if walk is None:
        raise DeviceError(f"{driver.serial}: the {pin.profile} profile has no first-run walk")
    actions = walk()
    driver.home()
    return len(actions)


def onboard(driver: Driver, package: str) -> OnboardResult:
    """Grant ``package``'s pinned runtime permissions and app-ops, then walk its first-run screens; a step
    that is done already does nothing. ``package`` must be one of the pinned apps (:mod:`emukit.provision.apks`)."""
    pin = pinned(package)
    result = OnboardResult(package=package)
    result.granted = grant_permissions(driver, pin)
    result.app_ops = allow_app_ops(driver, pin)
    result.first_run_actions = walk_first_run(driver, pin)
    return result


def onboard_if_pinned(driver: Driver, package: str) -> OnboardResult | None:
    """:func:`onboard` for a pinned app; None for any other package (system apps need no onboarding)."""
    try:
        pinned(package)
    except KeyError:
        return None
    return onboard(driver, package)
