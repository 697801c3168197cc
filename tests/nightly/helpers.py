"""Running ``emukit nightly`` as a subprocess and reading a night's state, for the nightly's tests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


def nightly(emukit_cli, adb_server, config: Path, *extra: str, wait: bool = True, env: dict[str, str] | None = None):
    cmd = [*emukit_cli, "nightly", "--config", str(config), *extra]
    env = {**adb_server.env, **(env or {})}
    if not wait:
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)


def state(folder: Path) -> dict:
    try:
        return json.loads((folder / "state.json").read_text())
    except (OSError, ValueError):
        return {}


def lean_checks(stability: str) -> str:
    """The ``audits`` and ``tasks`` blocks of a later night that runs only the build, the export and the
    stability audit given (``stability``: the YAML after ``stability:``, e.g. `` null``), none of the other
    audits or task checks."""
    return (f"audits:\n  release: false\n  stability:{stability}\n  replay: null\n  shortcuts: false\n"
            "  diversity: false\n  split: false\ntasks:\n  verify: none\n")
