"""Content-addressed artifact files: ``<root>/ab/cd/<sha256>.<ext>``.

An object's name is the SHA-256 of its bytes, so writing is idempotent and needs no lock: every writer
(thread or process) writes its own temporary file in the object's folder, flushes and fsyncs it, and
renames it over the final name with ``os.replace`` (atomic on POSIX and Windows). Two writers of the same
object both rename identical bytes; readers never see a partial object. A crash leaves at most a temporary
file (``.<sha>.<random>.tmp``), which readers ignore and :meth:`ArtifactStore.gc` removes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

from emukit.hashing import sha256_hex
from emukit.store.errors import CorruptArtifactError, MissingArtifactError, StoreError

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_EXT_RE = re.compile(r"^[a-z0-9]{1,16}$")
_OBJECT_RE = re.compile(r"^([0-9a-f]{64})\.([a-z0-9]{1,16})$")
TMP_SUFFIX = ".tmp"


def _check_sha(sha: str) -> str:
    if not isinstance(sha, str) or not _SHA_RE.match(sha):
        raise StoreError(f"artifact hash {sha!r} is not a lowercase hex SHA-256 (64 characters)")
    return sha


def _check_ext(ext: str) -> str:
    ext = ext[1:] if isinstance(ext, str) and ext.startswith(".") else ext
    if not isinstance(ext, str) or not _EXT_RE.match(ext):
        raise StoreError(f"artifact extension {ext!r} must be 1-16 lowercase letters or digits (png, xml, json)")
    return ext


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX); a no-op where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some filesystems cannot fsync a directory
            os.fsync(fd)
    finally:
        os.close(fd)


def _file_sha(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class ArtifactStore:
    """The artifact folder of a data dir. Safe to share between threads and between processes.

    ``durable=False`` skips the fsyncs: objects still appear atomically and survive a killed process, but
    not a power cut (for tests and throwaway data).
    """

    def __init__(self, root: Path | str, *, durable: bool = True) -> None:
        self.root = Path(root)
        self.durable = durable

    def __repr__(self) -> str:
        return f"ArtifactStore({str(self.root)!r})"

    def path(self, sha: str, ext: str) -> Path:
        """Where the object ``sha.ext`` lives (whether or not it exists)."""
        sha, ext = _check_sha(sha), _check_ext(ext)
        return self.root / sha[:2] / sha[2:4] / f"{sha}.{ext}"

    def exists(self, sha: str, ext: str) -> bool:
        """True if an object ``sha.ext`` is stored (its content is not checked; see :meth:`get`)."""
        return self.path(sha, ext).is_file()

    def put(self, data: bytes, ext: str) -> str:
        """Store ``data`` atomically and return its SHA-256.

        An existing object of the same size is left alone (no write); one of a different size (damaged) is
        replaced.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise StoreError(f"artifact data must be bytes, not {type(data).__name__}")
        data = bytes(data)
        sha = sha256_hex(data)
        final = self.path(sha, ext)
        with contextlib.suppress(FileNotFoundError):
            if final.stat().st_size == len(data):
                return sha
        folder = final.parent
        tmp = folder / f".{sha}.{os.getpid()}.{uuid.uuid4().hex[:12]}{TMP_SUFFIX}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        created = False
        try:
            try:
                fd = os.open(tmp, flags, 0o644)
            except FileNotFoundError:  # first object in this folder
                folder.mkdir(parents=True, exist_ok=True)
                created = True
                fd = os.open(tmp, flags, 0o644)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                    if self.durable:
                        f.flush()
                        os.fsync(f.fileno())
                os.replace(tmp, final)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise StoreError(f"cannot write artifact {final}: {exc}") from exc
        if self.durable:
            for touched in (folder, folder.parent, self.root) if created else (folder,):
                _fsync_dir(touched)
        return sha

    def put_many(self, artifacts: dict[str, tuple[bytes, str]]) -> None:
        """Store ``{sha: (data, ext)}``; every key is checked against its data before anything is written."""
        for sha, (data, ext) in artifacts.items():
            _check_ext(ext)
            actual = sha256_hex(bytes(data))
            if actual != sha:
                raise StoreError(f"artifact given as {sha} ({ext}) hashes to {actual}; nothing was written")
        for data, ext in artifacts.values():
            self.put(data, ext)

    def get(self, sha: str, ext: str) -> bytes:
        """The object's bytes, after checking they hash to ``sha``.

        Raises :class:`MissingArtifactError` or :class:`CorruptArtifactError`, both naming the path.
        """
        path = self.path(sha, ext)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise MissingArtifactError(f"artifact {path} is missing", path) from None
        except OSError as exc:
            raise StoreError(f"cannot read artifact {path}: {exc}") from exc
        actual = sha256_hex(data)
        if actual != sha:
            raise CorruptArtifactError(f"artifact {path} is corrupt: its content hashes to {actual}", path)
        return data

    def verify(self, sha: str, ext: str) -> None:
        """Raise like :meth:`get` if the object is missing or corrupt; return None if it is sound."""
        path = self.path(sha, ext)
        if not path.is_file():
            raise MissingArtifactError(f"artifact {path} is missing", path)
        actual = _file_sha(path)
        if actual != sha:
            raise CorruptArtifactError(f"artifact {path} is corrupt: its content hashes to {actual}", path)

    def objects(self) -> Iterator[tuple[str, str, Path]]:
        """Every stored object as ``(sha, ext, path)``, in path order; temporary files are skipped."""
        if not self.root.is_dir():
            return
        for top in sorted(self.root.iterdir()):
            if not (top.is_dir() and len(top.name) == 2):
                continue
            for sub in sorted(top.iterdir()):
                if not (sub.is_dir() and len(sub.name) == 2):
                    continue
                for path in sorted(sub.iterdir()):
                    match = _OBJECT_RE.match(path.name)
                    if match and path.is_file():
                        yield match.group(1), match.group(2), path

    def verify_all(self) -> list[Path]:
        """Paths of objects whose content does not hash to their name, or that sit in the wrong folder."""
        bad: list[Path] = []
        for sha, ext, path in self.objects():
            if path != self.path(sha, ext) or _file_sha(path) != sha:
                bad.append(path)
        return bad

    def unreferenced(self, referenced: Iterable[str]) -> list[Path]:
        """Objects whose hash is not in ``referenced``, and crashed writers' temporary files, whatever
        their age (what :meth:`gc` would delete once they are old enough)."""
        keep = set(referenced)
        found: list[Path] = []
        if not self.root.is_dir():
            return found
        for path in sorted(self.root.glob("*/*/*")):
            match = _OBJECT_RE.match(path.name)
            is_tmp = path.name.startswith(".") and path.name.endswith(TMP_SUFFIX)
            if is_tmp or (match and match.group(1) not in keep):
                found.append(path)
        return found

    def gc(self, referenced: Iterable[str], *, grace_s: float = 3600.0) -> list[Path]:
        """Delete objects whose hash is not in ``referenced``, and crashed writers' temporary files.

        Only files older than ``grace_s`` seconds are touched: a builder writes a pair's artifacts before
        the pair's rows, so a young unreferenced object may belong to a pair being committed right now.
        Folders are kept (a concurrent writer may be about to use them). Returns the deleted paths.
        """
        cutoff = time.time() - grace_s
        removed: list[Path] = []
        for path in self.unreferenced(referenced):
            try:
                if path.stat().st_mtime > cutoff:
                    continue
                path.unlink()
            except FileNotFoundError:
                continue
            removed.append(path)
        return removed
