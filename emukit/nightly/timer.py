"""``emukit nightly install-timer``: a systemd user service and timer that run the night, and the
equivalent cron line.

The service is ``Type=oneshot`` (a night runs to its end: systemd disables the start timeout of oneshot
services; the timer never starts a second one while the first runs, and the night's own lock covers a
manual start). ``Persistent=true`` runs a night missed while
the workstation was off at the next boot. For the user manager to run timers without a login session, the
user needs ``loginctl enable-linger``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from emukit.errors import ConfigError

UNIT = "emukit-nightly"
_TIME = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")


@dataclass
class TimerUnits:
    service: str
    timer: str
    cron: str


def units(config: Path, at: str = "02:00", *, python: str | None = None, workdir: Path | None = None,
          env: dict[str, str] | None = None) -> TimerUnits:
    """The unit files' text for a night at ``at`` (HH:MM, local time) with ``config``."""
    match = _TIME.match(at)
    if not match:
        raise ConfigError(f"--at {at!r}: expected HH:MM (24-hour local time)")
    config = Path(config).resolve()
    if not config.is_file():
        raise ConfigError(f"{config}: no such nightly config")
    python = python or sys.executable
    workdir = (workdir or config.parent).resolve()
    command = [python, "-m", "emukit", "nightly", "run", "--config", str(config)]
    exec_start = " ".join(_systemd_quote(a) for a in command)
    env_lines = "".join(f"Environment={_systemd_quote(f'{k}={v}')}\n" for k, v in sorted((env or {}).items()))
    service = f"""[Unit]
Description=emukit nightly rebuild ({config.name})

[Service]
Type=oneshot
WorkingDirectory={str(workdir).replace("%", "%%")}
{env_lines}ExecStart={exec_start}
"""
    timer = f"""[Unit]
Description=emukit nightly rebuild at {at}

[Timer]
OnCalendar=*-*-* {at}:00
Persistent=true
Unit={UNIT}.service

[Install]
WantedBy=timers.target
"""
    hour, minute = int(match.group(1)), int(match.group(2))
    env_prefix = "".join(f"{k}={shlex.quote(v)} " for k, v in sorted((env or {}).items()))
    cron = (f"{minute} {hour} * * * cd {shlex.quote(str(workdir))} && {env_prefix}"
            f"{' '.join(shlex.quote(a) for a in command)} >> {shlex.quote(str(workdir / 'nightly-cron.log'))} 2>&1")
    return TimerUnits(service=service, timer=timer, cron=cron)


def _systemd_quote(value: str) -> str:
    """A word for a unit file: double-quoted when it has spaces or quotes; ``%`` doubled (specifiers)."""
    value = value.replace("%", "%%")
    if re.search(r'[\s"\'\\]', value):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def install(u: TimerUnits, folder: Path) -> tuple[Path, Path]:
    """Write ``emukit-nightly.service`` and ``.timer`` into ``folder`` (default user unit folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    service, timer = folder / f"{UNIT}.service", folder / f"{UNIT}.timer"
    service.write_text(u.service, encoding="utf-8")
    timer.write_text(u.timer, encoding="utf-8")
    return service, timer


def verify(paths: list[Path]) -> tuple[bool, str] | None:
    """``systemd-analyze verify`` on the unit files, or None where systemd-analyze is not installed."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        return None
    done = subprocess.run([tool, "verify", *map(str, paths)], capture_output=True, text=True, timeout=60,
                          check=False)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def default_unit_dir() -> Path:
    return Path.home() / ".config" / "systemd" / "user"
