"""Seeded parameter sampling and ``{name}`` substitution into template steps.

A ``derived`` value that starts with ``=`` is integer arithmetic evaluated after substitution
(``"={d} * 60 - {e}"``): ``+ - * // %``, parentheses, ``min(...)`` and ``max(...)`` on integers; any
other derived string is plain substitution, as before.
"""

from __future__ import annotations

import ast
import hashlib
import operator
import random
import re
from typing import Any, Protocol

from emukit.errors import ConfigError
from emukit.templates.schema import ParamSpec

_NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
# {name}, {name[3]}, and an index taken from another parameter: {name[other]} / {name[other[2]]}; an index
# that is a list of ints picks those elements in that order (``{songs[order]}`` -> a list).
_FIELD = re.compile(rf"\{{({_NAME})(?:\[(\d+|{_NAME}(?:\[\d+\])?)\])?\}}")
_INNER = re.compile(rf"({_NAME})(?:\[(\d+)\])?")


def rng_for(template: str, seed: int, slot: int, attempt: int) -> random.Random:
    """A generator that depends only on (template, seed, slot, attempt): reruns sample the same params."""
    digest = hashlib.sha256(f"{template}|{seed}|{slot}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class Parametrized(Protocol):
    """What sampling reads: a causal template or a task template."""

    params: dict[str, ParamSpec]
    derived: dict[str, str]
    source_path: str


def sample_params(template: Parametrized, rng: random.Random) -> dict[str, Any]:
    """Draw every parameter, then evaluate the ``derived`` strings (which may use earlier values)."""
    values: dict[str, Any] = {}
    for name, spec in template.params.items():
        if spec.choice is not None:
            values[name] = rng.choice(spec.choice)
        elif spec.sample is not None:
            values[name] = rng.sample(spec.sample, spec.k or 1)
        elif spec.int_range is not None:
            values[name] = rng.randint(*spec.int_range)
        elif spec.permutation is not None:
            values[name] = rng.sample(spec.permutation, len(spec.permutation))
    for name, expr in template.derived.items():
        where = f"{template.source_path}: derived.{name}"
        value = substitute(expr, values, where)
        if isinstance(expr, str) and expr.lstrip().startswith("="):
            value = evaluate_int(str(value).lstrip()[1:], where)
        values[name] = value
    return values


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod}
_CALLS = {"min": min, "max": max}


def evaluate_int(text: str, where: str = "template") -> int:
    """Integer arithmetic of a substituted ``=`` derived value (no names, no floats, no other calls)."""

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _CALLS
                and node.args and not node.keywords):
            return _CALLS[node.func.id](ev(a) for a in node.args)
        raise ConfigError(f"{where}: {text.strip()!r} is not integer arithmetic (+ - * // % min max)")

    try:
        return ev(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ZeroDivisionError) as exc:
        raise ConfigError(f"{where}: cannot evaluate {text.strip()!r}: {exc}") from None


def _lookup(values: dict[str, Any], name: str, index: str | None, where: str) -> Any:
    if name not in values:
        raise ConfigError(f"{where}: unknown parameter {{{name}}}")
    value = values[name]
    if index is not None:
        if index.isdigit():
            at: Any = int(index)
        else:
            inner = _INNER.fullmatch(index)
            assert inner is not None
            at = _lookup(values, inner.group(1), inner.group(2), where)
        try:
            if isinstance(at, list):
                value = [value[int(i)] for i in at]
            else:
                value = value[int(at)]
        except (IndexError, TypeError, KeyError, ValueError):
            raise ConfigError(f"{where}: {{{name}[{index}]}} is out of range for {value!r}") from None
    return value


def substitute(obj: Any, values: dict[str, Any], where: str = "template") -> Any:
    """Replace ``{name}`` / ``{name[i]}`` in strings; a string that is exactly one field keeps its type."""
    if isinstance(obj, str):
        whole = _FIELD.fullmatch(obj)
        if whole:
            return _lookup(values, whole.group(1), whole.group(2), where)
        return _FIELD.sub(lambda m: str(_lookup(values, m.group(1), m.group(2), where)), obj)
    if isinstance(obj, list):
        return [substitute(v, values, where) for v in obj]
    if isinstance(obj, dict):
        return {k: substitute(v, values, where) for k, v in obj.items()}
    return obj
