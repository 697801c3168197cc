"""Alembic environment: migrations run on the connection the store hands over (``config.attributes``), inside
the store's own transaction, or, from the ``alembic`` command line, on ``sqlalchemy.url`` / ``$EMUKIT_DB``."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine

from emukit.store.models import Base

config = context.config


def run(connection: object) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=connection.dialect.name == "sqlite")  # type: ignore[attr-defined]
    with context.begin_transaction():
        context.run_migrations()


handed_over = config.attributes.get("connection")
if handed_over is not None:
    run(handed_over)
else:
    url = os.environ.get("EMUKIT_DB") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("set EMUKIT_DB or sqlalchemy.url to the database to migrate")
    with create_engine(url).begin() as conn:
        run(conn)
