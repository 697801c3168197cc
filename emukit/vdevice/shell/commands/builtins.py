"""Shell builtins: true, false, :, cd, pwd, exit, export, unset, set, read, shift, break, continue, eval,
., exec, umask, wait, trap, alias, ulimit."""

from __future__ import annotations

import re

from emukit.vdevice.shell.commands.base import Ctx, command
from emukit.vdevice.shell.commands.files import read_input

SHELL_ONLY = {"cd", "exit", "export", "unset", "set", "read", "shift", "break", "continue", "eval", ".",
              "source", "exec", "alias", "wait", "trap", "umask", "local", "ulimit", "command", "type", ":"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


def _interp():  # late import: interp imports this package
    from emukit.vdevice.shell import interp
    return interp


@command("true", ":")
def true_(ctx: Ctx) -> int:
    return 0


@command("false")
def false_(ctx: Ctx) -> int:
    return 1


@command("pwd")
def pwd(ctx: Ctx) -> int:
    path = ctx.cwd
    if "-P" in ctx.args:
        path = ctx.fs.resolve(path).device_path
    ctx.write(path + "\n")
    return 0


@command("cd")
def cd(ctx: Ctx) -> int:
    args = [a for a in ctx.args if a not in ("-L", "-P")]
    shell = ctx.shell
    target = args[0] if args else (shell.get_var("HOME") or "/")
    if target == "-":
        target = shell.get_var("OLDPWD") or shell.cwd
        ctx.write(target + "\n")
    try:
        host = ctx.fs.host(target, shell.cwd)
    except OSError as exc:
        return ctx.fail(f"{target}: {exc.strerror}", 2)
    if not host.exists():
        return ctx.fail(f"{target}: No such file or directory", 2)
    if not host.is_dir():
        return ctx.fail(f"{target}: Not a directory", 2)
    shell.set_var("OLDPWD", shell.cwd)
    shell.cwd = ctx.fs.normalize(target, shell.cwd)
    shell.set_var("PWD", shell.cwd)
    return 0


@command("exit")
def exit_(ctx: Ctx) -> int:
    status = ctx.shell.status
    if ctx.args:
        try:
            status = int(ctx.args[0]) & 0xFF
        except ValueError:
            return ctx.fail(f"{ctx.args[0]}: bad number")
    raise _interp().ExitShell(status)


@command("export", "local", "readonly", "typeset")
def export(ctx: Ctx) -> int:
    shell = ctx.shell
    args = [a for a in ctx.args if not a.startswith("-")]
    if not args:
        for name in sorted(shell.exported):
            if name in shell.vars:
                ctx.write(f"export {name}={_quote(shell.vars[name])}\n")
        return 0
    for arg in args:
        name, eq, value = arg.partition("=")
        if not _NAME.match(name):
            return ctx.fail(f"{name}: is not an identifier")
        if eq:
            shell.set_var(name, value)
        if ctx.name == "export":
            shell.exported.add(name)
        elif not eq and name not in shell.vars:
            shell.set_var(name, "")
    return 0


def _quote(value: str) -> str:
    return value if re.fullmatch(r"[A-Za-z0-9_./:,=+-]*", value) else "'" + value.replace("'", "'\\''") + "'"


@command("unset")
def unset(ctx: Ctx) -> int:
    for name in ctx.args:
        if name in ("-v", "-f"):
            continue
        ctx.shell.vars.pop(name, None)
        ctx.shell.exported.discard(name)
    return 0


@command("set")
def set_(ctx: Ctx) -> int:
    shell = ctx.shell
    if not ctx.args:
        for name in sorted(shell.vars):
            ctx.write(f"{name}={_quote(shell.vars[name])}\n")
        return 0
    args = list(ctx.args)
    while args and args[0][:1] in "-+" and args[0] != "--":
        opt = args.pop(0)
        if opt in ("-o", "+o") and args:
            args.pop(0)
    if args and args[0] == "--":
        args.pop(0)
        shell.params = args
    elif args:
        shell.params = args
    return 0


@command("shift")
def shift(ctx: Ctx) -> int:
    n = int(ctx.args[0]) if ctx.args else 1
    if n > len(ctx.shell.params):
        return ctx.fail("nothing to shift")
    ctx.shell.params = ctx.shell.params[n:]
    return 0


@command("break", "continue")
def loop_control(ctx: Ctx) -> int:
    levels = int(ctx.args[0]) if ctx.args and ctx.args[0].isdigit() else 1
    raise _interp().LoopControl(ctx.name, max(levels, 1))


@command("read")
def read(ctx: Ctx) -> int:
    args = list(ctx.args)
    raw = False
    while args and args[0].startswith("-"):
        opt = args.pop(0)
        raw = raw or "r" in opt
        if opt in ("-p", "-t", "-u", "-n", "-d") and args:
            args.pop(0)
    names = args or ["REPLY"]
    data = ctx.stdin.readline()
    if not data:
        for name in names:
            ctx.shell.set_var(name, "")
        return 1
    line = data.decode("utf-8", "surrogateescape").rstrip("\n")
    if not raw:
        line = re.sub(r"\\(.)", r"\1", line)
    if names == ["REPLY"] and not args:
        ctx.shell.set_var("REPLY", line)
        return 0
    fields = line.strip(" \t").split(None, len(names) - 1) if line.strip() else []
    for i, name in enumerate(names):
        ctx.shell.set_var(name, fields[i] if i < len(fields) else "")
    return 0


@command("eval", unlocked=True)
def evaluate_words(ctx: Ctx) -> int:
    return ctx.shell.run_here(" ".join(ctx.args), ctx.stdin, ctx.out, ctx.err)


@command(".", "source", unlocked=True)
def source(ctx: Ctx) -> int:
    if not ctx.args:
        return ctx.fail("missing argument")
    try:
        text = read_input(ctx, ctx.args[0]).decode("utf-8", "surrogateescape")
    except OSError as exc:
        return ctx.fail(f"{ctx.args[0]}: {exc.strerror}")
    return ctx.shell.run_here(text, ctx.stdin, ctx.out, ctx.err)


@command("exec", unlocked=True)
def exec_replace(ctx: Ctx) -> int:
    if not ctx.args:
        return 0
    raise _interp().ExitShell(ctx.run(list(ctx.args)))


@command("umask")
def umask(ctx: Ctx) -> int:
    if not ctx.args:
        ctx.write("0077\n")
    return 0


@command("wait", "trap", "alias", "unalias", "hash")
def noop(ctx: Ctx) -> int:
    return 0


@command("ulimit")
def ulimit(ctx: Ctx) -> int:
    ctx.write("unlimited\n")
    return 0
