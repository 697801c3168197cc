"""Provenance of a pair: the tracked entity, the hidden setup and the base snapshot's content fingerprint
(``pairs.provenance``), and the steps the shared action did on the device (``branches.shared_steps``).

Both columns are nullable: rows stored before this revision have none, and read back with empty values.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pairs") as batch:
        batch.add_column(sa.Column("provenance", sa.JSON(), nullable=True))
    with op.batch_alter_table("branches") as batch:
        batch.add_column(sa.Column("shared_steps", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("branches") as batch:
        batch.drop_column("shared_steps")
    with op.batch_alter_table("pairs") as batch:
        batch.drop_column("provenance")
