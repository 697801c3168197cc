"""The single command-line entry point: ``emukit <command> ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emukit import __version__
from emukit.provenance import DEFAULT_VIRTUAL_MODE, VIRTUAL_MODES


def default_home() -> Path:
    """Where emukit keeps per-user data (virtual device state, logs, device records): ``$EMUKIT_HOME``
    (:func:`emukit.settings.home_dir`)."""
    from emukit.settings import home_dir

    return home_dir()


DESCRIPTION = """Build and verify data for GUI world models on Android devices: strict A/B pairs, online
milestone tasks, and the evaluation of world models on them. With no emulator attached, commands
that need a device start embedded virtual devices."""
EPILOG = """quick start:
  emukit build-pairs --family clipboard --count 20    build 20 verified pairs under ./data
  emukit export --out data/export                      write them as pairs.jsonl + artifacts
  emukit evaluate --pairs data/export --model ref:surface --condition observation

'emukit COMMAND --help' describes each command."""

GRPC_PORT_OFFSET = 3000  # vdevice serve: default gRPC port = adb port + 3000 (5555 -> 8555)


def _cmd_vdevice_serve(args: argparse.Namespace) -> int:
    from emukit.vdevice.server import serve

    state_dir = args.state_dir or default_home() / "vdevices" / f"emulator-{args.port - 1}"
    grpc_port = args.port + GRPC_PORT_OFFSET if args.grpc_port is None else args.grpc_port
    if not 0 <= grpc_port <= 65535:
        print(f"emukit vdevice serve: gRPC port {grpc_port} is out of range; pass --grpc-port", file=sys.stderr)
        return 2
    try:
        serve(args.port, Path(state_dir), avd_name=args.avd_name, clock_mode=args.clock,
              wipe=args.wipe_data, register=not args.no_register, grpc_port=grpc_port, screen=args.screen,
              mode=args.mode)
    except (OSError, ValueError) as exc:
        print(f"emukit vdevice serve: {exc}", file=sys.stderr)
        return 1
    return 0


def _screen_arg(value: str) -> tuple[int, int, int]:
    """``--screen WxH@DPI`` (parsed without loading the virtual device)."""
    from emukit.screens import parse_screen

    try:
        return parse_screen(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _cmd_vdevice_gallery(args: argparse.Namespace) -> int:
    from rich.console import Console

    from emukit.vdevice.gallery import render_gallery

    console = Console()
    with console.status("rendering every screen of every virtual app..."):
        scenes = render_gallery(args.out)
    console.print(f"{len(scenes)} scenes from {len({s.package for s in scenes})} apps written to "
                  f"{args.out} (open {args.out / 'index.html'})")
    return 0


def _cmd_vdevice_template(args: argparse.Namespace) -> int:
    from rich.console import Console

    from emukit.device.adbserver import AdbServer
    from emukit.errors import EmukitError
    from emukit.settings import VDEVICE_TEMPLATE_ENV, adb_server_port
    from emukit.snapshots import build_template

    console = Console(stderr=True)
    server = AdbServer(adb_server_port())
    server.start()
    try:
        with console.status("building the clean snapshot and every base snapshot on a fresh virtual device..."):
            manifest = build_template(args.out, server, screen=args.screen)
    except EmukitError as exc:
        print(f"emukit vdevice template: {exc}", file=sys.stderr)
        return 1
    finally:
        server.release()
    Console(soft_wrap=True, highlight=False).print(
        f"template with {len(manifest['snapshots'])} snapshots ({', '.join(manifest['snapshots'])}) written to "
        f"{args.out}; new virtual devices start from it when {VDEVICE_TEMPLATE_ENV}={args.out} is set")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="emukit", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"emukit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    from emukit.commands import (
        annotate,
        audit,
        avd,
        build,
        devices,
        doctor,
        estimator,
        evaluate,
        export,
        nightly,
        snapshots,
        tasks,
    )

    build.register(sub)
    export.register(sub)
    audit.register(sub)
    evaluate.register(sub)
    estimator.register(sub)
    devices.register(sub)
    snapshots.register(sub)
    tasks.register(sub)
    annotate.register(sub)
    avd.register(sub)
    doctor.register(sub)
    nightly.register(sub)

    vdev = sub.add_parser("vdevice", help="run and inspect virtual devices")
    vsub = vdev.add_subparsers(dest="vcommand", required=True)
    serve = vsub.add_parser("serve", help="run a virtual device in the foreground")
    serve.add_argument("--port", type=int, default=5555,
                       help="adb transport port (odd; the console listens on PORT-1, serial emulator-(PORT-1))")
    serve.add_argument("--state-dir", type=Path, default=None,
                       help="device state folder (default: $EMUKIT_HOME/vdevices/emulator-N)")
    serve.add_argument("--avd-name", default="emukit_virtual", help="name reported by 'avd name'")
    serve.add_argument("--clock", choices=("logical", "realtime"), default="logical",
                       help="logical: time moves only when told (default); realtime: follows the host")
    serve.add_argument("--mode", choices=VIRTUAL_MODES, default=DEFAULT_VIRTUAL_MODE,
                       help="deterministic (default): logical clock, apps preinstalled and onboarded; hardware: "
                            "behave like a real AVD (real-time clocks, gestures of real duration, apps absent "
                            "until installed, first-run screens and permission prompts); see docs/vdevice.md")
    serve.add_argument("--wipe-data", action="store_true", help="start from a fresh device")
    serve.add_argument("--no-register", action="store_true",
                       help="do not start/notify the adb server (it still finds ports 5555-5585 at its start)")
    serve.add_argument("--grpc-port", type=int, default=None,
                       help=f"emulator gRPC controller port on 127.0.0.1 (default: PORT+{GRPC_PORT_OFFSET}; "
                            "0 disables)")
    serve.add_argument("--screen", type=_screen_arg, default=None, metavar="WxH@DPI",
                       help="display size and density, e.g. 720x1280@320 (default 1080x2400@420)")
    serve.set_defaults(func=_cmd_vdevice_serve)
    gallery = vsub.add_parser("gallery", help="render every screen and dialog of the virtual apps to PNG")
    gallery.add_argument("--out", type=Path, required=True, help="output folder (index.html, index.md, PNGs)")
    gallery.set_defaults(func=_cmd_vdevice_gallery)
    template = vsub.add_parser("template", help="build the clean and base snapshots once, for new virtual "
                                                 "devices to start from ($EMUKIT_VDEVICE_TEMPLATE)")
    template.add_argument("--out", type=Path, required=True, help="template folder (replaced when complete)")
    template.add_argument("--screen", type=_screen_arg, default=None, metavar="WxH@DPI",
                          help="the display of the devices that will use it (default 1080x2400@420)")
    template.set_defaults(func=_cmd_vdevice_template)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
