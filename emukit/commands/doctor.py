"""``emukit doctor [SERIAL]``: every assumption emukit makes about one device, checked (a table of pass/fail
with the fix for each failure; exit status 1 on any failure)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError


def _cmd(args: argparse.Namespace) -> int:
    from emukit.device.adbserver import AdbServer
    from emukit.device.driver import Driver
    from emukit.device.select import pick_serial
    from emukit.provision.doctor import run_doctor
    from emukit.settings import adb_server_port

    console = make_console()
    try:
        server = AdbServer(adb_server_port())
        server.start()
        serial = pick_serial(server, args.serial)
        if serial is None:
            raise EmukitError("no device attached; give SERIAL")
        driver = Driver(serial, adb_server_port())
        try:
            checks = run_doctor(driver, args.data_dir)
        finally:
            driver.close()
    except EmukitError as exc:
        print_error(console, "emukit doctor", exc)
        return 1
    failed = [c for c in checks if not c.ok]
    if args.json:
        print(json.dumps([{"check": c.name, "ok": c.ok, "detail": c.detail, "fix": c.fix} for c in checks], indent=1))
    else:
        table = Table(title=f"emukit doctor {serial}")
        for col in ("check", "result", "detail", "fix"):
            table.add_column(col, overflow="fold")
        for c in checks:
            table.add_row(escape(c.name), "[green]pass[/green]" if c.ok else "[red]FAIL[/red]", escape(c.detail),
                          escape(c.fix))
        console.print(table)
        console.print(f"{len(checks) - len(failed)}/{len(checks)} checks pass", highlight=False)
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.build import default_data_dir

    p = sub.add_parser("doctor", help="check one device against every assumption emukit makes")
    p.add_argument("serial", nargs="?", help="device serial (default: the only attached device)")
    p.add_argument("--data-dir", type=Path, default=default_data_dir(), help="where snapshot fingerprints are kept")
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(func=_cmd)
