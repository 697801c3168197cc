"""Command-line options that several commands share, declared once, and the one place a command's device
options become a typed :class:`emukit.workers.DeviceRequest` (:func:`device_request`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from emukit.provenance import DEFAULT_VIRTUAL_MODE, VIRTUAL_MODES

if TYPE_CHECKING:
    from emukit.workers import DeviceRequest

VDEVICE_MODE_HELP = ("behaviour of the embedded virtual devices this command starts: deterministic (default: "
                     "logical clock, apps preinstalled and onboarded) or hardware (like a real AVD: real-time "
                     "clocks, apps absent until installed, first-run screens); attached devices are what they are")
WAIT_HELP = ("wait up to S seconds for attached devices that another emukit command holds (default 0: fail at "
             "once, naming the holder); a run never switches to embedded virtual devices on its own")


def screen_arg(value: str) -> tuple[int, int, int]:
    """``--vdevice-screen WxH@DPI``."""
    from emukit.screens import parse_screen

    try:
        return parse_screen(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_device_options(parser: argparse.ArgumentParser, *, pool: bool = False) -> None:
    """``--vdevice-mode deterministic|hardware`` (:data:`emukit.provenance.VIRTUAL_MODES`); with ``pool`` (a
    command that runs on a pool of devices), also ``--vdevice-screen WxH@DPI`` and ``--wait S``."""
    parser.add_argument("--vdevice-mode", choices=VIRTUAL_MODES, default=DEFAULT_VIRTUAL_MODE, help=VDEVICE_MODE_HELP)
    if pool:
        parser.add_argument("--vdevice-screen", type=screen_arg, default=None, metavar="WxH@DPI",
                            help="display of the embedded virtual devices this command starts, e.g. 720x1280@320 "
                                 "(default 1080x2400@420); attached devices keep their own")
        parser.add_argument("--wait", type=float, default=0.0, metavar="S", help=WAIT_HELP)


def device_request(args: argparse.Namespace, *, embedded_count: int | None = None) -> DeviceRequest:
    """The devices a command's options ask for: ``--device`` (one or repeated), ``--devices N``, ``--embedded``
    (``embedded_count`` embedded devices when given without ``--devices``), ``--vdevice-mode``,
    ``--vdevice-screen`` and ``--wait``, whichever the command declares."""
    from pydantic import ValidationError

    from emukit.errors import ConfigError
    from emukit.workers import DeviceRequest, EmbeddedDevices

    given = getattr(args, "device", None)
    serials = tuple(given) if isinstance(given, list) else (given,) if given else ()
    count = getattr(args, "devices", None)
    if count is None and not serials and getattr(args, "embedded", False):
        count = embedded_count
    try:
        return DeviceRequest(
            serials=serials, count=count, wait_s=getattr(args, "wait", 0.0) or 0.0,
            embedded=EmbeddedDevices(mode=getattr(args, "vdevice_mode", DEFAULT_VIRTUAL_MODE),
                                     screen=getattr(args, "vdevice_screen", None)))
    except ValidationError as exc:
        err = exc.errors()[0]
        option = {"count": "--devices", "wait_s": "--wait", "screen": "--vdevice-screen",
                  "mode": "--vdevice-mode"}.get(str(err["loc"][-1]) if err["loc"] else "", "device options")
        raise ConfigError(f"{option}: {err['msg']} (got {err.get('input')!r})") from None


def _app_build_arg(value: str) -> tuple[str, int]:
    from emukit.provenance import parse_app_build

    try:
        return parse_app_build(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_built_on_selection(parser: argparse.ArgumentParser) -> None:
    """``--device-kind KIND`` and ``--app-build PACKAGE=VERSIONCODE`` (both repeatable): only the pairs built on
    one of those kinds of device, and with each of those app builds (:func:`emukit.provenance.selects`)."""
    from emukit.provenance import DEVICE_KINDS

    parser.add_argument("--device-kind", action="append", choices=DEVICE_KINDS, default=None, metavar="KIND",
                        help=f"only pairs built on this kind of device (repeatable; {', '.join(DEVICE_KINDS)})")
    parser.add_argument("--app-build", action="append", type=_app_build_arg, default=None,
                        metavar="PACKAGE=VERSIONCODE",
                        help="only pairs built with this build of an app their template touches (repeatable; "
                             "e.g. net.gsantner.markor=146)")


def built_on_selection(args: argparse.Namespace) -> dict[str, tuple]:
    """``kinds`` and ``app_builds`` keyword arguments from :func:`add_built_on_selection`'s options."""
    return {"kinds": tuple(args.device_kind or ()), "app_builds": tuple(args.app_build or ())}
