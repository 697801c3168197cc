"""Copying, moving, linking and path commands: cp, mv, ln, readlink, realpath, basename, dirname.

Destination paths are always resolved as *device* paths (``device.fs``), so a device symlink can never
lead a write outside the device root; ``cp -r`` copies symlinks as links and never follows host links.
"""

from __future__ import annotations

import os
import posixpath
import stat as stat_mod
from pathlib import Path

from emukit.vdevice.shell.commands.base import Ctx, command, getopt
from emukit.vdevice.shell.commands.files import _err_no
from emukit.vdevice.shell.commands.fsutil import stamp, stamp_new


def _copy_file(ctx: Ctx, data: bytes, dst_dev: str, src_st: os.stat_result | None) -> None:
    host = ctx.fs.host(dst_dev)
    if host.is_dir():
        raise _err_no(21, "Is a directory")
    if not host.parent.is_dir():
        raise _err_no(2, "No such file or directory")
    is_new = not host.exists()
    with open(host, "wb") as fh:
        fh.write(data)
    if src_st is not None:
        stamp(ctx.device, host, ns=src_st.st_mtime_ns)
    else:
        stamp(ctx.device, host)
    if is_new:
        stamp(ctx.device, host.parent)
        ctx.device.media.fuse_created(ctx.fs.normalize(dst_dev, ctx.cwd))  # the FUSE mount's create


def _copy_tree(ctx: Ctx, src_host: Path, dst_dev: str, preserve: bool) -> None:
    """Copy a directory; symlinks are copied as links (their device-path targets verbatim)."""
    dst_host = ctx.fs.host(dst_dev)
    if os.path.lexists(dst_host) and not dst_host.is_dir():
        raise _err_no(17, "File exists")
    if not dst_host.exists():
        dst_host.mkdir()
        stamp_new(ctx.device, dst_host)
    with os.scandir(src_host) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        child_dev = posixpath.join(dst_dev, entry.name)
        st = entry.stat(follow_symlinks=False)
        if stat_mod.S_ISLNK(st.st_mode):
            link_host = ctx.fs.host(child_dev, follow=False)
            if os.path.lexists(link_host):
                os.unlink(link_host)
            os.symlink(os.readlink(entry.path), link_host)
        elif stat_mod.S_ISDIR(st.st_mode):
            _copy_tree(ctx, Path(entry.path), child_dev, preserve)
        elif stat_mod.S_ISREG(st.st_mode):
            with open(entry.path, "rb") as fh:
                data = fh.read()
            _copy_file(ctx, data, child_dev, st if preserve else None)
    if preserve:
        stamp(ctx.device, dst_host, ns=os.lstat(src_host).st_mtime_ns)


@command("cp")
def cp(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "rRafpdPLnvilsHFTu")
    if len(operands) < 2:
        return ctx.fail("Needs 2 arguments")
    recursive = opts.get("r") or opts.get("R") or opts.get("a")
    preserve = bool(opts.get("p") or opts.get("a"))
    *srcs, dest = operands
    fs = ctx.fs
    dest_norm = fs.normalize(dest, ctx.cwd)
    dest_is_dir = fs.host(dest_norm).is_dir()
    if len(srcs) > 1 and not dest_is_dir:
        return ctx.fail(f"'{dest}' not directory")
    status = 0
    for src in srcs:
        try:
            src_norm = fs.normalize(src, ctx.cwd)
            target = posixpath.join(dest_norm, posixpath.basename(src_norm) or "root") if dest_is_dir else dest_norm
            if src_norm in fs.virtual:
                _copy_file(ctx, fs.read_bytes(src_norm), target, None)
                continue
            src_host = fs.host(src_norm)
            if not src_host.exists():
                raise _err_no(2, "No such file or directory")
            if src_host.is_dir():
                if not recursive:
                    ctx.error(f"Skipped dir '{src}'")
                    status = 1
                    continue
                tgt_host = fs.host(target)
                if tgt_host == src_host or src_host in tgt_host.parents:
                    ctx.error(f"'{src}' is a parent of '{dest}'")
                    status = 1
                    continue
                _copy_tree(ctx, src_host, target, preserve)
            else:
                if opts.get("n") and fs.host(target).exists():
                    continue
                _copy_file(ctx, src_host.read_bytes(), target, os.stat(src_host) if preserve else None)
        except OSError as exc:
            ctx.oserror(src, exc)
            status = 1
    return status


@command("mv")
def mv(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "fivnT")
    if len(operands) < 2:
        return ctx.fail("Needs 2 arguments")
    *srcs, dest = operands
    fs = ctx.fs
    dest_norm = fs.normalize(dest, ctx.cwd)
    dest_is_dir = fs.host(dest_norm).is_dir() and not opts.get("T")
    if len(srcs) > 1 and not dest_is_dir:
        return ctx.fail(f"'{dest}' not directory")
    status = 0
    for src in srcs:
        try:
            src_host = fs.host(src, ctx.cwd, follow=False)
            if not os.path.lexists(src_host):
                raise _err_no(2, "No such file or directory")
            if src_host == fs.root:
                raise _err_no(16, "Device or resource busy")
            name = posixpath.basename(fs.normalize(src, ctx.cwd))
            target = posixpath.join(dest_norm, name) if dest_is_dir else dest_norm
            tgt_host = fs.host(target, follow=False)
            if tgt_host == src_host:
                continue
            if src_host.is_dir() and not src_host.is_symlink() and src_host in tgt_host.parents:
                ctx.error(f"'{src}' is a parent of '{dest}'")
                status = 1
                continue
            if opts.get("n") and os.path.lexists(tgt_host):
                continue
            if not tgt_host.parent.is_dir():
                raise _err_no(2, "No such file or directory")
            os.replace(src_host, tgt_host)
            stamp(ctx.device, src_host.parent)
            stamp(ctx.device, tgt_host.parent)
            ctx.device.media.fuse_renamed(fs.normalize(src, ctx.cwd), target)  # the FUSE mount's rename
        except OSError as exc:
            ctx.oserror(src, exc)
            status = 1
    return status


@command("ln")
def ln(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "sfnvT")
    if not operands:
        return ctx.fail("Needs 1 argument")
    if len(operands) == 1:
        operands.append(".")
    *targets, link = operands
    fs = ctx.fs
    link_norm = fs.normalize(link, ctx.cwd)
    link_is_dir = not opts.get("n") and not opts.get("T") and fs.host(link_norm).is_dir()
    status = 0
    for target in targets:
        dst = posixpath.join(link_norm, posixpath.basename(target.rstrip("/")) or "root") if link_is_dir \
            else link_norm
        try:
            host = fs.host(dst, follow=False)
            if os.path.lexists(host):
                if not opts.get("f") or (host.is_dir() and not host.is_symlink()):
                    raise _err_no(17, "File exists")
                os.unlink(host)
            if not host.parent.is_dir():
                raise _err_no(2, "No such file or directory")
            if opts.get("s"):
                os.symlink(target, host)
                stamp(ctx.device, host, follow=False)
            else:
                src = fs.host(target, ctx.cwd)
                if src.is_dir():
                    raise _err_no(1, "Operation not permitted")
                os.link(src, host)
            stamp(ctx.device, host.parent)
        except OSError as exc:
            ctx.oserror(dst if link_is_dir else link, exc)
            status = 1
    return status


@command("readlink")
def readlink(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "femnqsvz")
    if not paths:
        return ctx.fail("Needs 1 argument")
    status = 0
    for path in paths:
        try:
            if opts.get("f") or opts.get("e") or opts.get("m"):
                res = ctx.fs.resolve(path, ctx.cwd)
                if opts.get("e") and not res.exists():
                    status = 1
                    continue
                if opts.get("f") and not res.host_path.parent.exists():
                    status = 1
                    continue
                ctx.write(res.device_path + ("" if opts.get("n") else "\n"))
                continue
            host = ctx.fs.host(path, ctx.cwd, follow=False)
            if not host.is_symlink():
                status = 1
                continue
            ctx.write(os.readlink(host) + ("" if opts.get("n") else "\n"))
        except OSError:
            status = 1
    return status


@command("realpath")
def realpath(ctx: Ctx) -> int:
    _, paths = getopt(ctx, ctx.args, "sqLPe")
    status = 0
    for path in paths or ["."]:
        try:
            res = ctx.fs.resolve(path, ctx.cwd)
            if not res.exists() and res.device_path not in ctx.fs.virtual:
                raise _err_no(2, "No such file or directory")
            ctx.write(res.device_path + "\n")
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    return status


@command("basename")
def basename(ctx: Ctx) -> int:
    _, operands = getopt(ctx, ctx.args, "as:", stop_at_operand=True)
    if not operands:
        return ctx.fail("Needs 1 argument")
    name = operands[0].rstrip("/")
    base = posixpath.basename(name) if name else "/"
    if len(operands) > 1 and base != operands[1] and base.endswith(operands[1]):
        base = base[:-len(operands[1])]
    ctx.write(base + "\n")
    return 0


@command("dirname")
def dirname(ctx: Ctx) -> int:
    if not ctx.args:
        return ctx.fail("Needs 1 argument")
    for arg in ctx.args:
        path = arg.rstrip("/") or "/"
        if "/" not in path:
            ctx.write(".\n")
            continue
        parent = path.rsplit("/", 1)[0].rstrip("/") or "/"
        ctx.write(parent + "\n")
    return 0
