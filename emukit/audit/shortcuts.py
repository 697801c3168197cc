"""Label shortcuts: can a guesser that looks at one trivial feature of a branch tell which of its template's
two branches (its *role*) produced it, and so what its outcome will be, without reading the screens?

Each guesser sees one feature of a recorded branch:

* ``history_length``: how many steps its history has;
* ``length_in_pair``: whether its history is shorter than, as long as, or longer than its sibling's;
* ``last_action``: its last history action (the canonical action: type, element, coordinates, text, key);
* ``branch_name``: the name it was recorded under (``A`` / ``B``);
* ``neutral_moves`` (reported, never failing): how many neutral moves (status-bar taps) pad its history.

The neutral moves even out the two histories' lengths, so they go to the branch whose template steps are
fewer, which is the same role in every pair of a template: this guesser is near 100 % wherever a template's
branches differ in length. It is reported and does not fail the audit because it reads the history's
*content* (a tap on the status bar), as every guesser that reads the content must: the branches' own steps
(a COPY confirmed or cancelled) tell the role by design, and that is what a model has to read. It is a
spurious cue all the same (a status-bar tap causes nothing); docs/audits.md says what would remove it.

A guesser learns, per template, the majority role for each feature value on one half of the pairs and is
scored on the other half (two folds by pair, alternating in pair-id order; a value not seen in training, or a
tie, falls back to the training half's majority role, and a tie there scores one half). Its accuracy for a
family is over every scored branch of the family's templates. With strict pairs and balanced roles every
guesser should be near 50 %; the audit fails a family where any guesser reaches :data:`MAX_ACCURACY`.

The audit also reports how often the recorded "A" is the template's A branch (balanced roles: about half)
and, for temporal pairs, how the outcomes spread over fired / running / none.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emukit.errors import ConfigError
from emukit.families import unit

GUESSERS = ("history_length", "length_in_pair", "last_action", "branch_name")
INFORMATIONAL = ("neutral_moves",)  # scored and reported, never failing (see the module docstring)
MAX_ACCURACY = 0.60  # the bound for every family


@dataclass(frozen=True)
class BranchView:
    """What the guessers may look at, and the label they guess (``role``)."""

    pair_id: str
    family: str
    template: str
    name: str
    role: str
    length: int
    sibling_length: int
    last_action: str
    outcome: dict[str, Any]
    neutral_moves: int = 0


FEATURES: dict[str, Callable[[BranchView], str]] = {
    "history_length": lambda b: str(b.length),
    "length_in_pair": lambda b: "shorter" if b.length < b.sibling_length else
    "longer" if b.length > b.sibling_length else "same",
    "last_action": lambda b: b.last_action,
    "branch_name": lambda b: b.name,
    "neutral_moves": lambda b: str(b.neutral_moves),
}


def _views(pair_id: str, family: str, template: str, roles: dict[str, str],
           branches: dict[str, tuple[int, dict[str, Any] | None, dict[str, Any]]],
           padding: dict[str, int]) -> list[BranchView]:
    """``branches``: name -> (history length, last canonical action or None, outcome); ``padding``: name ->
    neutral moves."""
    out = []
    for name, (length, last, outcome) in sorted(branches.items()):
        other = branches["B" if name == "A" else "A"][0]
        out.append(BranchView(pair_id, family, template, name, roles.get(name, name), length, other,
                              json.dumps(last, sort_keys=True) if last is not None else "none", outcome,
                              int(padding.get(name, 0))))
    return out


def views_from_records(pairs: Iterable[Any]) -> list[BranchView]:
    """Branch views of stored :class:`emukit.records.PairRecord` objects."""
    out: list[BranchView] = []
    for p in pairs:
        branches = {n: (len(b.history), b.history[-1].action.canonical() if b.history else None, b.outcome)
                    for n, b in p.branches.items()}
        out += _views(p.pair_id, p.family, p.template, dict(p.roles), branches, dict(p.padding))
    return out


def views_from_export(folder: Path) -> list[BranchView]:
    """Branch views of an export folder's ``pairs.jsonl`` (rows without ``roles`` count as unswapped)."""
    path = folder / "pairs.jsonl" if folder.is_dir() else folder
    if not path.is_file():
        raise ConfigError(f"{folder}: no pairs.jsonl (expected an export folder or its pairs.jsonl)")
    out: list[BranchView] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            branches = {n: (len(b["history"]), b["history"][-1]["action"] if b["history"] else None, b["outcome"])
                        for n, b in row["branches"].items()}
            out += _views(row["pair_id"], row["family"], row["template"], row.get("roles") or {}, branches,
                          row.get("padding") or {})
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ConfigError(f"{path}:{lineno}: not an exported pair ({type(exc).__name__}: {exc})") from None
    return out


@dataclass
class Score:
    correct: float = 0.0
    scored: int = 0

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.scored if self.scored else None

    def add(self, other: Score) -> None:
        self.correct += other.correct
        self.scored += other.scored


def _majority(labels: Counter) -> str | None:
    ranked = labels.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def guess_accuracy(views: list[BranchView], feature: Callable[[BranchView], str]) -> Score:
    """Two-fold cross-validated accuracy of the per-value majority guesser on one template's branches."""
    pair_ids = sorted({v.pair_id for v in views})
    fold = {pid: i % 2 for i, pid in enumerate(pair_ids)}
    score = Score()
    for test in (0, 1):
        train = [v for v in views if fold[v.pair_id] != test]
        table: dict[str, Counter] = defaultdict(Counter)
        for v in train:
            table[feature(v)][v.role] += 1
        overall = _majority(Counter(v.role for v in train))
        for v in views:
            if fold[v.pair_id] != test:
                continue
            guess = _majority(table.get(feature(v), Counter())) or overall
            score.correct += 0.5 if guess is None else float(guess == v.role)
            score.scored += 1
    return score


@dataclass
class ShortcutReport:
    """Accuracies per family and per template, role balance, and the outcome spread of the families whose
    unit names an ``outcome_mix_key`` (temporal: fired / running / none)."""

    by_family: dict[str, dict[str, Score]] = field(default_factory=dict)
    by_template: dict[tuple[str, str], dict[str, Score]] = field(default_factory=dict)
    pairs: Counter = field(default_factory=Counter)  # family -> pairs
    swapped: Counter = field(default_factory=Counter)  # family -> pairs whose recorded A ran the template's B
    outcome_mix: dict[str, Counter] = field(default_factory=dict)  # family -> outcome value -> branches
    max_accuracy: float = MAX_ACCURACY

    def family_ok(self, family: str) -> bool:
        scores = self.by_family[family]
        return all((scores[g].accuracy or 0.0) < self.max_accuracy for g in GUESSERS)

    @property
    def ok(self) -> bool:
        return bool(self.by_family) and all(self.family_ok(f) for f in self.by_family)

    def to_json(self) -> dict[str, Any]:
        return {
            "max_accuracy": self.max_accuracy, "ok": self.ok,
            "families": {f: {"pairs": self.pairs[f], "swapped_share": self.swapped[f] / self.pairs[f],
                             "ok": self.family_ok(f),
                             "accuracy": {g: s.accuracy for g, s in scores.items()}}
                         for f, scores in sorted(self.by_family.items())},
            "templates": {f"{f}/{t}": {g: s.accuracy for g, s in scores.items()}
                          for (f, t), scores in sorted(self.by_template.items())},
            "outcome_mix": {f: dict(sorted(c.items())) for f, c in sorted(self.outcome_mix.items())},
        }


def audit_shortcuts(views: list[BranchView], *, max_accuracy: float = MAX_ACCURACY) -> ShortcutReport:
    """Score every guesser on ``views``.

    Args:
        views: the branches as the guessers see them (:func:`views_from_records` / :func:`views_from_export`).
        max_accuracy: the accuracy above which a guesser is a shortcut.

    Returns:
        Each guesser's accuracy per template and family.

    Raises:
        ConfigError: no pairs to audit.
    """
    if not views:
        raise ConfigError("no pairs to audit")
    report = ShortcutReport(max_accuracy=max_accuracy)
    by_template: dict[tuple[str, str], list[BranchView]] = defaultdict(list)
    for v in views:
        by_template[(v.family, v.template)].append(v)
        if v.name == "A":
            report.pairs[v.family] += 1
            report.swapped[v.family] += v.role != "A"
        mix_key = unit(v.family).outcome_mix_key
        if mix_key is not None:
            report.outcome_mix.setdefault(v.family, Counter())[str(v.outcome.get(mix_key))] += 1
    for key, group in sorted(by_template.items()):
        scores = {g: guess_accuracy(group, FEATURES[g]) for g in GUESSERS + INFORMATIONAL}
        report.by_template[key] = scores
        family = report.by_family.setdefault(key[0], {g: Score() for g in GUESSERS + INFORMATIONAL})
        for g in GUESSERS + INFORMATIONAL:
            family[g].add(scores[g])
    return report
