"""Consistent renaming within a training row: the names a model could memorise, resampled.

A causal template draws its names from lists (``choice``, ``sample``, ``permutation`` of strings: file stems
and extensions, note and recipe titles, clipboard codes, playlist and song names). :func:`rename_map` takes
every word of three or more letters and digits in the values a row drew from such lists, but the vocabulary
a template also chooses from lists (action kinds, timer statuses, the words its expected states spell:
:func:`reserved_words`), and gives it a fresh word of the same shape (each upper-case letter another
upper-case letter, lower-case likewise, each digit another digit), from a generator seeded by the row's
identity, so a row is renamed the same way every time. :func:`apply` replaces whole words only (not inside a
longer word), all at once.

A renamed row keeps its artifacts as they were recorded; the map travels in the row (``rename``) and the
estimator applies it to the row's serialised input (all but the family's instruction line) and to the string
values of its target state (:func:`emukit.estimator.data.row_example`). So the screens' texts, the typed
text, the task context and the state all name the same fresh names, and nothing about the row's structure
changes.
"""

from __future__ import annotations

import hashlib
import random
import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

from emukit.templates.schema import ParamSpec

MIN_WORD = 3
_WORD = re.compile(r"[A-Za-z0-9]+")


def reserved_words(templates: Iterable[Any]) -> frozenset[str]:
    """Words that are never renamed because they are vocabulary, not names: the action kinds a template may
    choose between (a ``how: {choice: [back, tap]}``) and every word the templates' expected states and outcomes
    spell out literally (``running``, ``fired``, ``present``...), with the timer statuses a state may take."""
    from emukit.templates.schema import RAW_ACTIONS, SETUP_ONLY

    words = {w for name in (*RAW_ACTIONS, *SETUP_ONLY) for w in _WORD.findall(name)}
    words.update(TIMER_STATUSES)

    def literal(value: Any) -> None:
        if isinstance(value, str) and "{" not in value:
            words.update(_WORD.findall(value))
        elif isinstance(value, Mapping):
            for v in value.values():
                literal(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                literal(v)

    for template in templates:
        for expected in template.expect.values():
            literal(expected.state)
            literal(expected.outcome)
    return frozenset(words)


#: what a timer's state may say (emukit/families/temporal.py), whether a template spells it or substitutes it
TIMER_STATUSES = ("running", "paused", "fired", "stopped", "reset")


def pooled_words(params: Mapping[str, Any], specs: Mapping[str, ParamSpec],
                 reserved: frozenset[str] = frozenset()) -> set[str]:
    """The words (:data:`MIN_WORD` or more letters and digits) of the values ``params`` drew from string lists
    (:class:`ParamSpec` ``choice``, ``sample`` or ``permutation`` holding strings), but the ``reserved`` ones
    (:func:`reserved_words`)."""
    words: set[str] = set()
    for name, spec in specs.items():
        pool = spec.choice if spec.choice is not None else (spec.sample if spec.sample is not None
                                                            else spec.permutation)
        if pool is None or not any(isinstance(v, str) for v in _flat(pool)) or name not in params:
            continue
        for value in _flat([params[name]]):
            if isinstance(value, str):
                words.update(w for w in _WORD.findall(value) if len(w) >= MIN_WORD and w not in reserved)
    return words


def _flat(values: Iterable[Any]) -> Iterable[Any]:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _fresh(word: str, rng: random.Random) -> str:
    out = []
    for ch in word:
        if ch.isdigit():
            out.append(rng.choice(string.digits))
        elif ch.isupper():
            out.append(rng.choice(string.ascii_uppercase))
        else:
            out.append(rng.choice(string.ascii_lowercase))
    return "".join(out)


def rename_map(words: Iterable[str], key: str) -> dict[str, str]:
    """A fresh word of the same shape for each of ``words``, seeded by ``key`` (the row's identity); two words
    never get the same new word, and no new word is one of the old ones."""
    rng = random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:16], 16))
    old = sorted(set(words))
    taken = set(old)
    out: dict[str, str] = {}
    for word in old:
        new = _fresh(word, rng)
        while new in taken:
            new = _fresh(word, rng)
        taken.add(new)
        out[word] = new
    return out


def apply(text: str, mapping: Mapping[str, str]) -> str:
    """``text`` with every whole word of ``mapping`` replaced (longest first; a word inside a longer run of
    letters and digits is left alone)."""
    if not mapping:
        return text
    pattern = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(re.escape(w) for w in sorted(mapping, key=len, reverse=True))
                         + r")(?![A-Za-z0-9])")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


def apply_values(value: Any, mapping: Mapping[str, str]) -> Any:
    """``value`` (a JSON value: a state, a parameter) with :func:`apply` on every string in it; keys kept."""
    if isinstance(value, str):
        return apply(value, mapping)
    if isinstance(value, list):
        return [apply_values(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: apply_values(v, mapping) for k, v in value.items()}
    return value
