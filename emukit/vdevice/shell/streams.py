"""Output sinks and input sources used while interpreting a command line.

Output that goes to the host (the ADB stream callbacks) is queued in one ordered list while a command runs
under ``device.lock`` and flushed right after, so stdout/stderr interleaving is kept and no socket write
happens with the device lock held.
"""

from __future__ import annotations

import abc
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


class Sink(abc.ABC):
    """Where a command's stdout or stderr goes."""

    @abc.abstractmethod
    def write(self, data: bytes) -> None:
        """Take some output."""

    def close(self) -> None:
        """Finish writing (files get their mtime from the device clock)."""


class NullSink(Sink):
    """``/dev/null``."""

    def write(self, data: bytes) -> None:
        """Discard the data."""


class CollectSink(Sink):
    """Collects bytes (pipes and command substitution)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes) -> None:
        if data:
            self.chunks.append(data)

    def getvalue(self) -> bytes:
        return b"".join(self.chunks)


class HostQueue:
    """Ordered queue of output for the host callbacks; :meth:`flush` delivers it.

    A callback that raises (the host went away) marks the queue ``broken``: later output is dropped and
    the shell stops at its next command, like a process killed by SIGPIPE.
    """

    def __init__(self) -> None:
        self.pending: list[tuple[Callable[[bytes], None], bytes]] = []
        self.broken = False

    def flush(self) -> None:
        pending, self.pending = self.pending, []
        if self.broken:
            return
        for callback, data in pending:
            try:
                callback(data)
            except Exception:  # noqa: BLE001 - any failure of the host stream ends the output
                self.broken = True
                return


class CallbackSink(Sink):
    """A host stream (stdout or stderr callback) fed through the shared :class:`HostQueue`."""

    def __init__(self, queue: HostQueue, callback: Callable[[bytes], None]) -> None:
        self.queue = queue
        self.callback = callback

    def write(self, data: bytes) -> None:
        if data:
            self.queue.pending.append((self.callback, data))


class FileSink(Sink):
    """A redirection target: a host file inside the device root, opened by the shell."""

    def __init__(self, host: Path, append: bool, mtime_ns: Callable[[], int]) -> None:
        self.host = host
        self._mtime_ns = mtime_ns
        self._fh = open(host, "ab" if append else "wb")  # noqa: SIM115 - closed in close()
        self._closed = False

    def write(self, data: bytes) -> None:
        if data and not self._closed:
            self._fh.write(data)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._fh.close()
        ns = self._mtime_ns()
        with contextlib.suppress(OSError):
            os.utime(self.host, ns=(ns, ns))


class Stdin:
    """Input of a command. The shell's own stdin is shared: whoever reads it consumes it."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = data

    def read(self) -> bytes:
        data, self.data = self.data, b""
        return data

    def readline(self) -> bytes:
        idx = self.data.find(b"\n")
        if idx < 0:
            line, self.data = self.data, b""
        else:
            line, self.data = self.data[:idx + 1], self.data[idx + 1:]
        return line


@dataclass
class IO:
    """The three streams of a command."""

    stdin: Stdin
    out: Sink
    err: Sink
