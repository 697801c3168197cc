"""Boundary diversity: how many different prediction boundaries, requests, shared actions and states the
stored pairs hold, per family and per template (docs/audits.md, "emukit audit diversity").

A benchmark whose pairs all show the same screen and request tests one transition many times. For every
template and family this counts, over its pairs:

* ``boundaries``: distinct boundary screenshots (by sha256);
* ``requests``: distinct observation-only requests (the code2world request hash the builder recorded);
* ``shared_actions``: distinct canonical shared actions;
* ``states``: distinct (state A, state B) pairs;
* ``near_duplicates``: boundaries that differ in bytes but not to the eye: their 64-bit difference hash
  (the screenshot in greyscale at 9x8, one bit per horizontal gradient) is within
  :data:`NEAR_BITS` bits of an earlier distinct boundary's.

A template passes when its distinct boundaries and requests are each at least ``min_diversity`` of its
pairs (declared in the template, default :data:`DEFAULT_MIN_DIVERSITY`, the issue's 80 %); a family passes
when its own shares reach :data:`DEFAULT_MIN_DIVERSITY` and every template passes.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from emukit.errors import ConfigError
from emukit.records import PairRecord

DEFAULT_MIN_DIVERSITY = 0.8
NEAR_BITS = 4


def difference_hash(png: bytes) -> int:
    """64-bit dHash of a screenshot: greyscale, 9x8, bit = left pixel brighter than its right neighbour."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("L").resize((9, 8), Image.Resampling.BILINEAR)
        px = list(small.tobytes())
    bits = 0
    for row in range(8):
        for col in range(8):
            bits = (bits << 1) | (px[row * 9 + col] > px[row * 9 + col + 1])
    return bits


@dataclass
class Counts:
    """Diversity of one group of pairs."""

    pairs: int = 0
    boundaries: set[str] = field(default_factory=set)
    requests: set[str] = field(default_factory=set)
    shared_actions: set[str] = field(default_factory=set)
    states: set[str] = field(default_factory=set)
    hashes: dict[str, int] = field(default_factory=dict)  # boundary sha -> dHash

    def add(self, boundary: str, request: str, action: dict[str, Any], states: list[Any]) -> None:
        self.pairs += 1
        self.boundaries.add(boundary)
        self.requests.add(request)
        self.shared_actions.add(json.dumps(action, sort_keys=True))
        self.states.add(json.dumps(states, sort_keys=True))

    def near_duplicates(self) -> int:
        """Distinct boundaries within :data:`NEAR_BITS` bits of an earlier one (in sha order)."""
        kept: list[int] = []
        near = 0
        for sha in sorted(self.hashes):
            h = self.hashes[sha]
            if any(bin(h ^ k).count("1") <= NEAR_BITS for k in kept):
                near += 1
            else:
                kept.append(h)
        return near

    def share(self, what: str) -> float:
        return len(getattr(self, what)) / self.pairs if self.pairs else 0.0

    def row(self) -> dict[str, Any]:
        return {"pairs": self.pairs, "boundaries": len(self.boundaries), "requests": len(self.requests),
                "shared_actions": len(self.shared_actions), "states": len(self.states),
                "near_duplicates": self.near_duplicates()}


@dataclass
class DiversityReport:
    families: dict[str, Counts] = field(default_factory=dict)
    templates: dict[tuple[str, str], Counts] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)  # template -> min share
    family_threshold: float = DEFAULT_MIN_DIVERSITY

    def template_ok(self, family: str, template: str) -> bool:
        c = self.templates[(family, template)]
        need = self.thresholds.get(template, DEFAULT_MIN_DIVERSITY)
        return c.share("boundaries") >= need and c.share("requests") >= need

    def family_ok(self, family: str) -> bool:
        c = self.families[family]
        return (c.share("boundaries") >= self.family_threshold and c.share("requests") >= self.family_threshold
                and all(self.template_ok(f, t) for f, t in self.templates if f == family))

    @property
    def ok(self) -> bool:
        return bool(self.families) and all(self.family_ok(f) for f in self.families)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "family_threshold": self.family_threshold,
                "families": {f: {**c.row(), "ok": self.family_ok(f)} for f, c in sorted(self.families.items())},
                "templates": {f"{f}/{t}": {**c.row(), "min_diversity": self.thresholds.get(t, DEFAULT_MIN_DIVERSITY),
                                           "ok": self.template_ok(f, t)}
                              for (f, t), c in sorted(self.templates.items())}}


def audit_diversity(pairs: Iterable[PairRecord], read_png: Callable[[str], bytes],
                    thresholds: dict[str, float] | None = None) -> DiversityReport:
    """Count the diversity of stored pairs.

    Args:
        pairs: the stored :class:`emukit.records.PairRecord` objects.
        read_png: a boundary screenshot's bytes by its sha256.
        thresholds: each template's declared ``min_diversity``.

    Returns:
        The counts per family and template, and the templates below their threshold.
    """
    report = DiversityReport(thresholds=dict(thresholds or {}))
    dhash: dict[str, int] = {}
    groups: dict[str, list[Counts]] = defaultdict(list)
    for p in pairs:
        boundary = p.branches["A"].boundary_observation.screenshot
        request = p.request_hashes.get("code2world") or next(iter(sorted(p.request_hashes.values())), "")
        states = [p.branches[n].state for n in ("A", "B")]
        fam = report.families.setdefault(p.family, Counts())
        tpl = report.templates.setdefault((p.family, p.template), Counts())
        for c in (fam, tpl):
            c.add(boundary, request, p.shared_action.canonical(), sorted(states, key=json.dumps))
            groups[boundary].append(c)
    if not report.families:
        raise ConfigError("no pairs to audit")
    for sha, counts in groups.items():
        if sha not in dhash:
            dhash[sha] = difference_hash(read_png(sha))
        for c in counts:
            c.hashes[sha] = dhash[sha]
    return report
