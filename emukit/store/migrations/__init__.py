"""Alembic migrations of the store's schema (``versions/``, one file per revision, ids ``0001``, ``0002``...).

The store upgrades a database in place when it opens it (:func:`emukit.store.schema.upgrade`); a database
made before migrations existed (schema version 1, no ``alembic_version`` table) is stamped ``0001`` first.
To add a revision: change :mod:`emukit.store.models`, write ``versions/NNNN_<what>.py`` (``alembic -c
emukit/store/migrations/alembic.ini revision -m "..."`` against a scratch database gives the skeleton), set
:data:`emukit.store.schema.HEAD`, and extend ``tests/store/test_migrations.py`` with a store of the previous
revision. See ``docs/store.md``.
"""
