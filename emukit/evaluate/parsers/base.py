"""Types and evidence helpers shared by the family parsers, and :class:`FamilyReader`, the evaluator's piece of
one state family: each ``emukit/evaluate/parsers/<family>.py`` registers one with :data:`READERS`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from emukit.evaluate.parsers.normalize import normalize_text
from emukit.evaluate.visible import Evidence, EvidenceNode
from emukit.families import FamilyPieces, unit

if TYPE_CHECKING:
    from emukit.evaluate.pairs import TaskSource

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


class FamilyReader(ABC):
    """How the evaluator reads one state family: the prediction-time context of a pair (for the state
    interface and the estimator), what the parser must know of a branch, the parser itself and the judge's
    semantic rule. Subclass it in ``emukit/evaluate/parsers/<family>.py`` and decorate the class with
    :func:`register_reader` (an outside package names its module by an ``emukit.family_parsers`` entry
    point); the public :func:`~emukit.evaluate.parsers.parse`, ``judge`` and ``expected_context`` find it by
    the family's name."""

    #: the family's name (a registered :class:`~emukit.families.FamilyUnit`)
    family: ClassVar[str]
    #: the outcome of a prediction with no readable evidence (scored incorrect, kept in the denominator)
    invalid_outcome: ClassVar[dict[str, Any]]
    #: an invalid parse is judged by :meth:`semantics` too (its ``invalid`` reading is named in the reason);
    #: otherwise it is incorrect with the parser's own reason
    judges_invalid: ClassVar[bool] = False

    # -- the pair's prediction-time context ------------------------------------------------------------------
    def interface_context(self, pair: TaskSource) -> dict[str, Any] | None:
        """The context ``c_t`` the state interface needs besides the state (None: the family needs none)."""
        return None

    def estimator_task(self, pair: TaskSource) -> dict[str, Any]:
        """Prediction-time task context for the estimator (never branch state or outcomes): by default the
        pair's ``playlist`` / ``collection_type`` parameters, when it has them."""
        return {k: v for k, v in pair.params.items() if k in ("playlist", "collection_type")}

    # -- scoring ---------------------------------------------------------------------------------------------
    def target(self, outcome: Mapping[str, Any]) -> Any:
        """The branch's semantic target ``Y``: the outcome's :attr:`~emukit.families.FamilyUnit.target_key`."""
        return outcome.get(unit(self.family).target_key)

    @abstractmethod
    def expected_context(self, outcome: Mapping[str, Any], sibling_outcome: Mapping[str, Any],
                         state: Mapping[str, Any] | None, sibling_state: Mapping[str, Any] | None,
                         known_items: list[str] | None) -> dict[str, Any]:
        """What :meth:`parse` needs to know of the branch (see
        :func:`emukit.evaluate.parsers.expected_context`)."""

    @abstractmethod
    def parse(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        """The family outcome read from visible evidence; ``KeyError`` names a missing context field."""

    def __call__(self, evidence: Evidence, context: Mapping[str, Any]) -> ParsedOutcome:
        """:meth:`parse` (a reader is also its family's parse function, as ``PARSERS[family]`` was)."""
        return self.parse(evidence, context)

    @abstractmethod
    def semantics(self, got: Mapping[str, Any], expected_outcome: Mapping[str, Any]) -> tuple[bool, str]:
        """SemCorrect of a parsed outcome against the branch's true outcome, and the reason in words."""

    def judge(self, parsed: ParsedOutcome, expected_outcome: Mapping[str, Any]) -> Verdict:
        """SemCorrect (:meth:`semantics`), SurfaceValid (every surface gate of the parse) and the reason."""
        if not parsed.valid and not self.judges_invalid:
            sem, why = False, f"invalid prediction: {parsed.reason}"
        else:
            sem, why = self.semantics(parsed.outcome, expected_outcome)
        failed = [k for k, v in parsed.surface_checks.items() if not v]
        if failed:
            why += "; surface gates failed: " + ", ".join(failed)
        return Verdict(sem_correct=bool(sem), surface_valid=parsed.surface_valid, reason=why)


#: the evaluator's reader of every family, by name (``emukit/evaluate/parsers/<family>.py``)
READERS: FamilyPieces[FamilyReader] = FamilyPieces("family parser", "emukit.evaluate.parsers",
                                                   "emukit.family_parsers")


def register_reader(cls: type[FamilyReader]) -> type[FamilyReader]:
    """Class decorator: register one instance of ``cls`` under ``cls.family``."""
    READERS.register(cls.family)(cls())
    return cls


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
