"""``grep`` (basic, extended and fixed patterns; -i -v -c -n -l -L -q -s -o -w -x -h -H -r -e -f -m).
POSIX regular expressions are translated to Python's ``re`` syntax (also used by ``sed``)."""

from __future__ import annotations

import re
import stat as stat_mod

from emukit.vdevice.shell.commands.base import Ctx, UsageError, command, getopt
from emukit.vdevice.shell.commands.files import read_input

_POSIX_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
                  "space": r"\s", "blank": r" \t", "xdigit": "0-9A-Fa-f", "punct": r"!-/:-@\[-`{-~",
                  "print": r" -~", "graph": r"!-~", "cntrl": r"\x00-\x1f\x7f", "word": r"\w"}


def _bracket(pat: str, i: int) -> tuple[str, int]:
    """Translate a bracket expression starting at ``pat[i] == '['``; returns (text, next index)."""
    j = i + 1
    out = ["["]
    if j < len(pat) and pat[j] == "^":
        out.append("^")
        j += 1
    first = True
    while j < len(pat):
        c = pat[j]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), j + 1
        first = False
        if pat.startswith("[:", j):
            end = pat.find(":]", j + 2)
            if end > 0 and pat[j + 2:end] in _POSIX_CLASSES:
                out.append(_POSIX_CLASSES[pat[j + 2:end]])
                j = end + 2
                continue
        out.append("\\" + c if c in "\\[]" else c)
        j += 1
    raise UsageError("Unmatched [")


def posix_to_re(pat: str, extended: bool) -> str:
    """Basic or extended POSIX regex -> Python regex."""
    out: list[str] = []
    i = 0
    while i < len(pat):
        c = pat[i]
        if c == "\\" and i + 1 < len(pat):
            n = pat[i + 1]
            if n in "<>":
                out.append(r"\b")
            elif not extended and n in "(){}|+?":
                out.append(n)
            else:
                out.append("\\" + n)
            i += 2
        elif c == "[":
            text, i = _bracket(pat, i)
            out.append(text)
        elif not extended and c in "(){}|+?":
            out.append("\\" + c)
            i += 1
        elif c == "*" and (not out or out[-1] in ("(", "|", "^")):
            out.append(r"\*")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def compile_pattern(pat: str, extended: bool, fixed: bool, icase: bool, word: bool = False,
                    line: bool = False) -> re.Pattern[str]:
    text = re.escape(pat) if fixed else posix_to_re(pat, extended)
    if word:
        text = rf"(?<!\w)(?:{text})(?!\w)"
    if line:
        text = rf"^(?:{text})$"
    try:
        return re.compile(text, re.IGNORECASE if icase else 0)
    except re.error as exc:
        raise UsageError(f"bad regex '{pat}': {exc}") from None


def _grep_targets(ctx: Ctx, paths: list[str], recursive: bool) -> list[str]:
    if not recursive:
        return paths or ["-"]
    out: list[str] = []

    def walk(display: str) -> None:
        try:
            host = ctx.fs.host(display, ctx.cwd)
        except OSError:
            out.append(display)
            return
        if not host.is_dir():
            out.append(display)
            return
        for name in ctx.fs.listdir(display, ctx.cwd):
            child = display.rstrip("/") + "/" + name if display != "/" else "/" + name
            try:
                st = ctx.fs.lstat(child, ctx.cwd)
            except OSError:
                continue
            if stat_mod.S_ISDIR(st.st_mode):
                walk(child)
            elif stat_mod.S_ISREG(st.st_mode):
                out.append(child)

    for path in paths or ["."]:
        walk(path)
    return out


@command("grep", "egrep", "fgrep")
def grep(ctx: Ctx) -> int:
    opts, operands = getopt(ctx, ctx.args, "ivcEFnlLqsowxhHrRe:f:m:aIzZ", multi="ef",
                            long={"ignore-case": "i", "invert-match": "v", "count": "c", "quiet": "q",
                                  "silent": "q", "extended-regexp": "E", "fixed-strings": "F",
                                  "line-number": "n", "files-with-matches": "l", "only-matching": "o",
                                  "recursive": "r", "word-regexp": "w", "line-regexp": "x", "regexp": "e"})
    patterns: list[str] = list(opts.get("e", []))
    for path in opts.get("f", []):
        patterns.extend(read_input(ctx, path).decode("utf-8", "surrogateescape").splitlines())
    if not patterns:
        if not operands:
            return ctx.fail("Needs 1 argument", 2)
        patterns = operands.pop(0).split("\n")
    extended = bool(opts.get("E")) or ctx.name == "egrep"
    fixed = bool(opts.get("F")) or ctx.name == "fgrep"
    regexes = [compile_pattern(p, extended, fixed, bool(opts.get("i")), bool(opts.get("w")), bool(opts.get("x")))
               for p in patterns]
    recursive = bool(opts.get("r") or opts.get("R"))
    targets = _grep_targets(ctx, operands, recursive)
    show_name = (len(targets) > 1 or recursive) and not opts.get("h") or bool(opts.get("H"))
    limit = int(opts["m"]) if "m" in opts else None
    matched_any = False
    error = False
    for path in targets:
        try:
            data = read_input(ctx, path)
        except OSError as exc:
            if not opts.get("s"):
                ctx.oserror(path, exc)
            error = True
            continue
        name = "(standard input)" if path == "-" else path
        count = 0
        for no, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
            hits = [m for rx in regexes for m in rx.finditer(line)] if opts.get("o") else None
            found = bool(hits) if hits is not None else any(rx.search(line) for rx in regexes)
            if found == bool(opts.get("v")):
                continue
            count += 1
            matched_any = True
            if opts.get("q"):
                return 0
            if not (opts.get("c") or opts.get("l") or opts.get("L")):
                prefix = (f"{name}:" if show_name else "") + (f"{no}:" if opts.get("n") else "")
                if hits is not None and not opts.get("v"):
                    for m in sorted(hits, key=lambda m: m.start()):
                        if m.group():
                            ctx.write(prefix + m.group() + "\n")
                else:
                    ctx.write(prefix + line + "\n")
            if limit is not None and count >= limit:
                break
        if opts.get("c"):
            ctx.write((f"{name}:" if show_name else "") + f"{count}\n")
        elif opts.get("l") and count:
            ctx.write(name + "\n")
        elif opts.get("L") and not count:
            ctx.write(name + "\n")
    if error and not (opts.get("q") and matched_any):
        return 2
    return 0 if matched_any else 1


