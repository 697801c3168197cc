"""SQLAlchemy tables of the store. Portable across SQLite and PostgreSQL: JSON columns are ``sqlalchemy.JSON``,
times are timezone-aware UTC, hashes are 64-character strings naming artifact files.

Tasks, milestones, annotations, evaluations and predictions come with their own stages and are not here yet.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

SHA_LEN = 64
NAME_LEN = 255


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite keeps naive text; PostgreSQL timestamptz)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    })
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON, datetime: UTCDateTime}


class StoreMeta(Base):
    """Key/value facts about the database itself (``schema_version``)."""

    __tablename__ = "store_meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(NAME_LEN))


class Run(Base):
    """One invocation of an emukit command that wrote to the store."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    command: Mapped[str] = mapped_column(String(NAME_LEN))
    args: Mapped[dict[str, Any]] = mapped_column(default=dict)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    status: Mapped[str | None] = mapped_column(String(32), default=None)  # ok / failed / interrupted
    host: Mapped[str] = mapped_column(String(NAME_LEN), default="")
    emukit_version: Mapped[str] = mapped_column(String(64), default="")


class TemplateRow(Base):
    """A causal template's source as it was when pairs were built from it."""

    __tablename__ = "templates"
    __table_args__ = (UniqueConstraint("name", "hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LEN))
    family: Mapped[str] = mapped_column(String(32))
    hash: Mapped[str] = mapped_column(String(SHA_LEN))
    source: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PairRow(Base):
    """A verified strict pair. The work key (template, seed, slot) makes resumed builds idempotent."""

    __tablename__ = "pairs"
    __table_args__ = (
        UniqueConstraint("template", "seed", "slot", name="uq_pairs_work_key"),
        Index(None, "family"),
        Index(None, "device_kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair_id: Mapped[str] = mapped_column(String(128), unique=True)
    family: Mapped[str] = mapped_column(String(32))
    template: Mapped[str] = mapped_column(String(NAME_LEN))
    template_hash: Mapped[str] = mapped_column(String(SHA_LEN))
    params: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    slot: Mapped[int] = mapped_column(Integer)
    base_snapshot: Mapped[str] = mapped_column(String(NAME_LEN))
    shared_action: Mapped[dict[str, Any]]
    request_hashes: Mapped[dict[str, Any]]
    validation: Mapped[dict[str, Any]]
    # One column per acceptance criterion (records.CRITERIA), for queries; ``validation`` is authoritative.
    stable_boundary: Mapped[bool] = mapped_column(Boolean)
    observation_match: Mapped[bool] = mapped_column(Boolean)
    state_differs: Mapped[bool] = mapped_column(Boolean)
    outcome_differs: Mapped[bool] = mapped_column(Boolean)
    validator_pass: Mapped[bool] = mapped_column(Boolean)
    device: Mapped[str] = mapped_column(String(NAME_LEN), default="")
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # entity, hidden_setup, base_fingerprint of the record (revision 0002; NULL in older rows)
    provenance: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    # the device the pair was built on (revision 0003): its kind, for selection, and the whole BuiltOn
    # (NULL, kind "unknown", in rows stored before it was kept)
    device_kind: Mapped[str] = mapped_column(String(32), default="unknown", server_default="unknown")
    built_on: Mapped[dict[str, Any] | None] = mapped_column(default=None)

    branches: Mapped[list[BranchRow]] = relationship(
        back_populates="pair", order_by="BranchRow.name", cascade="all, delete-orphan", passive_deletes=True)


class BranchRow(Base):
    """One executed branch (A or B) of a pair; observations are artifact hashes (PNG, XML)."""

    __tablename__ = "branches"
    __table_args__ = (UniqueConstraint("pair_pk", "name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pair_pk: Mapped[int] = mapped_column(ForeignKey("pairs.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(1))
    history_len: Mapped[int] = mapped_column(Integer)  # lets an audit prove no step went missing
    boundary_screenshot: Mapped[str] = mapped_column(String(SHA_LEN))
    boundary_hierarchy: Mapped[str] = mapped_column(String(SHA_LEN))
    recaptured_screenshot: Mapped[str] = mapped_column(String(SHA_LEN))
    recaptured_hierarchy: Mapped[str] = mapped_column(String(SHA_LEN))
    state: Mapped[dict[str, Any]]
    state_evidence: Mapped[dict[str, Any]]
    shared_action: Mapped[dict[str, Any]]
    next_screenshot: Mapped[str] = mapped_column(String(SHA_LEN))
    next_hierarchy: Mapped[str] = mapped_column(String(SHA_LEN))
    outcome: Mapped[dict[str, Any]]
    outcome_evidence: Mapped[dict[str, Any]]
    warp: Mapped[dict[str, Any] | None] = mapped_column(default=None)
    timings: Mapped[dict[str, Any]]
    shared_steps: Mapped[list[Any] | None] = mapped_column(default=None)  # revision 0002; NULL in older rows

    pair: Mapped[PairRow] = relationship(back_populates="branches")
    steps: Mapped[list[StepRow]] = relationship(
        back_populates="branch", order_by="StepRow.index", cascade="all, delete-orphan", passive_deletes=True)


class StepRow(Base):
    """One history step of a branch: the observation the action was taken from, and the action."""

    __tablename__ = "steps"
    __table_args__ = (UniqueConstraint("branch_id", "step_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    branch_id: Mapped[int] = mapped_column(ForeignKey("branches.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column("step_index", Integer)
    screenshot: Mapped[str] = mapped_column(String(SHA_LEN))
    hierarchy: Mapped[str] = mapped_column(String(SHA_LEN))
    action: Mapped[dict[str, Any]]

    branch: Mapped[BranchRow] = relationship(back_populates="steps")


class RejectionRow(Base):
    """An attempt at a work key that did not become a pair, with the reason."""

    __tablename__ = "rejections"
    __table_args__ = (Index(None, "template", "seed", "slot"), Index(None, "reason"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    family: Mapped[str] = mapped_column(String(32))
    template: Mapped[str] = mapped_column(String(NAME_LEN))
    params: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    slot: Mapped[int] = mapped_column(Integer)
    attempt: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(NAME_LEN))
    detail: Mapped[str] = mapped_column(Text, default="")
    device: Mapped[str] = mapped_column(String(NAME_LEN), default="")
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
