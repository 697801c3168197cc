"""Seeded parameter sampling and ``{name}`` substitution into template steps."""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

from emukit.errors import ConfigError
from emukit.templates.schema import Template

_FIELD = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(?:\[(\d+)\])?\}")


def rng_for(template: str, seed: int, slot: int, attempt: int) -> random.Random:
    """A generator that depends only on (template, seed, slot, attempt): reruns sample the same params."""
    digest = hashlib.sha256(f"{template}|{seed}|{slot}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def sample_params(template: Template, rng: random.Random) -> dict[str, Any]:
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
        values[name] = substitute(expr, values, f"{template.source_path}: derived.{name}")
    return values


def _lookup(values: dict[str, Any], name: str, index: str | None, where: str) -> Any:
    if name not in values:
        raise ConfigError(f"{where}: unknown parameter {{{name}}}")
    value = values[name]
    if index is not None:
        try:
            value = value[int(index)]
        except (IndexError, TypeError, KeyError):
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
