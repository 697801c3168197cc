"""Several builders, one PostgreSQL store: the requested pairs are jobs on a PostgreSQL job queue.

Builders started with the same request (templates, count, seed, attempts) on any machine share one *plan*:
one pgqueuer entrypoint, ``emukit.pairs.<hash>``, whose jobs are the plan's pairs. Job ``(template, k)``
stands for the ``k``-th pair of that template; it tries the slots ``k, k + n, k + 2n, ...`` (``n`` pairs
wanted of the template) until one holds a pair, up to the runner's slot bound. Every builder enqueues the
jobs that are not done yet with a dedupe key (``pgqueuer`` skips a job already queued or picked), then takes
jobs while it has a free device: at most ``devices + 1`` at a time, so one device's pair is checked and
stored while the next one runs.

The queue, not emukit, owns the leases: a job a builder took carries a heartbeat; when the builder dies its
heartbeats stop and, after ``heartbeat_timeout``, another builder's dequeue takes the job again. The store's
work key (template, seed, slot) keeps a pair from landing twice even if a builder thought dead comes back,
and the attempts already rejected for a slot (by any builder) count towards its limit. A builder leaves when
no job of the plan is queued or taken; the last one out deletes the artifacts a killed builder wrote for a
pair it never committed (once no builder of any plan holds a job, so no pair is half-written).

Why pgqueuer: it is a maintained PostgreSQL queue whose dequeue re-takes jobs whose heartbeat went stale
(``FOR UPDATE SKIP LOCKED``), caps the jobs one worker holds in SQL, and dedupes by key; it needs nothing but
the store's server. Its asyncpg driver is used: its psycopg driver serialises queries behind a one-second
NOTIFY wait, which cost about a second per job in a measurement.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from emukit.builder.run import BuildOptions, PairRunner, TemplateProgress
from emukit.device.pool import DevicePool
from emukit.errors import ConfigError, DeviceError
from emukit.store import Store
from emukit.workers import DeviceContext

PLAN_PREFIX = "emukit.pairs."
DEFAULT_HEARTBEAT_S = 30.0  # a builder silent this long loses its jobs to the others
ORPHAN_GRACE_S = 10.0  # an unreferenced artifact younger than this may belong to a pair being committed
_POLL_S = 0.5
_SCHEMA_LOCK = 0x656D756B  # advisory lock key for installing or upgrading the queue's tables


def is_postgresql(store: Store) -> bool:
    return store.engine.url.get_backend_name() == "postgresql"


def plan_name(options: BuildOptions, wanted: dict[str, int]) -> str:
    """The queue entrypoint of a request: the same for every builder started with the same templates
    (names and content hashes), per-template counts, seed and attempts per slot."""
    key = {"templates": sorted((t.name, t.content_hash(), wanted[t.name]) for t in options.templates),
           "seed": options.seed, "max_attempts": options.max_attempts}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return PLAN_PREFIX + digest


def chain(tp: TemplateProgress, k: int) -> range:
    """The slots job ``k`` of a template may fill, in order."""
    return range(k, tp.slot_limit, max(tp.wanted, 1))


def open_jobs(progress: dict[str, TemplateProgress]) -> list[tuple[str, int]]:
    """Jobs ``(template, k)`` still to do: the template's pairs not yet stored, taken from the jobs none of
    whose slots holds a pair (so a store built before, even one a local build filled, is never overfilled)."""
    jobs: list[tuple[str, int]] = []
    for name, tp in sorted(progress.items()):
        missing = tp.wanted - len(tp.done)
        free = [k for k in range(tp.wanted) if not any(s in tp.done for s in chain(tp, k))]
        jobs.extend((name, k) for k in free[:max(missing, 0)])
    return jobs


def asyncpg_dsn(store: Store) -> str:
    """The store's PostgreSQL URL as a DSN asyncpg takes (password included; never printed)."""
    url = store.engine.url.set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


class _PoolFailed(Exception):
    """The device pool has no device left: this builder stops and gives its job back."""


class SharedPairRunner(PairRunner):
    """:class:`PairRunner` whose work comes from the plan's jobs on the store's PostgreSQL server."""

    def __init__(self, options: BuildOptions, store: Store, on_progress=None,
                 heartbeat_s: float = DEFAULT_HEARTBEAT_S, orphan_grace_s: float = ORPHAN_GRACE_S) -> None:
        if not is_postgresql(store):
            raise ConfigError(f"sharing work between builders needs a PostgreSQL store, not {store.url}")
        super().__init__(options, store, on_progress)
        wanted = {name: tp.wanted for name, tp in self.progress.items()}
        self.plan = plan_name(options, wanted)
        self.heartbeat_s = heartbeat_s
        self.orphan_grace_s = orphan_grace_s
        self.worker_id = uuid.uuid4()  # this builder's id on the queue (pgqueuer's queue_manager_id)
        self.jobs_done = 0  # jobs this builder finished
        self.orphans_removed = 0
        self._devices: dict[str, DeviceContext] = {}  # one per device, kept from job to job
        self._devices_lock = threading.Lock()

    def describe(self) -> str:
        return (f"sharing the work with other builders: plan {self.plan} on the store's job queue, this builder "
                f"is queue worker {self.worker_id} (a builder silent for {self.heartbeat_s:g} s loses its jobs "
                "to the others)")

    # -- one job, on a worker thread -------------------------------------------------------------------

    def _device(self, serial: str) -> DeviceContext:
        with self._devices_lock:
            device = self._devices.get(serial)
            if device is None:
                device = self._devices[serial] = DeviceContext(serial, adb_port=self.options.adb_port,
                                                               data_dir=self.options.data_dir)
            return device

    def _drop_device(self, serial: str) -> None:
        with self._devices_lock:
            device = self._devices.pop(serial, None)
        if device is not None:
            device.close()

    def _one_attempt(self, pool: DevicePool, tp: TemplateProgress, slot: int, attempt: int) -> bool:
        """One attempt at a slot on a leased device; the device is given back before the pair is checked and
        stored. True when the slot holds a pair now."""
        try:
            with pool.lease() as lease:
                try:
                    ran = self._run_on_device(self._device(lease.serial), tp, slot, attempt)
                except DeviceError as exc:
                    lease.mark_unhealthy(str(exc)[:200])
                    self._drop_device(lease.serial)
                    return False
                device = lease.serial
        except DeviceError as exc:  # the pool could not give a device
            raise _PoolFailed(str(exc)) from exc
        if ran is None:
            return False
        return self._check_and_store(tp, slot, *ran, device)

    def run_job(self, pool: DevicePool, template: str, k: int) -> bool:
        """Fill job ``k`` of ``template``: True when one of its slots holds a pair, False when every slot of
        its chain ran out of attempts (reported in :attr:`errors`)."""
        tp = self.progress[template]
        seed, name = self.options.seed, tp.template.name
        for slot in chain(tp, k):
            if self.store.has_pair(name, seed, slot):
                with self.lock:
                    tp.done.add(slot)
                return True
            attempt = self.store.rejection_counts(name, seed).get(slot, 0)
            while attempt < self.options.max_attempts:
                if self._one_attempt(pool, tp, slot, attempt):
                    return True
                if tp.blocked is not None:  # the store holds this request's pairs from other builds
                    return False
                attempt += 1
        with self.lock:
            self.errors.append(f"{name}: pair {k} gave up after slots {list(chain(tp, k))}")
        return False

    # -- the queue ---------------------------------------------------------------------------------------

    def run(self, pool: DevicePool, workers: int) -> None:
        logging.getLogger("pgqueuer").setLevel(logging.WARNING)
        try:
            asyncio.run(self._serve(pool, workers))
        finally:
            with self._devices_lock:
                devices, self._devices = list(self._devices.values()), {}
            for device in devices:
                device.close()
        for name, tp in self.progress.items():  # what the store holds now, whoever built it
            tp.done = self.store.done_slots(name, self.options.seed)

    async def _serve(self, pool: DevicePool, workers: int) -> None:
        try:
            import asyncpg
            from pgqueuer import AsyncpgDriver, Queries, QueueManager, RetryRequested
        except ImportError as exc:  # make_runner checked already; a broken install still says what to do
            raise ConfigError(f"the job queue needs {exc.name}: pip install 'emukit[postgres]'") from None

        conn = await asyncpg.connect(asyncpg_dsn(self.store))
        executor = ThreadPoolExecutor(max_workers=workers + 1, thread_name_prefix="pair-job")
        try:
            queries = Queries(AsyncpgDriver(conn))
            await self._install(conn, queries)
            jobs = open_jobs(self.progress)
            if jobs:
                await queries.enqueue([self.plan] * len(jobs),
                                      [json.dumps({"template": t, "k": k}).encode() for t, k in jobs],
                                      [0] * len(jobs), dedupe_key=[f"{self.plan}:{t}:{k}" for t, k in jobs],
                                      on_conflict="skip")
            qm = QueueManager(queries)
            qm.queue_manager_id = self.worker_id  # announced before the run, so a job can be traced to its builder
            loop = asyncio.get_running_loop()
            running = 0

            async def handle(job) -> None:
                nonlocal running
                payload = json.loads(job.payload)
                running += 1
                try:
                    await loop.run_in_executor(executor, self.run_job, pool, payload["template"], payload["k"])
                except _PoolFailed as exc:
                    with self.lock:
                        self.errors.append(f"device pool: {exc}")
                    qm.shutdown.set()  # this builder has no device left; the job goes back to the others
                    raise RetryRequested(timedelta(0), "builder lost its devices") from None
                except Exception as exc:  # a store failure: give the job back, try it again later
                    with self.lock:
                        self.errors.append(f"{payload['template']} pair {payload['k']}: "
                                           f"{type(exc).__name__}: {exc}")
                    raise RetryRequested(timedelta(seconds=5), f"{type(exc).__name__}") from None
                finally:
                    running -= 1
                self.jobs_done += 1

            qm.entrypoint(self.plan)(handle)

            async def watch() -> None:
                while not qm.shutdown.is_set():
                    await asyncio.sleep(_POLL_S)
                    if running == 0 and await self._open_count(queries, {self.plan}) == 0:
                        qm.shutdown.set()

            watcher = asyncio.create_task(watch())
            try:
                await qm.run(batch_size=1, max_concurrent_tasks=max(2, workers + 1),
                             heartbeat_timeout=timedelta(seconds=self.heartbeat_s),
                             dequeue_timeout=timedelta(seconds=min(1.0, self.heartbeat_s / 4)))
            finally:
                watcher.cancel()
            if await self._open_count(queries, None) == 0:  # no job of any emukit plan (this one included)
                self.orphans_removed = await loop.run_in_executor(executor, self.remove_orphans)
        finally:
            executor.shutdown(wait=True)
            await conn.close()

    @staticmethod
    async def _install(conn, queries) -> None:
        """Install or upgrade the queue's tables once, whichever builder comes first."""
        await conn.execute("SELECT pg_advisory_lock($1)", _SCHEMA_LOCK)
        try:
            if await queries.schema_is_installed():
                await queries.upgrade()
            else:
                await queries.install()
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", _SCHEMA_LOCK)

    @staticmethod
    async def _open_count(queries, plans: set[str] | None) -> int:
        """Jobs queued or taken of these plans (every emukit plan when None)."""
        rows = await queries.queue_size()
        return sum(r.count for r in rows if r.status in ("queued", "picked")
                   and (r.entrypoint in plans if plans is not None else r.entrypoint.startswith(PLAN_PREFIX)))

    def remove_orphans(self) -> int:
        """Delete the artifacts no stored row refers to (a killed builder's half-written pairs). Called when no
        builder holds a job; one younger than the grace period is waited for (it could still be a pair being
        committed by a build outside the queue), then deleted if still unreferenced."""
        removed = len(self.store.gc_artifacts(grace_s=self.orphan_grace_s))
        young = self.store.artifacts.unreferenced(self.store.referenced_artifacts())
        if young:
            newest = max((p.stat().st_mtime for p in young if p.exists()), default=time.time())
            time.sleep(max(0.0, newest + self.orphan_grace_s - time.time()) + 0.1)
            removed += len(self.store.gc_artifacts(grace_s=self.orphan_grace_s))
        return removed
