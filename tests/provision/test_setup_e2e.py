"""``emukit avd setup`` and ``emukit doctor`` end to end on hardware-like virtual devices (``emukit vdevice
serve --mode hardware`` processes behind the real adb server): apps absent until installed, first-run screens
and permission prompts until handled. Nothing is mocked; the APK files are the stand-ins ``emukit avd
standins`` writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from emukit.apps.registry import profile_for
from emukit.cli import main
from emukit.device.driver import Driver
from emukit.probes import probe
from emukit.provision.doctor import run_doctor

# every pinned app, in package order: (package, profile name, has runtime permissions to grant, its app-ops)
PINNED = [("code.name.monkey.retromusic", "music", True, []), ("com.arduia.expense", "expense", False, []),
          ("com.flauschcode.broccoli", "broccoli", False, []),
          ("com.simplemobiletools.calendar.pro", "calendar", True, []),
          ("com.simplemobiletools.gallery.pro", "gallery", True, ["MANAGE_EXTERNAL_STORAGE"]),
          ("com.simplemobiletools.smsmessenger", "sms", False, []),
          ("de.dennisguse.opentracks", "opentracks", True, []), ("net.cozic.joplin", "joplin", True, []),
          ("net.gsantner.markor", "notes", False, ["MANAGE_EXTERNAL_STORAGE"]), ("org.tasks", "tasks", False, []),
          ("org.videolan.vlc", "vlc", True, ["MANAGE_EXTERNAL_STORAGE"])]
UNPREPARED_FAILURES = {"root", "demo mode", "clock prefs", "snapshots present", "snapshot fingerprints",
                       "chrome first run",
                       *(f"package {p}" for p, *_ in PINNED), *(f"first run {n}" for _, n, *_ in PINNED),
                       *(f"permissions {p}" for p, _, perms, _ in PINNED if perms),
                       *(f"all-files access {p}" for p, _, _, ops in PINNED if ops)}
SETUP_STEPS = ["adb root", "APK digests", *(f"install {p}" for p, *_ in PINNED),
               *(step for p, n, *_ in PINNED for step in (f"permissions {p}", f"app-ops {p}", f"first run {n}")),
               "first run chrome", "media", "animations off", "demo mode", "clean snapshot", "base snapshots"]


def test_the_expectations_name_every_pinned_app() -> None:
    from emukit.apps.registry import profile_class
    from emukit.provision import apks as pins

    loaded = pins.load_pins()
    assert [p.package for p in loaded.apps] == [p for p, *_ in PINNED]
    for package, name, perms, ops in PINNED:
        pin = loaded.app(package)
        assert profile_class(name).package == package and bool(pin.permissions) == perms and pin.app_ops == ops


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("provision")


@pytest.fixture(scope="module")
def apks(work: Path) -> Path:
    assert main(["avd", "standins", str(work / "apks")]) == 0
    return work / "apks"


@pytest.fixture(scope="module")
def prepared(vdevice_factory, adb_server, apks, work):
    """A hardware-like device after one setup (what it printed kept for the tests)."""
    import io

    from rich.console import Console

    from emukit.provision.setup import setup_device

    proc = vdevice_factory(mode="hardware")
    buf = io.StringIO()
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    try:
        setup_device(d, apks, work / "data", Console(file=buf, width=200, soft_wrap=True))
    finally:
        d.close()
    yield proc, buf.getvalue()
    proc.stop()


def _steps(out: str) -> dict[str, str]:
    found = {}
    for line in out.splitlines():
        m = re.match(r"^(.+?): (done|already done) \(", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def test_first_setup_does_every_step(prepared) -> None:
    _proc, out = prepared
    steps = _steps(out)
    assert list(steps) == SETUP_STEPS, out
    for step in ("adb root", "install net.gsantner.markor", "install code.name.monkey.retromusic",
                 "app-ops net.gsantner.markor", "first run notes", "permissions code.name.monkey.retromusic",
                 "first run music", "media", "animations off", "demo mode", "clean snapshot", "base snapshots",
                 "install com.simplemobiletools.calendar.pro", "permissions com.simplemobiletools.calendar.pro",
                 "install com.simplemobiletools.smsmessenger", "first run sms", "install org.tasks",
                 "install com.flauschcode.broccoli", "install org.videolan.vlc", "app-ops org.videolan.vlc",
                 "first run vlc", "app-ops com.simplemobiletools.gallery.pro", "first run expense",
                 "permissions de.dennisguse.opentracks", "first run opentracks"):
        assert steps[step] == "done", (step, out)
    # apps with nothing before their main screen on a fresh install (each first launch creates its store)
    for name in ("calendar", "broccoli", "tasks", "gallery"):
        assert steps[f"first run {name}"] == "already done", (name, out)


def test_a_second_setup_is_all_already_done(prepared, apks, work, capsys) -> None:
    proc, _ = prepared
    assert main(["avd", "setup", proc.serial, "--apks", str(apks), "--data-dir", str(work / "data")]) == 0
    out = capsys.readouterr().out
    steps = _steps(out)
    assert list(steps) == SETUP_STEPS and set(steps.values()) == {"already done"}, out
    assert "nothing to do" in out


def test_the_profiles_open_straight_to_the_main_screens(prepared, adb_server) -> None:
    proc, _ = prepared
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    try:
        notes = profile_for(d, "notes")
        notes.launch(fresh=True)
        assert notes.first_run_screen() == "notebook"
        music = profile_for(d, "music")
        music.launch(fresh=True)
        assert music.first_run_screen() == "library"
    finally:
        d.close()


def test_doctor_passes_every_row_on_the_prepared_device(prepared, adb_server, work, capsys) -> None:
    proc, _ = prepared
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    try:
        checks = run_doctor(d, work / "data")
    finally:
        d.close()
    assert [(c.name, c.detail) for c in checks if not c.ok] == []
    # the device rows (6 that a fresh device passes too: adb, console auth, grpc clipboard, screen, media provider,
    # device tools), each app's package, first-run and own rows, permissions and all-files access where it has them
    app_rows = {"calendar database", "sms provider", "tasks database", "broccoli database", "vlc database",
                "gallery database", "expense database", "opentracks database", "joplin database"}
    names = [c.name for c in checks]
    assert len(names) == len(set(names)) == len(UNPREPARED_FAILURES) + 6 + len(app_rows), names
    media = next(c for c in checks if c.name == "media provider")  # looked up on the device: the pinned image's
    assert media.detail.startswith("com.google.android.providers.media.module (its index: /data/data/")
    assert app_rows | {"package com.simplemobiletools.calendar.pro", "all-files access org.videolan.vlc"} <= set(names)
    assert main(["doctor", proc.serial, "--data-dir", str(work / "data")]) == 0
    assert f"{len(names)}/{len(names)} checks pass" in capsys.readouterr().out


def test_a_setup_that_cannot_verify_an_apk_names_the_step_and_device(prepared, work, capsys) -> None:
    proc, _ = prepared
    bad = work / "bad"
    bad.mkdir()
    for f in (work / "apks").iterdir():
        (bad / f.name).write_bytes(f.read_bytes() + b"x")
    assert main(["avd", "setup", proc.serial, "--apks", str(bad), "--data-dir", str(work / "data")]) == 1
    out = capsys.readouterr().out
    assert f"{proc.serial}: step 'APK digests' failed" in out and "no sha256 is pinned" in out


@pytest.fixture(scope="module")
def unprepared(vdevice_factory, adb_server):
    """A hardware-mode device of its own (the pool's are deterministic), not set up."""
    proc = vdevice_factory(mode="hardware")
    d = Driver(proc.serial, adb_server.port, default_timeout=10)
    yield proc, d
    d.close()
    proc.stop()


def test_doctor_fails_on_exactly_the_expected_rows_of_a_fresh_device(unprepared, work, capsys) -> None:
    proc, d = unprepared
    checks = run_doctor(d, work / "none")
    assert {c.name for c in checks if not c.ok} == UNPREPARED_FAILURES
    assert all(c.fix for c in checks if not c.ok)
    assert main(["doctor", proc.serial, "--data-dir", str(work / "none")]) == 1
    capsys.readouterr()


def test_probes_report_an_app_that_has_not_created_its_files(unprepared, apks) -> None:
    _proc, d = unprepared
    absent = probe(d, "ordered")
    assert absent.canonical == {"collection_type": "playing_queue", "ordered_items": []}
    assert absent.evidence["reason"] and absent.evidence["rows"] == []  # not installed: no databases to read
    d.adbutils().sync.push(str(apks / "code.name.monkey.retromusic_10603.apk"), "/data/local/tmp/r.apk")
    assert "Success" in d.shell("pm install /data/local/tmp/r.apk").text  # installed, never opened
    for playlist in (None, "Road trip"):
        result = probe(d, "ordered", playlist=playlist)
        assert result.canonical["ordered_items"] == []
        assert result.evidence["reason"], result.evidence
    assert d.current_app()[0] != "code.name.monkey.retromusic"  # probes never open the app
    d.shell("rm -rf /data/data/code.name.monkey.retromusic/databases")
    gone = probe(d, "ordered")
    assert gone.canonical["ordered_items"] == [] and "does not exist" in gone.evidence["reason"]


def test_fingerprints_tolerate_only_a_few_seconds_of_wall_clock() -> None:
    from emukit.snapshots import fingerprint_differences

    base = {"files": "a", "file_count": 3, "wall_clock": "1768467600", "foreground": "x"}
    assert fingerprint_differences(base, {**base, "wall_clock": "1768467601"}) == []
    assert fingerprint_differences(base, {**base, "wall_clock": "1768467700"}) == ["wall_clock 1768467600 vs 1768467700"]
    assert fingerprint_differences(base, {**base, "files": "b"}) == ["files"]
