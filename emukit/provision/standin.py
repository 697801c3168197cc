"""APK stand-ins: small zip files that the hardware-like virtual device installs in place of the real APKs.

A stand-in carries what the virtual device's package manager needs to know about an install and nothing else:
the package name, the versionCode and the versionName, in the marker entry ``META-INF/EMUKIT-STANDIN.json``
(``{"marker": "emukit-standin/1", "package": ..., "versionCode": ..., "versionName": ...}``). The bytes are
deterministic (fixed timestamps, entries sorted, no extra fields), so the same arguments always give the same
file and the same sha256, which is what the stand-ins' own digest list pins.

A stand-in is not an APK: a real device's package manager refuses it (no ``AndroidManifest.xml``, no
signature), and the provisioning code never accepts a stand-in for a real device. The virtual device installs
only stand-ins (anything else fails with ``INSTALL_FAILED_INVALID_APK``).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

STANDIN_MARKER = "emukit-standin/1"
MANIFEST_ENTRY = "META-INF/EMUKIT-STANDIN.json"
README_ENTRY = "README.txt"
# 1980-01-01 00:00:00, the earliest time a zip entry can carry: no build clock leaks into the bytes
_EPOCH = (1980, 1, 1, 0, 0, 0)
_PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
_README = ("This file is an emukit APK stand-in for the hardware-like virtual device. It is not an Android\n"
           "package and no real device installs it.\n")


class StandinManifest(BaseModel):
    """What a stand-in says about the package it stands for."""

    model_config = ConfigDict(frozen=True)

    package: str = Field(pattern=_PACKAGE_RE.pattern)
    version_code: int = Field(ge=1)
    version_name: str


def standin_name(package: str, version_code: int) -> str:
    """``<package>_<versionCode>.apk``, the file name android_world gives the real APKs too."""
    return f"{package}_{version_code}.apk"


def standin_bytes(package: str, version_code: int, version_name: str) -> bytes:
    """The stand-in's zip bytes: the marker entry and a short README, stored, with fixed timestamps."""
    manifest = StandinManifest(package=package, version_code=version_code, version_name=version_name)
    marker = json.dumps({"marker": STANDIN_MARKER, "package": manifest.package,
                         "versionCode": manifest.version_code, "versionName": manifest.version_name},
                        sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in sorted({MANIFEST_ENTRY: marker, README_ENTRY: _README.encode()}.items()):
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3  # unix, so the bytes do not depend on the host system
            info.external_attr = 0o100644 << 16
            zf.writestr(info, data)
    return buf.getvalue()


def write_standin(out_dir: Path, package: str, version_code: int, version_name: str) -> Path:
    """Write the stand-in for ``package`` at ``version_code`` into ``out_dir`` and return its path
    (``<package>_<versionCode>.apk``; an existing file of that name is replaced)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / standin_name(package, version_code)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(standin_bytes(package, version_code, version_name))
    tmp.replace(path)
    return path


def read_standin(data: bytes) -> StandinManifest | None:
    """The manifest of a stand-in, or None when ``data`` is not one (not a zip, no marker entry, another
    marker version, or fields missing or malformed)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            raw = zf.read(MANIFEST_ENTRY)
        doc = json.loads(raw)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError):
        return None
    if not isinstance(doc, dict) or doc.get("marker") != STANDIN_MARKER:
        return None
    package, code, name = doc.get("package"), doc.get("versionCode"), doc.get("versionName")
    if not isinstance(package, str) or not isinstance(code, int) or isinstance(code, bool) \
            or not isinstance(name, str):
        return None
    try:
        return StandinManifest(package=package, version_code=code, version_name=name)
    except ValueError:
        return None
