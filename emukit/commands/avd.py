"""``emukit avd create|start|setup|standins|pin-apks``: make an AVD, run it headless, set a device up for
emukit, write the stand-in APKs for the hardware-like virtual device, record the digests of the real APK
files."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from emukit.commands.output import make_console, print_error
from emukit.errors import EmukitError


def _create(args: argparse.Namespace) -> int:
    from emukit.provision.avd import (
        HARDWARE_PROFILE,
        SYSTEM_IMAGE,
        create_avd,
        describe,
    )

    console = make_console()
    try:
        result = create_avd(args.name, args.sdk, force=args.force)
    except EmukitError as exc:
        print_error(console, "emukit avd create", exc)
        return 1
    if result.created:
        console.print(f"created AVD {escape(args.name)} ({SYSTEM_IMAGE}, device {HARDWARE_PROFILE}): "
                      f"{escape(describe(result.ini))}", highlight=False, soft_wrap=True)
    else:
        console.print(f"AVD {escape(args.name)} exists already ({escape(str(result.ini))}); --force recreates it",
                      highlight=False, soft_wrap=True)
    return 0


def _start(args: argparse.Namespace) -> int:
    """Launch the AVD headless with emukit's emulator flags (:mod:`emukit.device.emulator`), wait for boot,
    run the post-boot setup, then keep it running until Ctrl-C or SIGTERM (or until the emulator exits)."""
    import signal
    import threading

    from emukit.device.adbserver import AdbServer
    from emukit.device.emulator import EmulatorConfig
    from emukit.device.launcher import EmulatorLauncher
    from emukit.device.sdk import find_sdk
    from emukit.settings import adb_server_port

    console = make_console()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    server = AdbServer(adb_server_port())
    try:
        config = EmulatorConfig(avd_name=args.name, console_port=args.console_port, grpc_port=args.grpc_port,
                                snapshot=args.snapshot)
        server.start()
        launcher = EmulatorLauncher(config, server, sdk=find_sdk(args.sdk), max_attempts=1)
        console.print(f"starting {escape(args.name)}: {escape(' '.join(launcher.command()))}", highlight=False,
                      soft_wrap=True)
        serial = launcher.launch()
    except (EmukitError, ValueError) as exc:
        print_error(console, "emukit avd start", exc)
        server.release()
        return 1
    console.print(f"{serial} booted and set up (root, animations off, automatic time off); Ctrl-C stops it",
                  highlight=False)
    try:
        while not stop.wait(1.0):
            if not launcher.healthy():
                print_error(console, "emukit avd start", f"{serial} stopped answering; its log ends with:\n"
                                                         f"{launcher.log_tail(10)}")
                return 1
    finally:
        launcher.stop()
        server.release([serial])
    console.print(f"{serial} stopped", highlight=False)
    return 0


def _setup(args: argparse.Namespace) -> int:
    from emukit.device.driver import Driver
    from emukit.provision.setup import setup_device
    from emukit.settings import adb_server_port

    console = make_console()
    driver = Driver(args.serial, adb_server_port())
    try:
        report = setup_device(driver, args.apks, args.data_dir, console)
    except EmukitError as exc:
        print_error(console, "emukit avd setup", exc)
        return 1
    finally:
        driver.close()
    console.print(f"{args.serial}: {'set up' if report.changed else 'nothing to do, every step was done already'}",
                  highlight=False)
    return 0


def _standins(args: argparse.Namespace) -> int:
    from emukit.provision.apks import sha256_file, write_standins

    console = make_console()
    for path in write_standins(args.dir):
        console.print(f"{escape(str(path))}  sha256 {sha256_file(path)}", highlight=False, soft_wrap=True)
    console.print("stand-ins install only on emukit's virtual device (emukit vdevice serve --mode hardware)",
                  highlight=False)
    return 0


def _pin(args: argparse.Namespace) -> int:
    from emukit.provision.apks import load_pins, pin_apks, user_pins_path

    console = make_console()
    try:
        found = pin_apks(args.dir)
    except EmukitError as exc:
        print_error(console, "emukit avd pin-apks", exc)
        return 1
    console.print(f"recorded in {escape(str(user_pins_path()))}:", highlight=False, soft_wrap=True)
    pins = load_pins()
    for package, digest in sorted(found.items()):
        pin = pins.app(package)
        console.print(f"  {pin.file}  sha256 {digest}  (published at {pin.url})", highlight=False, soft_wrap=True)
    console.print("compare each digest with a copy you trust (the publisher lists none) before running avd setup",
                  highlight=False)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from emukit.commands.build import default_data_dir

    p = sub.add_parser("avd", help="create an AVD, set a device up for emukit, manage the pinned APKs")
    asub = p.add_subparsers(dest="avd_command", required=True)
    create = asub.add_parser("create", help="create the pinned AVD (Android 14 google_apis x86_64, Pixel 6)")
    create.add_argument("name", help="AVD name")
    create.add_argument("--sdk", type=Path, default=None, help="Android SDK folder (default: ANDROID_SDK_ROOT, ...)")
    create.add_argument("--force", action="store_true", help="replace an AVD of that name")
    create.set_defaults(func=_create)
    start = asub.add_parser("start", help="run an AVD headless with emukit's flags until Ctrl-C")
    start.add_argument("name", help="AVD name (emukit avd create NAME)")
    start.add_argument("--sdk", type=Path, default=None, help="Android SDK folder (default: ANDROID_SDK_ROOT, ...)")
    start.add_argument("--console-port", type=int, default=5554,
                       help="even console port; adb uses PORT+1 and the serial is emulator-PORT (default 5554)")
    start.add_argument("--grpc-port", type=int, default=8554, help="emulator gRPC port (default 8554)")
    start.add_argument("--snapshot", default=None, help="boot from this snapshot (default: a cold boot)")
    start.set_defaults(func=_start)
    setup = asub.add_parser("setup", help="install, grant, onboard, demo mode and base snapshots on one device")
    setup.add_argument("serial", help="device serial, e.g. emulator-5554")
    setup.add_argument("--apks", type=Path, required=True,
                       help="folder with the pinned APK files (net.gsantner.markor_146.apk, ...)")
    setup.add_argument("--data-dir", type=Path, default=default_data_dir(), help="where fingerprints are kept")
    setup.set_defaults(func=_setup)
    standins = asub.add_parser("standins", help="write the stand-in APKs for the hardware-like virtual device")
    standins.add_argument("dir", type=Path, help="output folder")
    standins.set_defaults(func=_standins)
    pin = asub.add_parser("pin-apks", help="record the sha256 of the real APK files in DIR ($EMUKIT_HOME)")
    pin.add_argument("dir", type=Path, help="folder with the real APK files")
    pin.set_defaults(func=_pin)
