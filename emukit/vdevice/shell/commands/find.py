"""``find`` over the device filesystem (toybox subset).

Supported: ``-H -L -P``, ``-name -iname -path -ipath -type -newer -mtime -mmin -size -empty -maxdepth
-mindepth -depth -prune -print -print0 -delete -exec ... ;|+ -true -false``, ``! -not -a -and -o -or ( )``.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import stat as stat_mod
from collections.abc import Callable
from dataclasses import dataclass, field

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command
from emukit.vdevice.shell.commands.fsutil import inside_root, shown_size, stamp
from emukit.vdevice.shell.commands.listing import Entry, entry_for

Test = Callable[["Found"], bool]


@dataclass
class Found:
    display: str
    entry: Entry
    depth: int


@dataclass
class _State:
    ctx: Ctx
    follow: bool = False
    maxdepth: int | None = None
    mindepth: int = 0
    depth_first: bool = False
    has_action: bool = False
    pruned: bool = False
    batches: list[tuple[list[str], list[str]]] = field(default_factory=list)
    status: int = 0


def _num_test(spec: str, value: int) -> bool:
    if spec.startswith("+"):
        return value > int(spec[1:])
    if spec.startswith("-"):
        return value < int(spec[1:])
    return value == int(spec)


class _ExprParser:
    def __init__(self, state: _State, tokens: list[str]) -> None:
        self.s = state
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, what: str = "argument") -> str:
        tok = self.peek()
        if tok is None:
            raise UsageError(f"missing {what}")
        self.i += 1
        return tok

    def parse(self) -> Test:
        if self.peek() is None:
            return lambda f: True
        expr = self.parse_or()
        if self.peek() is not None:
            raise UsageError(f"bad arg '{self.peek()}'")
        return expr

    def parse_or(self) -> Test:
        left = self.parse_and()
        while self.peek() in ("-o", "-or"):
            self.i += 1
            right = self.parse_and()
            left = (lambda a, b: lambda f: a(f) or b(f))(left, right)
        return left

    def parse_and(self) -> Test:
        left = self.parse_not()
        while self.peek() is not None and self.peek() not in ("-o", "-or", ")"):
            if self.peek() in ("-a", "-and"):
                self.i += 1
            right = self.parse_not()
            left = (lambda a, b: lambda f: a(f) and b(f))(left, right)
        return left

    def parse_not(self) -> Test:
        if self.peek() in ("!", "-not"):
            self.i += 1
            inner = self.parse_not()
            return lambda f: not inner(f)
        if self.peek() == "(":
            self.i += 1
            inner = self.parse_or()
            if self.take("')'") != ")":
                raise UsageError("missing ')'")
            return inner
        return self.primary()

    def primary(self) -> Test:
        s = self.s
        ctx = s.ctx
        tok = self.take()
        if tok in ("-name", "-iname", "-path", "-ipath", "-wholename"):
            pat = self.take()
            fold = tok in ("-iname", "-ipath")
            whole = tok not in ("-name", "-iname")

            def match(f: Found) -> bool:
                text = f.display if whole else posixpath.basename(f.display.rstrip("/")) or f.display
                return fnmatch.fnmatchcase(text.lower(), pat.lower()) if fold else fnmatch.fnmatchcase(text, pat)
            return match
        if tok == "-type":
            kinds = self.take()
            checks = {"f": stat_mod.S_ISREG, "d": stat_mod.S_ISDIR, "l": stat_mod.S_ISLNK, "p": stat_mod.S_ISFIFO,
                      "s": stat_mod.S_ISSOCK, "b": stat_mod.S_ISBLK, "c": stat_mod.S_ISCHR}
            if any(k not in checks and k != "," for k in kinds):
                raise UsageError(f"bad -type '{kinds}'")
            return lambda f: any(checks[k](f.entry.st.st_mode) for k in kinds if k in checks)
        if tok == "-newer":
            ref = ctx.fs.stat(self.take(), ctx.cwd).st_mtime_ns
            return lambda f: f.entry.st.st_mtime_ns > ref
        if tok in ("-mtime", "-mmin"):
            spec = self.take()
            unit = 86400 if tok == "-mtime" else 60
            now = ctx.device.wall_ms() / 1000
            return lambda f: _num_test(spec, int((now - f.entry.st.st_mtime) // unit))
        if tok == "-size":
            spec = self.take()
            units = {"c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30, "b": 512}
            unit = units.get(spec[-1], 512)
            number = spec.rstrip("ckMGb")

            def size_test(f: Found) -> bool:
                return _num_test(number, -(-shown_size(f.entry.st) // unit))
            return size_test
        if tok == "-empty":
            def empty(f: Found) -> bool:
                if stat_mod.S_ISDIR(f.entry.st.st_mode):
                    return not os.listdir(f.entry.host)
                return stat_mod.S_ISREG(f.entry.st.st_mode) and f.entry.st.st_size == 0
            return empty
        if tok in ("-maxdepth", "-mindepth"):
            value = int(self.take())
            if tok == "-maxdepth":
                s.maxdepth = value
            else:
                s.mindepth = value
            return lambda f: True
        if tok in ("-depth", "-d"):
            s.depth_first = True
            return lambda f: True
        if tok in ("-xdev", "-mount", "-noleaf", "-true"):
            return lambda f: True
        if tok == "-false":
            return lambda f: False
        if tok == "-follow":
            s.follow = True
            return lambda f: True
        if tok == "-prune":
            def prune(f: Found) -> bool:
                s.pruned = True
                return True
            return prune
        if tok in ("-print", "-print0"):
            s.has_action = True
            end = "\n" if tok == "-print" else "\0"
            return lambda f: ctx.write(f.display + end) is None
        if tok == "-delete":
            s.has_action = True
            s.depth_first = True
            return self._delete
        if tok in ("-exec", "-ok"):
            return self._exec()
        raise UsageError(f"bad arg '{tok}'")

    def _delete(self, f: Found) -> bool:
        host = f.entry.host
        if not inside_root(self.s.ctx.device, host) or host == self.s.ctx.fs.root:
            return False
        try:
            if stat_mod.S_ISDIR(f.entry.st.st_mode):
                os.rmdir(host)
            else:
                os.unlink(host)
            stamp(self.s.ctx.device, host.parent)
            return True
        except OSError as exc:
            self.s.ctx.oserror(f.display, exc)
            self.s.status = 1
            return False

    def _exec(self) -> Test:
        s = self.s
        s.has_action = True
        template: list[str] = []
        while True:
            tok = self.take("';' or '+' after -exec")
            if tok == ";" or (tok == "+" and template and template[-1] == "{}"):
                break
            template.append(tok)
        if not template:
            raise UsageError("empty -exec")
        if tok == "+":
            batch: tuple[list[str], list[str]] = (template[:-1], [])
            s.batches.append(batch)
            return lambda f: batch[1].append(f.display) is None
        return lambda f: s.ctx.run([a.replace("{}", f.display) for a in template]) == 0


@command("find")
def find(ctx: Ctx) -> int:
    args = list(ctx.args)
    state = _State(ctx)
    follow_args = False
    while args and args[0] in ("-H", "-L", "-P"):
        opt = args.pop(0)
        state.follow = opt == "-L"
        follow_args = opt in ("-H", "-L")
    paths = []
    while args and not (args[0].startswith("-") and len(args[0]) > 1) and args[0] not in ("(", "!"):
        paths.append(args.pop(0))
    test = _ExprParser(state, args).parse()
    seen: set[tuple[int, int]] = set()

    def visit(found: Found) -> None:
        st = found.entry.st
        is_dir = stat_mod.S_ISDIR(st.st_mode)
        descend = is_dir and (state.maxdepth is None or found.depth < state.maxdepth)
        if is_dir:
            key = (st.st_dev, st.st_ino)
            if key in seen:
                descend = False
            seen.add(key)
        state.pruned = False
        if not state.depth_first and found.depth >= state.mindepth:
            if test(found) and not state.has_action:
                ctx.write(found.display + "\n")
        if descend and not state.pruned:
            try:
                names = ctx.fs.listdir(found.entry.device_path)
            except OSError as exc:
                ctx.oserror(found.display, exc)
                state.status = 1
                names = []
            for name in names:
                child = posixpath.join(found.entry.device_path, name)
                try:
                    entry = entry_for(ctx, name, child, state.follow)
                except OSError:
                    try:
                        entry = entry_for(ctx, name, child, False)
                    except OSError:
                        continue
                display = found.display + name if found.display.endswith("/") else f"{found.display}/{name}"
                visit(Found(display, entry, found.depth + 1))
        if state.depth_first and found.depth >= state.mindepth:
            if test(found) and not state.has_action:
                ctx.write(found.display + "\n")

    for path in paths or ["."]:
        follow = state.follow or follow_args or path.endswith("/")
        try:
            entry = entry_for(ctx, path, path, follow)
        except OSError:
            try:
                entry = entry_for(ctx, path, path, False)
            except OSError as exc:
                ctx.oserror(path, exc)
                state.status = 1
                continue
        visit(Found(path, entry, 0))
    for template, found_paths in state.batches:
        if found_paths:
            ctx.run(template + found_paths)
    return state.status
