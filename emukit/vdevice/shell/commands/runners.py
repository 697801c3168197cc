"""Commands that look up or run other commands, and time: which, type, command, env, sleep, usleep, su,
run-as, sh, toybox, busybox, timeout, nohup, nice, time, xargs.

``sleep N`` lets N seconds pass on the device's logical clock instantly (``device.advance``); with a
realtime clock it really waits (returning early when the stream closes).
"""

from __future__ import annotations

import re
import threading

from emukit.vdevice.shell.commands.base import COMMANDS, Ctx, command, getopt
from emukit.vdevice.shell.commands.builtins import SHELL_ONLY, _interp
from emukit.vdevice.shell.commands.files import read_input
from emukit.vdevice.shell.streams import Stdin


# ------------------------------------------------------------------------------------------ lookup
@command("which")
def which(ctx: Ctx) -> int:
    args = [a for a in ctx.args if a != "-a"]
    status = 0
    for name in args:
        if "/" in name:
            found = ctx.shell.lookup(name) is not None
            if found:
                ctx.write(name + "\n")
            else:
                status = 1
        elif name in COMMANDS and name not in SHELL_ONLY:
            ctx.write(f"/system/bin/{name}\n")
        else:
            status = 1
    return status


@command("type")
def type_(ctx: Ctx) -> int:
    status = 0
    for name in ctx.args:
        if name in SHELL_ONLY or name in ("echo", "printf", "test", "[", "pwd", "true", "false"):
            ctx.write(f"{name} is a shell builtin\n")
        elif name in COMMANDS:
            ctx.write(f"{name} is a tracked alias for /system/bin/{name}\n")
        else:
            ctx.write(f"{name} not found\n")
            status = 1
    return status


@command("command", unlocked=True)
def command_(ctx: Ctx) -> int:
    args = list(ctx.args)
    verbose = False
    while args and args[0].startswith("-"):
        verbose = verbose or args.pop(0) in ("-v", "-V")
    if not args:
        return 0
    if verbose:
        name = args[0]
        if name in SHELL_ONLY:
            ctx.write(name + "\n")
            return 0
        if ctx.shell.lookup(name) is None:
            return 1
        ctx.write((name if "/" in name else f"/system/bin/{name}") + "\n")
        return 0
    return ctx.run(args)


@command("env", unlocked=True)
def env(ctx: Ctx) -> int:
    args = list(ctx.args)
    extra: dict[str, str] = {}
    drop: set[str] = set()
    clear = False
    while args:
        if args[0] in ("-i", "-"):
            clear = True
            args.pop(0)
        elif args[0] == "-u" and len(args) > 1:
            drop.add(args[1])
            del args[:2]
        elif re.match(r"[A-Za-z_][A-Za-z0-9_]*=", args[0]):
            name, _, value = args.pop(0).partition("=")
            extra[name] = value
        else:
            break
    if not args:
        base = {} if clear else dict(ctx.env)
        base.update(extra)
        for name in sorted(base):
            if name not in drop:
                ctx.write(f"{name}={base[name]}\n")
        return 0
    return ctx.run(args, env=extra)


# ------------------------------------------------------------------------------------------ time
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")


def parse_duration(text: str) -> float:
    m = _DURATION.match(text)
    if not m:
        raise ValueError(text)
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def pass_time(ctx: Ctx, seconds: float) -> None:
    """Let time pass on the device: instantly on the logical clock, really in realtime mode."""
    device = ctx.device
    if getattr(device, "clock_mode", "logical") == "realtime":
        waiter = ctx.shell.closed or threading.Event()
        waiter.wait(seconds)
        return
    device.advance(int(round(seconds * 1000)))


@command("sleep", unlocked=True)
def sleep(ctx: Ctx) -> int:
    if not ctx.args:
        return ctx.fail("Needs 1 argument")
    total = 0.0
    for arg in ctx.args:
        try:
            total += parse_duration(arg)
        except ValueError:
            return ctx.fail(f"Not a number '{arg}'")
    pass_time(ctx, total)
    return 0


@command("usleep", unlocked=True)
def usleep(ctx: Ctx) -> int:
    try:
        micros = int(ctx.args[0]) if ctx.args else 0
    except ValueError:
        return ctx.fail(f"Not integer '{ctx.args[0]}'")
    pass_time(ctx, micros / 1_000_000)
    return 0


# ------------------------------------------------------------------------------------------ runners
@command("su", unlocked=True)
def su(ctx: Ctx) -> int:
    """Root commands; available once the device runs adbd as root (``adb root``)."""
    if not ctx.device.state.rooted:
        ctx.ewrite(f"{_interp().SH}: su: inaccessible or not found\n")
        return 127
    args = list(ctx.args)
    script = None
    while args:
        if args[0] in ("-c", "--command") and len(args) > 1:
            script = args[1]
            del args[:2]
            break
        if args[0] in ("-", "-l", "--login", "-p", "-m", "--preserve-environment", "-mm", "--mount-master"):
            args.pop(0)
        elif args[0] in ("root", "0"):
            args.pop(0)
        elif args[0] in ("shell", "2000") or args[0].startswith("-"):
            args.pop(0)
        else:
            break
    shell = ctx.shell
    shell.su_depth += 1
    try:
        if script is not None:
            return ctx.run_script(" ".join([script] + args))
        if args:
            return ctx.run(args)
        return ctx.run_script(ctx.read_stdin().decode("utf-8", "surrogateescape"))
    finally:
        shell.su_depth -= 1


@command("run-as", unlocked=True)
def run_as(ctx: Ctx) -> int:
    args = list(ctx.args)
    while args and args[0].startswith("--user"):
        del args[:1 if "=" in args[0] else 2]
    if not args:
        return ctx.fail("usage: run-as <package-name> [--user <uid>] <command> [<args>]")
    pkg = args.pop(0)
    if pkg not in ctx.device.apps:
        return ctx.fail(f"unknown package: {pkg}")
    shell = ctx.shell
    with shell.subshell():
        shell.cwd = f"/data/data/{pkg}"
        if args:
            return ctx.run(args)
        return ctx.run_script(ctx.read_stdin().decode("utf-8", "surrogateescape"))


@command("sh", "mksh", "bash", unlocked=True)
def sh(ctx: Ctx) -> int:
    args = list(ctx.args)
    while args and args[0].startswith("-") and args[0] != "-c" and args[0] != "-":
        args.pop(0)
    if args and args[0] == "-c":
        if len(args) < 2:
            return ctx.fail("-c: option requires an argument")
        script = args[1]
        rest = args[2:]
        return ctx.shell.run_nested(script, ctx.stdin, ctx.out, ctx.err, rest[1:], rest[0] if rest else None)
    if args and args[0] != "-":
        try:
            text = read_input(ctx, args[0]).decode("utf-8", "surrogateescape")
        except OSError as exc:
            return ctx.fail(f"{args[0]}: {exc.strerror}", 127)
        return ctx.shell.run_nested(text, Stdin(ctx.read_stdin()), ctx.out, ctx.err, args[1:], args[0])
    return ctx.shell.run_nested(ctx.read_stdin().decode("utf-8", "surrogateescape"), Stdin(), ctx.out, ctx.err)


@command("toybox", "busybox", unlocked=True)
def toybox(ctx: Ctx) -> int:
    if not ctx.args:
        names = sorted(n for n in COMMANDS if n not in SHELL_ONLY and re.fullmatch(r"[a-z0-9][a-z0-9_-]*", n))
        ctx.write(" ".join(names) + "\n")
        return 0
    name = ctx.args[0]
    if name not in COMMANDS or name in SHELL_ONLY:
        return ctx.fail(f"Unknown command {name}", 1)
    return ctx.shell.run_argv(list(ctx.args), ctx.stdin, ctx.out, ctx.err, {}, ctx.background, via_path=True)


@command("timeout", "nohup", "nice", "ionice", "time", unlocked=True)
def runner(ctx: Ctx) -> int:
    args = list(ctx.args)
    if ctx.name == "timeout":
        while args and args[0].startswith("-"):
            opt = args.pop(0)
            if opt in ("-s", "-k") and args:
                args.pop(0)
        if not args:
            return ctx.fail("Needs 2 arguments")
        args.pop(0)  # the duration: commands here never block on the logical clock
    elif ctx.name in ("nice", "ionice"):
        while args and args[0].startswith("-"):
            opt = args.pop(0)
            if opt in ("-n", "-c") and args:
                args.pop(0)
    if not args:
        return 0
    return ctx.run(args)



@command("xargs", unlocked=True)
def xargs(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "n:0d:I:trpE:s:x", stop_at_operand=True)
    template = operands or ["echo"]
    data = ctx.read_stdin().decode("utf-8", "surrogateescape")
    if opts.get("0"):
        items = [x for x in data.split("\0") if x]
    elif "d" in opts:
        items = [x for x in data.split(opts["d"]) if x]
    elif "I" in opts:
        items = [x for x in data.split("\n") if x.strip()]
    else:
        items = re.findall(r"'[^']*'|\"[^\"]*\"|\S+", data)
        items = [x[1:-1] if x[:1] in "'\"" and x[-1:] == x[:1] and len(x) > 1 else x for x in items]
    if "I" in opts:
        batches = [[a.replace(opts["I"], item) for a in template] for item in items]
    else:
        size = int(opts["n"]) if "n" in opts else max(len(items), 1)
        groups = [items[i:i + size] for i in range(0, len(items), size)] or ([[]] if not opts.get("r") else [])
        batches = [template + group for group in groups]
    status = 0
    for argv in batches:
        if opts.get("t"):
            ctx.ewrite(" ".join(argv) + "\n")
        rc = ctx.run(argv, stdin=Stdin(b""))
        if rc == 127:
            return 127
        if rc:
            status = 123
    return status
