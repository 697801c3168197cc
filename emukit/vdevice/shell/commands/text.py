"""Text commands: echo, printf, wc, head, tail, tee, sort, uniq, tr, cut, seq, base64."""

from __future__ import annotations

import re

from emukit.vdevice.shell.commands.base import Ctx, command, encode

_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                   "\\": "\\"}


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def unescape(text: str, octal_needs_zero: bool = True) -> tuple[bytes, bool]:
    """Process backslash escapes (echo -e / printf) into bytes; ``stop`` is True after ``\\c``.

    Literal text is UTF-8; ``\\xHH`` and octal escapes produce raw bytes.
    """
    out = bytearray()
    i = 0
    while i < len(text):
        j = text.find("\\", i)
        if j < 0 or j + 1 >= len(text):
            out += encode(text[i:])
            break
        out += encode(text[i:j])
        nxt = text[j + 1]
        i = j + 2
        if nxt in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[nxt].encode()
        elif nxt == "c":
            return bytes(out), True
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", text[i:])
            if m:
                out.append(int(m.group(), 16))
                i += m.end()
            else:
                out += b"\\x"
        elif nxt == "0" or (nxt in "1234567" and not octal_needs_zero):
            start = i if nxt == "0" and octal_needs_zero else i - 1
            m = re.match(r"[0-7]{1,3}", text[start:])
            out.append(int(m.group(), 8) & 0xFF if m else 0)
            i = start + (m.end() if m else 0)
        else:
            out += encode("\\" + nxt)
    return bytes(out), False


@command("echo")
def echo(ctx: Ctx) -> int:
    args = list(ctx.args)
    newline = True
    escapes = not ctx.via_path  # mksh's builtin interprets escapes; toybox echo needs -e
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)
        newline = newline and "n" not in flags
        for f in flags[1:]:
            if f in "eE":
                escapes = f == "e"
    text = " ".join(args)
    if escapes:
        data, stop = unescape(text)
        ctx.write(data + (b"\n" if newline and not stop else b""))
        return 0
    ctx.write(text + ("\n" if newline else ""))
    return 0


_FMT_RE = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?([diouxXeEfgGcsb%])")


def _to_number(ctx: Ctx, arg: str, integer: bool) -> int | float:
    if len(arg) >= 2 and arg[0] in "'\"":
        return ord(arg[1])
    try:
        if integer:
            return int(arg, 0) if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+", arg) else int(arg or "0")
        return float(arg or "0")
    except ValueError:
        ctx.error(f"invalid number '{arg}'")
        ctx.shell.status = 1
        return 0


@command("printf")
def printf(ctx: Ctx) -> int:
    if not ctx.args:
        return ctx.fail("Needs 1 argument")
    fmt, args = ctx.args[0], list(ctx.args[1:])
    out = bytearray()
    ctx.shell.status = 0
    while True:
        used = 0
        pos = 0
        for m in _FMT_RE.finditer(fmt):
            data, stop = unescape(fmt[pos:m.start()], octal_needs_zero=False)
            out += data
            if stop:
                ctx.write(bytes(out))
                return 0
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out += b"%"
                continue
            if width == "*":
                width = str(_to_number(ctx, args[used] if used < len(args) else "0", True))
                used += 1
            if prec == "*":
                prec = str(_to_number(ctx, args[used] if used < len(args) else "0", True))
                used += 1
            arg = args[used] if used < len(args) else None
            used += 1
            spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
            if conv == "s":
                out += encode((spec + "s") % (arg or ""))
            elif conv == "b":
                data, _ = unescape(arg or "", octal_needs_zero=True)
                out += encode(spec + "s") % data
            elif conv == "c":
                out += encode((spec + "s") % ((arg or "")[:1]))
            elif conv in "diouxX":
                value = int(_to_number(ctx, arg, True)) if arg is not None else 0
                out += ((spec + ("d" if conv in "iu" else conv)) % value).encode()
            else:
                value = _to_number(ctx, arg, False) if arg is not None else 0.0
                out += ((spec + conv) % value).encode()
        data, stop = unescape(fmt[pos:], octal_needs_zero=False)
        out += data
        if stop or used == 0 or used >= len(args):
            break
        args = args[used:]
    ctx.write(bytes(out))
    return ctx.shell.status




