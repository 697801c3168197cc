"""Text processing: wc, head, tail, tee, sort, uniq, tr, cut, seq, base64."""

from __future__ import annotations

import base64 as b64
import re

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, encode, getopt
from emukit.vdevice.shell.commands.files import read_input
from emukit.vdevice.shell.commands.fsutil import stamp
from emukit.vdevice.shell.commands.text import _decode, unescape


@command("wc")
def wc(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "lwcm")
    which = [k for k in "lwcm" if opts.get(k)] or ["l", "w", "c"]
    status = 0
    rows: list[tuple[list[int], str]] = []
    totals = [0, 0, 0, 0]
    for path in paths or ["-"]:
        try:
            data = read_input(ctx, path)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
            continue
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                  "m": len(_decode(data))}
        row = [counts[k] for k in which]
        totals = [t + v for t, v in zip(totals, row + [0] * 4)]
        rows.append((row, "" if path == "-" and not paths else path))
    if len(rows) > 1:
        rows.append((totals[:len(which)], "total"))
    space = 7 if len(rows) > 1 else 0
    for row, name in rows:
        line = " ".join(f"{v:>{space}}" for v in row)
        ctx.write(line + (" " + name if name else "") + "\n")
    return status


def _count_arg(ctx: Ctx, args: list[str]) -> tuple[dict, list[str]]:
    """head/tail accept the historic ``-N`` form."""
    fixed = []
    for arg in args:
        fixed.extend(["-n", arg[1:]] if re.fullmatch(r"-\d+", arg) else [arg])
    return getopt(ctx, fixed, "n:c:qvfF")


@command("head")
def head(ctx: Ctx) -> int:
    opts, paths = _count_arg(ctx, ctx.args)
    return _head_tail(ctx, opts, paths, tail=False)


@command("tail")
def tail(ctx: Ctx) -> int:
    opts, paths = _count_arg(ctx, ctx.args)
    return _head_tail(ctx, opts, paths, tail=True)


def _head_tail(ctx: Ctx, opts: dict, paths: list[str], tail: bool) -> int:
    spec = opts.get("c", opts.get("n", "10"))
    from_start = tail and spec.startswith("+")
    try:
        count = abs(int(spec))
    except ValueError:
        raise UsageError(f"Not integer '{spec}'") from None
    status = 0
    names = paths or ["-"]
    for i, path in enumerate(names):
        try:
            data = read_input(ctx, path)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
            continue
        if (len(names) > 1 and not opts.get("q")) or opts.get("v"):
            ctx.write(("\n" if i else "") + f"==> {path} <==\n")
        if "c" in opts:
            if from_start:
                chunk = data[max(count - 1, 0):]
            else:
                chunk = data[-count:] if tail and count else (b"" if tail else data[:count])
            ctx.write(chunk)
            continue
        lines = data.splitlines(keepends=True)
        if from_start:
            chosen = lines[max(count - 1, 0):]
        elif tail:
            chosen = lines[-count:] if count else []
        else:
            chosen = lines[:count]
        ctx.write(b"".join(chosen))
    return status


@command("tee")
def tee(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "ai")
    data = ctx.read_stdin()
    status = 0
    for path in paths:
        try:
            ctx.fs.write_bytes(path, data, ctx.cwd, append=bool(opts.get("a")))
            stamp(ctx.device, ctx.fs.host(path, ctx.cwd))
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    ctx.write(data)
    return status


def _lines(data: bytes) -> list[str]:
    return _decode(data).splitlines()


@command("sort")
def sort(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "rnufbk:t:ho:s")
    text: list[str] = []
    for path in paths or ["-"]:
        text.extend(_lines(read_input(ctx, path)))
    sep = opts.get("t")
    key_spec = opts.get("k")

    def key_text(line: str) -> str:
        if not key_spec:
            return line
        first, _, last = key_spec.partition(",")
        start = int(re.match(r"\d+", first).group()) if re.match(r"\d+", first) else 1  # type: ignore
        end = int(re.match(r"\d+", last).group()) if last and re.match(r"\d+", last) else None  # type: ignore
        fields = line.split(sep) if sep else line.split()
        chosen = fields[start - 1:end]
        return (sep or " ").join(chosen)

    def key(line: str):  # noqa: ANN202 - mixed key types
        k = key_text(line)
        if opts.get("b"):
            k = k.lstrip()
        if opts.get("n"):
            m = re.match(r"\s*[-+]?\d*\.?\d+", k)
            return (float(m.group()) if m else 0.0, line)
        return (k.lower(), line) if opts.get("f") else (k, line)

    result = sorted(text, key=key, reverse=bool(opts.get("r")))
    if opts.get("u"):
        unique: list[str] = []
        seen: set = set()
        for line in result:
            k = key(line)[0]
            if k not in seen:
                seen.add(k)
                unique.append(line)
        result = unique
    out = "".join(line + "\n" for line in result)
    if "o" in opts:
        ctx.fs.write_bytes(opts["o"], encode(out), ctx.cwd)
        return 0
    ctx.write(out)
    return 0


@command("uniq")
def uniq(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "cdui")
    lines = _lines(read_input(ctx, paths[0] if paths else "-"))
    groups: list[list[str]] = []
    for line in lines:
        same = groups and ((groups[-1][0].lower() == line.lower()) if opts.get("i") else groups[-1][0] == line)
        if same:
            groups[-1].append(line)
        else:
            groups.append([line])
    out = []
    for group in groups:
        if opts.get("d") and len(group) < 2 or opts.get("u") and len(group) > 1:
            continue
        out.append(f"{len(group):7d} {group[0]}" if opts.get("c") else group[0])
    ctx.write("".join(line + "\n" for line in out))
    return 0


_CLASSES = {"upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz",
            "digit": "0123456789", "space": " \t\n\r\v\f", "blank": " \t",
            "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"}
_CLASSES["alpha"] = _CLASSES["upper"] + _CLASSES["lower"]
_CLASSES["alnum"] = _CLASSES["alpha"] + _CLASSES["digit"]


def _tr_set(spec: str) -> str:
    spec = _decode(unescape(spec, octal_needs_zero=False)[0])
    for name, chars in _CLASSES.items():
        spec = spec.replace(f"[:{name}:]", chars)
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


@command("tr")
def tr(ctx: Ctx) -> int:
    opts, sets = getopt(ctx, ctx.args, "dscC")
    if not sets:
        return ctx.fail("Needs 1 argument")
    text = _decode(ctx.read_stdin())
    set1 = _tr_set(sets[0])
    set2 = _tr_set(sets[1]) if len(sets) > 1 else ""
    complement = opts.get("c") or opts.get("C")
    in1 = (lambda ch: ch not in set1) if complement else (lambda ch: ch in set1)
    if opts.get("d"):
        text = "".join(ch for ch in text if not in1(ch))
    elif set2:
        if complement:
            text = "".join(set2[-1] if in1(ch) else ch for ch in text)
        else:
            table = {ord(a): (set2[i] if i < len(set2) else set2[-1]) for i, a in enumerate(set1)}
            text = text.translate(table)
    if opts.get("s"):
        squeeze = set2 or set1
        out: list[str] = []
        for ch in text:
            if out and out[-1] == ch and ch in squeeze:
                continue
            out.append(ch)
        text = "".join(out)
    ctx.write(text)
    return 0


def _ranges(spec: str) -> list[tuple[int, int | None]]:
    out: list[tuple[int, int | None]] = []
    for item in spec.split(","):
        if not re.fullmatch(r"\d*-?\d*", item) or item in ("", "-"):
            raise UsageError(f"bad list '{spec}'")
        if "-" in item:
            a, b = item.split("-", 1)
            out.append((int(a or 1), int(b) if b else None))
        else:
            out.append((int(item), int(item)))
    return out


def _pick(items: list[str], ranges: list[tuple[int, int | None]]) -> list[str]:
    return [x for i, x in enumerate(items, 1) if any(a <= i and (b is None or i <= b) for a, b in ranges)]


@command("cut")
def cut(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "d:f:c:b:s")
    lines: list[str] = []
    for path in paths or ["-"]:
        lines.extend(_lines(read_input(ctx, path)))
    out = []
    if "f" in opts:
        sep = opts.get("d", "\t")
        ranges = _ranges(opts["f"])
        for line in lines:
            if sep not in line:
                if not opts.get("s"):
                    out.append(line)
                continue
            out.append(sep.join(_pick(line.split(sep), ranges)))
    elif "c" in opts or "b" in opts:
        ranges = _ranges(opts.get("c") or opts["b"])
        out = ["".join(_pick(list(line), ranges)) for line in lines]
    else:
        return ctx.fail("Needs -fcb")
    ctx.write("".join(line + "\n" for line in out))
    return 0


@command("seq")
def seq(ctx: Ctx) -> int:
    opts, nums = getopt(ctx, ctx.args, "s:wf:")
    try:
        values = [int(n) for n in nums]
    except ValueError:
        return ctx.fail(f"Not integer '{nums}'")
    if not 1 <= len(values) <= 3:
        return ctx.fail("Needs 1-3 arguments")
    first, step, last = (1, 1, values[0]) if len(values) == 1 else (
        (values[0], 1, values[1]) if len(values) == 2 else tuple(values))
    if step == 0:
        return ctx.fail("Step can't be zero")
    items = [str(v) for v in range(first, last + (1 if step > 0 else -1), step)][:1_000_000]
    if opts.get("w") and items:
        width = max(len(i) for i in items)
        items = [i.zfill(width) for i in items]
    if items:
        ctx.write(opts.get("s", "\n").join(items) + "\n")
    return 0


@command("base64")
def base64(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "diw:")
    data = read_input(ctx, paths[0] if paths else "-")
    if opts.get("d"):
        try:
            ctx.write(b64.b64decode(b"".join(data.split()), validate=False))
        except ValueError:
            return ctx.fail("bad input")
        return 0
    encoded = b64.b64encode(data).decode()
    width = int(opts.get("w", "76"))
    if width:
        encoded = "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))
    ctx.write(encoded + "\n" if encoded else "")
    return 0
