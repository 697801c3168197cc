"""File commands that create, remove and read device files: cat, mkdir, rm, rmdir, touch, chmod (and
chown, chgrp, chcon, restorecon: validated no-ops), sync and the hash sums (md5sum, sha1sum, sha256sum...).

Every path goes through ``device.fs``; removal never follows a symlink, so nothing outside the device root
is touched even by ``rm -rf /``.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re

from emukit.vdevice.shell.commands.base import Ctx, command, getopt
from emukit.vdevice.shell.commands.fsutil import (
    inside_root,
    now_ns,
    remove_tree,
    stamp,
    stamp_new,
)


def read_input(ctx: Ctx, path: str) -> bytes:
    """Contents of a file operand (``-`` is stdin); raises OSError like the real open/read."""
    if path == "-":
        return ctx.read_stdin()
    norm = ctx.fs.normalize(path, ctx.cwd)
    if norm in ("/dev/null", "/dev/zero"):
        return b""
    if norm == "/dev/stdin":
        return ctx.read_stdin()
    return ctx.fs.read_bytes(norm)


def _err_no(errno_: int, msg: str) -> OSError:
    return OSError(errno_, msg)


@command("cat")
def cat(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "uvnAet")
    status = 0
    line_no = 0
    for path in paths or ["-"]:
        try:
            data = read_input(ctx, path)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
            continue
        if opts.get("n"):
            lines = data.splitlines(keepends=True)
            numbered = []
            for line in lines:
                line_no += 1
                numbered.append(f"{line_no:6d}\t".encode() + line)
            data = b"".join(numbered)
        ctx.write(data)
    return status


@command("mkdir")
def mkdir(ctx: Ctx) -> int:
    opts, dirs = getopt(ctx, ctx.args, "pvm:Z:")
    if not dirs:
        return ctx.fail("Needs 1 argument")
    status = 0
    for path in dirs:
        try:
            host = ctx.fs.host(path, ctx.cwd)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
            continue
        if os.path.lexists(host):
            if opts.get("p") and host.is_dir():
                continue
            ctx.error(f"{path}: File exists")
            status = 1
            continue
        if opts.get("p"):
            missing = [host] + [p for p in host.parents if not p.exists() and inside_root(ctx.device, p)]
            try:
                host.mkdir(parents=True)
            except OSError as exc:
                ctx.oserror(path, exc)
                status = 1
                continue
            for created in reversed(missing):
                stamp_new(ctx.device, created)
            continue
        if not host.parent.is_dir():
            ctx.error(f"{path}: No such file or directory")
            status = 1
            continue
        host.mkdir()
        stamp_new(ctx.device, host)
    return status


@command("rm")
def rm(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "fiRrvd")
    recursive = opts.get("r") or opts.get("R")
    force = opts.get("f")
    if not paths and not force:
        return ctx.fail("Needs 1 argument")
    status = 0
    for path in paths:
        try:
            follow = path.endswith(("/", "/."))
            host = ctx.fs.resolve(path, ctx.cwd, follow=follow).host_path
        except OSError as exc:
            if not force:
                ctx.oserror(path, exc)
                status = 1
            continue
        if not inside_root(ctx.device, host):  # cannot happen: defence in depth
            ctx.error(f"{path}: Permission denied")
            status = 1
            continue
        if not os.path.lexists(host):
            if not force:
                ctx.error(f"{path}: No such file or directory")
                status = 1
            continue
        try:
            tree = False
            if host.is_symlink() or not host.is_dir():
                os.unlink(host)
            elif not recursive and not opts.get("d"):
                ctx.error(f"{path}: Is a directory")
                status = 1
                continue
            elif host == ctx.fs.root:
                for child in sorted(host.iterdir()):
                    if child.is_dir() and not child.is_symlink():
                        remove_tree(child)
                    else:
                        os.unlink(child)
            elif opts.get("d") and not recursive:
                os.rmdir(host)
            else:
                remove_tree(host)
                tree = True
            if host != ctx.fs.root:
                stamp(ctx.device, host.parent)
                # unlinks through the FUSE mount when in shared storage
                ctx.device.media.fuse_unlinked(ctx.fs.device_path_of(host), tree=tree)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    return status


@command("rmdir")
def rmdir(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "p")
    if not paths:
        return ctx.fail("Needs 1 argument")
    status = 0
    for path in paths:
        targets = [path]
        if opts.get("p"):
            cur = path.rstrip("/")
            while "/" in cur.strip("/"):
                cur = posixpath.dirname(cur)
                targets.append(cur)
        for target in targets:
            try:
                host = ctx.fs.host(target, ctx.cwd, follow=False)
                if not os.path.lexists(host):
                    raise _err_no(2, "No such file or directory")
                if host.is_symlink() or not host.is_dir():
                    raise _err_no(20, "Not a directory")
                if host == ctx.fs.root:
                    raise _err_no(16, "Device or resource busy")
                os.rmdir(host)
                stamp(ctx.device, host.parent)
            except OSError as exc:
                ctx.oserror(target, exc)
                status = 1
                break
    return status


@command("touch")
def touch(ctx: Ctx) -> int:
    opts, paths = getopt(ctx, ctx.args, "acmhd:t:r:")
    if not paths:
        return ctx.fail("Needs 1 argument")
    ns = now_ns(ctx.device)
    try:
        if "d" in opts:
            from emukit.vdevice.shell.commands.datecmd import parse_date
            ns = int(parse_date(ctx.device, opts["d"]) * 1_000_000_000)
        elif "t" in opts:
            from emukit.vdevice.shell.commands.datecmd import parse_touch_stamp
            ns = int(parse_touch_stamp(ctx.device, opts["t"]) * 1_000_000_000)
        elif "r" in opts:
            ns = ctx.fs.stat(opts["r"], ctx.cwd).st_mtime_ns
    except (ValueError, OSError) as exc:
        return ctx.fail(f"bad date/reference: {exc}")
    status = 0
    for path in paths:
        try:
            host = ctx.fs.host(path, ctx.cwd)
            if not host.exists():
                if opts.get("c"):
                    continue
                if not host.parent.is_dir():
                    raise _err_no(2, "No such file or directory")
                host.touch()
                stamp(ctx.device, host.parent)
            stamp(ctx.device, host, ns=ns)
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    return status


_MODE_RE = re.compile(r"^([0-7]{1,4}|([ugoa]*[-+=][rwxXstugo]*)(,[ugoa]*[-+=][rwxXstugo]*)*)$")


@command("chmod", "chown", "chgrp", "chcon", "restorecon")
def chmod(ctx: Ctx) -> int:
    """Permissions are not modelled: validate arguments and paths, change nothing."""
    _, operands = getopt(ctx, ctx.args, "RfvhHLPD")
    need = 1 if ctx.name == "restorecon" else 2
    if len(operands) < need:
        return ctx.fail(f"Needs {need} arguments")
    if ctx.name == "chmod" and not _MODE_RE.match(operands[0]):
        return ctx.fail(f"bad mode '{operands[0]}'")
    status = 0
    for path in operands[need - 1:]:
        try:
            if not ctx.fs.resolve(path, ctx.cwd).exists() and not ctx.fs.is_virtual(path):
                raise _err_no(2, "No such file or directory")
        except OSError as exc:
            ctx.oserror(path, exc)
            status = 1
    return status


@command("sync")
def sync(ctx: Ctx) -> int:
    return 0


def _hash_command(algo: str):
    def run(ctx: Ctx) -> int:
        opts, paths = getopt(ctx, ctx.args, "bc")
        status = 0
        for path in paths or ["-"]:
            try:
                digest = hashlib.new(algo, read_input(ctx, path)).hexdigest()
            except OSError as exc:
                ctx.oserror(path, exc)
                status = 1
                continue
            ctx.write(digest + "\n" if opts.get("b") else f"{digest}  {path}\n")
        return status

    run.__doc__ = f"{algo}sum: print the {algo} digest of each file."
    return run


for _algo in ("md5", "sha1", "sha224", "sha256", "sha384", "sha512"):
    command(f"{_algo}sum")(_hash_command(_algo))
