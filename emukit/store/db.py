"""The store: one database (any SQLAlchemy URL; SQLite in the data dir by default) plus the artifact folder.

A pair is written in two steps: its artifacts first (content-addressed files, so a crash leaves only
harmless orphans), then its pair, branch and step rows in one transaction. A work key (template, seed, slot)
holds at most one pair, so a resumed build skips what is done and never duplicates it.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, selectinload, sessionmaker

import emukit
from emukit.provenance import BuiltOn, mismatch, selects
from emukit.records import PairRecord, Rejection
from emukit.settings import artifacts_root
from emukit.store import schema
from emukit.store.artifacts import ArtifactStore
from emukit.store.audit import audit_store, referenced_artifacts
from emukit.store.convert import (
    RunInfo,
    StoredRejection,
    TemplateSummary,
    check_pair,
    observation_refs,
    pair_to_row,
    rejection_to_row,
    row_to_pair,
    row_to_rejection,
)
from emukit.store.engine import WRITE_OPTION, create_store_engine, default_url, redact, scrub
from emukit.store.errors import MixedProvenanceError, StoreError
from emukit.store.models import BranchRow, PairRow, RejectionRow, Run, TemplateRow, utcnow

ARTIFACTS_DIRNAME = "artifacts"
_BATCH = 200


class Store:
    """Pairs, rejections, runs and templates in a database, artifacts under ``<data_dir>/artifacts``.

    ``url`` is any SQLAlchemy URL (default ``sqlite:///<data_dir>/emukit.db``). One Store may be shared by
    threads; several processes may open the same data dir. Errors are :class:`StoreError` naming the URL
    with its password hidden.

    ``artifacts_dir`` (default ``$EMUKIT_ARTIFACTS``, else ``<data_dir>/artifacts``) is the artifact root:
    builders on several machines sharing one PostgreSQL store give the same shared folder (a network
    filesystem path) so every machine can read every pair's artifacts (docs/scale-out.md).

    ``busy_timeout_s``: how long a SQLite writer waits for another one. ``durable=False`` skips fsyncs
    (artifacts) and full SQLite syncs: still safe against a killed process, not against a power cut.
    """

    def __init__(self, url: str | None = None, *, data_dir: Path | str, artifacts_dir: Path | str | None = None,
                 busy_timeout_s: float = 30.0, durable: bool = True, echo: bool = False) -> None:
        self.data_dir = Path(data_dir)
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create data dir {self.data_dir}: {exc}") from exc
        self.engine, self._url = create_store_engine(url or default_url(self.data_dir),
                                                     busy_timeout_s=busy_timeout_s, durable=durable, echo=echo)
        self.url = redact(self._url)
        root = artifacts_dir or artifacts_root() or self.data_dir / ARTIFACTS_DIRNAME
        self.artifacts = ArtifactStore(Path(root), durable=durable)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(self.engine.execution_options(**{WRITE_OPTION: True}), expire_on_commit=False)
        try:
            self._init_schema()
        except BaseException:
            self.engine.dispose()
            raise

    def __repr__(self) -> str:
        return f"Store({self.url!r}, data_dir={str(self.data_dir)!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()

    # -- sessions and schema ------------------------------------------------------------------------------

    @contextmanager
    def _session(self, *, write: bool = False) -> Iterator[Session]:
        """A session in a transaction, committed on success; database failures become StoreError."""
        try:
            with (self._write if write else self._read)() as session, session.begin():
                yield session
        except IntegrityError:
            raise
        except DBAPIError as exc:
            raise StoreError(f"database {self.url}: {scrub(str(exc.orig), self._url)}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"database {self.url}: {scrub(str(exc), self._url)}") from None

    def _init_schema(self) -> None:
        """Create or upgrade the schema in place (:mod:`emukit.store.schema`); several processes may open a
        new database at once. A database at the current revision is only read."""
        try:
            with self.engine.connect() as conn:
                if schema.is_current(conn):
                    return
            with self._write() as s, s.begin():
                schema.upgrade(s.connection(), emukit.__version__)
        except schema.SchemaError as exc:
            raise StoreError(f"database {self.url} {exc}") from None
        except DBAPIError as exc:
            raise StoreError(f"cannot open database {self.url}: {scrub(str(exc.orig), self._url)}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {self.url}: {scrub(str(exc), self._url)}") from None

    # -- runs and templates -------------------------------------------------------------------------------

    def start_run(self, command: str, args: dict[str, Any] | None = None) -> int:
        """Record the start of a command; returns the run id to pass to add_pair / add_rejection.

        ``args`` is stored as JSON; values JSON cannot hold (paths, enums) are stored as their ``str``.
        """
        args = json.loads(json.dumps(args or {}, default=str))
        with self._session(write=True) as s:
            run = Run(command=command, args=args, host=socket.gethostname(),
                      emukit_version=emukit.__version__)
            s.add(run)
            s.flush()
            return run.id

    def finish_run(self, run_id: int, status: str = "ok") -> None:
        """Record the end of a run (status: ok, failed, interrupted...)."""
        with self._session(write=True) as s:
            run = s.get(Run, run_id)
            if run is None:
                raise StoreError(f"database {self.url}: no run {run_id}")
            run.finished_at, run.status = utcnow(), status

    def runs(self) -> list[RunInfo]:
        """Every run, oldest first."""
        with self._session() as s:
            return [RunInfo.model_validate(r, from_attributes=True) for r in s.scalars(select(Run).order_by(Run.id))]

    def upsert_template(self, name: str, family: str, hash: str, source: str) -> int:
        """Store a template version once per (name, hash); returns its row id."""
        def find(s: Session) -> int | None:
            return s.scalar(select(TemplateRow.id).where(TemplateRow.name == name, TemplateRow.hash == hash))

        try:
            with self._session(write=True) as s:
                found = find(s)
                if found is not None:
                    return found
                row = TemplateRow(name=name, family=family, hash=hash, source=source)
                s.add(row)
                s.flush()
                return row.id
        except IntegrityError:  # a concurrent writer stored it first
            with self._session() as s:
                found = find(s)
            if found is None:
                raise StoreError(f"database {self.url}: cannot store template {name} ({hash})") from None
            return found

    def template_source(self, name: str, hash: str) -> str | None:
        """The stored source of template ``name`` at ``hash``, or None."""
        with self._session() as s:
            return s.scalar(select(TemplateRow.source).where(TemplateRow.name == name, TemplateRow.hash == hash))

    # -- pairs ---------------------------------------------------------------------------------------------

    def _work_key(self, template: str, seed: int, slot: int) -> Any:
        return (PairRow.template == template) & (PairRow.seed == seed) & (PairRow.slot == slot)

    def has_pair(self, template: str, seed: int, slot: int) -> bool:
        """True if the work key (template, seed, slot) already holds a pair."""
        with self._session() as s:
            return s.scalar(select(PairRow.id).where(self._work_key(template, seed, slot))) is not None

    def stored_built_on(self, template: str, seed: int) -> BuiltOn | None:
        """The provenance of the first pair stored for the request (``template``, ``seed``), or None when it
        holds none: what a new pair of that request must match unless mixing is allowed."""
        with self._session() as s:
            return self._first_built_on(s, template, seed)

    @staticmethod
    def _first_built_on(s: Session, template: str, seed: int) -> BuiltOn | None:
        row = s.execute(select(PairRow.built_on).where(PairRow.template == template, PairRow.seed == seed)
                        .order_by(PairRow.id).limit(1)).first()
        if row is None:
            return None
        return BuiltOn.model_validate(row[0]) if row[0] else BuiltOn.unknown()

    @staticmethod
    def mixed_message(record: PairRecord, stored: BuiltOn) -> str | None:
        """Why ``record`` may not join the stored pairs of its request (built on ``stored``), or None."""
        why = mismatch(stored, record.built_on)
        if why is None:
            return None
        return (f"pair {record.pair_id} (template {record.template}, seed {record.seed}) was built on {why}; "
                "a request's pairs must come from one device kind and one set of app builds: build it into "
                "another store, or give --allow-mixed to mix them")

    def add_pair(self, record: PairRecord, slot: int, artifacts: dict[str, tuple[bytes, str]] | None = None, *,
                 run_id: int | None = None, allow_mixed: bool = False) -> bool:
        """Store an accepted pair under the work key (record.template, record.seed, slot).

        ``artifacts`` maps sha256 -> (bytes, ext) for the observations the record refers to (screenshots
        ``png``, hierarchies ``xml``); objects already stored may be left out. Artifacts are written first,
        then the pair, its branches and steps in one transaction. Returns False, writing nothing, if the
        work key already holds a pair. Raises StoreError for a malformed or unaccepted record, an artifact
        whose bytes do not match its hash, a reference to an artifact that is neither given nor stored, or a
        pair_id already stored under another work key; :class:`MixedProvenanceError` (writing nothing) for a
        pair built on another device kind or other app builds than the pairs its request (template, seed)
        already holds, unless ``allow_mixed``.
        """
        check_pair(record)
        if slot < 0:
            raise StoreError(f"pair {record.pair_id}: slot must be >= 0, not {slot}")
        if self.has_pair(record.template, record.seed, slot):
            return False
        artifacts = artifacts or {}
        given = {(sha, ext.lstrip(".")) for sha, (_data, ext) in artifacts.items()}
        missing = sorted(ref for ref in observation_refs(record) - given if not self.artifacts.exists(*ref))
        if missing:
            paths = ", ".join(str(self.artifacts.path(*ref)) for ref in missing[:3])
            raise StoreError(f"pair {record.pair_id} refers to {len(missing)} artifact(s) neither given nor "
                             f"stored: {paths}{' ...' if len(missing) > 3 else ''}")
        self.artifacts.put_many(artifacts)
        row = pair_to_row(record, slot=slot, run_id=run_id)
        key = (record.template, record.seed, slot)
        try:
            with self._session(write=True) as s:
                if s.scalar(select(PairRow.id).where(self._work_key(*key))) is not None:
                    return False
                other = s.execute(select(PairRow.template, PairRow.seed, PairRow.slot)
                                  .where(PairRow.pair_id == record.pair_id)).first()
                if other is not None and tuple(other) == key:  # committed by a concurrent writer since the
                    return False  # check above (PostgreSQL's read committed: each statement sees new commits)
                if other is not None:
                    raise StoreError(f"pair_id {record.pair_id} is already stored under work key {tuple(other)}, "
                                     f"not {key}")
                if not allow_mixed:
                    stored = self._first_built_on(s, record.template, record.seed)
                    why = None if stored is None else self.mixed_message(record, stored)
                    if why is not None:
                        raise MixedProvenanceError(why)
                s.add(row)
            return True
        except IntegrityError:  # a concurrent writer (PostgreSQL) took the work key or the pair_id first
            if self.has_pair(*key):
                return False
            raise StoreError(f"pair_id {record.pair_id} was stored concurrently under another work key") from None

    def done_slots(self, template: str, seed: int) -> set[int]:
        """Slots of (template, seed) that already hold a pair: what a resumed build skips."""
        with self._session() as s:
            return set(s.scalars(select(PairRow.slot).where(PairRow.template == template, PairRow.seed == seed)))

    def count_pairs(self, family: str | None = None, template: str | None = None) -> int:
        """Number of stored pairs, optionally of one family and/or template."""
        query = select(func.count(PairRow.id))
        if family is not None:
            query = query.where(PairRow.family == family)
        if template is not None:
            query = query.where(PairRow.template == template)
        with self._session() as s:
            return int(s.scalar(query) or 0)

    def pairs(self, family: str | None = None, template: str | None = None, *, kinds: tuple[str, ...] = (),
              app_builds: tuple[tuple[str, int], ...] = ()) -> Iterator[PairRecord]:
        """Every stored pair (optionally filtered) in insertion order, rebuilt as records; read in batches.
        ``kinds``: only pairs built on one of these device kinds; ``app_builds``: only pairs whose template
        touched each (package, versionCode) with that build (:func:`emukit.provenance.selects`)."""
        last = 0
        while True:
            query = (select(PairRow).where(PairRow.id > last).order_by(PairRow.id).limit(_BATCH)
                     .options(selectinload(PairRow.branches).selectinload(BranchRow.steps)))
            if family is not None:
                query = query.where(PairRow.family == family)
            if template is not None:
                query = query.where(PairRow.template == template)
            if kinds:
                query = query.where(PairRow.device_kind.in_(kinds))
            with self._session() as s:
                rows = list(s.scalars(query))
                records = [row_to_pair(r) for r in rows]
            if not rows:
                return
            last = rows[-1].id
            yield from (r for r in records if selects(r.built_on, app_builds=app_builds))

    def get_pair(self, pair_id: str) -> PairRecord | None:
        """The pair with this id, or None."""
        query = (select(PairRow).where(PairRow.pair_id == pair_id)
                 .options(selectinload(PairRow.branches).selectinload(BranchRow.steps)))
        with self._session() as s:
            row = s.scalar(query)
            return row_to_pair(row) if row is not None else None

    # -- rejections and progress ---------------------------------------------------------------------------

    def add_rejection(self, rej: Rejection, slot: int, *, run_id: int | None = None) -> int:
        """Record a failed attempt at work key (rej.template, rej.seed, slot); returns its row id."""
        with self._session(write=True) as s:
            row = rejection_to_row(rej, slot=slot, run_id=run_id)
            s.add(row)
            s.flush()
            return row.id

    def rejections(self, *, family: str | None = None, template: str | None = None, seed: int | None = None,
                   slot: int | None = None, reason: str | None = None) -> list[StoredRejection]:
        """Stored rejections matching every filter given, oldest first."""
        query = select(RejectionRow).order_by(RejectionRow.id)
        for column, value in ((RejectionRow.family, family), (RejectionRow.template, template),
                              (RejectionRow.seed, seed), (RejectionRow.slot, slot), (RejectionRow.reason, reason)):
            if value is not None:
                query = query.where(column == value)
        with self._session() as s:
            return [row_to_rejection(r) for r in s.scalars(query)]

    def rejection_counts(self, template: str, seed: int) -> dict[int, int]:
        """Rejected attempts per slot of (template, seed), for a builder that caps attempts per slot."""
        query = (select(RejectionRow.slot, func.count(RejectionRow.id))
                 .where(RejectionRow.template == template, RejectionRow.seed == seed).group_by(RejectionRow.slot))
        with self._session() as s:
            return {slot: int(n) for slot, n in s.execute(query)}

    def summary(self) -> dict[str, TemplateSummary]:
        """Per template (sorted by name): accepted pairs, rejections by reason, attempts."""
        with self._session() as s:
            accepted = s.execute(select(PairRow.template, PairRow.family, func.count(PairRow.id))
                                 .group_by(PairRow.template, PairRow.family)).all()
            rejected = s.execute(select(RejectionRow.template, RejectionRow.family, RejectionRow.reason,
                                        func.count(RejectionRow.id))
                                 .group_by(RejectionRow.template, RejectionRow.family, RejectionRow.reason)).all()
        out: dict[str, TemplateSummary] = {}
        for template, family, n in accepted:
            out.setdefault(template, TemplateSummary(template=template, family=family)).accepted += int(n)
        for template, family, reason, n in rejected:
            summary = out.setdefault(template, TemplateSummary(template=template, family=family))
            summary.rejected += int(n)
            summary.rejected_by_reason[reason] = summary.rejected_by_reason.get(reason, 0) + int(n)
        return dict(sorted(out.items()))

    # -- integrity -----------------------------------------------------------------------------------------

    def referenced_artifacts(self) -> set[str]:
        """Hashes of every artifact a stored row refers to."""
        return referenced_artifacts(self)

    def gc_artifacts(self, *, grace_s: float = 3600.0) -> list[Path]:
        """Delete artifact files no row refers to (older than ``grace_s``); returns their paths."""
        return self.artifacts.gc(self.referenced_artifacts(), grace_s=grace_s)

    def audit(self, *, verify_artifacts: bool = True) -> list[str]:
        """Problems found: pairs without exactly branches A and B, branches missing steps, and (with
        ``verify_artifacts``) referenced artifacts that are missing or corrupt. Empty when all is sound."""
        return audit_store(self, verify_artifacts=verify_artifacts)
