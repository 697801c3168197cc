"""``emukit build-pairs``: plan the work, run it in parallel on devices, store every pair atomically,
resume after a crash, and summarise.

Work is counted in *slots*: template T needs ``n_T`` pairs (the family's ``--count`` spread over its
templates), slot ``i`` of (T, seed) is attempted up to ``max_attempts`` times with parameters drawn from
(T, seed, i, attempt); a slot that exhausts its attempts is replaced by the next slot, up to a bound. The
store's work key (template, seed, slot) makes every pair land once, so a rerun of the same command resumes.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from emukit.builder.pair import (
    Artifacts,
    PairContext,
    Rejected,
    assemble_pair,
    branch_roles,
    run_branches,
)
from emukit.builder.touched import template_packages
from emukit.device.adbserver import AdbServer
from emukit.device.adbwire import DeadlinePassed
from emukit.device.pool import DevicePool
from emukit.errors import ConfigError, DeviceError
from emukit.provenance import BuiltOn, mismatch
from emukit.records import Rejection
from emukit.store import Store
from emukit.templates.sampler import rng_for, sample_params
from emukit.templates.schema import Template
from emukit.workers import DeviceContext, DeviceRequest, WorkerPool, close_pool, make_pool

ALLOCATIONS = ("even", "table6")


def plan_counts(templates: list[Template], count_per_family: int, allocation: str = "even") -> dict[str, int]:
    """Pairs wanted per template. ``even``: each family's count spread evenly over its templates (remainder
    to the first ones by name). ``table6``: in proportion to each template's ``released_pairs`` (seed 002
    Table 6), by largest remainder (ties to the first by name); at 200 per family over the shipped templates
    this is exactly the released split (20, 20, 20, 34, 33, 33, 14, 13, 13 persistent pairs ...)."""
    if allocation not in ALLOCATIONS:
        raise ConfigError(f"--allocation {allocation!r}: expected one of {', '.join(ALLOCATIONS)}")
    by_family: dict[str, list[Template]] = defaultdict(list)
    for t in templates:
        by_family[t.family].append(t)
    wanted: dict[str, int] = {}
    for group in by_family.values():
        group.sort(key=lambda t: t.name)
        if allocation == "even":
            base, extra = divmod(count_per_family, len(group))
            for i, t in enumerate(group):
                wanted[t.name] = base + (1 if i < extra else 0)
            continue
        missing = [t for t in group if t.released_pairs is None]
        if missing:
            raise ConfigError("--allocation table6: " + "; ".join(
                f"{t.source_path or t.name}: released_pairs: not set (the template's pairs in seed 002 Table 6)"
                for t in missing))
        total = sum(t.released_pairs or 0 for t in group)
        quotas = {t.name: count_per_family * (t.released_pairs or 0) / total for t in group}
        share = {name: int(q) for name, q in quotas.items()}
        left = count_per_family - sum(share.values())
        for name in sorted(quotas, key=lambda n: (-(quotas[n] - share[n]), n))[:left]:
            share[name] += 1
        wanted.update(share)
    return wanted


@dataclass
class TemplateProgress:
    """Bookkeeping for one template during a run (guarded by the runner's lock)."""

    template: Template
    wanted: int
    done: set[int] = field(default_factory=set)
    exhausted: set[int] = field(default_factory=set)
    in_flight: set[int] = field(default_factory=set)
    attempts: dict[int, int] = field(default_factory=dict)
    next_slot: int = 0
    accepted_now: int = 0
    attempted_now: int = 0
    rejected_now: Counter = field(default_factory=Counter)
    blocked: str | None = None  # why no more of this template is built (its store holds other builds)

    @property
    def remaining(self) -> int:
        return self.wanted - len(self.done)

    @property
    def slot_limit(self) -> int:
        return 4 * self.wanted + 8


@dataclass
class BuildOptions:
    """What a pair build builds and where (``emukit build-pairs`` makes one from its options).

    Attributes:
        templates: the templates to build (each family's count is spread over them).
        count_per_family: pairs wanted per family.
        allocation: how a family's count is spread over its templates (``even`` or ``table6``: :func:`plan_counts`).
        seed: the build's seed; a pair's parameters derive from it, its template and its slot.
        data_dir: the data folder (store, snapshots' fingerprints, artifacts by default).
        db_url: the store's SQLAlchemy URL (default: SQLite in ``data_dir``).
        devices: which devices, how many, and the embedded virtual devices' kind and screen.
        max_attempts: attempts of one slot before it is given up.
        adb_port: the adb server's port.
        attempt_timeout_s: a device that does not finish an attempt in time is given up on.
        artifacts_dir: the artifact root (default ``$EMUKIT_ARTIFACTS``, else ``data_dir/artifacts``).
        share_work: take work from the store's job queue (default: when the store is PostgreSQL).
        queue_heartbeat_s: a sharing builder silent this long loses its jobs to the others.
        allow_mixed: store pairs built on another device kind or other app builds beside the pairs a request
            already holds.
    """

    templates: list[Template]
    count_per_family: int = 200
    allocation: str = "even"  # how a family's count is spread over its templates: plan_counts
    seed: int = 0
    data_dir: Path = Path("data")
    db_url: str | None = None
    devices: DeviceRequest = field(default_factory=DeviceRequest)  # which devices, how many, embedded kind
    max_attempts: int = 3
    adb_port: int = 5037
    attempt_timeout_s: float = 60.0  # a device that does not finish an attempt in time is given up on
    artifacts_dir: Path | None = None  # artifact root (default $EMUKIT_ARTIFACTS, else DATA_DIR/artifacts)
    share_work: bool | None = None  # take work from the store's job queue (default: when the store is PostgreSQL)
    queue_heartbeat_s: float = 30.0  # a sharing builder silent this long loses its jobs to the others
    #: store pairs built on another device kind or other app builds beside the pairs a request already holds
    allow_mixed: bool = False


SNAPSHOT_TIMEOUT_FACTOR = 5  # building a base snapshot may take this many attempt timeouts


class PairRunner:
    """Runs one build: a work queue over templates, one worker thread per leased device."""

    def __init__(self, options: BuildOptions, store: Store, on_progress=None) -> None:
        self.options = options
        self.store = store
        self.on_progress = on_progress or (lambda *_: None)
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)  # a slot left flight: waiting workers look again
        wanted = plan_counts(options.templates, options.count_per_family, options.allocation)
        self.progress: dict[str, TemplateProgress] = {}
        for t in options.templates:
            store.upsert_template(t.name, t.family, t.content_hash(), Path(t.source_path).read_text()
                                  if t.source_path else "")
            tp = TemplateProgress(t, wanted[t.name])
            tp.done = store.done_slots(t.name, options.seed)
            counts = store.rejection_counts(t.name, options.seed)
            tp.attempts = dict(counts)
            tp.exhausted = {s for s, n in counts.items() if n >= options.max_attempts and s not in tp.done}
            self.progress[t.name] = tp
        self.errors: list[str] = []
        self.timings: list[dict[str, float]] = []
        self.stored_by_device: Counter[str] = Counter()  # pairs this run stored, by the serial that built them
        self._stored_on: dict[str, BuiltOn] = {}  # template -> provenance of the request's stored pairs

    @property
    def total_wanted(self) -> int:
        return sum(tp.wanted for tp in self.progress.values())

    @property
    def total_done(self) -> int:
        return sum(min(len(tp.done), tp.wanted) for tp in self.progress.values())

    def _next_work(self) -> tuple[TemplateProgress, int, int] | None:
        """(template progress, slot, attempt) of the next attempt, or None when nothing is left."""
        with self.lock:
            while True:
                candidates = [tp for tp in self.progress.values()
                              if tp.remaining - len(tp.in_flight) > 0 and tp.blocked is None]
                if not candidates:
                    if any(tp.in_flight for tp in self.progress.values()):
                        # attempts still on devices or being checked may come back rejected: wait for them
                        self.changed.wait(timeout=1.0)
                        continue
                    return None
                tp = max(candidates, key=lambda p: (p.remaining - len(p.in_flight)) / max(p.wanted, 1))
                retry = [s for s in sorted(tp.attempts)
                         if s not in tp.done and s not in tp.exhausted and s not in tp.in_flight]
                if retry:
                    slot = retry[0]
                else:
                    while tp.next_slot in tp.done or tp.next_slot in tp.exhausted or tp.next_slot in tp.in_flight:
                        tp.next_slot += 1
                    slot = tp.next_slot
                    if slot >= tp.slot_limit:  # this template keeps failing: stop asking for more of it
                        self.errors.append(f"{tp.template.name}: gave up after {slot} slots "
                                           f"({len(tp.done)}/{tp.wanted} pairs)")
                        tp.wanted = len(tp.done) + len(tp.in_flight)
                        continue
                tp.in_flight.add(slot)
                return tp, slot, tp.attempts.get(slot, 0)

    def describe(self) -> str | None:
        """A line about how this runner gets its work, for the build's notes (None: nothing to say)."""
        return None

    def _run_on_device(self, device: DeviceContext, tp: TemplateProgress, slot: int, attempt: int
                       ) -> tuple[PairContext, dict, Artifacts] | None:
        """The device part of one attempt (base snapshot, both branches): what the host part needs, or None
        when the attempt was rejected on the device (recorded). Raises DeviceError (recorded too) when the
        device failed or stopped answering in time."""
        t = tp.template
        seed = self.options.seed
        params = sample_params(t, rng_for(t.name, seed, slot, attempt))
        ctx = PairContext(t, params, seed, slot, attempt, roles=branch_roles(t.name, seed, slot))
        limit = self.options.attempt_timeout_s
        driver = device.driver
        try:
            with driver.deadline(SNAPSHOT_TIMEOUT_FACTOR * limit, f"base snapshot {t.base_snapshot}"):
                device.ensure_snapshot(t.base_snapshot)
                ctx.built_on = device.facts.built_on(template_packages(t))
            if not self.options.allow_mixed and self._mixed(tp, ctx, driver.serial):
                return None
            ctx.base_fingerprint = device.built_fingerprint(t.base_snapshot)
            with driver.deadline(limit, f"{t.name} slot {slot} attempt {attempt}"):
                branches, artifacts = run_branches(device, ctx)
        except DeadlinePassed as exc:  # not answering in time: a rejection naming device and step
            rej = Rejected("device_timeout", str(exc))
            self._reject(tp, slot, ctx, rej, driver.serial)
            raise DeviceError(rej.detail) from exc
        except Rejected as rej:
            self._reject(tp, slot, ctx, rej, driver.serial)
            if rej.reason == "device_error":
                raise DeviceError(rej.detail) from rej
            return None
        return ctx, branches, artifacts

    def _mixed(self, tp: TemplateProgress, ctx: PairContext, serial: str) -> bool:
        """True (the template's work stops, with an error naming both builds) when the store already holds pairs
        of this request built on another device kind or other app builds than this device has."""
        t = tp.template
        stored = self._stored_on.get(t.name)
        if stored is None:
            stored = self.store.stored_built_on(t.name, self.options.seed)
            if stored is None:
                return False
            self._stored_on[t.name] = stored
        why = mismatch(stored, ctx.built_on)
        if why is None:
            return False
        with self.lock:
            if tp.blocked is None:
                tp.blocked = (f"{t.name} (seed {self.options.seed}): this device ({serial}) is "
                              f"{why}; pairs of one request must come from one device kind and one set of app "
                              "builds: build into another store (--data-dir/--db), or give --allow-mixed")
                self.errors.append(tp.blocked)
        return True

    def _attempt(self, device: DeviceContext, tp: TemplateProgress, slot: int, attempt: int) -> bool:
        """Run the device part of one attempt and hand the rest to the finisher; True when the finisher now
        owns the slot (it releases it), False when the attempt ended here (rejected on the device)."""
        ran = self._run_on_device(device, tp, slot, attempt)
        if ran is None:
            return False
        self._finishing.acquire()  # back-pressure: a few finished attempts wait at most
        try:
            self._finisher.submit(self._finish, tp, slot, *ran, device.serial)
        except BaseException:
            self._finishing.release()
            raise
        return True

    def _reject(self, tp: TemplateProgress, slot: int, ctx: PairContext, rej: Rejected, device: str) -> None:
        t = tp.template
        self.store.add_rejection(Rejection(family=t.family, template=t.name, params=ctx.params, seed=ctx.seed,
                                           attempt=ctx.attempt, reason=rej.reason, detail=rej.detail[:4000],
                                           device=device), slot)
        with self.lock:
            tp.attempted_now += 1
            tp.rejected_now[rej.reason] += 1
            tp.attempts[slot] = ctx.attempt + 1
            if ctx.attempt + 1 >= self.options.max_attempts:
                tp.exhausted.add(slot)

    def _check_and_store(self, tp: TemplateProgress, slot: int, ctx: PairContext, branches: dict,
                         artifacts: Artifacts, device: str) -> bool:
        """Host part of an attempt: check the pair and store it atomically; True when the work key holds a
        pair now (this one, or one a concurrent builder stored first), False when the pair was rejected
        (recorded). Store failures propagate."""
        try:
            record = assemble_pair(ctx, branches, artifacts, device)
        except Rejected as rej:
            self._reject(tp, slot, ctx, rej, device)
            return False
        t0 = time.perf_counter()
        added = self.store.add_pair(record, slot, artifacts.blobs, allow_mixed=self.options.allow_mixed)
        store_ms = (time.perf_counter() - t0) * 1000
        with self.lock:
            tp.attempted_now += 1
            tp.done.add(slot)
            if added:
                tp.accepted_now += 1
                self.stored_by_device[device] += 1
                timing = {f"{b}.{k}": v for b, br in record.branches.items() for k, v in br.timings_ms.items()}
                timing["pair.store"] = store_ms
                timing["pair.family"] = ctx.template.family  # type: ignore[assignment]
                self.timings.append(timing)
        self.on_progress(self.total_done, self.total_wanted, ctx.template.name)
        return True

    def _finish(self, tp: TemplateProgress, slot: int, ctx: PairContext, branches: dict,
                artifacts: Artifacts, device: str) -> None:
        """The finisher's job, off the device's critical path: :meth:`_check_and_store`, then release the
        slot."""
        try:
            self._check_and_store(tp, slot, ctx, branches, artifacts, device)
        except Exception as exc:  # noqa: BLE001 - the store failed: report it, the slot is tried again later
            with self.lock:
                self.errors.append(f"{ctx.template.name} slot {slot}: {type(exc).__name__}: {exc}")
        finally:
            self._release(tp, slot)
            self._finishing.release()

    def _release(self, tp: TemplateProgress, slot: int) -> None:
        with self.lock:
            tp.in_flight.discard(slot)
            self.changed.notify_all()

    def _work(self, device: DeviceContext, work: tuple[TemplateProgress, int, int]) -> None:
        """One attempt at a slot on a leased device (the worker pool's job); the slot is released here unless
        the finisher took it over."""
        tp, slot, attempt = work
        handed_over = False
        try:
            handed_over = self._attempt(device, tp, slot, attempt)
        finally:
            if not handed_over:
                self._release(tp, slot)

    def _pool_failed(self, exc: DeviceError) -> None:
        with self.lock:
            self.errors.append(f"device pool: {exc}")

    def run(self, pool: DevicePool, workers: int) -> None:
        # devices run branches; one finisher thread checks and stores finished attempts meanwhile
        self._finisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pair-finisher")
        self._finishing = threading.BoundedSemaphore(2 * workers)
        try:
            WorkerPool(pool, workers, adb_port=self.options.adb_port, data_dir=self.options.data_dir,
                       name="pair-worker", on_pool_error=self._pool_failed,
                       abandon=lambda work: self._release(work[0], work[1])).run(self._next_work, self._work)
        finally:
            self._finisher.shutdown(wait=True)


def check_options(options: BuildOptions) -> None:
    """Refuse unusable options before anything starts (ConfigError naming the option)."""
    if options.count_per_family < 1:
        raise ConfigError(f"--count must be at least 1, got {options.count_per_family}")
    if options.max_attempts < 1:
        raise ConfigError(f"--max-attempts must be at least 1, got {options.max_attempts}")
    if options.attempt_timeout_s <= 0:
        raise ConfigError(f"--attempt-timeout must be positive, got {options.attempt_timeout_s}")
    if options.queue_heartbeat_s <= 0:
        raise ConfigError(f"--queue-heartbeat must be positive, got {options.queue_heartbeat_s}")
    if not options.templates:
        raise ConfigError("no templates selected")


def make_runner(options: BuildOptions, store: Store, on_progress=None) -> PairRunner:
    """The runner for this build: work shared with other builders through the store's PostgreSQL job queue
    (:mod:`emukit.builder.shared`) when the store is PostgreSQL (or ``share_work`` says so), else planned
    in this process."""
    from emukit.builder import shared

    share = options.share_work if options.share_work is not None else shared.is_postgresql(store)
    if not share:
        return PairRunner(options, store, on_progress)
    try:
        import asyncpg  # noqa: F401
        import pgqueuer  # noqa: F401
    except ImportError as exc:
        raise ConfigError(f"sharing work through the PostgreSQL store needs the job queue ({exc.name} is not "
                          "installed): pip install 'emukit[postgres]', or give --local-work") from None
    return shared.SharedPairRunner(options, store, on_progress, heartbeat_s=options.queue_heartbeat_s)


@dataclass
class PreparedBuild:
    """A build whose inputs are checked and whose store, adb server and device pool are open (devices not
    started yet): everything a user can get wrong has been refused by now."""

    options: BuildOptions
    store: Store
    runner: PairRunner
    pool: DevicePool
    workers: int
    server: AdbServer
    notes: list[str] = field(default_factory=list)  # which devices are used and why (printed before work)

    def run(self, on_progress=None) -> PairRunner:
        """Start the devices, build every pair, close the pool; returns the runner."""
        if on_progress is not None:
            self.runner.on_progress = on_progress
        run_id = self.store.start_run("build-pairs", {"templates": [t.name for t in self.options.templates],
                                                      "count": self.options.count_per_family,
                                                      "allocation": self.options.allocation,
                                                      "seed": self.options.seed})
        t0 = time.monotonic()
        try:
            self.pool.start()
            self.runner.run(self.pool, self.workers)
        finally:
            close_pool(self.pool, self.server)
            self.store.finish_run(run_id, "ok" if not self.runner.errors else "incomplete")
            self.runner.wall_s = time.monotonic() - t0  # type: ignore[attr-defined]
        return self.runner


def prepare_build(options: BuildOptions, on_progress=None) -> PreparedBuild:
    """Check the options, open the store, the adb server and the device pool (see :class:`PreparedBuild`)."""
    check_options(options)
    store = Store(options.db_url, data_dir=options.data_dir, artifacts_dir=options.artifacts_dir)
    from emukit.device.ownership import leftover_note

    stale = leftover_note()
    notes: list[str] = [stale] if stale else []
    server = AdbServer(options.adb_port)
    try:
        runner = make_runner(options, store, on_progress)
        if (line := runner.describe()) is not None:
            notes.append(line)
        server.start()
        pool, workers = make_pool(options.devices, server, options.data_dir, notes.append)
    except BaseException:
        store.close()
        server.release()
        raise
    return PreparedBuild(options, store, runner, pool, workers, server, notes)


def build_pairs(options: BuildOptions,
                on_progress: Callable[[int, int, str], None] | None = None) -> PairRunner:
    """Run a whole build: open the store, claim the devices, build every template's pairs and stop.

    Args:
        options: what to build and where (families, templates, counts, seed, the store URL and data folder, the
            device request in ``options.devices``, ``allow_mixed``); see :class:`BuildOptions`.
        on_progress: called after each accepted pair with (pairs done, pairs wanted, template name).

    Returns:
        The runner after every worker finished: its progress, timings, rejections and errors.

    Raises:
        ConfigError: bad options (a count below 1, an unknown allocation).
        DeviceError: no device can be had (held by another command and no ``--wait``, or none starts).
    """
    return prepare_build(options, on_progress).run()
