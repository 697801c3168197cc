"""Listing and metadata commands in toybox formats: ls, stat, du."""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat as stat_mod
from dataclasses import dataclass
from pathlib import Path

from emukit.vdevice.shell.commands.base import Ctx, command, getopt
from emukit.vdevice.shell.commands.fsutil import (
    file_type,
    fmt_time,
    id_name,
    kblocks,
    mode_of,
    nlink,
    owner,
    shown_size,
)


@dataclass
class Entry:
    """One listed file: the name to print, its device path, host path and lstat (or stat) result."""

    name: str
    device_path: str
    host: Path
    st: os.stat_result


def human(n: float) -> str:
    if n < 1024:
        return str(int(n))
    for suffix in "KMGTPE":
        n /= 1024
        if n < 1024 or suffix == "E":
            return f"{n:.1f}{suffix}" if n < 10 else f"{int(round(n))}{suffix}"
    return str(n)


def entry_for(ctx: Ctx, display: str, path: str, follow: bool) -> Entry:
    """Resolve a path operand to an :class:`Entry` (virtual files included); raises OSError."""
    fs = ctx.fs
    norm = fs.normalize(path, ctx.cwd)
    last = path.rstrip("/").rsplit("/", 1)[-1]
    follow = follow or (path.endswith("/") and norm != "/") or last in (".", "..")
    if norm in fs.virtual:
        return Entry(display, norm, fs.root / norm.lstrip("/"), fs.stat(norm))
    res = fs.resolve(norm, follow=follow)
    st = os.stat(res.host_path) if follow else os.lstat(res.host_path)
    return Entry(display, res.device_path, res.host_path, st)


def _children(ctx: Ctx, parent: Entry, show_all: bool, almost_all: bool) -> list[Entry]:
    fs = ctx.fs
    out = []
    names = fs.listdir(parent.device_path)
    for name in names:
        if name.startswith(".") and not (show_all or almost_all):
            continue
        child_dev = posixpath.join(parent.device_path, name)
        try:
            out.append(entry_for(ctx, name, child_dev, follow=False))
        except OSError:
            continue
    if show_all:
        dot = Entry(".", parent.device_path, parent.host, parent.st)
        up_dev = posixpath.dirname(parent.device_path)
        up_host = parent.host.parent if parent.host != fs.root else fs.root
        out[:0] = [dot, Entry("..", up_dev, up_host, os.stat(up_host))]
    return out


def _sort(entries: list[Entry], opts: dict) -> list[Entry]:
    if opts.get("f"):
        return entries
    entries = sorted(entries, key=lambda e: e.name)
    if opts.get("t"):
        entries.sort(key=lambda e: -e.st.st_mtime_ns)
    elif opts.get("S"):
        entries.sort(key=lambda e: -shown_size(e.st))
    if opts.get("r"):
        entries.reverse()
    return entries


def _suffix(e: Entry, opts: dict) -> str:
    if opts.get("F"):
        if stat_mod.S_ISDIR(e.st.st_mode):
            return "/"
        if stat_mod.S_ISLNK(e.st.st_mode):
            return "@"
        if e.st.st_mode & 0o111:
            return "*"
    elif opts.get("p") and stat_mod.S_ISDIR(e.st.st_mode):
        return "/"
    return ""


def _format(ctx: Ctx, entries: list[Entry], opts: dict) -> list[str]:
    long = opts.get("l") or opts.get("n") or opts.get("g")
    if not long:
        prefix = (lambda e: f"{e.st.st_ino} ") if opts.get("i") else (lambda e: "")
        return [prefix(e) + e.name + _suffix(e, opts) for e in entries]
    rows = []
    for e in entries:
        mode = mode_of(e.device_path, e.st)
        uid, gid = owner(ctx.device, e.device_path)
        user = str(uid) if opts.get("n") else id_name(ctx.device, uid)
        group = str(gid) if opts.get("n") else id_name(ctx.device, gid)
        size = shown_size(e.st)
        name = e.name + _suffix(e, opts)
        if stat_mod.S_ISLNK(e.st.st_mode):
            with contextlib.suppress(OSError):
                name += " -> " + os.readlink(e.host)
        rows.append([stat_mod.filemode(mode), str(nlink(e.host, e.st)), user, group,
                     human(size) if opts.get("h") else str(size),
                     fmt_time(ctx.device, e.st.st_mtime, "%Y-%m-%d %H:%M"), name,
                     f"{e.st.st_ino} " if opts.get("i") else ""])
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for r in rows:
        owner_cols = f"{r[2]:<{widths[2]}} " if not opts.get("g") else ""
        lines.append(f"{r[7]}{r[0]} {r[1]:>{widths[1]}} {owner_cols}{r[3]:<{widths[3]}} "
                     f"{r[4]:>{widths[4]}} {r[5]} {r[6]}")
    return lines


@command("ls")
def ls(ctx: Ctx) -> int:
    args = [a for a in ctx.args if not a.startswith(("--color", "--full-time", "--group-directories"))]
    opts, paths = getopt(ctx, args, "lad1RAtrSnhFpigsZcuLHfCxk")
    long = opts.get("l") or opts.get("n") or opts.get("g")
    status = 0
    files: list[Entry] = []
    dirs: list[Entry] = []
    for path in paths or ["."]:
        follow = bool(opts.get("L") or opts.get("H") or path.endswith("/")
                      or not (long or opts.get("d") or opts.get("F")))
        try:
            entry = entry_for(ctx, path, path, follow)
        except OSError:
            try:  # a dangling symlink still lists
                entry = entry_for(ctx, path, path, False)
            except OSError as exc:
                ctx.oserror(path, exc)
                status = 1
                continue
        if stat_mod.S_ISDIR(entry.st.st_mode) and not opts.get("d"):
            dirs.append(entry)
        else:
            files.append(entry)
    out: list[str] = []
    sections = 0
    if files:
        out.extend(_format(ctx, _sort(files, opts), opts))
        sections += 1
    header = len(paths) > 1 or bool(files) or bool(opts.get("R"))
    queue = [(d.name, d) for d in sorted(dirs, key=lambda e: e.name)]
    while queue:
        display, entry = queue.pop(0)
        if sections:
            out.append("")
        sections += 1
        if header:
            out.append(f"{display}:")
        try:
            children = _sort(_children(ctx, entry, bool(opts.get("a")), bool(opts.get("A"))), opts)
        except OSError as exc:
            ctx.oserror(display, exc)
            status = 1
            continue
        if long:
            out.append(f"total {sum(kblocks(c.st) for c in children)}")
        out.extend(_format(ctx, children, opts))
        if opts.get("R"):
            subdirs = [(posixpath.join(display, c.name), c) for c in children
                       if stat_mod.S_ISDIR(c.st.st_mode) and c.name not in (".", "..")]
            queue[0:0] = subdirs
    if out:
        ctx.write("\n".join(out) + "\n")
    return status


_DEFAULT_STAT = ("  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t %F\n"
                 "Device: %Dh/%dd\t Inode: %i\t Links: %h\n"
                 "Access: (%04a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
                 "Access: %x\nModify: %y\nChange: %z\n")
_TERSE_STAT = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %o\n"


def stat_field(ctx: Ctx, e: Entry, spec: str) -> str:
    """Value of one ``stat -c`` conversion for an entry."""
    st = e.st
    mode = mode_of(e.device_path, st)
    uid, gid = owner(ctx.device, e.device_path)
    stamp = fmt_time(ctx.device, st.st_mtime, "%Y-%m-%d %H:%M:%S") + \
        f".{st.st_mtime_ns % 1_000_000_000:09d} " + fmt_time(ctx.device, st.st_mtime, "%z")
    values = {
        "n": e.name, "s": str(shown_size(st)), "b": str(kblocks(st) * 2), "B": "512", "o": "4096",
        "f": f"{mode:x}", "F": file_type(mode), "a": f"{mode & 0o7777:o}", "A": stat_mod.filemode(mode),
        "u": str(uid), "U": id_name(ctx.device, uid), "g": str(gid), "G": id_name(ctx.device, gid),
        "i": str(st.st_ino), "h": str(nlink(e.host, st)), "d": str(st.st_dev), "D": f"{st.st_dev:x}",
        "t": "0", "T": "0", "x": stamp, "y": stamp, "z": stamp, "w": "-", "W": "0",
        "X": str(int(st.st_mtime)), "Y": str(int(st.st_mtime)), "Z": str(int(st.st_mtime)),
        "m": "/", "C": "u:object_r:system_file:s0",
    }
    if spec == "N":
        if stat_mod.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError):
                return f"{e.name} -> {os.readlink(e.host)}"
        return e.name
    return values.get(spec, "?")


def format_stat(ctx: Ctx, e: Entry, fmt: str) -> str:
    out = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "\\" and i + 1 < len(fmt):
            out.append({"n": "\n", "t": "\t", "\\": "\\"}.get(fmt[i + 1], fmt[i + 1]))
            i += 2
            continue
        if c != "%" or i + 1 >= len(fmt):
            out.append(c)
            i += 1
            continue
        j = i + 1
        while j < len(fmt) and (fmt[j].isdigit() or fmt[j] == "-"):
            j += 1
        width = fmt[i + 1:j]
        spec = fmt[j] if j < len(fmt) else ""
        i = j + 1
        if spec == "%":
            out.append("%")
            continue
        value = stat_field(ctx, e, spec)
        if width:
            if width.startswith("0") and spec == "a":
                value = value.zfill(int(width))
            else:
                value = f"{value:>{int(width)}}" if not width.startswith("-") else f"{value:<{int(width[1:])}}"
        out.append(value)
    return "".join(out)


@command("stat")
def stat_cmd(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "c:LtF", long={"format": "c", "dereference": "L", "terse": "t"})
    if not paths:
        return ctx.fail("Needs 1 argument")
    fmt = opts["c"] + "\n" if "c" in opts else (_TERSE_STAT if opts.get("t") else _DEFAULT_STAT)
    status = 0
    for path in paths:
        try:
            entry = entry_for(ctx, path, path, bool(opts.get("L")))
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
            continue
        ctx.write(format_stat(ctx, entry, fmt))
    return status


@command("du")
def du(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "shkamcxlHLbd:")
    max_depth = int(opts["d"]) if "d" in opts else (0 if opts.get("s") else None)
    status = 0
    grand = 0
    lines: list[str] = []

    def show(n: int, name: str) -> None:
        lines.append(f"{human(n * 1024) if opts.get('h') else n}\t{name}")

    def visit(host: Path, name: str, depth: int) -> int:
        st = os.lstat(host)
        total = kblocks(st)
        within = max_depth is None or depth <= max_depth
        if stat_mod.S_ISDIR(st.st_mode):
            for child in sorted(os.listdir(host)):
                total += visit(host / child, posixpath.join(name, child), depth + 1)
            if within:
                show(total, name)
        elif depth == 0 or (opts.get("a") and within):
            show(total, name)
        return total

    for path in paths or ["."]:
        try:
            host = ctx.fs.host(path, ctx.cwd)
            if not host.exists():
                raise OSError(2, "No such file or directory")
            grand += visit(host, path, 0)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    if opts.get("c"):
        show(grand, "total")
    ctx.write("".join(line + "\n" for line in lines))
    return status
