"""Word expansion: parameters, command substitution, arithmetic, field splitting and globbing.

Globbing matches against the *device* filesystem (``device.fs``), never the host's.
"""

from __future__ import annotations

import fnmatch
import re
from typing import TYPE_CHECKING

from emukit.vdevice.shell.arith import ArithError, evaluate
from emukit.vdevice.shell.nodes import Arith, CmdSub, Lit, Param, Word

if TYPE_CHECKING:
    from emukit.vdevice.shell.interp import Shell

Segment = tuple[str, bool]  # (text, quoted)
_MAGIC = "*?["
_ARITH_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[?$#])\}|\$([A-Za-z_][A-Za-z0-9_]*|[?$#])")


class ExpansionError(Exception):
    """``${X?}`` on an unset variable, bad arithmetic..."""


class _Fields:
    """Accumulates the fields a word expands to."""

    def __init__(self, shell: Shell, split: bool) -> None:
        self.shell = shell
        self.split = split
        self.fields: list[list[Segment]] = []
        self.cur: list[Segment] | None = None

    def add(self, text: str, quoted: bool) -> None:
        if self.cur is None:
            self.cur = []
            self.fields.append(self.cur)
        self.cur.append((text, quoted))

    def add_unquoted(self, value: str) -> None:
        """An unquoted expansion result: split on IFS (whitespace IFS only)."""
        if not self.split:
            if value:
                self.add(value, False)
            return
        ifs = self.shell.get_var("IFS")
        ifs = " \t\n" if ifs is None else ifs
        if not ifs:
            if value:
                self.add(value, False)
            return
        pieces = re.split("[" + re.escape(ifs) + "]+", value)
        for i, piece in enumerate(pieces):
            if i > 0:
                self.cur = None
            if piece:
                self.add(piece, False)


def expand_words(shell: Shell, words: list[Word]) -> list[str]:
    """Expand command words: split fields, then glob against the device filesystem."""
    out: list[str] = []
    for word in words:
        acc = _Fields(shell, split=True)
        _expand_into(shell, word, acc, tilde=True)
        for field in acc.fields:
            if any(not q and any(m in t for m in _MAGIC) for t, q in field):
                pattern = "".join(t if not q else _escape(t) for t, q in field)
                matches = glob_device(shell, pattern)
                if matches:
                    out.extend(matches)
                    continue
            out.append("".join(t for t, _ in field))
    return out


def expand_str(shell: Shell, word: Word, tilde: bool = True) -> str:
    """Expand a word to one string (assignments, redirection targets): no splitting, no globbing."""
    acc = _Fields(shell, split=False)
    _expand_into(shell, word, acc, tilde=tilde)
    return "".join(t for f in acc.fields for t, _ in f)


def expand_pattern(shell: Shell, word: Word) -> str:
    """Expand a word used as a pattern (``${X%pat}``): quoted parts match literally."""
    acc = _Fields(shell, split=False)
    _expand_into(shell, word, acc, tilde=False)
    return "".join(t if not q else _escape(t) for f in acc.fields for t, q in f)


def _escape(text: str) -> str:
    return "".join(f"[{c}]" if c in _MAGIC else c for c in text)


def _expand_into(shell: Shell, word: Word, acc: _Fields, tilde: bool) -> None:
    parts = list(word.parts)
    if tilde and parts and isinstance(parts[0], Lit) and not parts[0].quoted:
        text = parts[0].text
        if text == "~" or text.startswith("~/"):
            home = shell.get_var("HOME") or "/"
            acc.add(home, True)
            parts[0] = Lit(text[1:])
    for part in parts:
        if isinstance(part, Lit):
            acc.add(part.text, part.quoted)
        elif isinstance(part, Param):
            if part.name == "@" and part.quoted and part.op is None:
                for i, value in enumerate(shell.params):
                    if i > 0:
                        acc.cur = None
                    acc.add(value, True)
                continue
            value = _param_value(shell, part)
            if part.quoted:
                acc.add(value, True)
            else:
                acc.add_unquoted(value)
        elif isinstance(part, CmdSub):
            value = shell.command_substitution(part.body)
            if part.quoted:
                acc.add(value, True)
            else:
                acc.add_unquoted(value)
        elif isinstance(part, Arith):
            acc.add(str(arith_value(shell, part.expr)), part.quoted)


def arith_value(shell: Shell, expr: str) -> int:
    text = _ARITH_VAR.sub(lambda m: shell.get_var(m.group(1) or m.group(2)) or "0", expr)
    try:
        return evaluate(text, lambda name: shell.get_var(name) or "")
    except ArithError as exc:
        raise ExpansionError(f"{expr.strip()}: {exc}") from None


def _param_value(shell: Shell, part: Param) -> str:
    value = shell.get_var(part.name)
    op = part.op
    if op is None:
        return value or ""
    if op == "len":
        return str(len(value or ""))
    colon = op.startswith(":") and len(op) == 2
    base = op[1:] if colon else op
    is_set = value is not None and (value != "" or not colon)
    if base == "-":
        return value if is_set else expand_str(shell, part.arg)  # type: ignore[arg-type]
    if base == "=":
        if not is_set:
            value = expand_str(shell, part.arg)  # type: ignore[arg-type]
            shell.set_var(part.name, value)
        return value or ""
    if base == "+":
        return expand_str(shell, part.arg) if is_set else ""  # type: ignore[arg-type]
    if base == "?":
        if not is_set:
            msg = expand_str(shell, part.arg) if part.arg and part.arg.parts else "parameter null or not set"
            raise ExpansionError(f"{part.name}: {msg}")
        return value or ""
    pattern = expand_pattern(shell, part.arg)  # type: ignore[arg-type]
    return _trim(value or "", op, pattern)


def _trim(value: str, op: str, pattern: str) -> str:
    n = len(value)
    if op in ("#", "##"):
        rng = range(0, n + 1) if op == "#" else range(n, -1, -1)
        for i in rng:
            if fnmatch.fnmatchcase(value[:i], pattern):
                return value[i:]
    else:
        rng = range(n, -1, -1) if op == "%" else range(0, n + 1)
        for i in rng:
            if fnmatch.fnmatchcase(value[i:], pattern):
                return value[:i]
    return value


def glob_device(shell: Shell, pattern: str) -> list[str]:
    """Match a glob pattern against the device filesystem (relative to the shell's cwd)."""
    fs = shell.device.fs
    absolute = pattern.startswith("/")
    comps = [c for c in pattern.split("/") if c]
    trailing = pattern.endswith("/") and len(pattern) > 1
    results = ["/" if absolute else ""]
    for comp in comps:
        new: list[str] = []
        magic = any(m in comp for m in _MAGIC)
        for base in results:
            if not magic:
                new.append(_join(base, comp))
                continue
            try:
                names = fs.listdir(base or ".", shell.cwd)
            except OSError:
                continue
            for name in names:
                if name.startswith(".") and not comp.startswith("."):
                    continue
                if fnmatch.fnmatchcase(name, comp):
                    new.append(_join(base, name))
        results = new
        if not results:
            return []
    out = []
    for path in results:
        if not _exists(shell, path):
            continue
        if trailing:
            if not _is_dir(shell, path):
                continue
            path += "/"
        out.append(path)
    return sorted(out)


def _join(base: str, name: str) -> str:
    if not base:
        return name
    return base + name if base.endswith("/") else base + "/" + name


def _exists(shell: Shell, path: str) -> bool:
    fs = shell.device.fs
    try:
        return fs.is_virtual(fs.normalize(path, shell.cwd)) or fs.resolve(path, shell.cwd, follow=False).exists()
    except OSError:
        return False


def _is_dir(shell: Shell, path: str) -> bool:
    try:
        return shell.device.fs.host(path, shell.cwd).is_dir()
    except OSError:
        return False
