"""Redirections (``> >> < << <<< >& <&``): targets resolve through ``device.fs`` (``/dev/null``,
``/dev/stdout``, ``/dev/stderr`` are special); files created by a redirection get their mtime from the device
clock."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands.fsutil import now_ns, stamp
from emukit.vdevice.shell.expand import expand_str
from emukit.vdevice.shell.nodes import Redir
from emukit.vdevice.shell.streams import IO, FileSink, NullSink, Sink, Stdin

if TYPE_CHECKING:
    from emukit.vdevice.shell.interp import Shell


class RedirError(Exception):
    """A redirection target cannot be opened."""


def open_redirs(shell: Shell, redirs: list[Redir], io: IO) -> tuple[IO, list[Sink]]:
    """Apply redirections left to right; returns the new streams and the files to close afterwards."""
    stdin, out, err = io.stdin, io.out, io.err
    opened: list[Sink] = []
    try:
        for r in redirs:
            target = "" if r.op == "<<" else expand_str(shell, r.target)
            if r.op == "<<<":
                if r.fd == 0:
                    stdin = Stdin((target + "\n").encode("utf-8", "surrogateescape"))
                continue
            if r.op in (">", ">>"):
                sink = _file_sink(shell, target, r.op == ">>", out, err)
                if isinstance(sink, FileSink):
                    opened.append(sink)
                if r.fd == 1:
                    out = sink
                elif r.fd == 2:
                    err = sink
            elif r.op == "<<":
                if r.fd == 0:
                    stdin = Stdin(expand_str(shell, r.target, tilde=False).encode("utf-8", "surrogateescape"))
            elif r.op == "<":
                if r.fd == 0:
                    stdin = Stdin(_read_file(shell, target))
            elif r.op == ">&":
                if target == "-":
                    src: Sink = NullSink()
                elif target in ("1", "2"):
                    src = out if target == "1" else err
                elif target.isdigit():
                    continue
                else:
                    src = _file_sink(shell, target, False, out, err)
                    if isinstance(src, FileSink):
                        opened.append(src)
                    out = src
                if r.fd == 1:
                    out = src
                elif r.fd == 2:
                    err = src
    except BaseException:
        for sink in opened:
            sink.close()
        raise
    return IO(stdin, out, err), opened


def _file_sink(shell: Shell, path: str, append: bool, out: Sink, err: Sink) -> Sink:
    special = {"/dev/null": NullSink(), "/dev/stdout": out, "/dev/stderr": err, "/dev/tty": out}
    fs = shell.device.fs
    try:
        norm = fs.normalize(path, shell.cwd)
    except OSError as exc:
        raise RedirError(f"can't create {path}: {exc.strerror}") from None
    if norm in special:
        return special[norm]
    if norm in fs.virtual:
        raise RedirError(f"can't create {path}: Permission denied")
    try:
        host = fs.host(norm)
    except OSError as exc:
        raise RedirError(f"can't create {path}: {exc.strerror}") from None
    if host.is_dir():
        raise RedirError(f"can't create {path}: Is a directory")
    if not host.parent.is_dir():
        raise RedirError(f"can't create {path}: No such file or directory")
    is_new = not host.exists()
    sink = FileSink(host, append, lambda: now_ns(shell.device))
    if is_new:
        stamp(shell.device, host.parent)
        shell.device.media.fuse_created(norm)  # created through the FUSE mount when in shared storage
    return sink


def _read_file(shell: Shell, path: str) -> bytes:
    fs = shell.device.fs
    try:
        norm = fs.normalize(path, shell.cwd)
        if norm in ("/dev/null", "/dev/zero"):
            return b""
        return fs.read_bytes(norm)
    except OSError as exc:
        raise RedirError(f"can't open {path}: {exc.strerror}") from None
