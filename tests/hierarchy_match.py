"""The structure fixtures of the real apps' screens and the matcher that compares a dump with them
(:mod:`emukit.apps.structure`)."""

from __future__ import annotations

from pathlib import Path

from emukit.apps.structure import load_fixture, match_fixture

__all__ = ["FIXTURES", "load_fixture", "match_fixture"]

FIXTURES = Path(__file__).parent / "fixtures" / "real" / "hierarchy"
