"""Text normalisation of C.4 and the small text patterns the family parsers share.

:func:`normalize_text` is the only normalisation applied before matching: HTML-entity decoding, case folding
and whitespace collapsing (seed 002 Appendix C.4). Characters that render as nothing (zero-width spaces and
joiners, soft hyphens, the byte-order mark) are dropped as part of the whitespace collapse. No OCR, no fuzzy
matching, no language model.
"""

from __future__ import annotations

import html
import re

_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_SPACE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Entity-decode, case-fold and collapse whitespace (``"No&nbsp;Matches\\n"`` -> ``"no matches"``)."""
    return _SPACE.sub(" ", _INVISIBLE.sub("", html.unescape(text)).casefold()).strip()


def contains(haystack: str, needle: str) -> bool:
    """String containment of normalised texts (both sides normalised here; an empty needle never matches)."""
    n = normalize_text(needle)
    return bool(n) and n in normalize_text(haystack)


def occurs(haystack: str, needle: str, *, excluding: tuple[str, ...] = ()) -> bool:
    """Containment of ``needle`` in ``haystack`` after removing every occurrence of the ``excluding`` strings
    that themselves contain ``needle`` (so that a payload is not "found" inside a longer sibling payload)."""
    n, h = normalize_text(needle), normalize_text(haystack)
    if not n:
        return False
    for other in excluding:
        o = normalize_text(other)
        if o and o != n and n in o:
            h = h.replace(o, "\u0000")
    return n in h


# ``MM:SS`` / ``H:MM:SS`` (an optional leading minus for an overrun), not part of a longer number or time.
DURATION = re.compile(r"(?<![\d:.+])(-)?(?:(\d{1,2}):)?(\d{1,3}):(\d{2})(?![\d:])")
WALL_CLOCK_SUFFIX = re.compile(r"^\s*(a\.?m\.?|p\.?m\.?)\b")
UTC_OFFSET_PREFIX = re.compile(r"(gmt|utc)\s*[+-]?\s*$")


def durations(text: str) -> list[tuple[int, str, bool]]:
    """Every ``MM:SS``/``H:MM:SS`` countdown in a normalised text: ``(seconds, matched text, am/pm follows)``.

    Negative overrun values (``-0:12``) count as zero; time-zone offsets (``GMT+05:30``, ``+01:00``) are not
    countdowns."""
    out = []
    for m in DURATION.finditer(text):
        sign, h, mnt, sec = m.groups()
        if int(sec) >= 60 or UTC_OFFSET_PREFIX.search(text[:m.start()]):
            continue
        seconds = 0 if sign else int(h or 0) * 3600 + int(mnt) * 60 + int(sec)
        out.append((seconds, m.group(0), bool(WALL_CLOCK_SUFFIX.match(text[m.end():]))))
    return out
