"""CLI error lines stay on one line, whatever the console width."""

from __future__ import annotations

import io

from rich.console import Console

from emukit.commands.output import print_error


def test_error_line_is_not_wrapped_and_markup_is_literal() -> None:
    out = io.StringIO()
    console = Console(file=out, width=40, color_system=None)
    long_path = "/a/very/long/checkout/location/" + "deep/" * 20 + "no_such_spec.yaml"
    print_error(console, "emukit snapshots", f"{long_path}: no such snapshot spec [known: a, b]")
    text = out.getvalue()
    assert text.count("\n") == 1
    assert f"emukit snapshots: {long_path}: no such snapshot spec [known: a, b]" in text
