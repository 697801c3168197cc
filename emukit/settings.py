"""Settings read from the environment, in one place: every layer asks here, none reads the variables itself.

| variable | meaning | default |
|---|---|---|
| ``EMUKIT_DATA`` | the default data dir (store, artifacts, evaluations) | ``./data`` |
| ``EMUKIT_HOME`` | per-user state (device claims, locks) | ``~/.emukit`` |
| ``EMUKIT_ARTIFACTS`` | the artifact root shared by several builders | ``DATA_DIR/artifacts`` |
| ``EMUKIT_CHROMIUM`` | the Chromium executable of the evaluator's renderer | found on ``PATH`` |
| ``EMUKIT_CDN_DIR`` | the evaluator's offline CSS copies | ``$XDG_CACHE_HOME/emukit/cdn`` |
| ``ANDROID_ADB_SERVER_PORT`` | the adb server's port | 5037 |
| ``EMUKIT_VDEVICE_PORTS`` | the first adb port tried for the embedded virtual devices a command starts | 30001 |
| ``EMUKIT_VDEVICE_TEMPLATE`` | a virtual-device template folder (``emukit vdevice template``) new virtual devices start from | none |

(``EMUKIT_TEMPLATES``, ``EMUKIT_TASKS`` and ``EMUKIT_SNAPSHOTS``, the search paths of the YAML folders, are
read by :mod:`emukit.resources`, which owns those paths.)

Each function reads the environment when called, so a test or a command that sets a variable is seen.
"""

from __future__ import annotations

import os
from pathlib import Path

from emukit.errors import ConfigError

ADB_PORT_ENV = "ANDROID_ADB_SERVER_PORT"
ARTIFACTS_ENV = "EMUKIT_ARTIFACTS"
DEFAULT_ADB_PORT = 5037
VDEVICE_PORTS_ENV = "EMUKIT_VDEVICE_PORTS"
VDEVICE_TEMPLATE_ENV = "EMUKIT_VDEVICE_TEMPLATE"
#: embedded devices' first adb port: outside 5555-5585, the range every adb server scans for emulators
DEFAULT_VDEVICE_PORT = 30001


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


def vdevice_port_base() -> int:
    """The first adb port tried for embedded virtual devices: ``$EMUKIT_VDEVICE_PORTS``, else 30001. Two
    groups of commands that must never race for the same ports (parallel test workers, say) get bases far
    enough apart (each device takes its adb port, the console port below it and the gRPC port 3000 above)."""
    value = os.environ.get(VDEVICE_PORTS_ENV)
    if not value:
        return DEFAULT_VDEVICE_PORT
    try:
        port = int(value)
    except ValueError:
        raise ConfigError(f"{VDEVICE_PORTS_ENV}={value!r} is not a port number") from None
    if not 1024 < port < 62000:
        raise ConfigError(f"{VDEVICE_PORTS_ENV}={port} is out of range (1025-61999)")
    return port


def vdevice_template() -> Path | None:
    """``$EMUKIT_VDEVICE_TEMPLATE`` when set: a folder written by ``emukit vdevice template`` whose snapshots
    (the clean one and every base) a freshly wiped virtual device starts with, instead of building them."""
    value = os.environ.get(VDEVICE_TEMPLATE_ENV)
    return Path(value).expanduser() if value else None
