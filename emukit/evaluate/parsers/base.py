"""Types and evidence helpers shared by the family parsers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.visible import Evidence, EvidenceNode

Source = Literal["render", "fallback", "none"]
TEXT_KINDS = frozenset({"text", "control", "value"})


@dataclass(frozen=True)
class ParsedOutcome:
    """The semantic outcome a family parser read from one prediction (``\\hat Y`` of seed 002 eq. 64).

    ``outcome`` has the shape of the pair format's outcomes (``docs/pair-format.md``): persistent
    ``{"result": "present"|"absent"|"invalid", "probe", "target"}``; clipboard ``{"pasted_text": str|None,
    "result": "expected"|"sibling"|"both"|"none"|"invalid"}``; ordered ``{"ordered_items": [...]}`` (or
    ``{"result": "invalid"}``); temporal ``{"status": "fired"|"running"|"paused"|"none"|"invalid",
    "remaining_seconds": int|None}``.

    ``valid`` is False when no outcome could be read (no evidence, contradictions). ``surface_checks`` are
    the non-outcome gates of the official scorer (seed 002 E.4.1: Downloads scope, keyboard, folder
    grounding, unique listing, shade grounding, footer, offline self-containedness); ``surface_valid`` is
    their conjunction. ``reason`` says in one sentence why; ``details`` lists the evidence used.
    """

    family: str
    outcome: dict[str, Any]
    valid: bool
    surface_checks: dict[str, bool]
    reason: str
    source: Source = "render"
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def surface_valid(self) -> bool:
        return all(self.surface_checks.values())

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "outcome": self.outcome, "valid": self.valid,
                "surface_checks": self.surface_checks, "surface_valid": self.surface_valid, "reason": self.reason,
                "source": self.source, "details": self.details}


@dataclass(frozen=True)
class Verdict:
    """A parsed outcome judged against the branch's true outcome (seed 002 C.4 / E.4.1).

    ``correct`` (BranchExact) = ``sem_correct`` (SemCorrect) and ``surface_valid`` (SurfaceValid)."""

    sem_correct: bool
    surface_valid: bool
    reason: str

    @property
    def correct(self) -> bool:
        return self.sem_correct and self.surface_valid

    def to_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "sem_correct": self.sem_correct, "surface_valid": self.surface_valid,
                "reason": self.reason}


def text_nodes(evidence: Evidence) -> list[EvidenceNode]:
    """Visible text, control-text and value nodes, reading order (placeholders, icons and bare labels out)."""
    return [n for n in evidence.visible_nodes if n.kind in TEXT_KINDS]


def label_nodes(evidence: Evidence) -> list[EvidenceNode]:
    """Visible nodes that can name a control: texts, values, ``aria-label``s of icon-only controls."""
    return [n for n in evidence.visible_nodes if n.kind in TEXT_KINDS or n.kind == "label"]


def offline_check(evidence: Evidence) -> dict[str, bool]:
    return {"offline_self_contained": evidence.offline_ok}


def describe(nodes: Iterable[EvidenceNode], limit: int = 8) -> list[str]:
    """Short descriptions of nodes for ``details`` (text and position)."""
    out = []
    for n in list(nodes)[:limit]:
        where = f"@{n.x:.0f},{n.y:.0f}" if n.box else ""
        out.append(f"{n.text[:60]!r}{where}")
    return out


def norm_all(values: Iterable[Any]) -> list[str]:
    return [normalize_text(str(v)) for v in values if str(v).strip()]


def require(context: Mapping[str, Any], key: str, family: str) -> Any:
    if key not in context or context[key] in (None, ""):
        raise KeyError(f"{family} parser needs expected_context[{key!r}]")
    return context[key]


# -- software keyboards -------------------------------------------------------------------------------------

KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def keyboard_rows(evidence: Evidence) -> list[str]:
    """The QWERTY letter rows visible as keys, top to bottom (``["qwertyuiop", "asdfghjkl", ...]``).

    A key is a visible node whose normalised text is one letter (or a node holding a whole row of single
    letters, space-separated or run together as in source-text fallback). Keys are grouped into rows by their vertical centre; a row counts when it
    holds at least 60 % of one of the three QWERTY rows' letters.
    """
    keys: list[tuple[float, float, str]] = []
    for n in text_nodes(evidence) + [n for n in evidence.visible_nodes if n.kind == "label"]:
        t = n.norm
        if len(t) == 1 and t.isalpha():
            keys.append((n.center_y, n.box[3] if n.box else 1.0, t))
        elif t and all(len(tok) == 1 and tok.isalpha() for tok in t.split(" ")) and len(t.split(" ")) >= 4:
            keys.append((n.center_y, n.box[3] if n.box else 1.0, t.replace(" ", "")))
        elif t.isalpha() and any(set(t) <= set(row) and len(t) == len(set(t)) >= 0.6 * len(row) for row in KEY_ROWS):
            keys.append((n.center_y, n.box[3] if n.box else 1.0, t))  # a row of keys read as one word
    if evidence.fallback:  # no geometry: the rows whose letters are there, in QWERTY order
        letters = {c for k in keys for c in k[2]}
        return [row for row in KEY_ROWS if len(letters & set(row)) >= 0.6 * len(row)]
    keys.sort()
    groups: list[list[tuple[float, float, str]]] = []
    for key in keys:
        if groups and abs(key[0] - groups[-1][-1][0]) <= max(2.0, 0.4 * min(key[1], groups[-1][-1][1])):
            groups[-1].append(key)
        else:
            groups.append([key])
    out = []
    for g in groups:
        letters = "".join(k[2] for k in g)
        r = _row_of(letters)
        if r is not None and len(set(letters) & set(KEY_ROWS[r])) >= 0.6 * len(KEY_ROWS[r]):
            out.append(KEY_ROWS[r])
    return out


def _row_of(letters: str) -> int | None:
    scores = [len(set(letters) & set(row)) for row in KEY_ROWS]
    best = max(range(3), key=lambda i: scores[i])
    return best if scores[best] else None


def has_keyboard(evidence: Evidence, *, rows_needed: int = 3) -> bool:
    """A plausible multi-row software keyboard: the QWERTY letter rows visible top to bottom in order
    (``rows_needed`` of them, counting from the ``qwertyuiop`` row)."""
    rows = keyboard_rows(evidence)
    want = list(KEY_ROWS[:rows_needed])
    it = iter(rows)
    return all(any(r == w for r in it) for w in want)
