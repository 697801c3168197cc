"""Find the Android SDK and what a headless emulator run needs from it: the ``emulator``, ``adb`` and
``avdmanager`` tools, the AVDs (from ``emulator -list-avds``, ``avdmanager list avd`` or the ``.ini`` files),
and whether KVM acceleration is usable.

Parsers take text so they can be tested against captured outputs; the functions that run tools take the
environment explicitly so a caller (or a test) decides which SDK is seen.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from emukit.errors import DeviceError

SDK_ENV_VARS = ("ANDROID_SDK_ROOT", "ANDROID_HOME")
# Where the SDK lands by default (Android Studio on Linux, macOS, Windows; distribution packages).
DEFAULT_SDK_DIRS = ("~/Android/Sdk", "~/Library/Android/sdk", "~/AppData/Local/Android/Sdk",
                    "/opt/android-sdk", "/usr/lib/android-sdk", "/usr/local/lib/android/sdk")


class AvdInfo(BaseModel):
    """One AVD, read from ``<avd home>/NAME.ini`` and the AVD folder's ``config.ini``."""

    name: str
    path: Path
    target: str | None = None
    sysdir: str | None = None
    tag_id: str | None = None
    abi: str | None = None
    lcd_width: int | None = None
    lcd_height: int | None = None
    device_name: str | None = None
    config: dict[str, str] = {}


class AvdManagerEntry(BaseModel):
    """One block of ``avdmanager list avd``; ``error`` is set for AVDs it could not load."""

    name: str
    path: str | None = None
    device: str | None = None
    target: str | None = None
    based_on: str | None = None
    tag_abi: str | None = None
    skin: str | None = None
    sdcard: str | None = None
    error: str | None = None


class AccelStatus(BaseModel):
    """The verdict of ``emulator -accel-check``: status code 0 means usable."""

    code: int
    message: str

    @property
    def usable(self) -> bool:
        return self.code == 0


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def sdk_candidates(env: Mapping[str, str] | None = None) -> list[Path]:
    """Folders that may hold the SDK, in the order they are tried: env vars first, then common defaults."""
    env = _env(env)
    out = [Path(env[var]).expanduser() for var in SDK_ENV_VARS if env.get(var)]
    home = _home(env)
    for default in DEFAULT_SDK_DIRS:
        out.append(home / default[2:] if default.startswith("~/") else Path(default))
    return out


class AndroidSdk:
    """An SDK folder and the tools inside it."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = Path(root)
        self.env = dict(_env(env))

    def __repr__(self) -> str:
        return f"AndroidSdk({str(self.root)!r})"

    def _tool(self, what: str, candidates: list[Path]) -> Path:
        for path in candidates:
            if path.is_file() and os.access(path, os.X_OK):
                return path
        tried = ", ".join(str(p) for p in candidates)
        raise DeviceError(f"Android SDK at {self.root} has no {what}; looked for: {tried}")

    def emulator(self) -> Path:
        """Path of the ``emulator`` executable (``<sdk>/emulator/emulator``)."""
        return self._tool("emulator (install the 'emulator' SDK package)",
                          [self.root / "emulator" / "emulator", self.root / "emulator" / "emulator.exe"])

    def adb(self) -> Path:
        """Path of ``<sdk>/platform-tools/adb``. emukit normally uses the adb in the adbutils wheel."""
        return self._tool("adb (install the 'platform-tools' SDK package)",
                          [self.root / "platform-tools" / "adb", self.root / "platform-tools" / "adb.exe"])

    def avdmanager(self) -> Path:
        """Path of ``avdmanager``: ``cmdline-tools/latest``, any other ``cmdline-tools/*``, or old ``tools``."""
        tools = self.root / "cmdline-tools"
        others = sorted((p for p in tools.glob("*") if p.name != "latest"), reverse=True) if tools.is_dir() else []
        dirs = [tools / "latest", *others, self.root / "tools"]
        return self._tool("avdmanager (install the 'cmdline-tools;latest' SDK package)",
                          [d / "bin" / "avdmanager" for d in dirs])

    def tool_env(self) -> dict[str, str]:
        """The environment for SDK tools: ``ANDROID_SDK_ROOT`` and ``ANDROID_HOME`` point at this SDK."""
        env = dict(self.env)
        env["ANDROID_SDK_ROOT"] = str(self.root)
        env["ANDROID_HOME"] = str(self.root)
        return env

    def _run(self, cmd: list[str], timeout: float, *, check: bool = True) -> str:
        """stdout (plus stderr when not ``check``) of an SDK tool; raises DeviceError on failure."""
        try:
            proc = subprocess.run(cmd, env=self.tool_env(), capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DeviceError(f"{' '.join(cmd)} failed: {exc}") from exc
        if check and proc.returncode != 0:
            raise DeviceError(f"{' '.join(cmd)} exited with {proc.returncode}: "
                              f"{(proc.stderr or proc.stdout).strip()[-500:]}")
        return proc.stdout if check else proc.stdout + "\n" + proc.stderr

    def list_avds(self, timeout: float = 60.0) -> list[str]:
        """AVD names printed by ``emulator -list-avds``."""
        return parse_list_avds(self._run([str(self.emulator()), "-list-avds"], timeout))

    def accel_check(self, timeout: float = 60.0) -> AccelStatus:
        """The parsed result of ``emulator -accel-check`` (which exits non-zero when KVM is unusable)."""
        return parse_accel_check(self._run([str(self.emulator()), "-accel-check"], timeout, check=False))

    def avdmanager_list(self, timeout: float = 120.0) -> list[AvdManagerEntry]:
        """The parsed result of ``avdmanager list avd``."""
        return parse_avdmanager_list(self._run([str(self.avdmanager()), "list", "avd"], timeout))


def find_sdk(root: Path | str | None = None, env: Mapping[str, str] | None = None) -> AndroidSdk:
    """The SDK at ``root``, else the first candidate folder that has an ``emulator`` or ``platform-tools``
    folder; raises DeviceError listing every place looked at."""
    candidates = [Path(root).expanduser()] if root else sdk_candidates(env)
    for path in candidates:
        if (path / "emulator").is_dir() or (path / "platform-tools").is_dir():
            return AndroidSdk(path, env)
    where = ", ".join(str(p) for p in candidates)
    raise DeviceError(f"no Android SDK found (set ANDROID_SDK_ROOT or ANDROID_HOME); looked in: {where}")


def avd_home(env: Mapping[str, str] | None = None) -> Path:
    """Folder with the AVD ``.ini`` files: ``$ANDROID_AVD_HOME``, ``$ANDROID_USER_HOME/avd``,
    ``$ANDROID_EMULATOR_HOME/avd``, else ``~/.android/avd``."""
    env = _env(env)
    if env.get("ANDROID_AVD_HOME"):
        return Path(env["ANDROID_AVD_HOME"]).expanduser()
    for var in ("ANDROID_USER_HOME", "ANDROID_EMULATOR_HOME"):
        if env.get(var):
            return Path(env[var]).expanduser() / "avd"
    return _home(env) / ".android" / "avd"


# --- parsers of tool outputs and files ---------------------------------------------------------------

_LOG_LINE = re.compile(r"^(INFO|WARNING|ERROR|DEBUG|VERBOSE)\s*\|")


def parse_list_avds(text: str) -> list[str]:
    """AVD names, one a line; emulator log lines (``INFO    | ...``) and blanks are skipped."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not _LOG_LINE.match(line.strip()) and " " not in line.strip()]


def parse_accel_check(text: str) -> AccelStatus:
    """Parse the ``accel:`` / status code / message / ``accel`` block; raises DeviceError if absent."""
    lines = [line.strip() for line in text.splitlines()]
    try:
        start = lines.index("accel:")
        code = int(lines[start + 1])
    except (ValueError, IndexError) as exc:
        raise DeviceError(f"unrecognised 'emulator -accel-check' output: {text.strip()[:200]!r}") from exc
    message: list[str] = []
    for line in lines[start + 2:]:
        if line == "accel":
            break
        if line:
            message.append(line)
    return AccelStatus(code=code, message=" ".join(message))


def parse_ini(text: str) -> dict[str, str]:
    """``key=value`` lines (AVD ``.ini`` and ``config.ini``); comments and blank lines are skipped."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _int(value: str | None) -> int | None:
    return int(value) if value and value.strip().isdigit() else None


def read_avd(ini_path: Path) -> AvdInfo:
    """The AVD described by ``NAME.ini`` (its ``path=`` / ``path.rel=`` and ``target=``) and the AVD
    folder's ``config.ini``; raises DeviceError naming the file that is missing."""
    ini_path = Path(ini_path)
    if not ini_path.is_file():
        raise DeviceError(f"AVD file {ini_path} does not exist")
    ini = parse_ini(ini_path.read_text(errors="replace"))
    folder = Path(ini["path"]) if ini.get("path") else None
    if (folder is None or not folder.is_dir()) and ini.get("path.rel"):
        # path.rel is relative to the folder holding avd/ (the Android user home)
        folder = ini_path.parent.parent / ini["path.rel"]
    if folder is None:
        raise DeviceError(f"AVD file {ini_path} has no 'path=' entry")
    config_path = folder / "config.ini"
    if not config_path.is_file():
        raise DeviceError(f"AVD {ini_path.stem}: {config_path} does not exist")
    config = parse_ini(config_path.read_text(errors="replace"))
    return AvdInfo(name=ini_path.stem, path=folder, target=ini.get("target"),
                   sysdir=config.get("image.sysdir.1"), tag_id=config.get("tag.id"),
                   abi=config.get("abi.type"), lcd_width=_int(config.get("hw.lcd.width")),
                   lcd_height=_int(config.get("hw.lcd.height")), device_name=config.get("hw.device.name"),
                   config=config)


def list_avd_files(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[AvdInfo]:
    """Every AVD with a ``*.ini`` file in ``home`` (default: :func:`avd_home`), sorted by name."""
    folder = Path(home) if home else avd_home(env)
    return [read_avd(p) for p in sorted(folder.glob("*.ini"))] if folder.is_dir() else []


_AVDMANAGER_KEYS = {"Name": "name", "Path": "path", "Device": "device", "Target": "target",
                    "Based on": "based_on", "Skin": "skin", "Sdcard": "sdcard", "Error": "error"}


def parse_avdmanager_list(text: str) -> list[AvdManagerEntry]:
    """Blocks of ``avdmanager list avd`` (separated by ``---------``), including the ones under
    "could not be loaded" (their ``Error:`` line ends up in ``error``)."""
    entries: list[AvdManagerEntry] = []
    block: dict[str, str] = {}

    def flush() -> None:
        if block.get("name"):
            entries.append(AvdManagerEntry(**block))
        block.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(("---", "Available Android Virtual Devices", "The following Android Virtual Devices")):
            flush()
            continue
        if line.startswith("Based on:") and "Tag/ABI:" in line:
            based, tag = line[len("Based on:"):].split("Tag/ABI:", 1)
            block["based_on"], block["tag_abi"] = based.strip(), tag.strip()
            continue
        key, sep, value = line.partition(":")
        field = _AVDMANAGER_KEYS.get(key.strip())
        if sep and field:
            if field == "name" and block.get("name"):
                flush()
            block[field] = value.strip()
    flush()
    return entries


def kvm_status(device: Path = Path("/dev/kvm")) -> tuple[bool, str]:
    """Whether ``device`` exists and this user can read and write it; and a sentence saying why not."""
    if not device.exists():
        return False, f"{device} does not exist: enable virtualization in the BIOS and load the kvm module"
    if not os.access(device, os.R_OK | os.W_OK):
        return False, f"{device} exists but is not readable and writable by this user (add it to group 'kvm')"
    return True, f"{device} is readable and writable"


def require_kvm(device: Path = Path("/dev/kvm")) -> None:
    """Raise DeviceError saying what is wrong when KVM cannot be used."""
    ok, why = kvm_status(device)
    if not ok:
        raise DeviceError(f"KVM acceleration is not usable: {why}")
