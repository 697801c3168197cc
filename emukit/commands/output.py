"""One place for how CLI commands write to the terminal.

Tables and progress bars use rich. Error lines must never be wrapped, so that a
long file path in a message stays on one line whatever the terminal width (or
when output goes to a pipe or a log file).
"""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markup import escape


def make_console(stderr: bool = False) -> Console:
    """A rich console: the terminal's width on a tty, a wide fixed width otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else 140)


def print_error(console: Console, prefix: str, message: object) -> None:
    """``prefix: message`` in red, unwrapped, with no markup read from the message."""
    console.print(f"[red]{escape(prefix)}: {escape(str(message))}[/red]", soft_wrap=True, highlight=False)
