"""``emukit devices`` and ``emukit probe``: what is attached, and the ground truth of one device."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from rich.table import Table

from emukit.commands.output import make_console
from emukit.errors import EmukitError
from emukit.families import FAMILIES
from emukit.settings import adb_server_port

if TYPE_CHECKING:
    from emukit.device.adbserver import AdbServer


def _embedded(args: argparse.Namespace) -> int:
    """The embedded virtual devices on this machine (``$EMUKIT_HOME/embedded``); with ``--reap``, stop the
    ones whose owner is gone."""
    from emukit.device.ownership import DeviceInUse, embedded_devices, reap

    console = make_console()
    found = embedded_devices()
    if not found:
        console.print("no embedded virtual devices recorded", highlight=False)
    reaped = 0
    for item in found:
        line = item.describe()
        if args.reap and not item.owner_alive:
            try:
                stopped = reap(item)
            except DeviceInUse as exc:
                line += f": {exc}"
            else:
                reaped += 1
                line += ": reaped (process stopped)" if stopped else ": reaped (records removed)"
        elif not item.owner_alive:
            line += ": leftover (run 'emukit devices --reap')"
        console.print(line, highlight=False, soft_wrap=True)
    if args.reap:
        console.print(f"{reaped} leftover(s) reaped; devices held by a live emukit command are never reaped",
                      highlight=False)
    return 0


def _cmd_devices(args: argparse.Namespace) -> int:
    from emukit.device.adbserver import AdbServer

    if args.reap or args.embedded:
        return _embedded(args)
    server = AdbServer(adb_server_port())
    server.start()
    try:
        return _attached(args, server)
    finally:
        server.release()  # stopped again if this command had to start it


def _attached(args: argparse.Namespace, server: AdbServer) -> int:
    """The table of devices attached to ``server`` (serial, kind, state, API level, model)."""
    from emukit.device.driver import Driver

    table = Table(title=f"devices (adb server on port {server.port})")
    for col in ("serial", "kind", "state", "API level", "model"):
        table.add_column(col)
    rows = []
    for serial, state in sorted(server.devices().items()):
        kind, api, model = "-", "-", "-"
        if state == "device":
            props = Driver(serial, server.port).shell(
                "getprop ro.emukit.virtual; getprop ro.build.version.sdk; getprop ro.product.model").text
            virtual, api, model = (props.splitlines() + ["", "", ""])[:3]
            kind = "virtual" if virtual.strip() == "1" else "avd" if serial.startswith("emulator-") else "usb/tcp"
        rows.append({"serial": serial, "kind": kind, "state": state, "api_level": api, "model": model})
        table.add_row(serial, kind, state, api, model)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        console = make_console()
        console.print(table if rows else "no devices attached")
        from emukit.device.ownership import leftover_note

        stale = leftover_note()
        if stale:
            console.print(stale, highlight=False, soft_wrap=True)
    return 0


def _cmd_probe(args: argparse.Namespace) -> int:
    from emukit.device.driver import Driver
    from emukit.probes import PROBES, ProbeUsageError

    try:
        piece = PROBES.get(args.family)
        params = piece.params_from_cli(vars(args))
    except ProbeUsageError as exc:
        print(f"emukit probe: {exc}", file=sys.stderr)
        return 2
    except EmukitError as exc:
        print(f"emukit probe: {exc}", file=sys.stderr)
        return 1
    driver = Driver(args.serial, adb_server_port())
    try:
        result = piece.read(driver, **params)
    except EmukitError as exc:
        print(f"emukit probe: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result.model_dump() if args.evidence else result.canonical, indent=None if not args.evidence
                     else 1, sort_keys=True))
    return 0


def _add_probe_options(parser: argparse.ArgumentParser) -> None:
    """Every registered probe's own options, in the families' order (a flag two probes declare is added once,
    as the first declares it)."""
    from emukit.probes import PROBES

    added: set[str] = set()
    for family in FAMILIES:
        if family not in PROBES:  # a family without a probe: ``emukit probe`` names it when it is asked for
            continue
        for option in PROBES.get(family).cli_options:
            if not added & set(option.flags):
                parser.add_argument(*option.flags, **option.kwargs)
                added.update(option.flags)


def register(sub: argparse._SubParsersAction) -> None:
    devices = sub.add_parser("devices", help="list attached devices (serial, kind, state, API level)")
    devices.add_argument("--json", action="store_true", help="print JSON instead of a table")
    devices.add_argument("--embedded", action="store_true",
                         help="list the embedded virtual devices emukit commands started on this machine, with "
                              "whether their owner still runs")
    devices.add_argument("--reap", action="store_true",
                         help="stop embedded virtual devices whose owning emukit command is gone (never one whose "
                              "owner lives)")
    devices.set_defaults(func=_cmd_devices)

    probe = sub.add_parser("probe", help="print a device's canonical ground-truth state for one family")
    probe.add_argument("serial")
    probe.add_argument("--family", required=True, choices=FAMILIES)
    _add_probe_options(probe)
    probe.add_argument("--evidence", action="store_true", help="print the audit evidence too")
    probe.set_defaults(func=_cmd_probe)
