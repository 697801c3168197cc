"""The four state families of seed 002 (Persistent Artifact, Clipboard, Ordered Collection, Temporal Deadline),
named once: every layer, every CLI choice and every table order takes the list from here."""

from __future__ import annotations

from typing import Literal, get_args

Family = Literal["persistent", "clipboard", "ordered", "temporal"]

#: the families in the seed's order (the order of every table and report)
FAMILIES: tuple[Family, ...] = get_args(Family)

#: ``--family`` choices of commands that also take every family at once
FAMILY_CHOICES: tuple[str, ...] = (*FAMILIES, "all")
