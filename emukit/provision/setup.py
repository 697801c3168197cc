"""``emukit avd setup SERIAL --apks DIR``: make one device ready for emukit, step by step.

Steps, in order, each printed and each leaving alone what is done already (a second run changes nothing and
says "already done"): adb root; the APK files' sha256 against the pins; install (skipped when the pinned
versionCode is installed); per app the runtime permissions, app-ops and first-run screens
(:func:`emukit.provision.onboard.onboard`); the media the base snapshots need, pushed and scanned; animations
off; SystemUI demo mode; the base snapshots. A failure raises :class:`SetupError` naming the step and the
device.

Facts this relies on:

* media scan: ``am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://<path>``, as
  android_world scans its music folder (google-research/android_world d9c569f764b3
  android_world/task_evals/single/retro_music.py 110-117);
* demo mode (frameworks/base packages/SystemUI/src/com/android/systemui/demomode/DemoModeController.kt):
  commands are ``com.android.systemui.demo`` broadcasts with a ``command`` extra, obeyed only while the global
  setting ``sysui_demo_allowed`` is 1; ``enter`` turns it on; its dump prints ``isInDemoMode=<bool>``
  (``dumpsys activity service com.android.systemui/.SystemUIService DemoModeController``). The clock, battery,
  network and notifications commands and their extras are SystemUI's DemoMode command set.
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from emukit.device.driver import Driver
from emukit.errors import EmukitError
from emukit.provision.apks import AppPin, check_apk, load_pins, locate

DEMO_ALLOWED = "sysui_demo_allowed"
DEMO_ACTION = "com.android.systemui.demo"
#: the demo-mode commands setup sends after ``enter``: a fixed 12:00 clock, a full unplugged battery, full
#: Wi-Fi, no notification icons
DEMO_COMMANDS = ("clock -e hhmm 1200", "battery -e level 100 -e plugged false", "network -e wifi show -e level 4",
                 "notifications -e visible false")
DEMO_DUMP = "dumpsys activity service com.android.systemui/.SystemUIService DemoModeController"
ANIMATIONS = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
TMP_DIR = "/data/local/tmp"


class SetupError(EmukitError):
    """A setup step failed; the message names the device and the step."""


@dataclass
class StepResult:
    step: str
    changed: bool
    detail: str = ""


@dataclass
class SetupReport:
    serial: str
    steps: list[StepResult] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(s.changed for s in self.steps)


def is_virtual(driver: Driver) -> bool:
    """Whether the device is emukit's virtual device (``ro.emukit.virtual`` is ``"1"``)."""
    return driver.shell("getprop ro.emukit.virtual").text.strip() == "1"


# ---------------------------------------------------------------------------------------------- steps
def ensure_root(driver: Driver) -> StepResult:
    if driver.shell("id -u").text.strip() == "0":
        return StepResult("adb root", False, "adbd runs as root")
    from emukit.device.adbserver import AdbServer
    from emukit.device.boot import enable_root

    enable_root(AdbServer(driver.adb_port), driver.serial)
    driver.close()  # the transport restarted with adbd
    return StepResult("adb root", True, "adbd restarted as root")


def check_digests(driver: Driver, apks: Path) -> tuple[StepResult, dict[str, Path]]:
    virtual = is_virtual(driver)
    paths: dict[str, Path] = {}
    for pin in load_pins().apps:
        path = locate(apks, pin)
        check_apk(path, pin, virtual=virtual)
        paths[pin.package] = path
    kind = "the real builds or their stand-ins" if virtual else "the real builds"
    return StepResult("APK digests", False, f"{len(paths)} files match the pinned sha256 of {kind}"), paths


def installed_code(driver: Driver, package: str) -> int | None:
    from emukit.apps.registry import installed_build

    return installed_build(driver, package)[1]


def install(driver: Driver, pin: AppPin, path: Path) -> StepResult:
    name = f"install {pin.package}"
    if installed_code(driver, pin.package) == pin.version_code:
        return StepResult(name, False, f"versionCode {pin.version_code} is installed")
    remote = f"{TMP_DIR}/{pin.file}"
    driver.adbutils().sync.push(str(path), remote)
    out = driver.shell(f"pm install -r {shlex.quote(remote)}; rm -f {shlex.quote(remote)}").text.strip()
    if "Success" not in out:
        raise EmukitError(f"pm install {pin.file}: {out or 'no output'}")
    code = installed_code(driver, pin.package)
    if code != pin.version_code:
        raise EmukitError(f"after pm install, dumpsys package reports versionCode {code}, not {pin.version_code}")
    return StepResult(name, True, f"{pin.version_name} ({pin.version_code}) installed from {path.name}")


def provisioned_files() -> dict[str, bytes]:
    """Device path -> bytes of every file the base snapshot specs' app sections ask to have before the clean
    snapshot (sections with ``provision`` set: the songs a media scan must index), at the paths build_snapshot
    pushes them to."""
    from emukit.snapshots import list_specs, load_spec, seed_sections

    sections = {key: s for key, s in seed_sections().items() if s.provision}
    songs: dict[str, bytes] = {}
    for name in list_specs():
        spec = load_spec(name)
        for key, section in sections.items():
            for path, data in section.device_files(spec.items(key)).items():
                songs.setdefault(path, data)
    return songs


def push_media(driver: Driver) -> StepResult:
    songs = provisioned_files()
    if not songs:
        return StepResult("media", False, "no base snapshot lists songs")
    listing = driver.shell("md5sum " + " ".join(shlex.quote(p) for p in sorted(songs)) + " 2>/dev/null").text
    on_device = {}
    for line in listing.splitlines():
        digest, _, path = line.partition("  ")
        on_device[path.strip()] = digest.strip()
    todo = [p for p, data in sorted(songs.items()) if on_device.get(p) != hashlib.md5(data).hexdigest()]
    if not todo:
        return StepResult("media", False, f"{len(songs)} songs are on the device")
    driver.shell("mkdir -p " + " ".join(sorted({shlex.quote(p.rsplit('/', 1)[0]) for p in todo})), check=True)
    sync = driver.adbutils().sync
    for path in todo:
        sync.push(songs[path], path)
    for path in todo:
        driver.shell("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d "
                     f"{shlex.quote('file://' + path)}", check=True)
    return StepResult("media", True, f"{len(todo)} songs pushed and scanned")


def disable_animations(driver: Driver) -> StepResult:
    values = driver.shell("; ".join(f"settings get global {n}" for n in ANIMATIONS)).text.split()
    if len(values) == len(ANIMATIONS) and all(v in ("0", "0.0") for v in values):
        return StepResult("animations off", False, "all three animation scales are 0")
    driver.shell(" && ".join(f"settings put global {n} 0" for n in ANIMATIONS), check=True)
    return StepResult("animations off", True, "window, transition and animator scales set to 0")


def demo_mode_on(driver: Driver) -> bool:
    """Whether demo mode is allowed and SystemUI reports being in it."""
    allowed = driver.shell(f"settings get global {DEMO_ALLOWED}").text.strip() == "1"
    return allowed and "isInDemoMode=true" in driver.shell(DEMO_DUMP).text


def enable_demo_mode(driver: Driver) -> StepResult:
    if demo_mode_on(driver):
        return StepResult("demo mode", False, "SystemUI is in demo mode")
    driver.shell(f"settings put global {DEMO_ALLOWED} 1", check=True)
    for command in ("enter", *DEMO_COMMANDS):
        driver.shell(f"am broadcast -a {DEMO_ACTION} -e command {command}", check=True)
    if not demo_mode_on(driver):
        raise EmukitError(f"SystemUI does not report demo mode after the broadcasts ({DEMO_DUMP})")
    return StepResult("demo mode", True, "12:00 clock, full battery, full Wi-Fi, no notification icons")


def save_clean_snapshot(driver: Driver) -> StepResult:
    """The device's set-up state as its clean snapshot, which every base snapshot is built from."""
    from emukit.snapshots import CLEAN_SNAPSHOT, save_clean

    if save_clean(driver):
        return StepResult("clean snapshot", True, f"saved {CLEAN_SNAPSHOT}: base snapshots are built from it")
    return StepResult("clean snapshot", False, f"{CLEAN_SNAPSHOT} on the device")


def save_base_snapshots(driver: Driver, data_dir: Path) -> StepResult:
    from emukit.device.console import ConsoleClient
    from emukit.snapshots import ensure_snapshot, list_specs

    names = list_specs()
    with ConsoleClient.for_serial(driver.serial) as console:
        before = set(console.snapshot_list())
    for name in names:
        ensure_snapshot(driver, name, data_dir)
    built = [n for n in names if n not in before]
    if not built:
        return StepResult("base snapshots", False, f"{len(names)} snapshots on the device")
    return StepResult("base snapshots", True, f"built {', '.join(built)}")


# ---------------------------------------------------------------------------------------------- the command
def setup_device(driver: Driver, apks: Path, data_dir: Path, console: Console | None = None, *,
                 save_snapshots: bool = True) -> SetupReport:
    """Run every step on ``driver``'s device; prints each step's outcome to ``console``. Without
    ``save_snapshots`` the base snapshots are left to be built when first needed (``ensure_snapshot``)."""
    from emukit.provision.onboard import (
        allow_app_ops,
        grant_permissions,
        walk_first_run,
    )

    report = SetupReport(driver.serial)

    def run(step: str, fn: Callable[[], StepResult | list[StepResult]]) -> None:
        try:
            results = fn()
        except EmukitError as exc:
            raise SetupError(f"{driver.serial}: step '{step}' failed: {exc}") from exc
        for result in results if isinstance(results, list) else [results]:
            report.steps.append(result)
            if console is not None:
                status = "[green]done[/green]" if result.changed else "[dim]already done[/dim]"
                console.print(f"{escape(result.step)}: {status} ({escape(result.detail)})", highlight=False,
                              soft_wrap=True)

    run("adb root", lambda: ensure_root(driver))
    paths: dict[str, Path] = {}

    def digests() -> StepResult:
        result, found = check_digests(driver, apks)
        paths.update(found)
        return result

    run("APK digests", digests)
    pins = load_pins().apps
    for pin in pins:
        run(f"install {pin.package}", lambda pin=pin: install(driver, pin, paths[pin.package]))
    for pin in pins:
        run(f"permissions {pin.package}", lambda pin=pin: _permissions(driver, pin, grant_permissions))
        run(f"app-ops {pin.package}", lambda pin=pin: _app_ops(driver, pin, allow_app_ops))
        run(f"first run {pin.profile}", lambda pin=pin: _first_run(driver, pin, walk_first_run))
    for name in image_first_runs():
        run(f"first run {name}", lambda name=name: _image_first_run(driver, name))
    run("media", lambda: push_media(driver))
    run("animations off", lambda: disable_animations(driver))
    run("demo mode", lambda: enable_demo_mode(driver))
    run("clean snapshot", lambda: save_clean_snapshot(driver))
    if save_snapshots:
        run("base snapshots", lambda: save_base_snapshots(driver, data_dir))
    return report


def _permissions(driver: Driver, pin: AppPin, grant: Callable[[Driver, AppPin], list[str]]) -> StepResult:
    name = f"permissions {pin.package}"
    if not pin.permissions:
        return StepResult(name, False, "none to grant")
    granted = grant(driver, pin)
    return StepResult(name, bool(granted), f"granted {', '.join(granted)}" if granted
                      else f"{', '.join(pin.permissions)} granted")


def _app_ops(driver: Driver, pin: AppPin, allow: Callable[[Driver, AppPin], list[str]]) -> StepResult:
    name = f"app-ops {pin.package}"
    if not pin.app_ops:
        return StepResult(name, False, "none to set")
    done = allow(driver, pin)
    return StepResult(name, bool(done), f"set {', '.join(done)} allow" if done else f"{', '.join(pin.app_ops)} allow")


def image_first_runs() -> list[str]:
    """The profiles of apps shipped in the system image (every table of theirs pins an image build, no APK) that
    walk a first run of their own (Chrome's welcome and sign-in screens), by name: ``emukit avd setup`` walks
    them after the installed apps, as android_world's setup does for Chrome."""
    from emukit.apps.registry import all_profiles
    from emukit.apps.selectors import tables_of

    out = []
    for cls in all_profiles():
        tables = tables_of(cls.package)
        if tables and all(t.apk is None for t in tables) and hasattr(cls, "complete_first_run"):
            out.append(cls.name)
    return out


def _image_first_run(driver: Driver, name: str) -> StepResult:
    from emukit.apps.registry import profile_for

    actions = profile_for(driver, name).complete_first_run()
    driver.home()
    count = len(actions) if isinstance(actions, list) else 0
    return StepResult(f"first run {name}", count > 0, f"walked the first-run screens in {count} actions" if count
                      else "the app opens on its main screen")


def _first_run(driver: Driver, pin: AppPin, walk: Callable[[Driver, AppPin], int]) -> StepResult:
    actions = walk(driver, pin)
    return StepResult(f"first run {pin.profile}", actions > 0,
                      f"walked the first-run screens in {actions} actions" if actions
                      else "the app opens on its main screen")
