"""Shared by the export/audit/stability/stress tests: one virtual device and one small built store per test
session (built once, on first use), and the ``export`` / ``audit`` commands run in-process."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

TEMPLATES = ["copy_direct", "delete_direct"]
SEEDS = (0, 1)
_SESSION: dict[str, Any] = {}


def device(vdevice_factory) -> str:
    """The serial of the session's shared virtual device (started on first use)."""
    if "serial" not in _SESSION:
        _SESSION["serial"] = vdevice_factory().serial
    return _SESSION["serial"]


def built(vdevice_factory, adb_server, tmp_path_factory) -> dict[str, Any]:
    """``{"data": data dir, "serial": device}``: one pair per template and seed (4 pairs), on one device."""
    if "data" not in _SESSION:
        from emukit.builder.run import BuildOptions, build_pairs
        from emukit.templates import load_templates

        serial = device(vdevice_factory)
        data = tmp_path_factory.mktemp("audit-data")
        for seed in SEEDS:
            runner = build_pairs(BuildOptions(templates=load_templates(names=TEMPLATES),
                                              count_per_family=len(TEMPLATES), seed=seed, data_dir=data,
                                              serials=[serial], adb_port=adb_server.port))
            assert runner.total_done == len(TEMPLATES), runner.errors
        _SESSION["data"] = data
    return _SESSION


def copy_data(src: Path, dst: Path) -> Path:
    """A private copy of a data dir (database and artifacts) to damage."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("vdevices"))
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
