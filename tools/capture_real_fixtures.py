"""Capture, on a device set up with ``emukit avd setup``, what the structure fixtures and the probes assume,
for the first run on a real AVD:

    python tools/capture_real_fixtures.py SERIAL --out DIR [--first-run] [--screens PATTERN ...]

Writes under DIR:

* ``hierarchy/<app>/<screen>.capture.xml`` and ``.png``: the ``uiautomator dump`` (the driver's hierarchy
  dump, the same format) and the screenshot of every screen that has a structure fixture in
  ``tests/fixtures/real/hierarchy`` (:data:`SCREENS`, under the fixture's own name), reached through the app
  profiles as the structure tests in tests/apps/ reach them. Copying ``DIR/hierarchy`` over that folder lets
  ``tools/check_captures.py`` and ``tests/apps/test_captured_fixtures.py`` compare them;
* ``prefs/<package>/<file>.xml``: the shared-prefs files of the pinned apps and the Clock (both storages);
* ``schemas/<package>/<db>.sql``: ``sqlite3 <db> .schema`` of each app database;
* ``dumpsys/notification.txt`` (``dumpsys notification --noredact``) and ``dumpsys/package-<pkg>.txt``;
* ``console/banner.txt`` and ``console/snapshot-list.txt`` (the emulator console);
* ``grpc/discovery.ini``: the emulator's gRPC discovery file for this device;
* ``index.json``: every file written, the screens captured, and each screen or file that could not be had
  with the error (a screen that cannot be reached never stops the run).

The first-run screens (:data:`FIRST_RUN`: Markor's intro, its all-files access dialog, Settings' "All files
access" page and Markor's changelog; Retro Music's permission screen, the permission prompt and its What's
New sheet) show only before an app is onboarded. ``--first-run`` brings them back: it CLEARS THE DATA OF
MARKOR AND RETRO MUSIC (``pm clear``: their preferences, Retro Music's playlists and both apps' permission
choices are lost; Markor's notes in shared storage stay), captures each first-run screen while the profile walks it
(``complete_first_run``), then onboards both apps again (:func:`emukit.provision.onboard.onboard`: runtime
permissions, app-ops, first-run walk), so the apps are left onboarded as ``emukit avd setup`` left them.

``--screens`` captures only the screens whose ``<app>/<screen>`` name matches one of the shell patterns
(the screens a capture walks through on the way are driven, not saved).

Capturing changes the device (it opens the apps, writes three notes in Markor's notebook, pushes songs and
adds playlists to Retro Music, adds files under Documents and Download, starts and deletes a Clock timer);
load a base snapshot afterwards.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from emukit.apps.registry import all_profiles, profile_for
from emukit.device.driver import Driver
from emukit.errors import EmukitError

MARKOR = "net.gsantner.markor"
MUSIC = "code.name.monkey.retromusic"
CLOCK = "com.google.android.deskclock"
SD = "/storage/emulated/0"
NOTEBOOK = f"{SD}/Documents/Markor"
PREFS_DIRS = {MARKOR: [f"/data/data/{MARKOR}/shared_prefs"], MUSIC: [f"/data/data/{MUSIC}/shared_prefs"],
              CLOCK: [f"/data/user_de/0/{CLOCK}/shared_prefs", f"/data/data/{CLOCK}/shared_prefs"]}
DB_DIRS = {MUSIC: [f"/data/data/{MUSIC}/databases"], CLOCK: [f"/data/user_de/0/{CLOCK}/databases"],
           MARKOR: [f"/data/data/{MARKOR}/databases"]}
#: the songs the music screens list (the music structure test's library): title, artist, album, seconds
SONGS = [(title, f"Band {i % 3}", f"Record {i % 2}", 150 + i) for i, title in enumerate(
    ("Amber", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Grove", "Heath", "Isle", "Juniper", "Kestrel"))]
PLAYLISTS = {"Gamma": ["Cedar", "Amber", "Dune"], "Alpha": ["Birch", "Elm"], "Beta": []}
#: how many timers the Clock walk deletes at most before it starts its own
MAX_TIMERS = 20
#: what a screen, a file or a step may raise without stopping the run (recorded in the index instead): the
#: driver's and the profiles' errors, and whatever the adb and uiautomator2 clients raise under them
ERRORS = (Exception,)


# ---------------------------------------------------------------------------------------------- walks
class Step:
    """One screen, ``screen`` the fixture's ``<app>/<screen>`` name: ``reach`` brings it up from the screen of
    the walk's previous step (the first step from anywhere); ``leave`` runs after the capture, before the next
    step."""

    def __init__(self, screen: str, reach: Callable[[], None], leave: Callable[[], None] | None = None) -> None:
        self.screen = screen
        self.reach = reach
        self.leave = leave


class Walk:
    """Screens reached one after another; ``cleanup`` runs after the last (also when a step failed). A step
    that fails ends the walk: the steps after it are not reached."""

    def __init__(self, name: str, steps: list[Step], cleanup: Callable[[], None] | None = None) -> None:
        self.name = name
        self.steps = steps
        self.cleanup = cleanup


def _markor(driver: Driver) -> list[Walk]:
    """tests/apps/test_markor_structure.py: a notebook with Codes.md, Draft.md and Scratch.md, Markor started
    fresh, then each screen."""
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

    return [Walk(f"markor/{name}", [Step(f"markor/{name}", reach)])
            for name, reach in (("notebook", fresh), ("new_file_dialog", new_file_dialog),
                                ("delete_confirm", delete_confirm), ("editor_paste", editor_paste),
                                ("view_selection", view_selection))]


def _music(driver: Driver) -> list[Walk]:
    """tests/apps/test_music_structure.py: eleven songs on shared storage, the playlists Gamma (three songs),
    Alpha (two) and Beta (empty), Retro Music started fresh, then each screen. The song rows used are the
    first ones the Songs tab shows (the structure test's own picks exercise the profile's scrolling, which a
    capture does not need, and other songs may come first on a set-up device)."""
    from emukit.apps.music import PLAYLIST_DB
    from emukit.media import make_mp3

    music = profile_for(driver, "music")
    ready: list[bool] = []

    def library() -> None:
        """The songs (pushed and scanned when missing) and the playlists, once for every music walk."""
        if ready:
            return
        sync = driver.adbutils().sync
        listing = set(driver.shell(f"ls -1 {SD}/Music 2>/dev/null").text.split())
        todo = [(f"{SD}/Music/{t.lower()}.mp3", t, a, b, s) for t, a, b, s in SONGS
                if f"{t.lower()}.mp3" not in listing]
        if todo:
            driver.shell(f"mkdir -p {SD}/Music", check=True)
        for path, title, artist, album, seconds in todo:
            sync.push(make_mp3(title, artist, album, seconds), path)
            # the media scan a real device needs before Retro Music (MediaStore) lists a pushed file, as
            # emukit.provision.setup.push_media does it
            driver.shell(f"am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d "
                         f"{shlex.quote('file://' + path)}", check=True)
        music.launch(fresh=True)  # the app's databases exist and its library is indexed
        listed = driver.shell(f"sqlite3 {PLAYLIST_DB} 'SELECT playlist_name FROM PlaylistEntity'").text.split("\n")
        for name, titles in PLAYLISTS.items():
            if name not in {n.strip() for n in listed}:
                music.seed_playlist(name, titles)
        ready.append(True)

    def start(tab: str) -> None:
        library()
        music.launch(fresh=True)
        music.tab(tab)

    def first_rows(count: int) -> list[str]:
        """The titles of the first rows the list shows whole (the library is the device's: no scrolling)."""
        titles = music.visible_titles()[:count]
        if len(titles) < count:
            raise EmukitError(f"{driver.serial}: Retro Music lists {len(titles)} songs whole, not {count}")
        return titles

    def songs_row_menu() -> None:
        start("Songs")
        music._open_row_menu(first_rows(1)[0])
        driver.element(**music.sel("song_add_to_playlist"))

    def add_to_playlist_dialog() -> None:
        music._open_row_menu(first_rows(1)[0])
        driver.tap(**music.sel("song_add_to_playlist"))
        driver.element(**music.sel("add_to_playlist_choice", playlist="New playlist"))

    def playlists_card_menu() -> None:
        start("Playlists")
        music._open_row_menu("Beta")

    def playlists_overflow() -> None:
        driver.tap(**music.sel("more_options"))
        driver.element(**music.sel("menu_new_playlist"))

    def new_playlist_dialog() -> None:
        driver.tap(**music.sel("menu_new_playlist"))
        driver.element(**music.sel("new_playlist_name"))

    def playlist_detail() -> None:
        library()
        music.launch(fresh=True)
        music.open_playlist("Gamma")

    def mini_player() -> None:
        start("Songs")
        for title in first_rows(3):
            music.add_to_queue(title)
            driver.wait_stable()  # the mini player comes in after the first song and moves the list up
        driver.element(**music.sel("mini_player_title"))

    return [
        Walk("music/songs", [Step("music/songs_row_menu", songs_row_menu, music.back),
                             Step("music/add_to_playlist_dialog", add_to_playlist_dialog, music.back)]),
        Walk("music/playlists", [Step("music/playlists_card_menu", playlists_card_menu, music.back),
                                 Step("music/playlists_overflow", playlists_overflow),
                                 Step("music/new_playlist_dialog", new_playlist_dialog, music.back)]),
        Walk("music/playlist_detail", [Step("music/playlist_detail", playlist_detail, music.back)]),
        Walk("music/player", [Step("music/mini_player", mini_player),
                              Step("music/now_playing", music.open_now_playing),
                              Step("music/queue", music.open_queue)])]


def _clock(driver: Driver) -> list[Walk]:
    """tests/apps/test_clock_structure.py: the keypad with a 5 typed, a five-minute timer running, paused
    after a minute, the shade with its notification once it runs again, the Clock tab. The structure test
    starts from ``pm clear`` of the Clock; here the timers there are deleted instead, which keeps the
    Clock's preferences the setup wrote."""
    clock = profile_for(driver, "clock")

    def no_timers() -> None:
        clock.launch(fresh=True)
        clock.open_timers()
        for _ in range(MAX_TIMERS):
            if not driver.exists(**clock.sel("card_delete")):
                return
            clock.delete(0)
            driver.wait_idle()
        raise EmukitError(f"{driver.serial}: the Clock still lists timers after {MAX_TIMERS} deletions")

    def timer_keypad() -> None:
        no_timers()
        driver.element(**clock.sel("timer_setup_time"))
        driver.tap(**clock.sel("timer_digit", digit=5))  # the keypad with an entry (Start shows)

    def timer_running() -> None:
        driver.tap(**clock.sel("timer_backspace"))
        clock.start_timer(minutes=5)

    def timer_paused() -> None:
        driver.shell("sleep 60", timeout=90)  # the device's own minute (the virtual device's logical clock too)
        clock.pause()

    def shade_timer() -> None:
        clock.resume()
        driver.home()  # the Clock hides its running timer's notification while it is in front
        clock.open_shade()

    def clock_tab() -> None:
        clock.launch(fresh=True)
        clock.open_clock_tab()

    return [Walk("clock/timers", [Step("clock/timer_keypad", timer_keypad), Step("clock/timer_running", timer_running),
                                  Step("clock/timer_paused", timer_paused),
                                  Step("systemui/shade_timer", shade_timer, driver.back),
                                  Step("clock/clock_tab", clock_tab)],
                 cleanup=no_timers)]


def _files(driver: Driver) -> list[Walk]:
    """tests/apps/test_files_structure.py: Documents holding the folder Archive and report.txt, Download
    holding notes.txt, the Files app started fresh, then each screen. (The structure test empties both folders
    first; here nothing is deleted.)"""
    files = profile_for(driver, "files")
    documents = f"{SD}/Documents"

    def fresh() -> None:
        driver.shell(f"mkdir -p {documents}/Archive {SD}/Download; echo r > {documents}/report.txt; "
                     f"echo d > {SD}/Download/notes.txt", check=True)
        files.launch(fresh=True)

    def roots_drawer() -> None:
        fresh()
        driver.tap(**files.sel("show_roots"))

    def folder_list() -> None:
        fresh()
        files.open_folder(documents)

    def selection_menu() -> None:
        folder_list()
        files.select("report.txt")
        driver.tap(**files.sel("more_options"))

    def picker() -> None:
        selection_menu()
        driver.tap(**files.sel("menu_copy_to"))
        driver.tap(**files.sel("show_roots"))
        driver.tap(**files.sel("root_title"), text=files.device_name())

    def delete_dialog() -> None:
        folder_list()
        files.select("report.txt")
        driver.tap(**files.sel("action_delete"))

    def downloads_search() -> None:
        fresh()
        files.open_search()

    return [Walk("files/roots_drawer", [Step("files/roots_drawer", roots_drawer)]),
            Walk("files/folder_list", [Step("files/folder_list", folder_list)]),
            Walk("files/selection_menu", [Step("files/selection_menu", selection_menu)]),
            Walk("files/picker", [Step("files/picker", picker, lambda: driver.tap(**files.sel("pick_cancel")))]),
            Walk("files/delete_dialog", [Step("files/delete_dialog", delete_dialog,
                                              lambda: driver.tap(**files.sel("delete_cancel")))]),
            Walk("files/downloads_search", [Step("files/downloads_search", downloads_search)])]


def _settings(driver: Driver) -> list[Walk]:
    """tests/apps/test_system_structure.py: Settings started fresh, its homepage, scrolled to System, the
    System page; the Date & time page."""
    settings = profile_for(driver, "settings")

    def homepage() -> None:
        settings.launch(fresh=True)

    def system() -> None:
        driver.tap(**settings.sel("system"))

    def date_time() -> None:
        settings.launch(fresh=True)
        settings.open_date_time()

    return [Walk("settings/homepage", [Step("settings/homepage", homepage),
                                       Step("settings/homepage_system", settings.scroll_to_system),
                                       Step("settings/system", system)]),
            Walk("settings/date_time", [Step("settings/date_time", date_time)])]


def _launcher(driver: Driver) -> list[Walk]:
    """tests/apps/test_system_structure.py: the home screen, then all apps."""
    launcher = profile_for(driver, "launcher")
    return [Walk("launcher/home", [Step("launcher/home", driver.home),
                                   Step("launcher/all_apps", launcher.open_all_apps, driver.back)])]


def _profile_walks(name: str) -> Callable[[Driver], list[Walk]]:
    """The walks of an app whose profile lists its ``fixture_screens`` and reaches each with
    ``capture_screens()`` (a registered app needs no walk of its own here)."""
    def walks(driver: Driver) -> list[Walk]:
        profile = profile_for(driver, name)
        return [Walk(f"{name}/{screen}", [Step(f"{name}/{screen}", reach, driver.back)])
                for screen, reach in profile.capture_screens().items()]

    return walks


#: fixture folder -> the walks that bring up its screens (a walk may end in another folder's screen)
APPS: dict[str, Callable[[Driver], list[Walk]]] = {
    "markor": _markor, "music": _music, "clock": _clock, "files": _files, "settings": _settings,
    "launcher": _launcher}
#: registered apps whose profiles list their fixture screens (the Calendar and the apps added after it)
PROFILE_SCREENS = {cls.name: cls.fixture_screens for cls in all_profiles() if cls.fixture_screens}
APPS.update({name: _profile_walks(name) for name in PROFILE_SCREENS})
#: every screen the walks capture (fixture names), in capture order
SCREENS = ["markor/notebook", "markor/new_file_dialog", "markor/delete_confirm", "markor/editor_paste",
           "markor/view_selection", "music/songs_row_menu", "music/add_to_playlist_dialog",
           "music/playlists_card_menu", "music/playlists_overflow", "music/new_playlist_dialog",
           "music/playlist_detail", "music/mini_player", "music/now_playing", "music/queue", "clock/timer_keypad",
           "clock/timer_running", "clock/timer_paused", "systemui/shade_timer", "clock/clock_tab",
           "files/roots_drawer", "files/folder_list", "files/selection_menu", "files/picker", "files/delete_dialog",
           "files/downloads_search", "settings/homepage", "settings/homepage_system", "settings/system",
           "settings/date_time", "launcher/home", "launcher/all_apps"]
SCREENS += [f"{name}/{screen}" for name, screens in PROFILE_SCREENS.items() for screen in screens]

# ---------------------------------------------------------------------------------------------- first run
#: package -> (profile, its ``first_run_screen()`` names -> the fixture captured the first time that screen
#: shows), the screens tests/apps/test_first_run_structure.py reaches: Markor's first intro slide (NEXT) and
#: its last (DONE), its all-files rationale (OK), Settings' "All files access" page (the switch) and the
#: changelog dialog (OK); Retro Music's PermissionActivity (its grant button, later "Let's go"), the permission
#: controller's prompt (Allow) and the What's New sheet. A name whose button two screens share maps the
#: activity in front (its class name's last part) to the screen: Markor's all-files rationale and its changelog
#: are both an AlertDialog whose positive button is android:id/button1 "OK" (the rationale's in
#: StoragePermissionActivity, StoragePermissionActivity.java 33-36; the changelog's in MainActivity,
#: MainActivity.java 237-246, gsantner/markor ab2175460680)
FIRST_RUN_WALKS: dict[str, tuple[str, dict[str, str | dict[str, str]]]] = {
    MARKOR: ("notes", {"intro_next": "markor/intro", "intro_done": "markor/intro_last",
                       "storage_permission_ok": {"StoragePermissionActivity": "markor/storage_permission",
                                                 "MainActivity": "markor/changelog"},
                       "manage_all_files_switch": "settings/all_files_access", "dialog_ok": "markor/changelog"}),
    MUSIC: ("music", {"permission_grant_audio": "music/permission", "permission_finish": "music/permission",
                      "allow_button": "permissions/grant_dialog", "changelog_dismiss": "music/changelog"}),
}


def _first_run_names(names: dict[str, str | dict[str, str]]) -> list[str]:
    found: list[str] = []
    for target in names.values():
        found += list(target.values()) if isinstance(target, dict) else [target]
    return list(dict.fromkeys(found))


FIRST_RUN = [name for _profile, names in FIRST_RUN_WALKS.values() for name in _first_run_names(names)]


class _FirstRunRecorder:
    """A driver recorder for one first-run walk: before each action the walk takes, the screen in front (the
    profile's ``first_run_screen()``) is captured under its fixture's name, the first time it shows."""

    def __init__(self, capture: Capture, profile: Any, names: dict[str, str | dict[str, str]]) -> None:
        self.capture = capture
        self.profile = profile
        self.names = names
        self.seen: list[str] = []

    def screen(self, driver: Driver) -> str | None:
        target = self.names.get(self.profile.first_run_screen() or "")
        if isinstance(target, dict):
            return target.get(driver.current_app()[1].rsplit(".", 1)[-1])
        return target

    def before(self, driver: Driver, action: Any) -> None:
        self.capture.attempt("first-run screen in front", lambda: self.see(driver))

    def see(self, driver: Driver) -> None:
        screen = self.screen(driver)
        if screen is None or screen in self.seen:
            return
        self.seen.append(screen)
        if self.capture.wanted(screen):
            self.capture.attempt(f"hierarchy/{screen}", lambda: self.capture.snap(screen))

    def after(self, driver: Driver, action: Any) -> None:
        return None


# ---------------------------------------------------------------------------------------------- capture
class Capture:
    """One capture run on ``driver``'s device into ``out``; ``patterns`` (shell patterns) pick the screens."""

    def __init__(self, driver: Driver, out: Path, patterns: list[str] | None = None) -> None:
        self.driver = driver
        self.out = out
        self.patterns = list(patterns or [])
        self.files: list[str] = []
        self.failures: list[dict[str, str]] = []
        self.screens: list[str] = []
        self.onboarded: dict[str, dict[str, Any]] = {}

    def wanted(self, screen: str) -> bool:
        return not self.patterns or any(fnmatch.fnmatchcase(screen, p) for p in self.patterns)

    def write(self, rel: str, data: bytes | str) -> None:
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        self.files.append(rel)

    def attempt(self, what: str, fn: Callable[[], None]) -> bool:
        try:
            fn()
        except ERRORS as exc:
            self.failures.append({"what": what, "error": f"{type(exc).__name__}: {exc}"})
            return False
        return True

    def fail(self, screens: list[str], error: str) -> None:
        for screen in screens:
            if self.wanted(screen):
                self.failures.append({"what": f"hierarchy/{screen}", "error": error})

    def snap(self, screen: str) -> None:
        """Dump and screenshot what is in front as ``screen``."""
        self.driver.wait_idle()
        png, xml = self.driver.observe()
        self.write(f"hierarchy/{screen}.capture.xml", xml)
        self.write(f"hierarchy/{screen}.png", png)
        self.screens.append(screen)

    def walk(self, walk: Walk) -> None:
        last = max((i for i, s in enumerate(walk.steps) if self.wanted(s.screen)), default=-1)
        if last < 0:
            return
        steps = walk.steps[:last + 1]
        for i, step in enumerate(steps):
            def reach(step: Step = step) -> None:
                step.reach()
                if self.wanted(step.screen):
                    self.snap(step.screen)
            ok = self.attempt(f"hierarchy/{step.screen}", reach)
            if ok and step.leave is not None:
                ok = self.attempt(f"hierarchy/{step.screen} (leaving)", step.leave)
            if not ok:
                self.fail([s.screen for s in steps[i + 1:]], f"not reached: {step.screen} failed before it")
                break
        if walk.cleanup is not None:
            self.attempt(f"{walk.name} (cleanup)", walk.cleanup)
        self.attempt(f"{walk.name} (home)", self.home)

    def home(self) -> None:
        self.driver.home()

    def walks(self) -> None:
        for app, make in APPS.items():
            try:
                walks = make(self.driver)
            except ERRORS as exc:
                self.failures.append({"what": f"hierarchy/{app}", "error": f"{type(exc).__name__}: {exc}"})
                continue
            for walk in walks:
                self.walk(walk)

    def first_run(self) -> None:
        """For Markor and Retro Music: ``pm clear``, walk the first run through the profile
        (``complete_first_run``) capturing each first-run screen, then onboard the app again."""
        for package in FIRST_RUN_WALKS:
            self.first_run_of(package)

    def first_run_of(self, package: str) -> None:
        from emukit.apps.registry import installed_build
        from emukit.provision.apks import pinned
        from emukit.provision.onboard import onboard

        profile_name, names = FIRST_RUN_WALKS[package]
        screens = _first_run_names(names)
        if not any(self.wanted(s) for s in screens):
            return
        if installed_build(self.driver, package)[1] is None:
            self.fail(screens, f"not reached: {package} is not installed")
            return

        def clear() -> None:
            # the state before onboarding: ``pm clear`` wipes the app's data (the preferences that say the first
            # run is over) and its runtime permission choices; the app-ops the setup allowed go back to default
            self.driver.shell(f"pm clear {shlex.quote(package)}", check=True)
            for op in pinned(package).app_ops:
                self.driver.shell(f"appops set --uid {shlex.quote(package)} {shlex.quote(op)} default", check=True)

        if not self.attempt(f"first run {package} (pm clear)", clear):
            self.fail(screens, f"not reached: pm clear {package} failed")
            return
        recorder = _FirstRunRecorder(self, profile_for(self.driver, profile_name), names)

        def recorded(fn: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                previous, self.driver.recorder = self.driver.recorder, recorder
                try:
                    fn()
                finally:
                    self.driver.recorder = previous
            return run

        def walk() -> None:
            recorder.profile.complete_first_run()
            self.driver.home()

        def again() -> None:
            # still recorded: when the walk above stopped early, onboarding walks on through the screens left
            self.onboarded[package] = onboard(self.driver, package).model_dump()

        self.attempt(f"first run {package}", recorded(walk))
        self.attempt(f"onboard {package}", recorded(again))
        self.fail([s for s in screens if s not in recorder.seen], f"not shown while {package}'s first run was walked")

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

    def run(self, first_run: bool = False) -> dict[str, object]:
        started = time.monotonic()
        if first_run:
            self.first_run()
        self.walks()
        failed = {f["what"] for f in self.failures}
        self.fail([s for s in SCREENS if s not in self.screens and f"hierarchy/{s}" not in failed],
                  "not reached (see the failures before it)")
        for what, fn in (("prefs", self.prefs), ("schemas", self.schemas), ("dumpsys", self.dumpsys),
                         ("console", self.console), ("grpc", self.grpc)):
            self.attempt(what, fn)
        index = {"serial": self.driver.serial, "captured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "build": self.driver.shell("getprop ro.build.fingerprint").text.strip(),
                 "virtual": self.driver.shell("getprop ro.emukit.virtual").text.strip() == "1",
                 "first_run": first_run, "patterns": self.patterns, "onboarded": self.onboarded,
                 "screens": self.screens, "files": sorted(self.files), "failures": self.failures,
                 "seconds": round(time.monotonic() - started, 1)}
        self.write("index.json", json.dumps(index, indent=1, sort_keys=True))
        return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("serial")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--first-run", action="store_true",
                        help="also capture the first-run screens: CLEARS THE DATA of Markor and Retro Music "
                             "(pm clear: preferences, playlists, permission choices), walks their first runs, "
                             "then onboards both again")
    parser.add_argument("--screens", nargs="+", default=[], metavar="PATTERN",
                        help="capture only the <app>/<screen> names matching one of these shell patterns")
    args = parser.parse_args(argv)
    from emukit.settings import adb_server_port

    driver = Driver(args.serial, adb_server_port())
    try:
        index = Capture(driver, args.out, patterns=args.screens).run(first_run=args.first_run)
    finally:
        driver.close()
    print(f"{len(index['screens'])} screens, {len(index['files'])} files under {args.out} in "  # type: ignore[arg-type]
          f"{index['seconds']} s; {len(index['failures'])} failed (see index.json)")  # type: ignore[arg-type]
    return 1 if index["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
