"""``test`` / ``[``: file tests over the device filesystem, string and integer comparisons, ``! -a -o ( )``."""

from __future__ import annotations

import re
import stat as stat_mod

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command


# ------------------------------------------------------------------------------------------ test
class _Test:
    def __init__(self, ctx: Ctx, args: list[str]) -> None:
        self.ctx = ctx
        self.args = args
        self.i = 0

    def run(self) -> bool:
        if not self.args:
            return False
        value = self.expr()
        if self.i != len(self.args):
            raise UsageError(f"{self.args[self.i]}: unexpected operator")
        return value

    def peek(self, off: int = 0) -> str | None:
        j = self.i + off
        return self.args[j] if j < len(self.args) else None

    def expr(self) -> bool:
        value = self.and_()
        while self.peek() == "-o":
            self.i += 1
            value = self.and_() or value
        return value

    def and_(self) -> bool:
        value = self.not_()
        while self.peek() == "-a":
            self.i += 1
            value = self.not_() and value
        return value

    def not_(self) -> bool:
        if self.peek() == "!" and self.peek(1) is not None:
            self.i += 1
            return not self.not_()
        return self.primary()

    def primary(self) -> bool:
        tok = self.peek()
        if tok is None:
            raise UsageError("argument expected")
        if tok == "(" and self.peek(2) == ")" or (tok == "(" and self.peek(1) not in _BINARY):
            self.i += 1
            value = self.expr()
            if self.peek() != ")":
                raise UsageError("')' expected")
            self.i += 1
            return value
        if self.peek(1) in _BINARY and self.peek(2) is not None:
            left, op, right = tok, self.args[self.i + 1], self.args[self.i + 2]
            self.i += 3
            return self.binary(left, op, right)
        if tok in _UNARY and self.peek(1) is not None:
            self.i += 2
            return self.unary(tok, self.args[self.i - 1])
        self.i += 1
        return tok != ""

    def unary(self, op: str, arg: str) -> bool:
        if op == "-z":
            return arg == ""
        if op == "-n":
            return arg != ""
        if op == "-t":
            return False
        fs = self.ctx.fs
        try:
            norm = fs.normalize(arg, self.ctx.cwd)
            if norm in fs.virtual:
                st = fs.stat(norm)
            else:
                st = fs.lstat(norm) if op in ("-L", "-h") else fs.stat(norm)
        except OSError:
            return False
        mode = st.st_mode
        checks = {"-e": True, "-f": stat_mod.S_ISREG(mode), "-d": stat_mod.S_ISDIR(mode),
                  "-s": st.st_size > 0, "-L": stat_mod.S_ISLNK(mode), "-h": stat_mod.S_ISLNK(mode),
                  "-r": True, "-w": True, "-x": bool(mode & 0o111), "-b": stat_mod.S_ISBLK(mode),
                  "-c": stat_mod.S_ISCHR(mode), "-p": stat_mod.S_ISFIFO(mode), "-S": stat_mod.S_ISSOCK(mode)}
        return checks[op]

    def binary(self, left: str, op: str, right: str) -> bool:
        if op in ("=", "=="):
            return left == right
        if op == "!=":
            return left != right
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        if op in ("-nt", "-ot", "-ef"):
            fs = self.ctx.fs
            try:
                a, b = fs.stat(left, self.ctx.cwd), fs.stat(right, self.ctx.cwd)
            except OSError:
                return False
            if op == "-ef":
                return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
            return a.st_mtime_ns > b.st_mtime_ns if op == "-nt" else a.st_mtime_ns < b.st_mtime_ns
        try:
            x, y = int(left.strip()), int(right.strip())
        except ValueError:
            bad = left if not re.fullmatch(r"\s*-?\d+\s*", left) else right
            raise UsageError(f"{bad}: bad number") from None
        return {"-eq": x == y, "-ne": x != y, "-lt": x < y, "-le": x <= y, "-gt": x > y, "-ge": x >= y}[op]


_UNARY = {"-z", "-n", "-e", "-f", "-d", "-s", "-L", "-h", "-r", "-w", "-x", "-b", "-c", "-p", "-S", "-t"}


_BINARY = {"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"}


@command("test", "[")
def test(ctx: Ctx) -> int:
    args = list(ctx.args)
    if ctx.name == "[":
        if not args or args[-1] != "]":
            return ctx.fail("missing ]", 2)
        args.pop()
    try:
        return 0 if _Test(ctx, args).run() else 1
    except UsageError as exc:
        return ctx.fail(str(exc), 2)
