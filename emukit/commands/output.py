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
    """A rich console: the terminal's width on a tty; otherwise tables 140 columns wide and text lines never
    wrapped (a path or an error in a log stays on one line)."""
    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(stderr=stderr, width=None if tty else 140, soft_wrap=not tty)


def print_error(console: Console, prefix: str, message: object) -> None:
    """``prefix: message`` in red, unwrapped, with no markup read from the message."""
    console.print(f"[red]{escape(prefix)}: {escape(str(message))}[/red]", soft_wrap=True, highlight=False)
