"""The virtual device's ``/system/bin/sh``: an mksh-compatible interpreter over a fixed command table.

It is a pure interpreter: commands are Python functions operating on the virtual device (its filesystem,
state, window manager); no host process or host shell is ever started.

The ADB transport calls :func:`run_shell` once per ``shell:`` / ``shell,v2:`` stream.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from emukit.vdevice.device import VirtualDevice

__all__ = ["run_shell"]

# command lines that only read the screen (a screenshot to stdout); every other line may change the device
_READS_SCREEN = re.compile(r"\s*screencap(\s+-p)?\s*")


def run_shell(device: VirtualDevice, command: str, stdout: Callable[[bytes], None],
              stderr: Callable[[bytes], None], stdin: bytes = b"",
              closed: threading.Event | None = None) -> int:
    """Run one command line as Android's ``/system/bin/sh -c`` would and return its exit status.

    Output is delivered through ``stdout``/``stderr`` as each command finishes (in order, never while
    ``device.lock`` is held). ``stdin`` is the input available to the command line. When ``closed`` is set
    (the host closed the stream) long-running commands return and interpretation stops.
    """
    from emukit.vdevice.shell.interp import make_shell

    shell, io = make_shell(device, stdout, stderr, stdin, closed)
    with device.ui_reading() if _READS_SCREEN.fullmatch(command) else device.ui_changing():
        return shell.run(command, io)
