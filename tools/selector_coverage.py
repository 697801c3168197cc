"""How much of each selector table rests on a public source, and which entries only a device capture confirms.

    python tools/selector_coverage.py [--json]

One row per table (``emukit/apps/tables/<package>/<build>.yaml``): entries, entries with a ``source:``
(repository, commit, path), the fraction, how many of those also say what a capture must confirm (a source
for the id, a capture for a detail such as the displayed case), and the names of the capture-only entries. The goal is 100%; a
capture-only entry is a fact to confirm with a ``uiautomator dump`` of the pinned build (docs/real-devices.md).
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from emukit.apps.selectors import all_tables


def coverage() -> list[dict[str, object]]:
    rows = []
    for t in all_tables():
        sourced = [n for n, e in t.selectors.items() if e.source]
        capture = [n for n, e in t.selectors.items() if not e.source]
        confirm = [n for n, e in t.selectors.items() if e.source and e.capture]
        rows.append({"package": t.package, "build": t.key, "entries": len(t.selectors), "sourced": len(sourced),
                     "capture_only": capture, "sourced_to_confirm": confirm})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    rows = coverage()
    total = sum(int(r["entries"]) for r in rows)  # type: ignore[call-overload]
    sourced = sum(int(r["sourced"]) for r in rows)  # type: ignore[call-overload]
    if args.json:
        print(json.dumps({"tables": rows, "entries": total, "sourced": sourced}, indent=2))
        return 0
    table = Table(title="Selector evidence")
    for col in ("package", "build", "entries", "with source", "of them to confirm", "capture only"):
        table.add_column(col, justify="left" if col in ("package", "capture only") else "right")
    for r in rows:
        n, s = int(r["entries"]), int(r["sourced"])  # type: ignore[call-overload]
        table.add_row(str(r["package"]), str(r["build"]), str(n), f"{s} ({s / n:.0%})",
                      str(len(r["sourced_to_confirm"])),  # type: ignore[arg-type]
                      ", ".join(r["capture_only"]) or "-")  # type: ignore[arg-type]
    console = Console(width=160)
    console.print(table)
    console.print(f"{sourced}/{total} entries have a public source ({sourced / max(total, 1):.1%}); "
                  f"{total - sourced} capture-only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
