"""Stress-suite move tables of the Clipboard and Ordered Collection families (seed 002 Appendix F.3/F.4).

d-stress and ``low`` interference use the system-level moves (Overview and notification shade round trips),
which apply in any app and change neither the clipboard nor a playlist or queue."""

from __future__ import annotations

from emukit.builder.stress_model import SYSTEM_NEUTRAL, FamilyTable

CLIPBOARD_TABLE = FamilyTable(family="clipboard", neutral=SYSTEM_NEUTRAL, levels={"low": SYSTEM_NEUTRAL})
ORDERED_TABLE = FamilyTable(family="ordered", neutral=SYSTEM_NEUTRAL, levels={"low": SYSTEM_NEUTRAL})
