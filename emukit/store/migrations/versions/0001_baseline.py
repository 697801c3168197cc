"""Baseline: the schema of the first release (runs, templates, pairs, branches, steps, rejections, store_meta).

A database made before migrations existed has exactly these tables and is stamped with this revision instead
of running it. Written out here, not derived from the models: later revisions change the models, not this.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SHA = sa.String(64)
NAME = sa.String(255)
WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "store_meta",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("value", NAME, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_store_meta"))
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("command", NAME, nullable=False),
        sa.Column("args", sa.JSON(), nullable=False),
        sa.Column("started_at", WHEN, nullable=False),
        sa.Column("finished_at", WHEN, nullable=True),
        sa.Column("status", sa.String(32), nullable=True),
        sa.Column("host", NAME, nullable=False),
        sa.Column("emukit_version", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_runs"))
    op.create_table(
        "templates",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", NAME, nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("hash", SHA, nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_templates"),
        sa.UniqueConstraint("name", "hash", name="uq_templates_name_hash"))
    op.create_table(
        "pairs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.String(128), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("template", NAME, nullable=False),
        sa.Column("template_hash", SHA, nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("base_snapshot", NAME, nullable=False),
        sa.Column("shared_action", sa.JSON(), nullable=False),
        sa.Column("request_hashes", sa.JSON(), nullable=False),
        sa.Column("validation", sa.JSON(), nullable=False),
        *(sa.Column(name, sa.Boolean(), nullable=False) for name in (
            "stable_boundary", "observation_match", "state_differs", "outcome_differs", "validator_pass")),
        sa.Column("device", NAME, nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_pairs_run_id_runs"),
        sa.PrimaryKeyConstraint("id", name="pk_pairs"),
        sa.UniqueConstraint("pair_id", name="uq_pairs_pair_id"),
        sa.UniqueConstraint("template", "seed", "slot", name="uq_pairs_work_key"))
    op.create_index("ix_pairs_family", "pairs", ["family"])
    op.create_table(
        "branches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("pair_pk", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(1), nullable=False),
        sa.Column("history_len", sa.Integer(), nullable=False),
        *(sa.Column(name, SHA, nullable=False) for name in (
            "boundary_screenshot", "boundary_hierarchy", "recaptured_screenshot", "recaptured_hierarchy")),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("state_evidence", sa.JSON(), nullable=False),
        sa.Column("shared_action", sa.JSON(), nullable=False),
        sa.Column("next_screenshot", SHA, nullable=False),
        sa.Column("next_hierarchy", SHA, nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=False),
        sa.Column("outcome_evidence", sa.JSON(), nullable=False),
        sa.Column("warp", sa.JSON(), nullable=True),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["pair_pk"], ["pairs.id"], name="fk_branches_pair_pk_pairs", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_branches"),
        sa.UniqueConstraint("pair_pk", "name", name="uq_branches_pair_pk_name"))
    op.create_table(
        "steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("branch_id", sa.Integer(), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=False),
        sa.Column("screenshot", SHA, nullable=False),
        sa.Column("hierarchy", SHA, nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["branch_id"], ["branches.id"], name="fk_steps_branch_id_branches",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_steps"),
        sa.UniqueConstraint("branch_id", "step_index", name="uq_steps_branch_id_step_index"))
    op.create_table(
        "rejections",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(32), nullable=False),
        sa.Column("template", NAME, nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("reason", NAME, nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("device", NAME, nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("created_at", WHEN, nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"], name="fk_rejections_run_id_runs"),
        sa.PrimaryKeyConstraint("id", name="pk_rejections"))
    op.create_index("ix_rejections_template_seed_slot", "rejections", ["template", "seed", "slot"])
    op.create_index("ix_rejections_reason", "rejections", ["reason"])


def downgrade() -> None:
    for table in ("rejections", "steps", "branches", "pairs", "templates", "runs", "store_meta"):
        op.drop_table(table)
