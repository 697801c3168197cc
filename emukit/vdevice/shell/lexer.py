"""Tokenizer of the sh subset: operators, redirections, words with their quoting, ``$`` expansions,
backticks and here-document bodies. The grammar lives in :mod:`emukit.vdevice.shell.parser`; ``$(...)``
calls back into it (``parse_list``) from the same position in the source.
"""

from __future__ import annotations

import abc
import re
from dataclasses import dataclass

from emukit.vdevice.shell.nodes import Arith, CmdSub, Lit, Param, Part, Redir, Seq, Word

WORD_STOP = " \t\n;&|()<>"
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = "?$#!@*-0123456789"


class ShellSyntaxError(Exception):
    """The command line cannot be parsed; the message reads like mksh's."""


@dataclass
class Tok:
    kind: str  # "word" | "op" | "redir" | "eof"
    value: str = ""
    word: Word | None = None
    fd: int = -1


def _add(parts: list[Part], part: Part) -> None:
    """Append, merging adjacent literals of the same quotedness."""
    if isinstance(part, Lit) and parts and isinstance(parts[-1], Lit) and parts[-1].quoted == part.quoted:
        parts[-1] = Lit(parts[-1].text + part.text, part.quoted)
    else:
        parts.append(part)


class Lexer(abc.ABC):
    """Pull-based tokenizer; subclasses provide ``parse_list`` (used for ``$(...)``)."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self._peeked: Tok | None = None
        self._heredocs: list[tuple[Redir, str, bool, bool]] = []  # (redir, delimiter, strip tabs, quoted)

    @abc.abstractmethod
    def parse_list(self, stops: set[str]) -> Seq:
        """Parse commands up to one of ``stops`` (the parser)."""

    @abc.abstractmethod
    def parse(self) -> Seq:
        """Parse the whole source (the parser)."""

    def _read_heredocs(self) -> None:
        """After a newline: read the bodies of the here-documents of the line just parsed."""
        pending, self._heredocs = self._heredocs, []
        for redir, delim, strip, quoted in pending:
            lines: list[str] = []
            while True:
                if self.pos >= len(self.src):
                    raise ShellSyntaxError(f"here document '{delim}' unclosed")
                end = self.src.find("\n", self.pos)
                line = self.src[self.pos:] if end < 0 else self.src[self.pos:end]
                self.pos = len(self.src) if end < 0 else end + 1
                if strip:
                    line = line.lstrip("\t")
                if line == delim:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            if quoted:
                redir.target = Word([Lit(body, True)])
            else:
                sub = type(self)(body)
                redir.target = Word(sub._parts("", in_dq=True) or [Lit("", True)])

    # ------------------------------------------------------------------ token stream
    def peek(self) -> Tok:
        if self._peeked is None:
            self._peeked = self._lex()
        return self._peeked

    def next(self) -> Tok:
        tok = self.peek()
        self._peeked = None
        return tok

    def _unexpected(self, tok: Tok) -> ShellSyntaxError:
        if tok.kind == "eof":
            return ShellSyntaxError("syntax error: unexpected EOF")
        text = tok.value if tok.kind != "word" else tok.word.source_text()  # type: ignore[union-attr]
        if text == "\n":
            text = "newline"
        return ShellSyntaxError(f"syntax error: '{text}' unexpected")

    def _lex(self) -> Tok:
        src = self.src
        while self.pos < len(src):
            c = src[self.pos]
            if c in " \t":
                self.pos += 1
            elif src.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "#":
                end = src.find("\n", self.pos)
                self.pos = len(src) if end < 0 else end
            else:
                break
        if self.pos >= len(src):
            return Tok("eof")
        c = src[self.pos]
        two = src[self.pos:self.pos + 2]
        if c == "\n":
            self.pos += 1
            self._read_heredocs()
            return Tok("op", "\n")
        if two in ("&&", "||"):
            self.pos += 2
            return Tok("op", two)
        if two == ";;":
            raise ShellSyntaxError("syntax error: ';;' unexpected")
        if two == "&>":
            self.pos += 2
            return Tok("redir", "&>", fd=1)
        if c in ";&|()":
            self.pos += 1
            return Tok("op", c)
        m = re.compile(r"\d+(?=[<>])").match(src, self.pos)
        fd = -1
        if m:
            fd = int(m.group())
            self.pos = m.end()
            c = src[self.pos]
            two = src[self.pos:self.pos + 2]
        if c in "<>":
            if two == "<<":
                op = "<<<" if src.startswith("<<<", self.pos) else "<<-" if src.startswith("<<-", self.pos) else "<<"
                self.pos += len(op)
                return Tok("redir", op, fd=0 if fd < 0 else fd)
            op = two if two in (">>", ">&", "<&", ">|", "<>") else c
            self.pos += len(op)
            op = {">|": ">", "<>": "<"}.get(op, op)
            if fd < 0:
                fd = 0 if op[0] == "<" else 1
            return Tok("redir", op, fd=fd)
        return Tok("word", word=Word(self._parts(WORD_STOP, in_dq=False)))

    # ------------------------------------------------------------------ words
    def _parts(self, stop: str, in_dq: bool) -> list[Part]:
        src = self.src
        parts: list[Part] = []
        while self.pos < len(src):
            c = src[self.pos]
            if c in stop:
                break
            if c == "\\":
                nxt = src[self.pos + 1:self.pos + 2]
                self.pos += 2 if nxt else 1
                if nxt == "\n":
                    continue
                if in_dq and nxt not in ('$', '`', '"', '\\'):
                    _add(parts, Lit("\\" + nxt, True))
                else:
                    _add(parts, Lit(nxt or "\\", True))
            elif c == "$":
                _add(parts, self._dollar(in_dq))
            elif c == "`":
                _add(parts, self._backtick(in_dq))
            elif c == "'" and not in_dq:
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("no closing quote")
                _add(parts, Lit(src[self.pos + 1:end], True))
                self.pos = end + 1
            elif c == '"' and not in_dq:
                self.pos += 1
                inner = self._parts('"', in_dq=True)
                if self.pos >= len(src):
                    raise ShellSyntaxError("no closing quote")
                self.pos += 1
                if not inner:
                    inner = [Lit("", True)]
                for part in inner:
                    _add(parts, part)
            else:
                _add(parts, Lit(c, in_dq))
                self.pos += 1
        return parts

    def _dollar(self, quoted: bool) -> Part:
        src = self.src
        start = self.pos
        if src.startswith("$((", start):
            depth = 0
            i = start + 3
            while i < len(src):
                if src[i] == "(":
                    depth += 1
                elif src[i] == ")":
                    if depth == 0:
                        if src.startswith("))", i):
                            self.pos = i + 2
                            return Arith(src[start + 3:i], quoted)
                        break
                    depth -= 1
                i += 1
            if i >= len(src):
                raise ShellSyntaxError("syntax error: unterminated $((")
        if src.startswith("$(", start):
            self.pos = start + 2
            saved = self._peeked
            self._peeked = None
            body = self.parse_list(set())
            tok = self.next()
            if tok.kind != "op" or tok.value != ")":
                raise self._unexpected(tok) if tok.kind != "eof" else ShellSyntaxError(
                    "syntax error: unterminated $(")
            self._peeked = saved
            return CmdSub(body, quoted)
        if src.startswith("${", start):
            return self._brace_param(quoted)
        nxt = src[start + 1:start + 2]
        m = _NAME_RE.match(src, start + 1)
        if m:
            self.pos = m.end()
            return Param(m.group(), quoted)
        if nxt and nxt in _SPECIAL_PARAMS:
            self.pos = start + 2
            return Param(nxt, quoted)
        self.pos = start + 1
        return Lit("$", quoted)

    def _brace_param(self, quoted: bool) -> Part:
        src = self.src
        self.pos += 2
        length = False
        if src.startswith("#", self.pos) and not src.startswith("#}", self.pos):
            length = True
            self.pos += 1
        m = _NAME_RE.match(src, self.pos) or re.compile(r"\d+|[?$#!@*-]").match(src, self.pos)
        if not m:
            raise ShellSyntaxError("syntax error: bad substitution")
        name = m.group()
        self.pos = m.end()
        if src.startswith("}", self.pos):
            self.pos += 1
            return Param(name, quoted, "len" if length else None)
        if length:
            raise ShellSyntaxError("syntax error: bad substitution")
        for op in (":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?", "#", "%"):
            if src.startswith(op, self.pos):
                self.pos += len(op)
                arg = Word(self._parts("}", in_dq=quoted))
                if not src.startswith("}", self.pos):
                    raise ShellSyntaxError("syntax error: missing '}'")
                self.pos += 1
                return Param(name, quoted, op, arg)
        raise ShellSyntaxError("syntax error: bad substitution")

    def _backtick(self, quoted: bool) -> Part:
        src = self.src
        i = self.pos + 1
        body: list[str] = []
        while i < len(src) and src[i] != "`":
            if src[i] == "\\" and i + 1 < len(src) and src[i + 1] in "$`\\":
                body.append(src[i + 1])
                i += 2
                continue
            body.append(src[i])
            i += 1
        if i >= len(src):
            raise ShellSyntaxError("no closing quote")
        self.pos = i + 1
        return CmdSub(type(self)("".join(body)).parse(), quoted)

    # ------------------------------------------------------------------ grammar
