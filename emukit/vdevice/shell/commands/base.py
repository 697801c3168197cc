"""What every shell command gets (:class:`Ctx`) and the command table decorator.

A command is a plain function ``fn(ctx) -> int``. It reads its arguments from ``ctx.args``, its input
with ``ctx.read_stdin()``, writes with ``ctx.write()`` / ``ctx.ewrite()`` and returns the exit status.
Commands run with ``device.lock`` held unless registered with ``unlocked=True``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from emukit.vdevice.shell.streams import Sink, Stdin

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice
    from emukit.vdevice.fs import DeviceFS
    from emukit.vdevice.shell.interp import Shell

CommandFn = Callable[["Ctx"], int]


@dataclass
class CommandSpec:
    fn: CommandFn
    unlocked: bool = False


COMMANDS: dict[str, CommandSpec] = {}


def command(*names: str, unlocked: bool = False) -> Callable[[CommandFn], CommandFn]:
    """Register ``fn`` under each of ``names`` in the command table."""

    def deco(fn: CommandFn) -> CommandFn:
        for name in names:
            COMMANDS[name] = CommandSpec(fn, unlocked)
        return fn

    return deco


class UsageError(Exception):
    """Raised by option parsing; the message is printed as ``NAME: message``."""


def encode(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")


class Ctx:
    """One invocation of a command: arguments, environment, streams and the shell it runs in."""

    def __init__(self, shell: Shell, argv: list[str], env: dict[str, str], stdin: Stdin, out: Sink,
                 err: Sink, background: bool = False, via_path: bool = False) -> None:
        self.shell = shell
        self.argv = argv
        self.env = env
        self.stdin = stdin
        self.out = out
        self.err = err
        self.background = background
        self.via_path = via_path  # invoked as /system/bin/NAME or through toybox (not the sh builtin)

    # ------------------------------------------------------------------ identity
    @property
    def name(self) -> str:
        return self.argv[0]

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def device(self) -> VirtualDevice:
        return self.shell.device

    @property
    def fs(self) -> DeviceFS:
        return self.shell.device.fs

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def rooted(self) -> bool:
        return self.shell.is_root

    # ------------------------------------------------------------------ streams
    def write(self, data: str | bytes) -> None:
        self.out.write(encode(data))

    def ewrite(self, data: str | bytes) -> None:
        self.err.write(encode(data))

    def error(self, msg: str) -> None:
        self.ewrite(f"{self.name}: {msg}\n")

    def fail(self, msg: str, status: int = 1) -> int:
        self.error(msg)
        return status

    def oserror(self, path: str, exc: OSError) -> None:
        self.error(f"{path}: {exc.strerror or exc}")

    def read_stdin(self) -> bytes:
        return self.stdin.read()

    def flush(self) -> None:
        """Deliver queued host output now (for commands that keep running)."""
        self.shell.flush_host()

    # ------------------------------------------------------------------ running other commands
    def run(self, argv: list[str], stdin: Stdin | None = None, env: dict[str, str] | None = None) -> int:
        """Run another command of the table with this command's streams (xargs, env, su...)."""
        return self.shell.run_argv(argv, stdin or self.stdin, self.out, self.err, env or {}, self.background)

    def run_script(self, source: str, stdin: Stdin | None = None) -> int:
        return self.shell.run_nested(source, stdin or self.stdin, self.out, self.err)


def getopt(ctx: Ctx, args: list[str], spec: str, multi: str = "",
           long: dict[str, str] | None = None, stop_at_operand: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Toybox-style option parsing: combined short flags, options anywhere (unless
    ``stop_at_operand``), ``X:`` in ``spec`` takes a value, letters in ``multi`` collect lists,
    ``long`` maps ``--name`` to a short letter (``--name=value`` allowed). Raises :class:`UsageError`.
    """
    takes = {spec[i] for i in range(len(spec) - 1) if spec[i + 1] == ":"}
    letters = set(spec.replace(":", ""))
    opts: dict[str, Any] = {}
    operands: list[str] = []

    def put(letter: str, value: Any) -> None:
        if letter in multi:
            opts.setdefault(letter, []).append(value)
        else:
            opts[letter] = value

    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            operands.extend(args[i:])
            break
        if arg.startswith("--") and long is None:
            raise UsageError(f"Unknown option '{arg}'")
        if arg.startswith("--"):
            key, eq, val = arg[2:].partition("=")
            if key not in long:
                raise UsageError(f"Unknown option '{arg}'")
            letter = long[key]
            if letter in takes:
                if not eq:
                    if i >= len(args):
                        raise UsageError(f"Missing argument to '{arg}'")
                    val = args[i]
                    i += 1
                put(letter, val)
            else:
                put(letter, True)
            continue
        if len(arg) < 2 or not arg.startswith("-"):
            operands.append(arg)
            if stop_at_operand:
                operands.extend(args[i:])
                break
            continue
        j = 1
        while j < len(arg):
            c = arg[j]
            j += 1
            if c not in letters:
                raise UsageError(f"Unknown option '{c}'")
            if c in takes:
                val = arg[j:]
                if not val:
                    if i >= len(args):
                        raise UsageError(f"Missing argument to -{c}")
                    val = args[i]
                    i += 1
                put(c, val)
                break
            put(c, True)
    return opts, operands
