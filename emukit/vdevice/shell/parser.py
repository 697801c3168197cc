"""Recursive-descent parser for the sh subset (mksh-compatible where it matters).

Supported: quoting (``'...'``, ``"..."``, backslash), parameter expansion (``$X``, ``${X}``,
``${X:-w}``, ``${#X}``, ``${X%pat}``...), ``$(...)``, backticks, ``$((...))``, ``;``, ``&``, ``&&``,
``||``, newlines, pipes, ``!``, redirections (``> >> < >& <& &>`` with an optional fd number),
here-documents (``<<EOF`` / ``<<-EOF``, quoted delimiters suppress expansion), subshells ``( )``, groups
``{ }``, ``if``, ``for``, ``while`` and ``until``. ``case`` and functions are not supported and are
reported as syntax errors. Tokens come from :class:`emukit.vdevice.shell.lexer.Lexer`.
"""

from __future__ import annotations

import re

from emukit.vdevice.shell.lexer import _NAME_RE, Lexer, ShellSyntaxError, Tok
from emukit.vdevice.shell.nodes import (
    AndOr,
    For,
    Group,
    If,
    Lit,
    Node,
    Part,
    Pipeline,
    Redir,
    Seq,
    Simple,
    While,
    Word,
)

__all__ = ["Parser", "ShellSyntaxError", "Tok", "parse"]

TERMINATORS = {"then", "elif", "else", "fi", "do", "done", "}"}
_ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def parse(source: str) -> Seq:
    """Parse a whole command line (or script) into a :class:`Seq`."""
    return Parser(source).parse()


class Parser(Lexer):
    """The grammar: lists, and-or lists, pipelines, simple and compound commands."""

    def parse(self) -> Seq:
        seq = self.parse_list(set())
        tok = self.peek()
        if tok.kind != "eof":
            raise self._unexpected(tok)
        if self._heredocs:
            self._read_heredocs()
        return seq

    def _is_word(self, tok: Tok, *values: str) -> bool:
        return tok.kind == "word" and tok.word is not None and tok.word.literal() in values

    def _linebreak(self) -> None:
        while self.peek().kind == "op" and self.peek().value == "\n":
            self.next()

    def parse_list(self, stops: set[str]) -> Seq:
        seq = Seq()
        self._linebreak()
        while True:
            tok = self.peek()
            if tok.kind == "eof" or (tok.kind == "op" and tok.value == ")"):
                break
            if tok.kind == "word" and tok.word is not None and tok.word.literal() in stops:
                break
            node = self.parse_and_or()
            tok = self.peek()
            if tok.kind == "op" and tok.value in (";", "&", "\n"):
                self.next()
                seq.items.append(node)
                seq.background.append(tok.value == "&")
                self._linebreak()
                continue
            seq.items.append(node)
            seq.background.append(False)
            break
        return seq

    def parse_and_or(self) -> Node:
        first = self.parse_pipeline()
        rest: list[tuple[str, Node]] = []
        while self.peek().kind == "op" and self.peek().value in ("&&", "||"):
            op = self.next().value
            self._linebreak()
            rest.append((op, self.parse_pipeline()))
        return AndOr(first, rest) if rest else first

    def parse_pipeline(self) -> Node:
        negate = False
        if self._is_word(self.peek(), "!"):
            self.next()
            negate = True
        cmds = [self.parse_command()]
        while self.peek().kind == "op" and self.peek().value == "|":
            self.next()
            self._linebreak()
            cmds.append(self.parse_command())
        if len(cmds) == 1 and not negate:
            return cmds[0]
        return Pipeline(cmds, negate)

    def parse_command(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.value == "(":
            self.next()
            body = self._body({")"})
            end = self.next()
            if end.kind != "op" or end.value != ")":
                raise self._unexpected(end)
            return Group(body, True, self._redirs())
        if tok.kind == "word":
            lit = tok.word.literal() if tok.word else None
            if lit == "{":
                self.next()
                body = self._body({"}"})
                self._expect("}")
                return Group(body, False, self._redirs())
            if lit == "if":
                return self._if()
            if lit in ("while", "until"):
                self.next()
                cond = self._body({"do"})
                self._expect("do")
                body = self._body({"done"})
                self._expect("done")
                return While(cond, body, lit == "until", self._redirs())
            if lit == "for":
                return self._for()
            if lit in TERMINATORS:
                raise self._unexpected(tok)
        if tok.kind not in ("word", "redir"):
            raise self._unexpected(tok)
        return self._simple()

    def _body(self, stops: set[str]) -> Seq:
        seq = self.parse_list(stops)
        if not seq.items:
            raise self._unexpected(self.peek())
        return seq

    def _expect(self, word: str) -> None:
        tok = self.next()
        if not self._is_word(tok, word):
            raise self._unexpected(tok)

    def _if(self) -> If:
        self.next()
        branches: list[tuple[Seq, Seq]] = []
        orelse: Seq | None = None
        while True:
            cond = self._body({"then"})
            self._expect("then")
            body = self._body({"elif", "else", "fi"})
            branches.append((cond, body))
            tok = self.next()
            if self._is_word(tok, "elif"):
                continue
            if self._is_word(tok, "else"):
                orelse = self._body({"fi"})
                self._expect("fi")
                break
            if self._is_word(tok, "fi"):
                break
            raise self._unexpected(tok)
        return If(branches, orelse, self._redirs())

    def _for(self) -> For:
        self.next()
        tok = self.next()
        name = tok.word.literal() if tok.kind == "word" and tok.word else None
        if not name or not _NAME_RE.fullmatch(name):
            raise self._unexpected(tok)
        self._linebreak()
        words: list[Word] | None = None
        if self._is_word(self.peek(), "in"):
            self.next()
            words = []
            while self.peek().kind == "word":
                words.append(self.next().word)  # type: ignore[arg-type]
            tok = self.peek()
            if tok.kind != "op" or tok.value not in (";", "\n"):
                raise self._unexpected(tok)
            self.next()
        elif self.peek().kind == "op" and self.peek().value == ";":
            self.next()
        self._linebreak()
        self._expect("do")
        body = self._body({"done"})
        self._expect("done")
        return For(name, words, body, self._redirs())

    def _redirs(self) -> list[Redir]:
        out: list[Redir] = []
        while self.peek().kind == "redir":
            out.extend(self._redir())
        return out

    def _redir(self) -> list[Redir]:
        tok = self.next()
        target = self.next()
        if target.kind != "word" or target.word is None:
            raise self._unexpected(target)
        if tok.value == "&>":
            return [Redir(1, ">", target.word), Redir(2, ">&", Word([Lit("1")]))]
        if tok.value in ("<<", "<<-"):
            delim = "".join(p.text for p in target.word.parts if isinstance(p, Lit))
            quoted = any(not isinstance(p, Lit) or p.quoted for p in target.word.parts)
            redir = Redir(tok.fd, "<<", Word([Lit("", True)]))
            self._heredocs.append((redir, delim, tok.value == "<<-", quoted))
            return [redir]
        return [Redir(tok.fd, tok.value, target.word)]

    def _simple(self) -> Simple:
        cmd = Simple()
        while True:
            tok = self.peek()
            if tok.kind == "redir":
                cmd.redirs.extend(self._redir())
            elif tok.kind == "word" and tok.word is not None:
                self.next()
                assign = None if cmd.words else _split_assignment(tok.word)
                if assign:
                    cmd.assigns.append(assign)
                else:
                    cmd.words.append(tok.word)
            else:
                break
        if not (cmd.words or cmd.assigns or cmd.redirs):
            raise self._unexpected(self.peek())
        return cmd


def _split_assignment(word: Word) -> tuple[str, Word] | None:
    """``NAME=value`` -> (NAME, value word), when NAME= is unquoted literal text."""
    if not word.parts or not isinstance(word.parts[0], Lit) or word.parts[0].quoted:
        return None
    m = _ASSIGN_RE.match(word.parts[0].text)
    if not m:
        return None
    rest = word.parts[0].text[m.end():]
    parts: list[Part] = ([Lit(rest)] if rest else []) + list(word.parts[1:])
    return m.group(1), Word(parts)
