"""Metrics as registered functions: what a metric reads from a scored sample, and one reducer for every metric.

A metric is one function of one scored sample, registered with :func:`metric`; adding one is one new file,
either a module of :mod:`emukit.evaluate.metric_defs` or a module of an outside package named by an entry
point in the ``emukit.metrics`` group (:mod:`emukit.plugins`)::

    from emukit.evaluate.metric import metric
    from emukit.evaluate.metrics import BranchScore

    @metric("parsed_any", label="Parsed (branch)", reads="branch",
            definition="Fraction of scored branches whose prediction the family parser could read at all.")
    def parsed_any(branch: BranchScore) -> bool:
        return branch.parsed is not None

``reads`` declares the scored samples the function is given (one kind, or a tuple of kinds when the same
function reads several), one kind per sample source of the evaluator:

* ``"branch"``: the :class:`~emukit.evaluate.metrics.BranchScore` of every scored branch of a strict pair;
* ``"pair"``: the :class:`ScoredPair` of every scored pair (refused pairs are never given);
* ``"task"``: the :class:`ScoredTask` of every online task on one track (``emukit evaluate --tasks``);
* ``"trajectory"``: the :class:`ScoredTrajectory` of every external trajectory rolled out
  (``--trajectories``);
* ``"unit"``: the :class:`ScoredUnit` of every state-recovery unit of ``emukit estimator eval`` (a held-out
  pair, or a trajectory of a distribution-shift suite).

The function returns a number (a bool counts as 0 or 1) or None when the sample does not count for this
metric; a ``keyed`` metric returns a mapping of numbers, one per key (the fidelity encoders, the judge's
dimensions), each reduced on its own. Every metric is then reduced the same way, by :func:`grouped_mean`: the
mean per group and ``macro``, the unweighted mean over the groups present. :func:`compute` groups by any
attribute the scored samples carry: family (``metrics.<name>``), template (``metrics.by_template.<name>``),
task category or track, trajectory source, Table 5 column (suite) or stratum. ``results.json``, the terminal
tables and the HTML report (label, values and the one-line definition) read the registry, so nothing else is
edited.

The metrics are shown in ``order`` (the seed's own first, a new one after them unless it says otherwise). A
metric marked ``always`` is reported whenever the evaluation has samples of a kind it reads, even when none
has a value (the core metrics); any other only when some sample has one (State Exact appears only under the
predictive-state condition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from emukit.families import FAMILIES
from emukit.plugins import Registry

if TYPE_CHECKING:
    from emukit.evaluate.metrics import BranchScore

Reads = Literal["branch", "pair", "task", "trajectory", "unit"]
READS: tuple[Reads, ...] = ("branch", "pair", "task", "trajectory", "unit")
#: how a metric's values are shown: a fraction as a percentage, a cosine to four places, a judge score to three
#: (GUI-Score, 0-100, to one), a count to two
Shown = Literal["fraction", "cosine", "judge", "count"]
BRANCHES = ("A", "B")


@dataclass(frozen=True)
class ScoredPair:
    """One scored pair as a pair-level metric reads it: its id, family, the scores of its branches and its
    template."""

    pair_id: str
    family: str
    branches: Mapping[str, BranchScore]
    template: str = ""

    def both(self, attribute: str) -> bool:
        """Whether ``attribute`` (``correct``, ``sem_correct``, ...) is true of both branches, A and B (a branch
        with no score counts as false)."""
        return all(self.branches.get(name) is not None and bool(getattr(self.branches[name], attribute))
                   for name in BRANCHES)


@dataclass(frozen=True)
class ScoredTask:
    """One online task on one track as a task metric reads it (:mod:`emukit.evaluate.tasks`): its milestone
    progress, its reference-action progress (reference track; None on the agent track), the steps run, the
    judge's scores of its rollout (each dimension's mean over its judgements) and what it is grouped by."""

    task_id: str
    track: str
    category: str
    template: str
    milestone_progress: float
    action_progress: float | None
    steps: int
    judge: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoredTrajectory:
    """One external trajectory rolled out (:mod:`emukit.evaluate.trajectories`): its judged reference-action
    progress, the judge's other scores (each dimension's mean over the rollout) and its source format."""

    episode_id: str
    source: str
    progress: float
    judge: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoredUnit:
    """One state-recovery unit of Table 5 (:mod:`emukit.estimator.evaluate`): a held-out pair (exact when the
    estimated state of both branches is the canonical one) or a suite trajectory (exact when its one estimate
    is), with its family, its column (``strict`` or the suite), stratum and template."""

    unit_id: str
    family: str
    column: str
    exact: bool
    stratum: str = ""
    template: str = ""


@dataclass(frozen=True)
class Metric:
    """A registered metric: its ``results.json`` key, label and definition, what it reads, and its function."""

    name: str
    label: str
    definition: str
    reads: Reads | tuple[Reads, ...]
    fn: Callable[[Any], Any] = field(repr=False, compare=False)
    order: int = 1000
    always: bool = False
    #: the function returns ``{key: value}`` (one figure per key: a fidelity encoder, a judge dimension); the
    #: label and definition of a key's row may name it as ``{key}``
    keyed: bool = False
    #: each reduced figure also carries ``n``, how many samples it is the mean of (a keyed metric's, per key)
    counted: bool = False
    shown: Shown = "fraction"

    def __post_init__(self) -> None:
        kinds = (self.reads,) if isinstance(self.reads, str) else tuple(self.reads)
        if not kinds or any(k not in READS for k in kinds):
            raise ValueError(f"metric {self.name!r}: reads must be one of {', '.join(READS)} (or a tuple of them), "
                             f"got {self.reads!r}")
        object.__setattr__(self, "reads", kinds[0] if len(kinds) == 1 else kinds)
        if not self.label or not self.definition:
            raise ValueError(f"metric {self.name!r}: give a label and a one-line definition (the report shows both)")
        # the registry names a metric registered twice by its function, as it names any other entry
        object.__setattr__(self, "__module__", getattr(self.fn, "__module__", "?"))
        object.__setattr__(self, "__qualname__", getattr(self.fn, "__qualname__", self.name))

    @property
    def kinds(self) -> tuple[Reads, ...]:
        """The kinds of scored sample the metric reads."""
        return (self.reads,) if isinstance(self.reads, str) else self.reads  # type: ignore[return-value]

    def value(self, sample: Any) -> float | None:
        """The metric of one sample (None: the sample does not count)."""
        got = self.fn(sample)
        return None if got is None else float(got)

    def values(self, sample: Any) -> dict[str, float]:
        """A keyed metric's figures of one sample, by key (empty: the sample does not count)."""
        got = self.fn(sample)
        return {} if got is None else {str(k): float(v) for k, v in got.items() if v is not None}

    def row_label(self, key: str | None = None) -> str:
        """The label of the metric's row (a keyed metric: of its ``key``'s row)."""
        return self.label if key is None else self.label.format(key=key)

    def show(self, value: float | None, key: str | None = None) -> str:
        """One reduced value as the tables show it (``-``: no value)."""
        if value is None:
            return "-"
        if self.shown == "fraction":
            return f"{100 * value:.1f}"
        if self.shown == "cosine":
            return f"{value:.4f}"
        if self.shown == "judge":
            return f"{value:.1f}" if key == "GUI-Score" else f"{value:.3f}"
        return f"{value:.2f}"


#: every metric, by name (its ``results.json`` key): the modules of :mod:`emukit.evaluate.metric_defs` and of the
#: ``emukit.metrics`` entry-point group
METRICS: Registry[Metric] = Registry("metric", "emukit.evaluate.metric_defs", "emukit.metrics")

F = Callable[[Any], Any]


def metric(name: str, *, label: str, definition: str, reads: Reads | tuple[Reads, ...], order: int = 1000,
           always: bool = False, keyed: bool = False, counted: bool = False,
           shown: Shown = "fraction") -> Callable[[F], F]:
    """Decorator: register the function as the metric ``name`` (see the module docstring); returns the
    function unchanged."""

    def deco(fn: F) -> F:
        METRICS.register(name)(Metric(name=name, label=label, definition=definition, reads=reads, fn=fn,
                                      order=order, always=always, keyed=keyed, counted=counted, shown=shown))
        return fn

    return deco


def registered_metrics(reads: Reads | None = None) -> list[Metric]:
    """Every registered metric in table order (``order``, then name); ``reads``: only those reading that kind."""
    found = (METRICS.get(name) for name in METRICS.names())
    return sorted((m for m in found if reads is None or reads in m.kinds), key=lambda m: (m.order, m.name))


def grouped_mean(values: Iterable[tuple[str, float]], order: Sequence[str] = FAMILIES, *,
                 counted: bool = False) -> dict[str, float | None]:
    """The one reducer: ``(group, value)`` pairs to the mean per group, groups in ``order`` (others after them,
    by name), and ``macro``, the unweighted mean over the groups (None when there is none); ``counted``: then
    ``n``, how many values there were."""
    sums: dict[str, list[float]] = {}
    for group, value in values:
        acc = sums.setdefault(group, [0.0, 0])
        acc[0] += value
        acc[1] += 1
    out: dict[str, float | None] = {}
    for group in sorted(sums, key=lambda g: (order.index(g) if g in order else len(order), g)):
        total, n = sums[group]
        out[group] = total / n
    present = [v for v in out.values() if v is not None]
    out["macro"] = sum(present) / len(present) if present else None
    if counted:
        out["n"] = sum(n for _, n in sums.values())
    return out


#: what samples are grouped by: an attribute of the scored samples (a branch or pair: ``family``, ``template``;
#: a task: ``track``, ``category``, ``template``; a trajectory: ``source``; a unit: ``family``, ``column``,
#: ``stratum``, ``template``)
GroupBy = str


def group_name(value: str, by: GroupBy) -> str:
    """The group a sample's ``by`` value falls in: the value, or ``(no <by>)`` when it has none (a pair of an
    export that names no template)."""
    return value or f"(no {by})"


Reduced = dict[str, Any]


#: the one group of :func:`compute` ``by=None``
ALL = "all"


def compute(metrics: Sequence[Metric], samples: Mapping[Reads, Sequence[Any]], *, by: GroupBy | None = "family",
            order: Sequence[str] | None = None) -> dict[str, Reduced]:
    """Each metric over the scored samples of the kinds it reads (``samples``: kind -> samples; a metric
    reading none of the kinds given is left out), grouped by the samples' ``by`` attribute (None: every sample in
    one group, :data:`ALL`): ``{name: {group:
    value, ..., "macro": value}}`` (a ``keyed`` metric: ``{name: {key: {group: value, ..., "macro": value}}}``)
    for the metrics reported (every ``always`` metric, and any other some sample has a value for). Groups come
    in ``order`` (default: the families' table order when grouping by family), others after them by name."""
    if order is None:
        order = FAMILIES if by == "family" else ()

    def group(sample: Any) -> str:
        return ALL if by is None else group_name(getattr(sample, by, ""), by)

    out: dict[str, Reduced] = {}
    for m in metrics:
        if not any(kind in samples for kind in m.kinds):
            continue
        pool = [s for kind in m.kinds for s in samples.get(kind, ())]
        if m.keyed:
            per_key: dict[str, list[tuple[str, float]]] = {}
            for s in pool:
                for key, v in m.values(s).items():
                    per_key.setdefault(key, []).append((group(s), v))
            if per_key or m.always:
                out[m.name] = {key: grouped_mean(vals, order, counted=m.counted) for key, vals in per_key.items()}
            continue
        values = [(group(s), v) for s in pool if (v := m.value(s)) is not None]
        if values or m.always:
            out[m.name] = grouped_mean(values, order, counted=m.counted)
    return out


def transpose(reduced: Mapping[str, Reduced], metrics: Sequence[Metric], group: str, *,
              counts: bool = True) -> dict[str, Any]:
    """One group's figures out of :func:`compute`'s result over that group's samples: ``{name: value}`` for the
    metrics with a value for ``group`` (a keyed metric: ``{name: {key: value, ...}}``, then, when it is
    ``counted`` and ``counts`` is true, ``n``: the most samples any key was reduced over)."""
    out: dict[str, Any] = {}
    for m in metrics:
        got = reduced.get(m.name)
        if got is None:
            continue
        if not m.keyed:
            if group in got:
                out[m.name] = got[group]
            continue
        keys: dict[str, Any] = {key: entry[group] for key, entry in got.items() if group in entry}
        if keys and m.counted and counts:
            keys["n"] = max(entry.get("n", 0) for entry in got.values())
        if keys:
            out[m.name] = keys
    return out
