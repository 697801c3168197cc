"""``emukit avd create``. No Android SDK can be installed on the machines these tests run on, so the SDK is
mocked: a folder whose ``cmdline-tools/latest/bin/avdmanager`` is a small script that records its arguments and
stdin and writes the AVD's ``.ini`` like the real tool (``emulator`` and ``adb`` are empty executables)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from emukit.cli import main
from emukit.provision.avd import SYSTEM_IMAGE, MissingSdkPackages, create_avd, image_dir

AVDMANAGER = '''#!{python}
"""Fake avdmanager (a test mock of the SDK tool): records argv and stdin, writes NAME.ini and config.ini."""
import json, os, sys
args = sys.argv[1:]
log = os.environ["FAKE_AVDMANAGER_LOG"]
with open(log, "a") as fh:
    fh.write(json.dumps({"args": args, "stdin": sys.stdin.read(), "sdk": os.environ.get("ANDROID_SDK_ROOT")}) + "\\n")
name = args[args.index("--name") + 1]
home = os.environ["ANDROID_AVD_HOME"]
folder = os.path.join(home, name + ".avd")
os.makedirs(folder, exist_ok=True)
open(os.path.join(home, name + ".ini"), "w").write("path=" + folder + "\\ntarget=android-34\\n")
open(os.path.join(folder, "config.ini"), "w").write(
    "image.sysdir.1=system-images/android-34/google_apis/x86_64/\\ntag.id=google_apis\\nabi.type=x86_64\\n"
    "hw.lcd.width=1080\\nhw.lcd.height=2400\\nhw.device.name=pixel_6\\n")
'''


def _exe(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def fake_sdk(root: Path, *, image: bool = True, emulator: bool = True) -> Path:
    _exe(root / "cmdline-tools" / "latest" / "bin" / "avdmanager", AVDMANAGER.replace("{python}", sys.executable))
    _exe(root / "platform-tools" / "adb", "#!/bin/sh\n")
    if emulator:
        _exe(root / "emulator" / "emulator", "#!/bin/sh\n")
    if image:
        image_dir(root).mkdir(parents=True)
        (image_dir(root) / "source.properties").write_text("Pkg.Desc=Google APIs Intel x86_64 Atom System Image\n")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANDROID_")}
    env.update(HOME=str(tmp_path / "home"), ANDROID_AVD_HOME=str(tmp_path / "avd"),
               FAKE_AVDMANAGER_LOG=str(tmp_path / "calls.jsonl"))
    return env


def calls(env: dict[str, str]) -> list[dict]:
    path = Path(env["FAKE_AVDMANAGER_LOG"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_creates_the_pinned_avd(tmp_path: Path, env: dict[str, str]) -> None:
    sdk = fake_sdk(tmp_path / "sdk")
    result = create_avd("emukit_p6", sdk, env=env)
    assert result.created and result.ini == tmp_path / "avd" / "emukit_p6.ini"
    [call] = calls(env)
    assert call["args"] == ["create", "avd", "--name", "emukit_p6", "--package", SYSTEM_IMAGE, "--device", "pixel_6"]
    assert call["stdin"] == "no\n" and call["sdk"] == str(sdk)


def test_an_existing_avd_is_kept_unless_forced(tmp_path: Path, env: dict[str, str]) -> None:
    sdk = fake_sdk(tmp_path / "sdk")
    create_avd("a", sdk, env=env)
    again = create_avd("a", sdk, env=env)
    assert not again.created and len(calls(env)) == 1
    forced = create_avd("a", sdk, env=env, force=True)
    assert forced.created and calls(env)[-1]["args"][-1] == "--force"


def test_a_missing_system_image_names_the_sdkmanager_command(tmp_path: Path, env: dict[str, str]) -> None:
    sdk = fake_sdk(tmp_path / "sdk", image=False, emulator=False)
    with pytest.raises(MissingSdkPackages) as err:
        create_avd("a", sdk, env=env)
    assert err.value.command == f'sdkmanager "emulator" "{SYSTEM_IMAGE}"'
    assert err.value.command in str(err.value)
    assert calls(env) == []  # nothing ran


def test_cli(tmp_path: Path, env: dict[str, str], monkeypatch, capsys) -> None:
    for key in [k for k in os.environ if k.startswith("ANDROID_") and k != "ANDROID_ADB_SERVER_PORT"]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    bare = tmp_path / "bare"
    (bare / "platform-tools").mkdir(parents=True)
    assert main(["avd", "create", "x", "--sdk", str(bare)]) == 1
    assert f'sdkmanager "cmdline-tools;latest" "platform-tools" "emulator" "{SYSTEM_IMAGE}"' in capsys.readouterr().out
    sdk = fake_sdk(tmp_path / "sdk")
    assert main(["avd", "create", "x", "--sdk", str(sdk)]) == 0
    out = capsys.readouterr().out
    assert "created AVD x" in out and "1080x2400" in out and "pixel_6" in out
