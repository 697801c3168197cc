"""Capture, on a device set up with ``emukit avd setup``, what the structure fixtures and the probes assume,
for the first run on a real AVD:

    python tools/capture_real_fixtures.py SERIAL --out DIR [--data-dir DATA]

Writes under DIR:

* ``hierarchy/<app>/<screen>.capture.xml`` and ``.png``: the ``uiautomator dump`` (the driver's hierarchy
  dump, the same format) and the screenshot of every screen the profiles touch, reached through the profiles
  as the structure tests in tests/apps/ reach them. The names are those of the fixtures in
  ``tests/fixtures/real/hierarchy``, so copying ``DIR/hierarchy`` over that folder lets
  ``tools/check_captures.py`` and ``tests/apps/test_captured_fixtures.py`` compare them;
* ``prefs/<package>/<file>.xml``: the shared-prefs files of the pinned apps and the Clock (both storages);
* ``schemas/<package>/<db>.sql``: ``sqlite3 <db> .schema`` of each app database;
* ``dumpsys/notification.txt`` (``dumpsys notification --noredact``) and ``dumpsys/package-<pkg>.txt``;
* ``console/banner.txt`` and ``console/snapshot-list.txt`` (the emulator console);
* ``grpc/discovery.ini``: the emulator's gRPC discovery file for this device;
* ``index.json``: every file written, with the screen list, what failed and why.

Capturing changes the device (it opens the apps, creates and deletes a note); load a base snapshot afterwards.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from emukit.apps.registry import profile_for
from emukit.device.driver import Driver
from emukit.errors import EmukitError

MARKOR = "net.gsantner.markor"
MUSIC = "code.name.monkey.retromusic"
CLOCK = "com.google.android.deskclock"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
PREFS_DIRS = {MARKOR: [f"/data/data/{MARKOR}/shared_prefs"], MUSIC: [f"/data/data/{MUSIC}/shared_prefs"],
              CLOCK: [f"/data/user_de/0/{CLOCK}/shared_prefs", f"/data/data/{CLOCK}/shared_prefs"]}
DB_DIRS = {MUSIC: [f"/data/data/{MUSIC}/databases"], CLOCK: [f"/data/user_de/0/{CLOCK}/databases"],
           MARKOR: [f"/data/data/{MARKOR}/databases"]}


# ---------------------------------------------------------------------------------------------- screens
def _markor(driver: Driver) -> list[tuple[str, Callable[[], None]]]:
    notes = profile_for(driver, "notes")

    def fresh() -> None:
        driver.shell(f"mkdir -p {NOTEBOOK}; printf '# Codes\\n\\nKestrel43\\n\\nMarble13\\n' > {NOTEBOOK}/Codes.md; "
                     f": > {NOTEBOOK}/Draft.md; : > {NOTEBOOK}/Scratch.md", check=True)
        notes.launch(fresh=True)

    def new_file_dialog() -> None:
        fresh()
        driver.tap(**notes.sel("fab_new"))
        driver.element(**notes.sel("new_file_name"))

    def delete_confirm() -> None:
        fresh()
        driver.long_press(**notes.sel("notebook_row_title"), text="Scratch.md")
        driver.tap(**notes.sel("selection_delete"))
        driver.element(**notes.sel("confirm_delete_title"))

    def editor_paste() -> None:
        fresh()
        notes.open_document("Codes.md")
        notes.view_mode()
        notes.copy("Kestrel43")
        notes.up()
        notes.open_document("Draft.md")
        notes.paste_menu()

    def view_selection() -> None:
        fresh()
        notes.open_document("Codes.md")
        notes.view_mode()
        notes.select_word("Kestrel43")

    return [("notebook", fresh), ("new_file_dialog", new_file_dialog), ("delete_confirm", delete_confirm),
            ("editor_paste", editor_paste), ("view_selection", view_selection)]


def _music(driver: Driver) -> list[tuple[str, Callable[[], None]]]:
    music = profile_for(driver, "music")

    def overflow() -> None:
        music.launch(fresh=True)
        music.tab("Playlists")
        driver.tap(**music.sel("more_options"))
        driver.element(**music.sel("menu_new_playlist"))

    def new_playlist_dialog() -> None:
        overflow()
        driver.tap(**music.sel("menu_new_playlist"))
        driver.element(**music.sel("new_playlist_name"))

    return [("playlists_overflow", overflow), ("new_playlist_dialog", new_playlist_dialog)]


def _clock(driver: Driver) -> list[tuple[str, Callable[[], None]]]:
    clock = profile_for(driver, "clock")

    def clock_tab() -> None:
        clock.launch(fresh=True)
        clock.open_clock_tab()

    def timer_keypad() -> None:
        clock.launch(fresh=True)
        clock.open_timers()
        driver.tap(**clock.sel("timer_digit", digit=5))

    return [("clock_tab", clock_tab), ("timer_keypad", timer_keypad)]


def _settings(driver: Driver) -> list[tuple[str, Callable[[], None]]]:
    settings = profile_for(driver, "settings")

    def homepage() -> None:
        settings.launch(fresh=True)

    def homepage_system() -> None:
        homepage()
        settings.scroll_to_system()

    def system() -> None:
        homepage_system()
        driver.tap(**settings.sel("system"))

    def date_time() -> None:
        settings.launch(fresh=True)
        settings.open_date_time()

    return [("homepage", homepage), ("homepage_system", homepage_system), ("system", system),
            ("date_time", date_time)]


def _launcher(driver: Driver) -> list[tuple[str, Callable[[], None]]]:
    launcher = profile_for(driver, "launcher")

    def all_apps() -> None:
        driver.home()
        launcher.open_all_apps()

    return [("home", driver.home), ("all_apps", all_apps)]


SCREENS: dict[str, Callable[[Driver], list[tuple[str, Callable[[], None]]]]] = {
    "markor": _markor, "music": _music, "clock": _clock, "settings": _settings, "launcher": _launcher}


# ---------------------------------------------------------------------------------------------- capture
class Capture:
    def __init__(self, driver: Driver, out: Path) -> None:
        self.driver = driver
        self.out = out
        self.files: list[str] = []
        self.failures: list[dict[str, str]] = []
        self.screens: list[str] = []

    def write(self, rel: str, data: bytes | str) -> None:
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        self.files.append(rel)

    def attempt(self, what: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except (EmukitError, KeyError, ValueError) as exc:
            self.failures.append({"what": what, "error": f"{type(exc).__name__}: {exc}"})

    def screens_of(self, app: str, make: Callable[[Driver], list[tuple[str, Callable[[], None]]]]) -> None:
        try:
            screens = make(self.driver)
        except EmukitError as exc:
            self.failures.append({"what": f"hierarchy/{app}", "error": str(exc)})
            return
        for screen, drive in screens:
            def one(screen: str = screen, drive: Callable[[], None] = drive) -> None:
                drive()
                self.driver.wait_idle()
                png, xml = self.driver.observe()
                self.write(f"hierarchy/{app}/{screen}.capture.xml", xml)
                self.write(f"hierarchy/{app}/{screen}.png", png)
                self.screens.append(f"{app}/{screen}")
            self.attempt(f"hierarchy/{app}/{screen}", one)
            self.driver.home()

    def files_in(self, folders: list[str], suffix: str) -> list[str]:
        out = []
        for folder in folders:
            listing = self.driver.shell(f"ls -1 {shlex.quote(folder)} 2>/dev/null").text.split()
            out += [f"{folder}/{n}" for n in listing if n.endswith(suffix)]
        return out

    def prefs(self) -> None:
        for package, folders in PREFS_DIRS.items():
            for path in self.files_in(folders, ".xml"):
                where = "de" if "/user_de/" in path else "ce"
                self.write(f"prefs/{package}/{where}/{path.rsplit('/', 1)[1]}",
                           self.driver.wire.exec_out(f"cat {shlex.quote(path)}"))

    def schemas(self) -> None:
        for package, folders in DB_DIRS.items():
            for path in self.files_in(folders, ".db"):
                schema = self.driver.shell(f"sqlite3 {shlex.quote(path)} .schema", check=True).text
                self.write(f"schemas/{package}/{path.rsplit('/', 1)[1]}.sql", schema)

    def dumpsys(self) -> None:
        from emukit.provision.apks import load_pins

        self.write("dumpsys/notification.txt", self.driver.shell("dumpsys notification --noredact", check=True).text)
        for pin in load_pins().apps:
            self.write(f"dumpsys/package-{pin.package}.txt",
                       self.driver.shell(f"dumpsys package {pin.package}", check=True).text)

    def console(self) -> None:
        from emukit.device.console import ConsoleClient

        with ConsoleClient.for_serial(self.driver.serial) as cc:
            banner = cc.connect()
            listing = cc.command("avd snapshot list")
        self.write("console/banner.txt", banner)
        self.write("console/snapshot-list.txt", listing)

    def grpc(self) -> None:
        from emukit.device.emulator_grpc import find_endpoint

        endpoint = find_endpoint(self.driver.serial)
        if endpoint.discovery_file is None:
            raise EmukitError(f"{self.driver.serial}: the gRPC endpoint was not found through a discovery file")
        self.write("grpc/discovery.ini", Path(endpoint.discovery_file).read_text())

    def run(self) -> dict[str, object]:
        for app, make in SCREENS.items():
            self.screens_of(app, make)
        for what, fn in (("prefs", self.prefs), ("schemas", self.schemas), ("dumpsys", self.dumpsys),
                         ("console", self.console), ("grpc", self.grpc)):
            self.attempt(what, fn)
        index = {"serial": self.driver.serial, "captured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "build": self.driver.shell("getprop ro.build.fingerprint").text.strip(),
                 "virtual": self.driver.shell("getprop ro.emukit.virtual").text.strip() == "1",
                 "screens": self.screens, "files": sorted(self.files), "failures": self.failures}
        self.write("index.json", json.dumps(index, indent=1, sort_keys=True))
        return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("serial")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    from emukit.device.select import adb_port

    driver = Driver(args.serial, adb_port())
    try:
        index = Capture(driver, args.out).run()
    finally:
        driver.close()
    print(f"{len(index['screens'])} screens, {len(index['files'])} files under {args.out}; "  # type: ignore[arg-type]
          f"{len(index['failures'])} failed (see index.json)")  # type: ignore[arg-type]
    return 1 if index["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
