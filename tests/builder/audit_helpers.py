"""Shared by the export/audit/stability tests: a small store cut from the session's built store (the pairs
of two templates at two seeds; tests/conftest.py ``built_store``), and the ``export`` / ``audit`` commands
run in-process."""

from __future__ import annotations

import argparse
import shutil
import sqlite3
from pathlib import Path
from typing import Any

TEMPLATES = ["copy_direct", "delete_direct"]
SEEDS = (0, 1)
_SESSION: dict[str, Any] = {}


def built(built_store, tmp_path_factory) -> Path:
    """A data dir holding only the session store's pairs of :data:`TEMPLATES` (one per template and seed in
    :data:`SEEDS`: 4 pairs), copied once per session; read-only like the store it comes from."""
    if "data" not in _SESSION:
        assert tuple(TEMPLATES) == built_store.SEED1_TEMPLATES  # the session store has them at both seeds
        data = copy_data(built_store.data, tmp_path_factory.mktemp("audit-data"))
        with sqlite3.connect(data / "emukit.db") as db:
            db.execute("PRAGMA foreign_keys = ON")  # branches and steps go with their pair (ON DELETE CASCADE)
            marks = ", ".join("?" * len(TEMPLATES))
            db.execute(f"DELETE FROM pairs WHERE template NOT IN ({marks}) OR seed NOT IN ({', '.join('?' * len(SEEDS))})",
                       (*TEMPLATES, *SEEDS))
            kept = db.execute("SELECT template, seed FROM pairs ORDER BY template, seed").fetchall()
        assert kept == [(t, s) for t in TEMPLATES for s in SEEDS], kept
        _SESSION["data"] = data
    return _SESSION["data"]


def copy_data(src: Path, dst: Path) -> Path:
    """A private copy of a data dir (database and artifacts) to damage."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("vdevices", "export"), dirs_exist_ok=True)
    return dst


def cli(*argv: str) -> int:
    """Run ``emukit export|audit ...`` in-process (output goes to the captured stdout/stderr)."""
    from emukit.commands import audit, export

    parser = argparse.ArgumentParser(prog="emukit")
    sub = parser.add_subparsers(dest="command", required=True)
    export.register(sub)
    audit.register(sub)
    args = parser.parse_args(list(argv))
    return int(args.func(args) or 0)


def stress_rejection(serial: str, adb_port: int, template_name: str, depth: int, data_dir: Path) -> Any:
    """Run one d-stress trajectory of ``template_name`` at ``depth`` and return the Rejected it must raise."""
    import pytest

    from emukit.builder.pair import Rejected
    from emukit.builder.stress import WorkItem, run_trajectory
    from emukit.templates import load_templates
    from emukit.workers import DeviceContext

    (template,) = load_templates(names=[template_name])
    device = DeviceContext(serial, adb_port=adb_port, data_dir=data_dir)
    try:
        with pytest.raises(Rejected) as info:
            run_trajectory(device, "d-stress", WorkItem(template, 0, depth, None), 0, 0)
    finally:
        device.close()
    return info.value
