"""What every ground-truth probe returns: the canonical state of seed 002 Table 10 plus audit evidence.

Probes are read-only: they never navigate the UI, launch an app or write anything on the device. They read
files (``stat``/``find``/``cat``), pulled database copies, the emulator's gRPC clipboard and the clocks.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from emukit.families import FAMILIES, Family  # noqa: F401 - re-exported by emukit.probes


class ProbeResult(BaseModel):
    """The canonical state JSON (what models are scored against) and the richer evidence kept for audit."""

    family: Family
    canonical: dict[str, Any]
    evidence: dict[str, Any] = Field(default_factory=dict)
