"""``sed``: ``s///`` (flags g, p, i, N), ``d``, ``p``, ``q``, ``=`` with line, ``$`` and ``/regex/``
addresses and ranges; ``-n``, ``-e``, ``-f``, ``-E``/``-r`` and in-place ``-i``."""

from __future__ import annotations

import re
from collections.abc import Callable

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, encode, getopt
from emukit.vdevice.shell.commands.files import read_input
from emukit.vdevice.shell.commands.fsutil import stamp
from emukit.vdevice.shell.commands.grep import compile_pattern


# ---------------------------------------------------------------------------------------------- sed
class _SedCmd:
    def __init__(self, addr: list, cmd: str, arg: object = None) -> None:
        self.addr = addr
        self.cmd = cmd
        self.arg = arg
        self.active = False


def _sed_regex(script: str, i: int, delim: str) -> tuple[str, int]:
    out = []
    while i < len(script) and script[i] != delim:
        if script[i] == "\\" and i + 1 < len(script):
            out.append(script[i + 1] if script[i + 1] == delim else script[i:i + 2])
            i += 2
            continue
        out.append(script[i])
        i += 1
    if i >= len(script):
        raise UsageError(f"unterminated address regex '{script}'")
    return "".join(out), i + 1


def _replacement(rep: str) -> Callable[[re.Match[str]], str]:
    pieces: list[str | int] = []
    i = 0
    while i < len(rep):
        c = rep[i]
        if c == "\\" and i + 1 < len(rep):
            n = rep[i + 1]
            pieces.append(int(n) if n.isdigit() else {"n": "\n", "t": "\t"}.get(n, n))
            i += 2
        elif c == "&":
            pieces.append(0)
            i += 1
        else:
            pieces.append(c)
            i += 1
    return lambda m: "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)


def parse_sed(script: str, extended: bool) -> list[_SedCmd]:
    cmds: list[_SedCmd] = []
    i = 0
    while i < len(script):
        while i < len(script) and script[i] in " \t\n;":
            i += 1
        if i >= len(script):
            break
        addr: list = []
        for _ in range(2):
            if i < len(script) and script[i].isdigit():
                m = re.match(r"\d+", script[i:])
                addr.append(int(m.group()))  # type: ignore[union-attr]
                i += m.end()  # type: ignore[union-attr]
            elif i < len(script) and script[i] == "$":
                addr.append("$")
                i += 1
            elif i < len(script) and script[i] in "/\\":
                delim = "/"
                if script[i] == "\\":
                    delim = script[i + 1]
                    i += 1
                text, i = _sed_regex(script, i + 1, delim)
                addr.append(compile_pattern(text, extended, False, False))
            else:
                break
            if i < len(script) and script[i] == ",":
                i += 1
                continue
            break
        while i < len(script) and script[i] in " \t":
            i += 1
        if i >= len(script):
            raise UsageError("missing command")
        cmd = script[i]
        i += 1
        if cmd == "s":
            delim = script[i]
            regex, i = _sed_regex(script, i + 1, delim)
            rep, i = _sed_regex(script, i, delim)
            m = re.match(r"[gpiI0-9]*", script[i:])
            flags = m.group() if m else ""
            i += len(flags)
            nth = int(re.sub(r"\D", "", flags) or 0)
            rx = compile_pattern(regex, extended, False, "i" in flags or "I" in flags)
            cmds.append(_SedCmd(addr, "s", (rx, _replacement(rep), "g" in flags, nth, "p" in flags)))
        elif cmd in "dpq=":
            cmds.append(_SedCmd(addr, cmd))
        else:
            raise UsageError(f"unsupported command '{cmd}'")
    return cmds


def _addr_match(a: object, line_no: int, last: bool, text: str) -> bool:
    if a == "$":
        return last
    if isinstance(a, int):
        return line_no == a
    return bool(a.search(text))  # type: ignore[attr-defined]


def _sed_applies(c: _SedCmd, line_no: int, last: bool, text: str) -> bool:
    if not c.addr:
        return True
    if len(c.addr) == 1:
        return _addr_match(c.addr[0], line_no, last, text)
    if c.active:
        end = c.addr[1]
        done = line_no >= end if isinstance(end, int) else _addr_match(end, line_no, last, text)
        if done:
            c.active = False
        return True
    if _addr_match(c.addr[0], line_no, last, text):
        end = c.addr[1]
        c.active = not (isinstance(end, int) and end <= line_no)
        return True
    return False


def _nth_replacer(rep: Callable[[re.Match[str]], str], nth: int) -> Callable[[re.Match[str]], str]:
    """Replace every match (``nth == 0``) or only the nth one."""
    seen = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal seen
        seen += 1
        return rep(m) if (nth == 0 or seen == nth) else m.group()

    return sub


def run_sed(cmds: list[_SedCmd], text: str, quiet: bool) -> str:
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines.pop()
    out: list[str] = []
    for no, line in enumerate(lines, 1):
        last = no == len(lines)
        deleted = False
        quit_now = False
        for c in cmds:
            if not _sed_applies(c, no, last, line):
                continue
            if c.cmd == "d":
                deleted = True
                break
            if c.cmd == "p":
                out.append(line)
            elif c.cmd == "=":
                out.append(str(no))
            elif c.cmd == "q":
                quit_now = True
                break
            elif c.cmd == "s":
                rx, rep, glob, nth, pflag = c.arg  # type: ignore[misc]
                new, n = rx.subn(_nth_replacer(rep, nth), line, count=0 if (glob or nth) else 1)
                if n:
                    line = new
                    if pflag:
                        out.append(line)
        if not deleted and not quiet:
            out.append(line)
        if quit_now:
            break
    result = "".join(line + "\n" for line in out)
    if result and not trailing:
        result = result[:-1]
    return result


@command("sed")
def sed(ctx: Ctx) -> int:
    args = list(ctx.args)
    in_place = None
    for idx, arg in enumerate(args):
        if arg.startswith("-i") and not arg.startswith("--"):
            in_place = arg[2:]
            args[idx] = "-I"
    opts, operands = getopt(ctx, args, "nIEre:f:s", multi="ef")
    scripts = list(opts.get("e", []))
    for path in opts.get("f", []):
        scripts.append(read_input(ctx, path).decode())
    if not scripts:
        if not operands:
            return ctx.fail("Needs 1 argument")
        scripts.append(operands.pop(0))
    cmds = parse_sed("\n".join(scripts), bool(opts.get("E") or opts.get("r")))
    quiet = bool(opts.get("n"))
    if in_place is not None:
        status = 0
        for path in operands:
            try:
                text = read_input(ctx, path).decode("utf-8", "surrogateescape")
                for c in cmds:
                    c.active = False
                ctx.fs.write_bytes(path, encode(run_sed(cmds, text, quiet)), ctx.cwd)
                stamp(ctx.device, ctx.fs.host(path, ctx.cwd))
            except OSError as exc:
                ctx.oserror(path, exc)
                status = 1
        return status
    chunks = []
    status = 0
    for path in operands or ["-"]:
        try:
            chunks.append(read_input(ctx, path).decode("utf-8", "surrogateescape"))
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    ctx.write(run_sed(cmds, "".join(chunks), quiet))
    return status
