"""The device a pair was built on: ``pairs.device_kind`` (indexed, for selection) and ``pairs.built_on`` (the
whole :class:`emukit.provenance.BuiltOn`: kind, system build, display, app builds, emukit's version).

Rows stored before this revision were built on a device nobody recorded: their kind is ``unknown`` and their
``built_on`` NULL (it reads back as the unknown provenance).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("pairs") as batch:
        batch.add_column(sa.Column("device_kind", sa.String(32), nullable=False, server_default="unknown"))
        batch.add_column(sa.Column("built_on", sa.JSON(), nullable=True))
    op.create_index("ix_pairs_device_kind", "pairs", ["device_kind"])


def downgrade() -> None:
    op.drop_index("ix_pairs_device_kind", table_name="pairs")
    with op.batch_alter_table("pairs") as batch:
        batch.drop_column("built_on")
        batch.drop_column("device_kind")
