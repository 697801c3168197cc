"""The pinned builds and their digests: stand-ins pinned separately from the real builds, a real device never
accepting a stand-in, an unpinned real build refused until ``emukit avd pin-apks`` records its digest."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest

from emukit.cli import main
from emukit.provision import apks
from emukit.provision.standin import read_standin, write_standin

ROOT = Path(__file__).resolve().parents[2]


def test_pins_name_the_android_world_files() -> None:
    """Each app's pin comes from its own selector table (``apk:``), one per app installed from an APK."""
    pins = apks.load_pins()
    listed = [(p.package, p.version_code, p.version_name, p.file) for p in pins.apps]
    assert listed == sorted(listed)  # in package order
    assert {("code.name.monkey.retromusic", 10603, "6.1.0", "code.name.monkey.retromusic_10603.apk"),
            ("com.simplemobiletools.calendar.pro", 238, "6.22.2", "com.simplemobiletools.calendar.pro_238.apk"),
            ("net.gsantner.markor", 146, "2.10.9", "net.gsantner.markor_146.apk")} <= set(listed)
    for pin in pins.apps:  # android_world names each file <package>_<versionCode>.apk (setup_device/apps.py)
        assert pin.file == f"{pin.package}_{pin.version_code}.apk"
        assert pin.url.endswith("/gresearch/android_world/" + pin.file)
    assert pins.app("code.name.monkey.retromusic").permissions == [
        "android.permission.READ_MEDIA_AUDIO", "android.permission.POST_NOTIFICATIONS"]
    assert pins.app("net.gsantner.markor").app_ops == ["MANAGE_EXTERNAL_STORAGE"]


def test_standin_digests_are_those_write_standin_produces(tmp_path: Path) -> None:
    pins = apks.load_pins()
    for pin in pins.apps:
        path = write_standin(tmp_path, pin.package, pin.version_code, pin.version_name)
        assert path.name == pin.file
        assert pins.standins[pin.package] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert pins.standins[pin.package] != pin.sha256


def test_the_virtual_device_accepts_a_standin_a_real_device_does_not(tmp_path: Path) -> None:
    pin = apks.pinned("net.gsantner.markor")
    path = write_standin(tmp_path, pin.package, pin.version_code, pin.version_name)
    assert apks.check_apk(path, pin, virtual=True, home=tmp_path) == apks.standin_digest(pin)
    with pytest.raises(apks.ApkError, match="only the virtual device installs"):
        apks.check_apk(path, pin, virtual=False, home=tmp_path)


def test_a_standin_of_another_version_is_refused(tmp_path: Path) -> None:
    pin = apks.pinned("code.name.monkey.retromusic")
    other = write_standin(tmp_path, pin.package, pin.version_code, "6.0.9")
    with pytest.raises(apks.UnpinnedApk):
        apks.check_apk(other, pin, virtual=True, home=tmp_path)


def test_an_unpinned_real_build_is_refused_until_pinned(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "apks"
    folder.mkdir()
    pin = apks.pinned("net.gsantner.markor")
    real = folder / pin.file
    real.write_bytes(b"PK\x03\x04 a real build's bytes")
    with pytest.raises(apks.UnpinnedApk, match="emukit avd pin-apks"):
        apks.check_apk(real, pin, virtual=False, home=tmp_path)
    found = apks.pin_apks(folder, home=tmp_path)
    assert found == {pin.package: hashlib.sha256(real.read_bytes()).hexdigest()}
    assert apks.check_apk(real, pin, virtual=False, home=tmp_path) == found[pin.package]
    real.write_bytes(b"PK\x03\x04 tampered")
    with pytest.raises(apks.ApkError, match="is not the pinned"):
        apks.check_apk(real, pin, virtual=False, home=tmp_path)


def test_pin_apks_refuses_a_standin(tmp_path: Path) -> None:
    pin = apks.pinned("code.name.monkey.retromusic")
    write_standin(tmp_path, pin.package, pin.version_code, pin.version_name)
    with pytest.raises(apks.ApkError, match="stand-in"):
        apks.pin_apks(tmp_path, home=tmp_path / "home")
    assert not apks.user_pins_path(tmp_path / "home").exists()


def test_avd_standins_and_pin_apks_commands(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("EMUKIT_HOME", str(tmp_path / "home"))
    assert main(["avd", "standins", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    for pin in apks.load_pins().apps:
        data = (tmp_path / "s" / pin.file).read_bytes()
        assert read_standin(data) is not None and apks.load_pins().standins[pin.package] in out
    assert main(["avd", "pin-apks", str(tmp_path / "s")]) == 1  # stand-ins are never pinned as real builds
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "net.gsantner.markor_146.apk").write_bytes(b"real")
    assert main(["avd", "pin-apks", str(tmp_path / "r")]) == 0
    assert hashlib.sha256(b"real").hexdigest() in capsys.readouterr().out
    assert apks.user_pins(tmp_path / "home") == {"net.gsantner.markor": hashlib.sha256(b"real").hexdigest()}


def test_pins_ship_as_package_data() -> None:
    """The pins live in the selector tables, which ship with the package."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "tables/*/*.yaml" in data["emukit.apps"]
    assert "emukit.provision" not in data
