"""Command-line options that several commands share, declared once."""

from __future__ import annotations

import argparse

VDEVICE_MODE_HELP = ("behaviour of the embedded virtual devices this command starts: deterministic (default: "
                     "logical clock, apps preinstalled and onboarded) or hardware (like a real AVD: real-time "
                     "clocks, apps absent until installed, first-run screens); attached devices are what they are")


def add_vdevice_mode(parser: argparse.ArgumentParser) -> None:
    """``--vdevice-mode deterministic|hardware`` (:data:`emukit.device.virtual.VDEVICE_MODES`)."""
    from emukit.device.virtual import VDEVICE_MODES

    parser.add_argument("--vdevice-mode", choices=VDEVICE_MODES, default="deterministic", help=VDEVICE_MODE_HELP)
