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

``reads`` declares the sample the function is given: ``"branch"``, the :class:`~emukit.evaluate.metrics.
BranchScore` of every scored branch, or ``"pair"``, the :class:`ScoredPair` of every scored pair (refused pairs
are never given). The function returns a number (a bool counts as 0 or 1) or None when the sample does not count
for this metric. Every metric is then reduced the same way, by :func:`grouped_mean`: the mean per group and
``macro``, the unweighted mean over the groups present; :func:`compute` groups by family (``metrics.<name>``)
and, with the same reducer, by template (``metrics.by_template.<name>``). ``results.json`` (``metrics.<name>``), the
terminal table and the HTML report (label, values and the one-line definition) read the registry, so nothing
else is edited.

The metrics are shown in ``order`` (the seed's own first, a new one after them unless it says otherwise). A
metric marked ``always`` is reported even when no sample has a value (the core metrics of every evaluation);
any other only when some sample has one (State Exact appears only under the predictive-state condition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from emukit.families import FAMILIES
from emukit.plugins import Registry

if TYPE_CHECKING:
    from emukit.evaluate.metrics import BranchScore

Reads = Literal["branch", "pair"]
READS: tuple[Reads, ...] = ("branch", "pair")
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
class Metric:
    """A registered metric: its ``results.json`` key, label and definition, what it reads, and its function."""

    name: str
    label: str
    definition: str
    reads: Reads
    fn: Callable[[Any], float | bool | None] = field(repr=False, compare=False)
    order: int = 1000
    always: bool = False

    def __post_init__(self) -> None:
        if self.reads not in READS:
            raise ValueError(f"metric {self.name!r}: reads must be one of {', '.join(READS)}, got {self.reads!r}")
        if not self.label or not self.definition:
            raise ValueError(f"metric {self.name!r}: give a label and a one-line definition (the report shows both)")
        # the registry names a metric registered twice by its function, as it names any other entry
        object.__setattr__(self, "__module__", getattr(self.fn, "__module__", "?"))
        object.__setattr__(self, "__qualname__", getattr(self.fn, "__qualname__", self.name))

    def value(self, sample: Any) -> float | None:
        """The metric of one sample (None: the sample does not count)."""
        got = self.fn(sample)
        return None if got is None else float(got)


#: every metric, by name (its ``results.json`` key): the modules of :mod:`emukit.evaluate.metric_defs` and of the
#: ``emukit.metrics`` entry-point group
METRICS: Registry[Metric] = Registry("metric", "emukit.evaluate.metric_defs", "emukit.metrics")

F = Callable[[Any], float | bool | None]


def metric(name: str, *, label: str, definition: str, reads: Reads, order: int = 1000,
           always: bool = False) -> Callable[[F], F]:
    """Decorator: register the function as the metric ``name`` (see the module docstring); returns the
    function unchanged."""

    def deco(fn: F) -> F:
        METRICS.register(name)(Metric(name=name, label=label, definition=definition, reads=reads, fn=fn,
                                      order=order, always=always))
        return fn

    return deco


def registered_metrics() -> list[Metric]:
    """Every registered metric in table order (``order``, then name)."""
    return sorted((METRICS.get(name) for name in METRICS.names()), key=lambda m: (m.order, m.name))


def grouped_mean(values: Iterable[tuple[str, float]], order: Sequence[str] = FAMILIES) -> dict[str, float | None]:
    """The one reducer: ``(group, value)`` pairs to the mean per group, groups in ``order`` (others after them,
    by name), and ``macro``, the unweighted mean over the groups (None when there is none)."""
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
    return out


#: what samples can be grouped by: an attribute both a branch score and a scored pair carry
GroupBy = Literal["family", "template"]


def group_name(value: str, by: GroupBy) -> str:
    """The group a sample's ``by`` value falls in: the value, or ``(no <by>)`` when it has none (a pair of an
    export that names no template)."""
    return value or f"(no {by})"


def compute(metrics: Sequence[Metric], branches: Sequence[BranchScore], pairs: Sequence[ScoredPair], *,
            by: GroupBy = "family") -> dict[str, dict[str, float | None]]:
    """Each metric over its samples, grouped by ``by`` (the sample's family or template; families in their
    table order, templates by name): ``{name: {group: value, ..., "macro": value}}`` for the metrics reported
    (every ``always`` metric, and any other some sample has a value for)."""
    order: Sequence[str] = FAMILIES if by == "family" else ()
    out: dict[str, dict[str, float | None]] = {}
    for m in metrics:
        samples: Sequence[Any] = branches if m.reads == "branch" else pairs
        values = [(group_name(getattr(s, by), by), v) for s in samples if (v := m.value(s)) is not None]
        if values or m.always:
            out[m.name] = grouped_mean(values, order)
    return out
