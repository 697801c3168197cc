"""The interpreter: walks the syntax tree and runs commands from the fixed command table.

It never starts a host process: every command is a Python function in ``commands/`` operating on the
virtual device. Pipelines run their stages one after another, feeding each stage's output to the next.
"""

from __future__ import annotations

import contextlib
import posixpath
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from emukit.vdevice.shell.commands import COMMANDS, CommandSpec, Ctx, UsageError
from emukit.vdevice.shell.commands.procs import SHELL_PID
from emukit.vdevice.shell.expand import ExpansionError, expand_str, expand_words
from emukit.vdevice.shell.nodes import (
    AndOr,
    For,
    Group,
    If,
    Node,
    Pipeline,
    Redir,
    Seq,
    Simple,
    While,
)
from emukit.vdevice.shell.parser import ShellSyntaxError, parse
from emukit.vdevice.shell.redirect import RedirError, open_redirs
from emukit.vdevice.shell.streams import (
    IO,
    CallbackSink,
    CollectSink,
    HostQueue,
    NullSink,
    Sink,
    Stdin,
)

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

SH = "/system/bin/sh"
DEFAULT_PATH = ("/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:"
                "/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin")
BIN_DIRS = {"/system/bin", "/system/xbin", "/bin", "/sbin", "/vendor/bin", "/vendor/xbin", "/product/bin",
            "/system_ext/bin", "/odm/bin", "/apex/com.android.runtime/bin", "/apex/com.android.art/bin"}
MAX_STEPS = 200_000


class ExitShell(Exception):
    """``exit N``: unwinds to the end of the (sub)shell with status N."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class LoopControl(Exception):
    """``break N`` / ``continue N``: unwinds to the Nth enclosing loop."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class Aborted(Exception):
    """The host closed the stream (or the script ran away): stop interpreting."""


def default_env(device: VirtualDevice, root: bool) -> dict[str, str]:
    """The environment adbd gives ``/system/bin/sh`` on an emulator."""
    user = "root" if root else "shell"
    return {"PATH": DEFAULT_PATH, "HOME": "/", "USER": user, "LOGNAME": user, "SHELL": "/bin/sh",
            "HOSTNAME": "localhost", "TMPDIR": "/data/local/tmp", "ANDROID_DATA": "/data",
            "ANDROID_ROOT": "/system", "ANDROID_STORAGE": "/storage", "EXTERNAL_STORAGE": "/sdcard",
            "ANDROID_ASSETS": "/system/app", "ASEC_MOUNTPOINT": "/mnt/asec", "TERM": "dumb"}


class Shell:
    """State of one ``/system/bin/sh`` process: variables, cwd, last status, streams."""

    def __init__(self, device: VirtualDevice, queue: HostQueue, closed: threading.Event | None) -> None:
        self.device = device
        self.queue = queue
        self.closed = closed
        self.vars = default_env(device, device.state.rooted)
        self.exported = set(self.vars)
        self.cwd = "/"
        self.status = 0
        self.params: list[str] = []
        self.arg0 = SH
        self.su_depth = 0
        self.steps = 0
        self.last_bg_pid = ""
        self._lock_depth = 0
        self._subst_status: int | None = None
        self._err: Sink = NullSink()
        self._stdin: Stdin = Stdin()

    @property
    def is_root(self) -> bool:
        return self.device.state.rooted or self.su_depth > 0

    # ------------------------------------------------------------------ variables
    def get_var(self, name: str) -> str | None:
        if name == "?":
            return str(self.status)
        if name == "$":
            return str(SHELL_PID)
        if name == "#":
            return str(len(self.params))
        if name == "0":
            return self.arg0
        if name.isdigit():
            idx = int(name)
            return self.params[idx - 1] if idx <= len(self.params) else None
        if name in ("@", "*"):
            return " ".join(self.params)
        if name == "!":
            return self.last_bg_pid
        if name == "-":
            return ""
        return self.vars.get(name)

    def set_var(self, name: str, value: str) -> None:
        self.vars[name] = value

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in self.vars.items() if k in self.exported}
        env.update(extra or {})
        return env

    # ------------------------------------------------------------------ entry points
    def run(self, source: str, io: IO) -> int:
        """Parse and run a whole command line; returns the exit status."""
        try:
            try:
                tree = parse(source)
            except ShellSyntaxError as exc:
                io.err.write(f"{SH}: {exc}\n".encode())
                return 1
            try:
                return self.exec_node(tree, io)
            except ExitShell as exc:
                return exc.status
            except LoopControl:
                return self.status
            except Aborted:
                if self.queue.broken:
                    return 141
                if self.closed is not None and self.closed.is_set():
                    return 130
                io.err.write(f"{SH}: too many commands\n".encode())
                return 1
        finally:
            self.flush_host()

    def run_nested(self, source: str, stdin: Stdin, out: Sink, err: Sink, params: list[str] | None = None,
                   arg0: str | None = None) -> int:
        """``sh -c`` / ``su -c``: a child shell (its variables and cwd don't leak back)."""
        with self.subshell():
            if params is not None:
                self.params = list(params)
            if arg0 is not None:
                self.arg0 = arg0
            try:
                tree = parse(source)
            except ShellSyntaxError as exc:
                err.write(f"{SH}: {exc}\n".encode())
                return 1
            try:
                return self.exec_node(tree, IO(stdin, out, err))
            except ExitShell as exc:
                return exc.status
            except LoopControl:
                return self.status

    def run_here(self, source: str, stdin: Stdin, out: Sink, err: Sink) -> int:
        """``eval`` / ``.``: run in the current shell."""
        try:
            tree = parse(source)
        except ShellSyntaxError as exc:
            err.write(f"{SH}: {exc}\n".encode())
            return 1
        return self.exec_node(tree, IO(stdin, out, err))

    def flush_host(self) -> None:
        if self._lock_depth == 0:
            self.queue.flush()

    @contextlib.contextmanager
    def subshell(self) -> Iterator[None]:
        saved = (dict(self.vars), set(self.exported), self.cwd, list(self.params), self.arg0, self.su_depth)
        try:
            yield
        finally:
            self.vars, self.exported, self.cwd, self.params, self.arg0, self.su_depth = saved

    def command_substitution(self, body: Node) -> str:
        sink = CollectSink()
        with self.subshell():
            try:
                status = self.exec_node(body, IO(self._stdin, sink, self._err))
            except ExitShell as exc:
                status = exc.status
            except LoopControl:
                status = self.status
        self._subst_status = status
        self.status = status
        return sink.getvalue().decode("utf-8", "surrogateescape").rstrip("\n")

    # ------------------------------------------------------------------ tree walking
    def _tick(self) -> None:
        self.steps += 1
        if self.closed is not None and self.closed.is_set():
            raise Aborted()
        if self.steps > MAX_STEPS or self.queue.broken:
            raise Aborted()

    def exec_node(self, node: Node, io: IO, background: bool = False) -> int:
        if isinstance(node, Simple):
            status = self.exec_simple(node, io, background)
        elif isinstance(node, Seq):
            status = 0
            for item, bg in zip(node.items, node.background):
                status = self.exec_node(item, io, bg)
                if bg:
                    status = 0
                    self.last_bg_pid = str(SHELL_PID + 1)
        elif isinstance(node, AndOr):
            status = self.exec_node(node.first, io, background)
            for op, rhs in node.rest:
                self.status = status
                if (op == "&&") == (status == 0):
                    status = self.exec_node(rhs, io, background)
        elif isinstance(node, Pipeline):
            status = self._exec_pipeline(node, io, background)
        else:
            status = self._exec_compound(node, io)
        self.status = status
        return status

    def _exec_pipeline(self, node: Pipeline, io: IO, background: bool) -> int:
        stdin = io.stdin
        status = 0
        for i, cmd in enumerate(node.cmds):
            last = i == len(node.cmds) - 1
            if last:
                status = self.exec_node(cmd, IO(stdin, io.out, io.err), background)
                break
            sink = CollectSink()
            with self.subshell():
                with contextlib.suppress(ExitShell):
                    self.exec_node(cmd, IO(stdin, sink, io.err), background)
            stdin = Stdin(sink.getvalue())
        return int(status == 0) if node.negate else status

    def _exec_compound(self, node: Node, io: IO) -> int:
        redirs: list[Redir] = getattr(node, "redirs", [])
        opened: list[Sink] = []
        if redirs:
            try:
                io, opened = open_redirs(self, redirs, io)
            except RedirError as exc:
                io.err.write(f"{SH}: {exc}\n".encode())
                return 1
        try:
            return self._exec_compound_body(node, io)
        finally:
            for sink in opened:
                sink.close()

    def _exec_compound_body(self, node: Node, io: IO) -> int:
        if isinstance(node, Group):
            if not node.subshell:
                return self.exec_node(node.body, io)
            with self.subshell():
                try:
                    return self.exec_node(node.body, io)
                except ExitShell as exc:
                    return exc.status
        if isinstance(node, If):
            for cond, body in node.branches:
                if self.exec_node(cond, io) == 0:
                    return self.exec_node(body, io)
            return self.exec_node(node.orelse, io) if node.orelse else 0
        if isinstance(node, For):
            values = expand_words(self, node.words) if node.words is not None else list(self.params)
            status = 0
            for value in values:
                self._tick()
                self.set_var(node.var, value)
                try:
                    status = self.exec_node(node.body, io)
                except LoopControl as ctl:
                    if ctl.levels > 1:
                        raise LoopControl(ctl.kind, ctl.levels - 1) from None
                    if ctl.kind == "break":
                        break
            return status
        if isinstance(node, While):
            status = 0
            while True:
                self._tick()
                cond = self.exec_node(node.cond, io)
                if (cond == 0) == node.until:
                    return status
                try:
                    status = self.exec_node(node.body, io)
                except LoopControl as ctl:
                    if ctl.levels > 1:
                        raise LoopControl(ctl.kind, ctl.levels - 1) from None
                    if ctl.kind == "break":
                        return self.status
        raise TypeError(f"unknown node {type(node).__name__}")

    def exec_simple(self, cmd: Simple, io: IO, background: bool = False) -> int:
        self._tick()
        self._err, self._stdin = io.err, io.stdin
        self._subst_status = None
        try:
            argv = expand_words(self, cmd.words)
            assigns = [(name, expand_str(self, word)) for name, word in cmd.assigns]
            cmd_io, opened = open_redirs(self, cmd.redirs, io)
        except (ExpansionError, RedirError) as exc:
            io.err.write(f"{SH}: {exc}\n".encode())
            self.flush_host()
            return 1
        try:
            if not argv:
                for name, value in assigns:
                    self.set_var(name, value)
                return self._subst_status or 0
            return self.run_argv(argv, cmd_io.stdin, cmd_io.out, cmd_io.err, dict(assigns), background)
        finally:
            for sink in opened:
                sink.close()
            self.flush_host()

    # ------------------------------------------------------------------ commands
    def lookup(self, name: str) -> tuple[CommandSpec, str, bool] | None:
        """Map a command name (``ls``, ``/system/bin/ls``) to its table entry."""
        if "/" in name:
            folder, base = posixpath.split(self.device.fs.normalize(name, self.cwd))
            if folder in BIN_DIRS and base in COMMANDS:
                return COMMANDS[base], base, True
            return None
        spec = COMMANDS.get(name)
        return (spec, name, False) if spec else None

    def run_argv(self, argv: list[str], stdin: Stdin, out: Sink, err: Sink, env_extra: dict[str, str],
                 background: bool = False, via_path: bool = False) -> int:
        """Run one command of the table (or a device shell script) and return its status."""
        found = self.lookup(argv[0])
        if found is None:
            return self._run_file(argv, stdin, out, err)
        spec, canonical, by_path = found
        ctx = Ctx(self, [canonical] + argv[1:], self.env(env_extra), stdin, out, err, background,
                  via_path or by_path)
        try:
            if spec.unlocked:
                return spec.fn(ctx)
            with self.device.lock:
                self._lock_depth += 1
                try:
                    return spec.fn(ctx)
                finally:
                    self._lock_depth -= 1
        except UsageError as exc:
            ctx.error(str(exc))
            return 1
        except (ExitShell, LoopControl, Aborted):
            raise
        except OSError as exc:
            ctx.error(exc.strerror or str(exc))
            return 1
        except Exception as exc:  # a command bug must not kill the ADB stream
            ctx.error(f"internal error: {type(exc).__name__}: {exc}")
            return 1
        finally:
            self.flush_host()

    def _run_file(self, argv: list[str], stdin: Stdin, out: Sink, err: Sink) -> int:
        """A path to a device file: run it if it is an sh script, else it can't execute."""
        name = argv[0]
        fs = self.device.fs
        if "/" in name:
            try:
                data = fs.read_bytes(name, self.cwd)
            except OSError as exc:
                if getattr(exc, "errno", None) == 21:
                    err.write(f"{SH}: {name}: can't execute: Is a directory\n".encode())
                    return 126
                data = None
            if data is not None:
                first = data.split(b"\n", 1)[0]
                if first.startswith(b"#!") and first.rstrip().endswith((b"/sh", b"/bash", b"/mksh")):
                    source = data.decode("utf-8", "surrogateescape")
                    return self.run_nested(source, stdin, out, err, argv[1:], name)
                err.write(f"{SH}: {name}: can't execute: Exec format error\n".encode())
                return 126
        err.write(f"{SH}: {name}: inaccessible or not found\n".encode())
        return 127


def make_shell(device: VirtualDevice, stdout: Callable[[bytes], None], stderr: Callable[[bytes], None],
               stdin: bytes, closed: threading.Event | None) -> tuple[Shell, IO]:
    """A shell whose output goes to the host callbacks through one ordered queue."""
    queue = HostQueue()
    shell = Shell(device, queue, closed)
    io = IO(Stdin(stdin), CallbackSink(queue, stdout), CallbackSink(queue, stderr))
    shell._err, shell._stdin = io.err, io.stdin
    return shell, io
