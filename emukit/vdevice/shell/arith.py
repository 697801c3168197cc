"""Integer arithmetic for ``$((...))``: a tiny recursive-descent evaluator (no Python evaluation).

Supports decimal/hex/octal literals, variable names, unary ``+ - ! ~``, ``* / %``, ``+ -``, shifts,
comparisons, ``== !=``, ``& ^ |``, ``&& ||`` and parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TOKEN = re.compile(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_][A-Za-z0-9_]*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^])")

_BINARY_LEVELS: list[tuple[str, ...]] = [
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="), ("<<", ">>"),
    ("+", "-"), ("*", "/", "%"),
]


class ArithError(Exception):
    """Bad arithmetic expression."""


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%") and b == 0:
        raise ArithError("divide by zero")
    if op == "/":
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    if op == "%":
        return a - b * _apply("/", a, b)
    table: dict[str, Callable[[int, int], int]] = {
        "||": lambda x, y: int(bool(x) or bool(y)), "&&": lambda x, y: int(bool(x) and bool(y)),
        "|": lambda x, y: x | y, "^": lambda x, y: x ^ y, "&": lambda x, y: x & y,
        "==": lambda x, y: int(x == y), "!=": lambda x, y: int(x != y), "<": lambda x, y: int(x < y),
        "<=": lambda x, y: int(x <= y), ">": lambda x, y: int(x > y), ">=": lambda x, y: int(x >= y),
        "<<": lambda x, y: x << y, ">>": lambda x, y: x >> y, "+": lambda x, y: x + y,
        "-": lambda x, y: x - y, "*": lambda x, y: x * y,
    }
    return table[op](a, b)


def evaluate(expr: str, lookup: Callable[[str], str]) -> int:
    """Evaluate ``expr``; names are looked up with ``lookup`` (empty/unset counts as 0)."""
    tokens: list[str] = []
    pos = 0
    text = expr.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ArithError(f"syntax error in expression (error token is \"{text[pos:].strip()}\")")
        tokens.append(m.group(1))
        pos = m.end()
    if not tokens:
        return 0
    idx = 0

    def peek() -> str | None:
        return tokens[idx] if idx < len(tokens) else None

    def binary(level: int) -> int:
        nonlocal idx
        if level == len(_BINARY_LEVELS):
            return unary()
        value = binary(level + 1)
        while peek() in _BINARY_LEVELS[level]:
            op = tokens[idx]
            idx += 1
            value = _apply(op, value, binary(level + 1))
        return value

    def unary() -> int:
        nonlocal idx
        tok = peek()
        if tok in ("-", "+", "!", "~"):
            idx += 1
            v = unary()
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}[tok]
        return atom()

    def atom() -> int:
        nonlocal idx
        tok = peek()
        if tok is None:
            raise ArithError("syntax error: unexpected end of expression")
        idx += 1
        if tok == "(":
            v = binary(0)
            if peek() != ")":
                raise ArithError("syntax error: missing )")
            idx += 1
            return v
        if tok[0].isdigit():
            return _number(tok)
        if tok[0].isalpha() or tok[0] == "_":
            raw = lookup(tok).strip()
            return _number(raw) if raw else 0
        raise ArithError(f"syntax error: unexpected '{tok}'")

    result = binary(0)
    if idx != len(tokens):
        raise ArithError(f"syntax error: unexpected '{tokens[idx]}'")
    return result


def _number(tok: str) -> int:
    try:
        if tok.lower().startswith("0x"):
            return int(tok, 16)
        if len(tok) > 1 and tok.startswith("0"):
            return int(tok, 8)
        return int(tok)
    except ValueError:
        raise ArithError(f"bad number '{tok}'") from None
