"""``emukit doctor [SERIAL]``: check one device against every assumption emukit makes, one row per check with
pass/fail and, for a failure, the exact fix.

Rows (their names are stable; tests and docs refer to them): ``adb``, ``root``, ``console auth``,
``grpc clipboard``, ``screen``, ``package <pkg>`` and ``permissions <pkg>`` per pinned app (the latter for apps
with runtime permissions), ``all-files access <pkg>`` (the MANAGE_EXTERNAL_STORAGE app-op, one row per app that
needs it: Markor, VLC, Simple Gallery Pro; another app-op's row is ``app-op <OP> <pkg>``), ``first run <profile>`` per pinned app, ``demo mode``, ``media provider`` (which MediaProvider module the
device has: AOSP and Google-signed images name it differently), then each registered app's own rows
(:meth:`emukit.apps.base.AppProfile.doctor_checks`: the Clock's ``clock prefs``, the Calendar's
``calendar database``), ``device tools``, ``snapshots present``, ``snapshot fingerprints``. The app rows come
from the apps' pins (their selector tables' ``apk:``) and profiles, so a new app needs no edit here.

The first-run and clock rows open the apps through their profiles (as a person would) and go home after; the
fingerprint row loads each base snapshot (:func:`emukit.snapshots.verify_snapshot`), so it runs last.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from emukit.apps.base import AppProfile
from emukit.device.driver import Driver
from emukit.errors import EmukitError
from emukit.provision.apks import load_pins
from emukit.provision.avd import SCREEN

#: what the probes, the snapshot fingerprints, the music profile's setup and the time warp run on the device
#: (emukit/probes/*.py, emukit/snapshots.py, emukit/apps/music.py, emukit/timewarp.py)
DEVICE_TOOLS = ("sh", "ls", "cat", "stat", "find", "sort", "md5sum", "sha256sum", "sqlite3", "date", "touch",
                "chown", "chmod", "mkdir", "rm", "id")
SETUP_HINT = "emukit avd setup {serial} --apks DIR"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _run(name: str, fn: Callable[[], tuple[bool, str, str]]) -> Check:
    try:
        ok, detail, fix = fn()
    except EmukitError as exc:
        return Check(name, False, f"error: {exc}", "see the error; rerun `emukit doctor` once it is fixed")
    return Check(name, ok, detail, "" if ok else fix)


class Doctor:
    """The checks of one device; :meth:`run` returns them in table order."""

    def __init__(self, driver: Driver, data_dir: Path) -> None:
        self.driver = driver
        self.serial = driver.serial
        self.data_dir = data_dir
        self.setup = SETUP_HINT.format(serial=driver.serial)
        self.rooted = False

    def sh(self, command: str) -> str:
        return self.driver.shell(command).text

    # ------------------------------------------------------------------ rows
    def adb(self) -> tuple[bool, str, str]:
        from emukit.device.adbserver import AdbServer

        state = AdbServer(self.driver.adb_port).state(self.serial)
        return (state == "device", f"adb state {state!r}",
                f"wait for the boot to finish, then check `adb -s {self.serial} get-state` says device")

    def root(self) -> tuple[bool, str, str]:
        uid = self.sh("id -u").strip()
        self.rooted = uid == "0"
        return (self.rooted, f"shell uid {uid or '?'}",
                f"adb -s {self.serial} root (a google_apis system image; Google Play images cannot run adbd as root)")

    def console(self) -> tuple[bool, str, str]:
        from emukit.device.console import ConsoleClient

        with ConsoleClient.for_serial(self.serial) as cc:
            name = cc.avd_name()
        return (bool(name), f"authenticated; avd name {name!r}",
                "check ~/.emulator_console_auth_token is readable (the emulator writes it at its first start)")

    def grpc(self) -> tuple[bool, str, str]:
        from emukit.device.emulator_grpc import EmulatorControllerClient, find_endpoint

        endpoint = find_endpoint(self.serial)
        client = EmulatorControllerClient(endpoint)
        try:
            client.get_clipboard()
        finally:
            client.close()
        return True, f"getClipboard answered on port {endpoint.port}", ""

    def screen(self) -> tuple[bool, str, str]:
        w, h, dpi = self.driver.screen()
        want = f"{SCREEN[0]}x{SCREEN[1]}@{SCREEN[2]}"
        return ((w, h, dpi) == SCREEN, f"{w}x{h}@{dpi} (pinned {want})",
                (f"adb -s {self.serial} shell wm size reset; adb -s {self.serial} shell wm density reset "
                "(or recreate the AVD with `emukit avd create NAME --force`)"))

    def package(self, package: str) -> tuple[bool, str, str]:
        from emukit.apps.registry import installed_build

        pin = load_pins().app(package)
        name, code = installed_build(self.driver, package)
        if code is None:
            return False, "not installed", self.setup
        return (code == pin.version_code, f"{name} ({code}), pinned {pin.version_name} ({pin.version_code})",
                f"adb -s {self.serial} uninstall {package}; {self.setup}")

    def permissions(self, package: str) -> tuple[bool, str, str]:
        from emukit.provision.onboard import missing_permissions

        pin = load_pins().app(package)
        missing = missing_permissions(self.driver, pin)
        fix = "; ".join(f"adb -s {self.serial} shell pm grant {package} {p}" for p in missing)
        return not missing, ("granted: " + ", ".join(pin.permissions)) if not missing else \
            "not granted: " + ", ".join(missing), fix

    def app_op(self, package: str, op: str) -> tuple[bool, str, str]:
        from emukit.provision.onboard import app_op_mode

        mode = app_op_mode(self.driver, package, op)
        fix = f"adb -s {self.serial} shell appops set --uid {package} {op} allow"
        return mode == "allow", f"{op}: {mode or 'unset'}", "" if mode == "allow" else fix

    def first_run(self, profile_name: str) -> tuple[bool, str, str]:
        from emukit.apps.registry import profile_for

        profile = profile_for(self.driver, profile_name)
        try:
            profile.launch(fresh=True)
            screen = self.driver.wait_until(profile.first_run_screen, f"{profile_name}'s first screen")
        finally:
            self.driver.home()
        main = screen in profile.main_screens
        return (main, "opens on its main screen" if main else f"opens on a first-run screen ({screen})",
                self.setup)

    def demo_mode(self) -> tuple[bool, str, str]:
        from emukit.provision.setup import demo_mode_on

        on = demo_mode_on(self.driver)
        return (on, "SystemUI is in demo mode" if on else "demo mode is off",
                (f"adb -s {self.serial} shell settings put global sysui_demo_allowed 1; adb -s {self.serial} shell "
                "am broadcast -a com.android.systemui.demo -e command enter (or rerun avd setup)"))

    def media_provider(self) -> tuple[bool, str, str]:
        from emukit.device.facts import MEDIA_PROVIDER_PACKAGES, media_index_path, media_provider_package

        found = media_provider_package(self.driver)
        return (found is not None, f"{found} (its index: {media_index_path(found)})" if found
                else f"none of {', '.join(MEDIA_PROVIDER_PACKAGES)} is installed",
                "use the pinned google_apis system image (it ships MediaProvider's mainline module)")

    def tools(self) -> tuple[bool, str, str]:
        script = "; ".join(f"command -v {shlex.quote(t)} >/dev/null 2>&1 || echo {shlex.quote(t)}"
                           for t in DEVICE_TOOLS)
        missing = self.sh(script + "; true").split()
        return (not missing, f"{len(DEVICE_TOOLS) - len(missing)}/{len(DEVICE_TOOLS)} found"
                + (f"; missing {', '.join(missing)}" if missing else ""),
                "use the pinned google_apis system image (its toybox has these)")

    def snapshots_present(self) -> tuple[bool, str, str]:
        from emukit.device.console import ConsoleClient
        from emukit.snapshots import CLEAN_SNAPSHOT, list_specs

        with ConsoleClient.for_serial(self.serial) as cc:
            on_device = set(cc.snapshot_list())
        missing = [n for n in (CLEAN_SNAPSHOT, *list_specs()) if n not in on_device]
        return (not missing, "all present" if not missing else "missing " + ", ".join(missing),
                f"emukit snapshots build NAME --device {self.serial} for each (or rerun avd setup)")

    def snapshot_fingerprints(self) -> tuple[bool, str, str]:
        from emukit.device.console import ConsoleClient
        from emukit.snapshots import (
            fingerprint_differences,
            fingerprint_path,
            list_specs,
            verify_snapshot,
        )

        with ConsoleClient.for_serial(self.serial) as cc:
            on_device = set(cc.snapshot_list())
        bad: list[str] = []
        for name in list_specs():
            if name not in on_device or not fingerprint_path(self.data_dir, self.serial, name).exists():
                bad.append(f"{name} (no recorded fingerprint)")
                continue
            _ok, expected, actual = verify_snapshot(self.driver, name, self.data_dir)
            differs = fingerprint_differences(expected, actual)
            if differs:
                bad.append(f"{name} (differs in {', '.join(differs)})")
        return (not bad, "every snapshot matches its recorded fingerprint" if not bad else "; ".join(bad),
                f"emukit snapshots build NAME --device {self.serial} --data-dir {self.data_dir} for each listed")

    # ------------------------------------------------------------------ all of them
    def run(self) -> list[Check]:
        pins = load_pins().apps
        rows: list[tuple[str, Callable[[], tuple[bool, str, str]]]] = [
            ("adb", self.adb), ("root", self.root), ("console auth", self.console), ("grpc clipboard", self.grpc),
            ("screen", self.screen)]
        rows += [(f"package {p.package}", lambda p=p: self.package(p.package)) for p in pins]
        rows += [(f"permissions {p.package}", lambda p=p: self.permissions(p.package)) for p in pins if p.permissions]
        rows += [(_app_op_row(op, p.package), lambda p=p, op=op: self.app_op(p.package, op))
                 for p in pins for op in p.app_ops]
        installed = {p.package for p in pins}
        checks: list[Check] = []
        for name, fn in rows:
            check = _run(name, fn)
            checks.append(check)
            if name.startswith("package ") and not check.ok:
                installed.discard(name.split(" ", 1)[1])
        for p in pins:
            name = f"first run {p.profile}"
            if p.package in installed:
                checks.append(_run(name, lambda p=p: self.first_run(p.profile)))
            else:
                checks.append(Check(name, False, "not installed", "fix the package row first"))
        checks.append(_run("demo mode", self.demo_mode))
        checks.append(_run("media provider", self.media_provider))
        checks += self.app_checks()
        for name, fn in (("device tools", self.tools), ("snapshots present", self.snapshots_present),
                         ("snapshot fingerprints", self.snapshot_fingerprints)):
            checks.append(_run(name, fn))
        return checks

    def app_checks(self) -> list[Check]:
        """Each registered app's own rows, for the apps installed here (an app that is not installed has none:
        its package row, where it is pinned, already says so)."""
        from emukit.apps.registry import all_profiles, installed_build, profile_for

        checks: list[Check] = []
        for cls in all_profiles():
            if cls.doctor_checks is AppProfile.doctor_checks:
                continue
            if installed_build(self.driver, cls.package)[1] is None:
                continue
            try:
                rows = profile_for(self.driver, cls.name).doctor_checks(rooted=self.rooted)
            except EmukitError as exc:
                checks.append(Check(f"{cls.name} rows", False, f"error: {exc}", self.setup))
                continue
            checks += [_run(name, fn) for name, fn in rows]
        return checks


def _app_op_row(op: str, package: str) -> str:
    """The row name of an app-op: ``all-files access <package>`` for MANAGE_EXTERNAL_STORAGE (Settings' page
    title; one row per app, since several apps need it), ``app-op <OP> <package>`` for another."""
    return f"all-files access {package}" if op == "MANAGE_EXTERNAL_STORAGE" else f"app-op {op} {package}"


def run_doctor(driver: Driver, data_dir: Path) -> list[Check]:
    return Doctor(driver, data_dir).run()
