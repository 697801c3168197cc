"""Compare uiautomator dumps captured on a real device with the structure fixtures written from the sources.

    python tools/check_captures.py [FIXTURE_DIR]     # default tests/fixtures/real/hierarchy

For every fixture ``<app>/<screen>.yaml`` with a capture ``<app>/<screen>.capture.xml`` next to it (saved with
``adb exec-out uiautomator dump /dev/tty`` on the pinned AVD, docs/real-devices.md), prints whether the capture
has the structure the fixture describes, and what differs. Exits 1 when a capture does not match.
"""

from __future__ import annotations

import sys
from pathlib import Path

from emukit.apps.structure import match_fixture


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests/fixtures/real/hierarchy"
    fixtures = sorted(root.glob("*/*.yaml"))
    captured = [(f, f.with_suffix(".capture.xml")) for f in fixtures if f.with_suffix(".capture.xml").exists()]
    print(f"{len(fixtures)} fixtures under {root}, {len(captured)} with a capture")
    bad = 0
    for fixture, capture in captured:
        problems = match_fixture(capture.read_text(), fixture)
        print(f"{'ok ' if not problems else 'DIFF'} {fixture.relative_to(root)}")
        for p in problems:
            print(f"     {p}")
        bad += bool(problems)
    missing = [f.relative_to(root) for f in fixtures if not f.with_suffix(".capture.xml").exists()]
    if missing:
        print("not captured yet: " + ", ".join(map(str, missing)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
