"""Helpers for the device-layer tests: a fake Android SDK whose ``emulator`` executable is a small script.

No system image can be fetched or run on the machines these tests run on, so the fake ``emulator`` mocks the
real binary: it prints a captured output (``-list-avds``, ``-accel-check``), fails like a broken launch, or
starts a virtual device on the adb port given by ``-ports`` (and the gRPC port given by ``-grpc``; in the mode
``FAKE_EMU_VDEVICE_MODE`` names, e.g. ``hardware`` for a device that starts as a fresh AVD does) so the real
launch / boot-wait / setup / shutdown code paths run end to end through the real adb server.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "real"

FAKE_EMULATOR = '''#!{python}
"""Fake Android emulator (a test mock of the real binary; see tests/device/fake_sdk.py)."""
import os, sys
args = sys.argv[1:]
env = os.environ
if "-list-avds" in args or "-accel-check" in args:
    sys.stdout.write(open(env["FAKE_EMU_OUTPUT"]).read())
    sys.exit(int(env.get("FAKE_EMU_RC", "0")))
counter = env.get("FAKE_EMU_COUNTER")
calls = 0
if counter:
    calls = int(open(counter).read() or 0) if os.path.exists(counter) else 0
    open(counter, "w").write(str(calls + 1))
print("fake emulator:", " ".join(args), flush=True)
if env.get("FAKE_EMU_MODE") == "fail" or calls < int(env.get("FAKE_EMU_FAIL_FIRST", "0")):
    print("ERROR   | Unknown AVD name [" + args[args.index("-avd") + 1] + "], use -list-avds to see valid list.",
          flush=True)
    sys.exit(1)
console, adb = args[args.index("-ports") + 1].split(",")
serve = [sys.executable, "-m", "emukit", "vdevice", "serve", "--port", adb, "--state-dir", env["FAKE_EMU_STATE_DIR"],
         "--avd-name", args[args.index("-avd") + 1], "--wipe-data"]
if "-grpc" in args:
    serve += ["--grpc-port", args[args.index("-grpc") + 1]]
if env.get("FAKE_EMU_VDEVICE_MODE"):
    serve += ["--mode", env["FAKE_EMU_VDEVICE_MODE"]]
os.execv(sys.executable, serve)
'''


def make_fake_sdk(root: Path) -> Path:
    """An SDK folder with ``emulator/emulator`` (the fake script) and an empty ``platform-tools``."""
    (root / "emulator").mkdir(parents=True, exist_ok=True)
    (root / "platform-tools").mkdir(exist_ok=True)
    script = root / "emulator" / "emulator"
    script.write_text(FAKE_EMULATOR.replace("{python}", sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return root


def isolated_env(sdk_root: Path, home: Path) -> dict[str, str]:
    """An environment that sees only the SDK at ``sdk_root`` (no other ``ANDROID_*`` variable) and ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANDROID_")}
    env["HOME"] = str(home)
    env["ANDROID_SDK_ROOT"] = str(sdk_root)
    return env
