"""Syntax tree of the sh subset the virtual device's shell understands.

Words are kept as a list of parts so that expansion can tell quoted text (never split, never globbed)
from unquoted text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass
class Lit:
    """Literal text; ``quoted`` text is exempt from field splitting and globbing."""

    text: str
    quoted: bool = False


@dataclass
class Param:
    """``$NAME`` / ``${NAME...}``. ``op`` is one of ``- := + ? # % ## %% len`` (with an optional ``:``)."""

    name: str
    quoted: bool = False
    op: str | None = None
    arg: Word | None = None


@dataclass
class CmdSub:
    """``$(...)`` or backticks."""

    body: Node
    quoted: bool = False


@dataclass
class Arith:
    """``$((...))``; the expression text is expanded for ``$VAR`` then evaluated."""

    expr: str
    quoted: bool = False


Part = Union[Lit, Param, CmdSub, Arith]


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)

    def literal(self) -> str | None:
        """The word's text if it is one unquoted literal (used for reserved words), else None."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Lit) and not self.parts[0].quoted:
            return self.parts[0].text
        return None

    def source_text(self) -> str:
        """Best-effort text of the word, for messages."""
        out = []
        for p in self.parts:
            out.append(p.text if isinstance(p, Lit) else "$" + getattr(p, "name", "(...)"))
        return "".join(out)


@dataclass
class Redir:
    """``fd op target``: op is ``>``, ``>>``, ``<``, ``>&`` or ``<&``; ``&>`` is split by the parser."""

    fd: int
    op: str
    target: Word


@dataclass
class Simple:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class Pipeline:
    cmds: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    first: Node
    rest: list[tuple[str, Node]] = field(default_factory=list)


@dataclass
class Seq:
    """Commands run one after another; ``background`` marks items that ended with ``&``."""

    items: list[Node] = field(default_factory=list)
    background: list[bool] = field(default_factory=list)


@dataclass
class Group:
    body: Seq
    subshell: bool = False
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class If:
    branches: list[tuple[Seq, Seq]]
    orelse: Seq | None = None
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class For:
    var: str
    words: list[Word] | None
    body: Seq
    redirs: list[Redir] = field(default_factory=list)


@dataclass
class While:
    cond: Seq
    body: Seq
    until: bool = False
    redirs: list[Redir] = field(default_factory=list)


Node = Union[Simple, Pipeline, AndOr, Seq, Group, If, For, While]
