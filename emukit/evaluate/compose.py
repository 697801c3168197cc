"""One composition for every sample kind, run by one loop (inspect_ai's dataset -> solver -> scorer).

An evaluation is five parts:

1. a **sample source**: strict pairs (:func:`emukit.evaluate.pairs.load_pairs`), online tasks (the task
   registry, with their real initial screens), external trajectories
   (:func:`emukit.evaluate.trajectories.read_trajectories`) or the trajectories of a distribution-shift suite
   (:func:`emukit.estimator.suites.load_suites`);
2. a **request builder** (:class:`emukit.evaluate.request.RequestBuilder`: the world-model format, the sample
   kind, a pair's family and its contract);
3. the **model**: a world-model adapter (:mod:`emukit.evaluate.adapters`) or recorded predictions, and for the
   state conditions and the suites a state estimator (:mod:`emukit.evaluate.estimator`);
4. the **renderer and parser** (:mod:`emukit.evaluate.render`, the family parsers, the task checks read from a
   rendered screen);
5. the **scorers**: each run becomes the scored samples the registered metrics read
   (:mod:`emukit.evaluate.metric`: ``branch`` and ``pair``, ``task``, ``trajectory``, ``unit``), reduced by the
   metrics' one reducer.

A sample kind is a :class:`Solver`: how a batch of its samples goes through parts 2 to 4, and what each run
gives the scorers (part 5). :func:`run` is the one loop every kind goes through: it takes the source in batches
of the solver's size, gets a renderer when the kind renders (the caller's, or one of its own closed at the
end), hands every run to ``on_run`` as it is done, and keeps the scored samples. The evaluators
(:func:`emukit.evaluate.run.evaluate`, :func:`emukit.evaluate.tasks.evaluate_tasks`,
:func:`emukit.evaluate.trajectories.evaluate_trajectories`, :func:`emukit.evaluate.suites.evaluate_suites`) are
each a solver, this loop and the result it writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from emukit.evaluate.metric import Reads, compute, registered_metrics

if TYPE_CHECKING:
    from emukit.evaluate.render import RenderBackend

S = TypeVar("S")
R = TypeVar("R")
S_contra = TypeVar("S_contra", contravariant=True)
R_co = TypeVar("R_co", covariant=True)


class Solver(Protocol[S_contra, R_co]):
    """What one sample kind does with its samples (parts 2 to 4), and what its runs give the scorers (part 5)."""

    #: the kind's name, as results record it (``pair``, ``task``, ``trajectory``, ``suite``)
    kind: str
    #: samples solved together (pairs: a chunk predicted and rendered together; a rollout: one)
    batch_size: int
    #: the renderer's pages the kind wants when it renders (0: it renders nothing, no renderer is started)
    render_pages: int

    def solve(self, batch: list[S_contra], renderer: RenderBackend | None) -> Sequence[R_co]:
        """The runs of one batch of samples (a sample may give several: a task on two tracks)."""
        ...

    def scored(self, run: Any) -> Mapping[Reads, Sequence[Any]]:
        """The scored samples one run gives the metrics, by the kind the metrics read."""
        ...


@dataclass
class Composed(Generic[R]):
    """What the loop returns: every run in order, the scored samples by kind, and the wall time."""

    runs: list[R]
    scored: dict[Reads, list[Any]] = field(default_factory=dict)
    seconds: float = 0.0

    def metrics(self, *, by: str | None = "family", order: Sequence[str] | None = None) -> dict[str, Any]:
        """Every registered metric reading these samples, grouped by ``by`` (:func:`emukit.evaluate.metric.
        compute`)."""
        return compute(registered_metrics(), self.scored, by=by, order=order)


def batches(items: Iterable[S], size: int) -> Iterator[list[S]]:
    """``items`` in lists of ``size`` (the last one shorter), read lazily."""
    batch: list[S] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _renderer(solver: Solver[Any, Any], renderer: RenderBackend | None) -> AbstractContextManager[Any]:
    if solver.render_pages <= 0:
        return nullcontext(renderer)
    from emukit.evaluate.render import renderer_or_own

    return renderer_or_own(renderer, pool_size=solver.render_pages)


def run(source: Iterable[S], solver: Solver[S, R], *, renderer: RenderBackend | None = None,
        on_run: Callable[[R], None] | None = None) -> Composed[R]:
    """The one loop: every sample of ``source`` through ``solver``, in batches of its size.

    Args:
        source: the samples (read lazily: a long run keeps one batch's samples in memory).
        solver: the sample kind's solver (:class:`Solver`).
        renderer: a started renderer to use (the caller closes it); None: the loop starts one of
            ``solver.render_pages`` pages when the kind renders, closed at the end.
        on_run: called with each run as soon as it is done (progress, incremental output).

    Returns:
        The runs in order, their scored samples by kind, and the wall time.
    """
    started = time.perf_counter()
    out: Composed[R] = Composed([])
    with _renderer(solver, renderer) as active:
        for batch in batches(source, max(1, solver.batch_size)):
            for done in solver.solve(batch, active):
                out.runs.append(done)
                for kind, samples in solver.scored(done).items():
                    out.scored.setdefault(kind, []).extend(samples)
                if on_run is not None:
                    on_run(done)
    out.seconds = time.perf_counter() - started
    return out
