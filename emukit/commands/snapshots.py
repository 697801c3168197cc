"""``emukit snapshots list|build|verify``: base snapshots declared in ``snapshots/*.yaml``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError


def _serial(args: argparse.Namespace) -> str:
    from emukit.device.adbserver import AdbServer
    from emukit.device.select import pick_serial
    from emukit.settings import adb_server_port

    server = AdbServer(adb_server_port())
    server.start()
    serial = pick_serial(server, args.device)
    if serial is None:
        raise EmukitError("no device attached; give --device SERIAL")
    return serial


def _cmd(args: argparse.Namespace) -> int:
    from emukit.device.console import ConsoleClient
    from emukit.settings import adb_server_port
    from emukit.snapshots import CLEAN_SNAPSHOT, list_specs, load_spec
    from emukit.workers import DeviceContext

    console = make_console()
    if args.action in ("build", "verify") and not args.name:
        print_error(console, f"emukit snapshots {args.action}", "give the snapshot NAME")
        return 2
    try:
        if args.action == "list":
            table = Table(title="base snapshots")
            for col in ("name", "description", "on device"):
                table.add_column(col)
            on_device: set[str] = set()
            if args.device or args.check_device:
                with ConsoleClient.for_serial(_serial(args)) as cc:
                    on_device = set(cc.snapshot_list())
            from emukit import resources

            names = list_specs()
            if not names:
                folders = ", ".join(str(f) for f in resources.search_path("snapshots")) or "none found"
                print_error(console, "emukit snapshots list", f"no snapshot specs on the search path ({folders})")
                return 1
            for name in names:
                spec = load_spec(name)
                table.add_row(name, spec.description, "yes" if name in on_device else "-")
            console.print(table)
            return 0
        device = DeviceContext(_serial(args), adb_port=adb_server_port(), data_dir=args.data_dir)
        try:
            if args.action == "save-clean":
                saved = device.save_clean(force=args.force)
                console.print(f"{CLEAN_SNAPSHOT} on {device.serial}: "
                              + ("saved from the device's present state" if saved else "already there (--force "
                                 "saves over it)"))
                return 0
            if args.action == "build":
                fp, path = device.build_snapshot(args.name)
                console.print(f"built {args.name} on {device.serial}; fingerprint {json.dumps(fp)} -> {path}")
                return 0
            ok, expected, actual = device.verify_snapshot(args.name)
            if ok:
                console.print(f"[green]{args.name} on {device.serial}: fingerprint matches[/green]")
                return 0
            console.print(f"[red]{args.name} on {device.serial}: fingerprint differs[/red]\n"
                          f"expected {json.dumps(expected)}\nactual   {json.dumps(actual)}")
            return 1
        finally:
            device.close()
    except EmukitError as exc:
        print_error(console, "emukit snapshots", exc)
        return 1


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.build import default_data_dir

    p = sub.add_parser("snapshots", help="list, build and verify base snapshots (snapshots/*.yaml)",
                       description="Base snapshots are built from the device's clean snapshot "
                                   "(emukit_clean), saved by `emukit avd setup` or by the first base built "
                                   "on a fresh device; `save-clean` saves the device's present state as it.")
    p.add_argument("action", choices=("list", "build", "verify", "save-clean"))
    p.add_argument("name", nargs="?", help="snapshot name (build, verify)")
    p.add_argument("--device", help="serial (default: the only attached device)")
    p.add_argument("--check-device", action="store_true", help="list: also show which exist on the device")
    p.add_argument("--force", action="store_true",
                   help="save-clean: save even over an existing clean snapshot or beside base snapshots")
    p.add_argument("--data-dir", type=Path, default=default_data_dir(), help="where fingerprints are kept")
    p.set_defaults(func=_cmd)
