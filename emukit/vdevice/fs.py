"""The virtual device's filesystem: device paths mapped into one host folder, never outside it.

Every device path is resolved component by component. Symlinks stored in the device root are read with
``os.readlink`` and their targets are interpreted as *device* paths (absolute targets start at the device
root), so a link to ``/etc/passwd`` names ``<root>/etc/passwd`` and never the host's file. ``..`` stops at
the device root, exactly like ``/..`` on a real system.

Some files are virtual (``/proc/uptime``): their content is produced on read by a callback.
"""

from __future__ import annotations

import os
import posixpath
import stat as stat_mod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_SYMLINK_DEPTH = 40


class DeviceFSError(OSError):
    """A device path that cannot be resolved or used; ``strerror`` reads like toybox's messages."""


@dataclass(frozen=True)
class Resolved:
    """A device path resolved to its host path inside the device root."""

    device_path: str
    host_path: Path

    def exists(self) -> bool:
        return os.path.lexists(self.host_path)


class DeviceFS:
    """Maps device paths onto a host folder (the device root).

    ``resolve(path)`` follows symlinks inside the device; ``resolve(path, follow=False)`` leaves the last
    component alone (for ``lstat``, ``rm`` of a link, pushing a symlink).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self._root_str = str(self.root)
        self.virtual: dict[str, Callable[[], bytes]] = {}

    # ----------------------------------------------------------------- resolution
    @staticmethod
    def normalize(path: str, cwd: str = "/") -> str:
        """Absolute, normalised device path; ``..`` above ``/`` stays at ``/``."""
        if not path:
            raise DeviceFSError(2, "No such file or directory", path)
        if "\x00" in path:
            raise DeviceFSError(22, "Invalid argument", path)
        joined = path if path.startswith("/") else posixpath.join(cwd or "/", path)
        parts: list[str] = []
        for part in joined.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" + "/".join(parts)

    def resolve(self, path: str, cwd: str = "/", follow: bool = True) -> Resolved:
        """Resolve a device path to a host path inside the root, following device symlinks."""
        device_path = self.normalize(path, cwd)
        parts = [p for p in device_path.split("/") if p]
        root = self._root_str
        resolved: list[str] = []
        prefix = root  # the host path of ``resolved``, kept as a string (pathlib per component is slow)
        depth = 0
        i = 0
        while i < len(parts):
            part = parts[i]
            i += 1
            if part == "..":
                if resolved:
                    resolved.pop()
                    prefix = root + "/" + "/".join(resolved) if resolved else root
                continue
            candidate = prefix + "/" + part
            is_last = i == len(parts)
            if (follow or not is_last) and os.path.islink(candidate):
                depth += 1
                if depth > MAX_SYMLINK_DEPTH:
                    raise DeviceFSError(40, "Too many symbolic links encountered", device_path)
                target = os.readlink(candidate)
                target_parts = [p for p in target.split("/") if p not in ("", ".")]
                if target.startswith("/"):
                    resolved = []
                    prefix = root
                parts = target_parts + parts[i:]
                i = 0
                continue
            resolved.append(part)
            prefix = candidate
        return Resolved("/" + "/".join(resolved), Path(prefix))

    def host(self, path: str, cwd: str = "/", follow: bool = True) -> Path:
        return self.resolve(path, cwd, follow).host_path

    def is_dir(self, path: str, cwd: str = "/") -> bool:
        """Whether ``path`` is a directory (following links); False for anything unreadable."""
        try:
            return self.host(path, cwd).is_dir()
        except OSError:
            return False

    def device_path_of(self, host_path: Path) -> str:
        rel = Path(host_path).relative_to(self.root)
        return "/" + rel.as_posix() if str(rel) != "." else "/"

    # ----------------------------------------------------------------- convenience
    def is_virtual(self, path: str) -> bool:
        return self.normalize(path) in self.virtual

    def read_bytes(self, path: str, cwd: str = "/") -> bytes:
        norm = self.normalize(path, cwd)
        if norm in self.virtual:
            return self.virtual[norm]()
        host = self.host(norm)
        if host.is_dir():
            raise DeviceFSError(21, "Is a directory", norm)
        if not host.exists():
            raise DeviceFSError(2, "No such file or directory", norm)
        return host.read_bytes()

    def write_bytes(self, path: str, data: bytes, cwd: str = "/", append: bool = False) -> None:
        host = self.host(path, cwd)
        if not host.parent.is_dir():
            raise DeviceFSError(2, "No such file or directory", self.normalize(path, cwd))
        if host.is_dir():
            raise DeviceFSError(21, "Is a directory", self.normalize(path, cwd))
        with open(host, "ab" if append else "wb") as fh:
            fh.write(data)

    def makedirs(self, path: str, cwd: str = "/") -> Path:
        host = self.host(path, cwd)
        host.mkdir(parents=True, exist_ok=True)
        return host

    def symlink(self, target: str, link_path: str, cwd: str = "/") -> None:
        """Create a device symlink whose target is kept verbatim (a device path)."""
        host = self.host(link_path, cwd, follow=False)
        if os.path.lexists(host):
            raise DeviceFSError(17, "File exists", self.normalize(link_path, cwd))
        os.symlink(target, host)

    def lstat(self, path: str, cwd: str = "/") -> os.stat_result:
        return os.lstat(self.host(path, cwd, follow=False))

    def stat(self, path: str, cwd: str = "/") -> os.stat_result:
        norm = self.normalize(path, cwd)
        if norm in self.virtual:
            st = os.stat(self.root)
            size = len(self.virtual[norm]())
            return os.stat_result((stat_mod.S_IFREG | 0o444, 0, 0, 1, 0, 0, size,
                                   int(st.st_atime), int(st.st_mtime), int(st.st_ctime)))
        return os.stat(self.host(norm))

    def listdir(self, path: str, cwd: str = "/") -> list[str]:
        host = self.host(path, cwd)
        names = os.listdir(host)
        norm = self.normalize(path, cwd).rstrip("/") + "/"
        names.extend(v.rsplit("/", 1)[1] for v in self.virtual if v.rsplit("/", 1)[0] + "/" == norm
                     and v.rsplit("/", 1)[1] not in names)
        return sorted(names)
