"""Settings read from the environment, in one place: every layer asks here, none reads the variables itself.

| variable | meaning | default |
|---|---|---|
| ``EMUKIT_DATA`` | the default data dir (store, artifacts, evaluations) | ``./data`` |
| ``EMUKIT_HOME`` | per-user state (device claims, locks) | ``~/.emukit`` |
| ``EMUKIT_ARTIFACTS`` | the artifact root shared by several builders | ``DATA_DIR/artifacts`` |
| ``EMUKIT_CHROMIUM`` | the Chromium executable of the evaluator's renderer | found on ``PATH`` |
| ``EMUKIT_CDN_DIR`` | the evaluator's offline CSS copies | ``$XDG_CACHE_HOME/emukit/cdn`` |
| ``ANDROID_ADB_SERVER_PORT`` | the adb server's port | 5037 |

(``EMUKIT_TEMPLATES``, ``EMUKIT_TASKS`` and ``EMUKIT_SNAPSHOTS``, the search paths of the YAML folders, are
read by :mod:`emukit.resources`, which owns those paths.)

Each function reads the environment when called, so a test or a command that sets a variable is seen.
"""

from __future__ import annotations

import os
from pathlib import Path

ADB_PORT_ENV = "ANDROID_ADB_SERVER_PORT"
ARTIFACTS_ENV = "EMUKIT_ARTIFACTS"
DEFAULT_ADB_PORT = 5037


def data_dir() -> Path:
    """The default data dir: ``$EMUKIT_DATA``, else ``./data``."""
    return Path(os.environ.get("EMUKIT_DATA", "data"))


def home_dir() -> Path:
    """Per-user state: ``$EMUKIT_HOME``, else ``~/.emukit``."""
    return Path(os.environ.get("EMUKIT_HOME") or Path.home() / ".emukit").expanduser()


def adb_server_port() -> int:
    """The adb server's port: ``$ANDROID_ADB_SERVER_PORT``, else 5037."""
    return int(os.environ.get(ADB_PORT_ENV, str(DEFAULT_ADB_PORT)))


def artifacts_root() -> Path | None:
    """``$EMUKIT_ARTIFACTS`` when set (builders sharing one artifact root), else None."""
    value = os.environ.get(ARTIFACTS_ENV)
    return Path(value) if value else None


def chromium_executable() -> str | None:
    """``$EMUKIT_CHROMIUM`` when set, else None (the renderer looks on ``PATH``)."""
    return os.environ.get("EMUKIT_CHROMIUM") or None


def cdn_dir() -> Path:
    """The evaluator's offline CSS copies: ``$EMUKIT_CDN_DIR``, else ``$XDG_CACHE_HOME/emukit/cdn`` (the cache
    defaulting to ``~/.cache``)."""
    if os.environ.get("EMUKIT_CDN_DIR"):
        return Path(os.environ["EMUKIT_CDN_DIR"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "emukit" / "cdn"
